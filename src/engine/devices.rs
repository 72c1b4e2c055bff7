//! The GPUs the engine proves on, whatever the build.

use std::sync::Arc;

use serde::Serialize;

use crate::groth16::ProvingKey;

/// Names of the usable GPUs ("NVIDIA H200"), in device order; empty without
/// the `cuda` feature, or where no device is usable (the reason is logged).
pub fn gpu_names() -> Vec<String> {
    #[cfg(feature = "cuda")]
    return crate::gpu::devices().iter().map(|d| d.name.clone()).collect();
    #[cfg(not(feature = "cuda"))]
    Vec::new()
}

/// Usable GPUs: the engine runs one prover worker per device by default.
pub fn gpu_count() -> usize {
    #[cfg(feature = "cuda")]
    return crate::gpu::devices().len();
    #[cfg(not(feature = "cuda"))]
    0
}

/// Whether every usable GPU of index in `gpus` (at least one) holds `pk`
/// with its circuit's recorded matrices: a witness proved there is
/// evaluated on the device.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
pub fn hold_matrices(pk: &Arc<ProvingKey>, gpus: &[usize]) -> bool {
    #[cfg(feature = "cuda")]
    return crate::gpu::matrices_on_all(gpus, pk);
    #[cfg(not(feature = "cuda"))]
    false
}

/// A GPU in the status report.
#[derive(Clone, Debug, Serialize)]
pub struct GpuStatus {
    pub index: i32,
    pub name: String,
    pub total_bytes: u64,
    /// Free device memory now; `None` if CUDA could not say.
    pub free_bytes: Option<u64>,
    /// Seconds the device has been held for proof steps and uploads since
    /// the process started.
    pub busy_seconds: f64,
    /// Seconds a step has held it past `gpu_step_timeout_seconds`: the
    /// device counts as hung and takes no work until that step returns.
    pub hung_step_seconds: Option<f64>,
}

pub fn gpu_status() -> Vec<GpuStatus> {
    #[cfg(feature = "cuda")]
    return crate::gpu::devices()
        .iter()
        .map(|d| GpuStatus {
            index: d.index as i32,
            name: d.name.clone(),
            total_bytes: d.total_bytes as u64,
            free_bytes: d.free_bytes().ok().map(|b| b as u64),
            busy_seconds: d.lock.held_seconds(),
            hung_step_seconds: d.overrunning().map(|(_, held)| held.as_secs_f64()),
        })
        .collect();
    #[cfg(not(feature = "cuda"))]
    Vec::new()
}

/// How long one proof step may hold a GPU before it counts as hung (see
/// `Config::gpu_step_timeout_seconds`).
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
pub fn set_step_limit(limit: std::time::Duration) {
    #[cfg(feature = "cuda")]
    crate::gpu::set_step_limit(Some(limit));
}

/// A GPU held by a step past the step limit: the step's thread, and what
/// to tell of it.
pub struct HungStep {
    pub thread: std::thread::ThreadId,
    pub what: String,
}

/// The GPUs held by a hung step now.
pub fn hung_steps() -> Vec<HungStep> {
    #[cfg(feature = "cuda")]
    return crate::gpu::devices()
        .iter()
        .filter_map(|d| {
            let (thread, held) = d.overrunning()?;
            let what = format!("GPU {} ({}) has been held by one proof step for {:.0} s", d.index, d.name, held.as_secs_f64());
            Some(HungStep { thread, what })
        })
        .collect();
    #[cfg(not(feature = "cuda"))]
    Vec::new()
}
