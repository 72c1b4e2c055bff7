//! The GPUs the engine proves on, whatever the build.

/// Names of the usable GPUs ("NVIDIA H200"), in device order; empty without
/// the `cuda` feature, or where no device is usable (the reason is logged).
pub fn gpu_names() -> Vec<String> {
    #[cfg(feature = "cuda")]
    return crate::gpu::devices().iter().map(|d| d.name.clone()).collect();
    #[cfg(not(feature = "cuda"))]
    Vec::new()
}
