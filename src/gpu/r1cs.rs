//! A circuit's recorded matrices on a device, a, b, c evaluated there from a
//! witness, and the A and B MSM scalars picked there from it (cuda/r1cs.cu).

use std::{
    ffi::{c_int, c_void},
    ptr,
};

use anyhow::{ensure, Result};
use blstrs::Scalar as Fr;
use ff::Field;

use super::{
    devices::Device,
    priority_lock::PriorityGuard,
    scalars::DeviceScalars,
    sys::{self, check, RawR1cs},
};
use crate::circuit::{Matrices, PackedWitness, Witness};

/// `Matrices` in a device's memory, with the columns of `z = inputs ++ aux`
/// whose values are the A and B MSM scalars (`Selection`).
pub struct DeviceMatrices {
    pub(super) device: &'static Device,
    raw: *mut c_void,
    rows: usize,
    num_inputs: usize,
    num_aux: usize,
    bytes: usize,
}

/// The scalars of the A or B query: the columns of z their densities pick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    A = 0,
    B = 1,
}

/// The columns of z each selection picks, in query order: all inputs, then
/// the aux variables in A; the inputs and aux variables in B.
fn selections(m: &Matrices) -> Result<[Vec<u32>; 2]> {
    let n = m.num_inputs;
    ensure!(n + m.num_aux <= u32::MAX as usize + 1, "a witness of {} variables has columns beyond u32", n + m.num_aux);
    let column = |i: usize| i as u32;
    let a = (0..n).chain(m.a_aux_density.marked().map(|i| n + i)).map(column).collect();
    let b = m.b_input_density.marked().chain(m.b_aux_density.marked().map(|i| n + i)).map(column).collect();
    Ok([a, b])
}

// SAFETY: the C++ object has no thread affinity, and each call into it
// holds the device's lock, so calls never overlap, but for witness uploads,
// which only read its immutable shape.
unsafe impl Send for DeviceMatrices {}
// SAFETY: as above.
unsafe impl Sync for DeviceMatrices {}

impl Drop for DeviceMatrices {
    fn drop(&mut self) {
        // SAFETY: `raw` came from cuzk_gpu_r1cs_new and is freed once.
        unsafe { sys::cuzk_gpu_r1cs_free(self.raw) }
    }
}

/// a, b and c of a witness, and the seconds the device spent evaluating them.
pub struct DeviceAbc {
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    pub kernel_seconds: f64,
}

impl DeviceMatrices {
    /// Uploads `m` (checked first: the kernels trust its indices).
    pub fn upload(device: &'static Device, m: &Matrices) -> Result<Self> {
        Self::upload_held(device, m, &device.hold(0)?)
    }

    /// `upload`, the caller holding the device's lock (`_held`).
    pub(super) fn upload_held(device: &'static Device, m: &Matrices, _held: &PriorityGuard) -> Result<Self> {
        m.check()?;
        let picks = selections(m)?;
        let csr = [&m.a, &m.b, &m.c];
        let starts = csr.map(|x| x.row_starts.as_ptr());
        let terms = csr.map(|x| x.terms.as_ptr());
        let nterms = csr.map(|x| x.terms.len());
        let (picked, npicked) = (picks.each_ref().map(|p| p.as_ptr()), picks.each_ref().map(Vec::len));
        let mut raw = ptr::null_mut();
        // SAFETY: every pointer is valid for the length given beside it (the
        // row starts for rows + 1, as `check` made sure; the selections'
        // columns are below num_z by construction), read during the call only.
        check(unsafe {
            sys::cuzk_gpu_r1cs_new(
                device.index,
                starts.as_ptr(),
                terms.as_ptr(),
                nterms.as_ptr(),
                m.num_constraints(),
                m.coeffs.as_ptr(),
                m.coeffs.len(),
                m.num_inputs + m.num_aux,
                picked.as_ptr(),
                npicked.as_ptr(),
                &mut raw,
            )
        })?;
        let bytes = Self::bytes_for(m);
        Ok(Self { device, raw, rows: m.num_constraints(), num_inputs: m.num_inputs, num_aux: m.num_aux, bytes })
    }

    /// Device bytes the matrices `m` take once uploaded.
    pub fn bytes_for(m: &Matrices) -> usize {
        let row_starts = 3 * (m.num_constraints() + 1) * 4;
        let picked = m.num_inputs + m.a_aux_density.count() + m.b_input_density.count() + m.b_aux_density.count();
        row_starts + m.num_terms() * std::mem::size_of::<crate::circuit::Term>() + m.coeffs.len() * 32 + picked * 4
    }

    /// Device bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Variables of a witness: inputs and aux.
    pub fn num_z(&self) -> usize {
        self.num_inputs + self.num_aux
    }

    pub(super) fn raw(&self) -> RawR1cs {
        self.raw
    }

    /// Checks that `w` is an assignment of the matrices' shape.
    pub(super) fn check_witness(&self, w: &Witness) -> Result<()> {
        ensure!(
            w.inputs.len() == self.num_inputs && w.aux.len() == self.num_aux,
            "the witness ({} inputs, {} aux variables) does not fit the matrices on the device ({} and {})",
            w.inputs.len(),
            w.aux.len(),
            self.num_inputs,
            self.num_aux
        );
        Ok(())
    }

    /// Device memory for a witness of the matrices' shape. The caller holds
    /// the device's lock: steps size their work by the memory free, so memory
    /// is taken only between them.
    pub(super) fn new_witness(&self, _held: &PriorityGuard) -> Result<DeviceScalars> {
        let mut z = ptr::null_mut();
        // SAFETY: `raw` is live; on success `z` receives num_z scalars of
        // device memory we own.
        check(unsafe { sys::cuzk_gpu_r1cs_witness_new(self.raw, &mut z) })?;
        // SAFETY: as the call's contract says.
        Ok(unsafe { DeviceScalars::from_raw(self.device.index, z, self.num_z()) })
    }

    /// Copies `w` into `z` (from `new_witness`). The caller need not hold
    /// the device: the copy runs on a stream of its own, beside other
    /// proofs' steps.
    pub(super) fn upload_witness(&self, w: &Witness, z: &mut DeviceScalars) -> Result<()> {
        self.check_witness(w)?;
        ensure!(z.len() == self.num_z(), "a witness buffer of {} scalars for {} variables", z.len(), self.num_z());
        // SAFETY: `raw` is live; the witness slices are valid for their
        // lengths, which sum to num_z (checked), the scalars `z` holds on the
        // matrices' device; `z` is borrowed mutably, so nothing reads it
        // meanwhile.
        check(unsafe { sys::cuzk_gpu_r1cs_upload_witness(self.raw, w.inputs.as_ptr(), w.inputs.len(), w.aux.as_ptr(), w.aux.len(), z.as_mut_ptr()) })
    }

    /// Rebuilds the witness that `p` packs in `z` (from `new_witness`). The
    /// caller holds the device's lock: the packed bytes take device memory
    /// while they are unpacked.
    pub(super) fn upload_packed(&self, p: &PackedWitness, z: &mut DeviceScalars, _held: &PriorityGuard) -> Result<()> {
        ensure!(p.len() == self.num_z(), "a packed witness of {} values for {} variables", p.len(), self.num_z());
        ensure!(z.len() == self.num_z(), "a witness buffer of {} scalars for {} variables", z.len(), self.num_z());
        let (ones, others, before) = p.words();
        let words = [ones.as_ptr(), others.as_ptr(), before.as_ptr()];
        let one = Fr::ONE;
        // SAFETY: `raw` is live; the three word slices have the same length,
        // ceil(num_z / 32) (cuda/ checks it), and `p` (made only by
        // PackedWitness::pack) counts in `before` only others that `values`
        // holds, so the kernel reads within it; `one` is a scalar in
        // Montgomery form, as fr_t is; `z` holds num_z scalars on this
        // device and is borrowed mutably.
        check(unsafe {
            sys::cuzk_gpu_r1cs_upload_packed_witness(self.raw, words.as_ptr(), ones.len(), p.values().as_ptr(), p.values().len(), &one, z.as_mut_ptr())
        })
    }

    /// The scalars `which` picks from the witness `z` (from `new_witness`),
    /// in new device memory. The caller holds the device's lock.
    pub(super) fn select(&self, which: Selection, z: &DeviceScalars) -> Result<DeviceScalars> {
        let from = z.range(0, self.num_z())?;
        let (mut out, mut len) = (ptr::null_mut(), 0usize);
        // SAFETY: `raw` is live; `from` holds num_z scalars on this device
        // (checked above); on success `out` receives `len` scalars we own.
        check(unsafe { sys::cuzk_gpu_r1cs_select(self.raw, which as c_int, from, &mut out, &mut len) })?;
        // SAFETY: as the call's contract says: `len` scalars on this device.
        Ok(unsafe { DeviceScalars::from_raw(self.device.index, out, len) })
    }

    /// a, b, c of `w`, into host memory.
    pub fn evaluate(&self, w: &Witness) -> Result<DeviceAbc> {
        self.check_witness(w)?;
        let mut abc = [(); 3].map(|_| Vec::<Fr>::with_capacity(self.rows));
        let out = abc.each_mut().map(|v| v.as_mut_ptr());
        let mut kernel_ms = 0f32;
        let _busy = self.device.hold(0)?;
        // SAFETY: `raw` is live; the witness slices are valid for their
        // lengths; each output has capacity for `rows` scalars, which the
        // call writes in full when it succeeds.
        check(unsafe {
            sys::cuzk_gpu_r1cs_evaluate(self.raw, w.inputs.as_ptr(), w.inputs.len(), w.aux.as_ptr(), w.aux.len(), out.as_ptr(), &mut kernel_ms)
        })?;
        for v in &mut abc {
            // SAFETY: the call succeeded, so all `rows` elements were written.
            unsafe { v.set_len(self.rows) };
        }
        let [a, b, c] = abc;
        Ok(DeviceAbc { a, b, c, kernel_seconds: f64::from(kernel_ms) / 1e3 })
    }
}
