//! Declarations of the extern "C" functions of cuda/ (compiled by build.rs).
//! Every fallible call returns sppark's error value: code 0, or a CUDA error
//! code with a message that Rust frees.

use std::ffi::{c_char, c_int, c_void};

use anyhow::{bail, Result};
use blst::{blst_p1, blst_p2};
use blstrs::{G1Affine, G2Affine, Scalar as Fr};

use crate::circuit::Term;

/// Mirrors `cuzk_gpu_info_t` in cuda/devices.cu.
#[repr(C)]
pub struct GpuInfo {
    pub name: [c_char; 256],
    pub cuda_ordinal: c_int,
    pub major: c_int,
    pub minor: c_int,
    pub sm_count: c_int,
    pub total_bytes: usize,
    pub free_bytes: usize,
}

/// Which way an MSM goes; mirrors `split_mode_t` in cuda/split_msm.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitMode {
    /// Split where enough scalars are zero or units and the room allows.
    Auto = 0,
    /// Pippenger over every scalar.
    Never = 1,
    /// Split whatever the scalars (tests compare both ways).
    Always = 2,
}

/// What an MSM call found and did; mirrors `msm_split_t` in
/// cuda/split_msm.cuh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsmSplit {
    /// Scalars that were zero (points skipped).
    pub zero: usize,
    /// Scalars that were one or minus one (points added or subtracted).
    pub unit: usize,
    /// The rest (all of them where nothing was counted).
    pub other: usize,
    /// 1 where the units were summed apart and Pippenger ran over the rest.
    pub split: u32,
}

/// An `srs_query_t` object of cuda/srs_msm.cuh.
pub type RawQuery = *mut c_void;

/// A `device_r1cs_t` object of cuda/r1cs.cu.
pub type RawR1cs = *mut c_void;

extern "C" {
    pub fn cuzk_gpu_count(count: *mut usize) -> sppark::Error;
    pub fn cuzk_gpu_info(device: c_int, info: *mut GpuInfo) -> sppark::Error;
    pub fn cuzk_gpu_h_on_device(
        device: c_int,
        a: *const Fr,
        b: *const Fr,
        c: *const Fr,
        len: usize,
        lg_n: u32,
        z_inv: *const Fr,
        scratch: *mut Fr,
        d_h: *mut *mut Fr,
        copy_ms: *mut f32,
    ) -> sppark::Error;
    pub fn cuzk_gpu_h_to_host(device: c_int, d_h: *const Fr, n: usize, h: *mut Fr) -> sppark::Error;
    pub fn cuzk_gpu_scalars_new(device: c_int, host: *const Fr, n: usize, d_out: *mut *mut Fr) -> sppark::Error;
    pub fn cuzk_gpu_free(device: c_int, d_ptr: *mut c_void);
    pub fn cuzk_gpu_g1_query_new(
        device: c_int,
        points: *const G1Affine,
        n: usize,
        resident: bool,
        out: *mut RawQuery,
    ) -> sppark::Error;
    pub fn cuzk_gpu_g1_msm(
        query: RawQuery,
        scalars: *const Fr,
        n: usize,
        room: usize,
        mode: SplitMode,
        did: *mut MsmSplit,
        out: *mut blst_p1,
    ) -> sppark::Error;
    pub fn cuzk_gpu_g1_msm_device(
        query: RawQuery,
        from: usize,
        d_scalars: *const Fr,
        n: usize,
        room: usize,
        mode: SplitMode,
        did: *mut MsmSplit,
        out: *mut blst_p1,
    ) -> sppark::Error;
    pub fn cuzk_gpu_g1_msm_windows(
        query: RawQuery,
        from: usize,
        d_scalars: *const Fr,
        n: usize,
        window_bits: u32,
        first: u32,
        count: u32,
        room: usize,
        max_chunk: usize,
        out: *mut blst_p1,
    ) -> sppark::Error;
    pub fn cuzk_gpu_g1_query_free(query: RawQuery);
    pub fn cuzk_gpu_g2_query_new(
        device: c_int,
        points: *const G2Affine,
        n: usize,
        resident: bool,
        out: *mut RawQuery,
    ) -> sppark::Error;
    pub fn cuzk_gpu_g2_msm(
        query: RawQuery,
        scalars: *const Fr,
        n: usize,
        room: usize,
        mode: SplitMode,
        did: *mut MsmSplit,
        out: *mut blst_p2,
    ) -> sppark::Error;
    pub fn cuzk_gpu_g2_msm_device(
        query: RawQuery,
        from: usize,
        d_scalars: *const Fr,
        n: usize,
        room: usize,
        mode: SplitMode,
        did: *mut MsmSplit,
        out: *mut blst_p2,
    ) -> sppark::Error;
    pub fn cuzk_gpu_g2_query_free(query: RawQuery);
    pub fn cuzk_gpu_r1cs_new(
        device: c_int,
        row_starts: *const *const u32,
        terms: *const *const Term,
        nterms: *const usize,
        rows: usize,
        coeffs: *const Fr,
        ncoeffs: usize,
        num_z: usize,
        selections: *const *const u32,
        nselected: *const usize,
        out: *mut RawR1cs,
    ) -> sppark::Error;
    pub fn cuzk_gpu_r1cs_evaluate(
        r1cs: RawR1cs,
        inputs: *const Fr,
        num_inputs: usize,
        aux: *const Fr,
        num_aux: usize,
        out: *const *mut Fr,
        kernel_ms: *mut f32,
    ) -> sppark::Error;
    pub fn cuzk_gpu_r1cs_witness_new(r1cs: RawR1cs, d_z: *mut *mut Fr) -> sppark::Error;
    pub fn cuzk_gpu_r1cs_upload_witness(
        r1cs: RawR1cs,
        inputs: *const Fr,
        num_inputs: usize,
        aux: *const Fr,
        num_aux: usize,
        d_z: *mut Fr,
    ) -> sppark::Error;
    pub fn cuzk_gpu_r1cs_upload_packed_witness(
        r1cs: RawR1cs,
        words: *const *const u32,
        nwords: usize,
        values: *const Fr,
        nvalues: usize,
        one: *const Fr,
        d_z: *mut Fr,
    ) -> sppark::Error;
    pub fn cuzk_gpu_h_of_witness(
        r1cs: RawR1cs,
        d_z: *const Fr,
        lg_n: u32,
        z_inv: *const Fr,
        scratch: *mut Fr,
        d_h: *mut *mut Fr,
        copy_ms: *mut f32,
        abc_ms: *mut f32,
    ) -> sppark::Error;
    pub fn cuzk_gpu_r1cs_select(r1cs: RawR1cs, q: c_int, d_z: *const Fr, d_out: *mut *mut Fr, len: *mut usize) -> sppark::Error;
    pub fn cuzk_gpu_r1cs_free(r1cs: RawR1cs);
}

/// `Ok` for code 0, else the message of the error.
pub fn check(err: sppark::Error) -> Result<()> {
    if err.code == 0 {
        return Ok(());
    }
    bail!("CUDA error {}: {}", err.code, String::from(&err))
}
