//! Scalars in a device's memory: allocated by cuda/, freed on drop.

use std::os::raw::c_int;

use anyhow::{ensure, Result};
use blstrs::Scalar as Fr;

use super::{
    devices::Device,
    sys::{self, check},
};

pub struct DeviceScalars {
    device: c_int,
    ptr: *mut Fr,
    len: usize,
}

// SAFETY: device memory has no thread affinity; cuzk reads and frees it only
// while holding its device's lock or owning it alone.
unsafe impl Send for DeviceScalars {}
// SAFETY: as above; shared references only pass the pointer to cuda/ calls.
unsafe impl Sync for DeviceScalars {}

impl DeviceScalars {
    /// # Safety
    /// `ptr` holds `len` scalars on `device`, allocated by cuda/ (freed with
    /// cuzk_gpu_free) and owned by nothing else.
    pub(super) unsafe fn from_raw(device: c_int, ptr: *mut Fr, len: usize) -> Self {
        Self { device, ptr, len }
    }

    /// `host` copied into new memory of `device`.
    pub fn upload(device: &Device, host: &[Fr]) -> Result<Self> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: `host` is valid for its length; on success `ptr` receives
        // that many scalars of device memory we own.
        check(unsafe { sys::cuzk_gpu_scalars_new(device.index, host.as_ptr(), host.len(), &mut ptr) })?;
        Ok(Self { device: device.index, ptr, len: host.len() })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device pointer of scalars `from..from + n`, checked to lie within.
    pub(super) fn range(&self, from: usize, n: usize) -> Result<*const Fr> {
        ensure!(from.checked_add(n).is_some_and(|end| end <= self.len), "scalars {from}..+{n} of {} on the device", self.len);
        // SAFETY: `from <= len`, so the offset stays within the allocation.
        Ok(unsafe { self.ptr.add(from) })
    }

    /// The device pointer, for a call that writes the scalars.
    pub(super) fn as_mut_ptr(&mut self) -> *mut Fr {
        self.ptr
    }

    /// The first `n` scalars, copied to the host.
    pub fn to_host(&self, n: usize) -> Result<Vec<Fr>> {
        let from = self.range(0, n)?;
        let mut host: Vec<Fr> = Vec::with_capacity(n);
        // SAFETY: `from` holds `n` scalars on `device` (checked above); `host`
        // has room for them, all written before the call returns success.
        check(unsafe { sys::cuzk_gpu_h_to_host(self.device, from, n, host.as_mut_ptr()) })?;
        // SAFETY: the call succeeded, so all `n` scalars were written.
        unsafe { host.set_len(n) };
        Ok(host)
    }
}

impl Drop for DeviceScalars {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from cuda/ on `device` (see from_raw), freed once.
        unsafe { sys::cuzk_gpu_free(self.device, self.ptr.cast()) }
    }
}
