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
    parse_policy(std::env::var("CUZK_GPU_FALLBACK").ok().as_deref())
}

fn parse_policy(value: Option<&str>) -> GpuFailure {
    match value {
        Some("error") => GpuFailure::Error,
        Some("cpu") | None => GpuFailure::RetryOnCpu,
        Some(other) => {
            log::warn!("cuzk: CUZK_GPU_FALLBACK={other:?} is neither `cpu` nor `error`: retrying on the CPU");
            GpuFailure::RetryOnCpu
        }
    }
}

/// What a GPU attempt leaves to do under `policy`: its outcome to return, or
/// `None` to prove on the CPU.
#[cfg(any(feature = "cuda", test))]
fn settle(policy: GpuFailure, attempt: Result<Proof>) -> Option<Result<Proof>> {
    match attempt {
        Ok(proof) => Some(Ok(proof)),
        Err(e) if policy == GpuFailure::Error => Some(Err(e)),
        Err(e) => {
            log::warn!("cuzk: {e:#}; retrying on the CPU");
            None
        }
    }
}

/// A Groth16 proof of `cs` under `pk` with randomisers `r`, `s`, GPU failures
/// handled as `CUZK_GPU_FALLBACK` says.
pub fn prove(pk: &Arc<ProvingKey>, cs: Synthesized, r: Fr, s: Fr) -> Result<Proof> {
    prove_under(gpu_failure_policy(), pk, cs, r, s)
}

/// As `prove`, GPU failures handled as `policy` says.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
pub fn prove_under(policy: GpuFailure, pk: &Arc<ProvingKey>, cs: Synthesized, r: Fr, s: Fr) -> Result<Proof> {
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
        if let Some(outcome) = settle(policy, attempt) {
            return outcome;
        }
    }
    groth16::prove(pk, cs, r, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::groth16::Proof;
    use group::Group;

    fn a_proof() -> Proof {
        Proof { a: blstrs::G1Projective::generator().into(), b: blstrs::G2Projective::generator().into(), c: blstrs::G1Projective::generator().into() }
    }

    #[test]
    fn the_policy_comes_from_the_variable_and_defaults_to_the_cpu() {
        assert_eq!(parse_policy(None), GpuFailure::RetryOnCpu);
        assert_eq!(parse_policy(Some("cpu")), GpuFailure::RetryOnCpu);
        assert_eq!(parse_policy(Some("error")), GpuFailure::Error);
        assert_eq!(parse_policy(Some("abort")), GpuFailure::RetryOnCpu);
    }

    #[test]
    fn a_gpu_failure_is_retried_on_the_cpu_or_returned_never_lost() {
        let oom = || Err(anyhow::anyhow!("CUDA error 2: out of memory"));
        assert!(settle(GpuFailure::RetryOnCpu, oom()).is_none());
        let returned = settle(GpuFailure::Error, oom()).expect("the error is returned");
        assert!(format!("{:#}", returned.unwrap_err()).contains("out of memory"));
        for policy in [GpuFailure::RetryOnCpu, GpuFailure::Error] {
            assert!(matches!(settle(policy, Ok(a_proof())), Some(Ok(_))));
        }
    }
}
