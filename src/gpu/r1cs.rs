//! A circuit's recorded matrices on a device, and a, b, c evaluated there
//! from a witness (cuda/r1cs.cu).

use std::{ffi::c_void, ptr};

use anyhow::Result;
use blstrs::Scalar as Fr;

use super::{
    devices::Device,
    sys::{self, check},
};
use crate::circuit::{Matrices, Witness};

/// `Matrices` in a device's memory.
pub struct DeviceMatrices {
    device: &'static Device,
    raw: *mut c_void,
    rows: usize,
}

// SAFETY: the C++ object has no thread affinity, and each call into it
// holds the device's lock, so calls never overlap.
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
        m.check()?;
        let csr = [&m.a, &m.b, &m.c];
        let starts = csr.map(|x| x.row_starts.as_ptr());
        let terms = csr.map(|x| x.terms.as_ptr());
        let nterms = csr.map(|x| x.terms.len());
        let mut raw = ptr::null_mut();
        let _busy = device.lock.lock(0);
        // SAFETY: every pointer is valid for the length given beside it (the
        // row starts for rows + 1, as `check` made sure), read during the call only.
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
                &mut raw,
            )
        })?;
        Ok(Self { device, raw, rows: m.num_constraints() })
    }

    /// a, b, c of `w` (whose shape the device checks against the matrices').
    pub fn evaluate(&self, w: &Witness) -> Result<DeviceAbc> {
        let mut abc = [(); 3].map(|_| Vec::<Fr>::with_capacity(self.rows));
        let out = abc.each_mut().map(|v| v.as_mut_ptr());
        let mut kernel_ms = 0f32;
        let _busy = self.device.lock.lock(0);
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
