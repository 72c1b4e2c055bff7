//! The CUDA devices cuzk proves on, found once per process. `BELLMAN_NO_GPU`
//! (any value but "0") turns the GPU off; `CUDA_VISIBLE_DEVICES` is honoured by
//! the CUDA runtime itself. No usable device means the CPU path, with the
//! reason logged.

use std::{ffi::CStr, os::raw::c_int, sync::atomic::AtomicUsize, thread::ThreadId, time::Duration};

use anyhow::{Context, Result};
use once_cell::sync::Lazy;

use super::sys::{self, check, GpuInfo};
use super::priority_lock::{PriorityGuard, PriorityLock};

pub struct Device {
    /// Index among the usable devices (what cuda/ calls `device`).
    pub index: c_int,
    pub name: String,
    pub cuda_ordinal: i32,
    pub compute_capability: (i32, i32),
    pub total_bytes: usize,
    /// Held for one proof step (H, an MSM) or one upload at a time: steps of
    /// several proofs interleave, the most urgent proof's first.
    pub(crate) lock: PriorityLock,
    /// Proofs assigned to the device now (new proofs go to the least loaded).
    pub(crate) proofs: AtomicUsize,
}

impl Device {
    /// Device memory free now: free on the device or idle in its pool.
    pub fn free_bytes(&self) -> Result<usize> {
        Ok(info(self.index)?.free_bytes)
    }

    /// Holds the device as one proof step does, at `rank` (0 first): other
    /// proofs' steps wait until the guard is dropped. Fails when the step
    /// holding it now has overrun `set_step_limit`'s limit (taken as hung).
    pub fn hold(&self, rank: u8) -> Result<PriorityGuard<'_>> {
        self.lock.lock(rank).with_context(|| format!("GPU {} ({})", self.index, self.name))
    }

    /// The thread of a step holding the device past the step limit, and
    /// for how long: the device counts as hung until that step returns.
    pub fn overrunning(&self) -> Option<(ThreadId, Duration)> {
        self.lock.overrunning()
    }
}

/// How long one step may hold a device before it counts as hung (`None`:
/// without limit), for every device.
pub fn set_step_limit(limit: Option<Duration>) {
    for d in devices() {
        d.lock.set_overrun_limit(limit);
    }
}

fn info(index: c_int) -> Result<GpuInfo> {
    let mut info = std::mem::MaybeUninit::<GpuInfo>::zeroed();
    // SAFETY: `info` is a writable GpuInfo; cuda/devices.cu fills it or errs.
    check(unsafe { sys::cuzk_gpu_info(index, info.as_mut_ptr()) })?;
    // SAFETY: zero-initialised and then written by C: every field is valid.
    Ok(unsafe { info.assume_init() })
}

fn disabled_by_env() -> bool {
    std::env::var("BELLMAN_NO_GPU").is_ok_and(|v| v != "0")
}

fn discover() -> Result<Vec<Device>> {
    let mut count = 0usize;
    // SAFETY: `count` is a valid out-pointer.
    check(unsafe { sys::cuzk_gpu_count(&mut count) })?;
    (0..count as c_int)
        .map(|index| {
            let i = info(index)?;
            // SAFETY: cuda/devices.cu NUL-terminates the name within its array.
            let name = unsafe { CStr::from_ptr(i.name.as_ptr()) }.to_string_lossy().into_owned();
            Ok(Device {
                index,
                name,
                cuda_ordinal: i.cuda_ordinal,
                compute_capability: (i.major, i.minor),
                total_bytes: i.total_bytes,
                lock: PriorityLock::default(),
                proofs: AtomicUsize::new(0),
            })
        })
        .collect()
}

static DEVICES: Lazy<Vec<Device>> = Lazy::new(|| {
    if disabled_by_env() {
        log::info!("cuzk: BELLMAN_NO_GPU is set: proving on the CPU");
        return Vec::new();
    }
    match discover() {
        Ok(devices) if devices.is_empty() => {
            log::info!("cuzk: no usable CUDA device (compute capability >= 7.0): proving on the CPU");
            devices
        }
        Ok(devices) => {
            for d in &devices {
                log::info!(
                    "cuzk: GPU {} {} (CUDA device {}, sm_{}{}, {} MiB)",
                    d.index,
                    d.name,
                    d.cuda_ordinal,
                    d.compute_capability.0,
                    d.compute_capability.1,
                    d.total_bytes >> 20
                );
            }
            devices
        }
        Err(e) => {
            log::warn!("cuzk: CUDA unavailable ({e:#}): proving on the CPU");
            Vec::new()
        }
    }
});

/// The usable devices; empty when there is none, or the GPU is turned off.
pub fn devices() -> &'static [Device] {
    &DEVICES
}

/// The usable devices of index in `allowed` (`None`: all), those held by a
/// hung step left out.
pub fn devices_among(allowed: Option<&[usize]>) -> impl Iterator<Item = &'static Device> + '_ {
    devices()
        .iter()
        .filter(move |d| allowed.is_none_or(|a| usize::try_from(d.index).is_ok_and(|i| a.contains(&i))))
        .filter(|d| d.overrunning().is_none())
}
