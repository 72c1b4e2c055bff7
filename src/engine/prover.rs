//! Where a proof runs: on a GPU when the `cuda` feature found one, else on the
//! CPU. A GPU failure (out of memory, a CUDA error) never aborts: by default
//! the proof is retried on the CPU; `CUZK_GPU_FALLBACK=error` returns the
//! error instead.

use std::sync::Arc;

use anyhow::Result;
use blstrs::Scalar as Fr;

use crate::{
    circuit::Synthesized,
    groth16::{self, Proof, ProvingKey},
};

/// What to do when the GPU fails a proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuFailure {
    RetryOnCpu,
    Error,
}

/// `CUZK_GPU_FALLBACK`: `cpu` (the default) or `error`.
pub fn gpu_failure_policy() -> GpuFailure {
    match std::env::var("CUZK_GPU_FALLBACK").as_deref() {
        Ok("error") => GpuFailure::Error,
        Ok("cpu") | Err(_) => GpuFailure::RetryOnCpu,
        Ok(other) => {
            log::warn!("cuzk: CUZK_GPU_FALLBACK={other:?} is neither `cpu` nor `error`: retrying on the CPU");
            GpuFailure::RetryOnCpu
        }
    }
}

/// A Groth16 proof of `cs` under `pk` with randomisers `r`, `s`.
pub fn prove(pk: &Arc<ProvingKey>, cs: Synthesized, r: Fr, s: Fr) -> Result<Proof> {
    #[cfg(feature = "cuda")]
    if let Some(gpu) = crate::gpu::GpuProver::acquire(pk) {
        let attempt = gpu.and_then(|gpu| {
            let device = gpu.device();
            let proof = groth16::prove_with(&gpu, pk, &cs, r, s)
                .map_err(|e| e.context(format!("proving on GPU {} ({})", device.index, device.name)))?;
            let key = if gpu.key_resident() { "resident" } else { "streamed" };
            log::debug!("cuzk: proved on GPU {} (key {key})", device.index);
            Ok(proof)
        });
        match attempt {
            Ok(proof) => return Ok(proof),
            Err(e) if gpu_failure_policy() == GpuFailure::Error => return Err(e),
            Err(e) => log::warn!("cuzk: {e:#}; retrying on the CPU"),
        }
    }
    groth16::prove(pk, cs, r, s)
}
