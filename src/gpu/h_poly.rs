//! The H polynomial on a device: its coefficients stay in device memory for
//! the H MSM, and come back to the host only when asked (tests, benchmarks).

use std::{os::raw::c_int, ptr};

use anyhow::{Context, Result};
use blstrs::Scalar as Fr;

use super::{
    devices::Device,
    sys::{self, check},
};
use crate::groth16::ntt::Domain;

/// The coefficients of H in device memory, `domain - 1` of them in use.
pub struct DeviceH {
    device: c_int,
    ptr: *mut Fr,
    domain: usize,
}

impl DeviceH {
    pub(super) fn as_ptr(&self) -> *const Fr {
        self.ptr
    }

    /// The coefficients the SRS has points for.
    pub fn len(&self) -> usize {
        self.domain - 1
    }

    pub fn to_host(&self) -> Result<Vec<Fr>> {
        let mut h: Vec<Fr> = Vec::with_capacity(self.domain);
        // SAFETY: `ptr` holds `domain` scalars on `device`; `h` has room for
        // them, all written before the call returns success.
        check(unsafe { sys::cuzk_gpu_h_to_host(self.device, self.ptr, self.domain, h.as_mut_ptr()) })?;
        // SAFETY: the call succeeded, so all `domain` scalars were written.
        unsafe { h.set_len(self.domain) };
        h.truncate(self.len());
        Ok(h)
    }
}

impl Drop for DeviceH {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from cuzk_gpu_h_on_device on `device`, freed once.
        unsafe { sys::cuzk_gpu_free(self.device, self.ptr.cast()) }
    }
}

/// H from the evaluations of A, B and C; `None` for a one-point domain, where H
/// has no coefficients. The caller holds the device's lock.
pub fn h_on_device(device: &Device, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<Option<DeviceH>> {
    anyhow::ensure!(a.len() == b.len() && b.len() == c.len(), "A, B and C differ in length");
    let domain = Domain::new(a.len())?;
    if domain.size() == 1 {
        return Ok(None);
    }
    let z_inv = domain.vanishing_on_coset_inverse();
    let mut d_h = ptr::null_mut();
    // SAFETY: a, b, c hold `a.len()` scalars each, at most the domain's size;
    // on success `d_h` receives device memory we own (freed by DeviceH).
    check(unsafe {
        sys::cuzk_gpu_h_on_device(
            device.index,
            a.as_ptr(),
            b.as_ptr(),
            c.as_ptr(),
            a.len(),
            domain.size().trailing_zeros(),
            &z_inv,
            &mut d_h,
        )
    })
    .context("GPU NTT")?;
    Ok(Some(DeviceH { device: device.index, ptr: d_h, domain: domain.size() }))
}
