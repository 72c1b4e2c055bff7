//! Where a proof runs: on a GPU when the `cuda` feature found one, else on the
//! CPU. A GPU failure (out of memory, a CUDA error) never aborts: as the
//! configuration's `gpu_fallback` says, the proof is retried on the CPU or
//! fails with the error.

use std::sync::Arc;

use anyhow::Result;

pub use super::config::GpuFailure;
use crate::{
    circuit::Assignment,
    groth16::{self, cpu::Cpu, Proof, ProvingKey, StageTimes},
};
use blstrs::Scalar as Fr;
#[cfg(any(feature = "cuda", test))]
use {
    crate::{
        circuit::{Matrices, PackedWitness, Witness},
        groth16::{Backend, G1Query, HTerm, MsmScalars},
    },
    blstrs::{G1Projective, G2Projective},
};

/// Under `policy`, a GPU failure to return, or `None` (logged) to prove on
/// the CPU instead.
#[cfg(any(feature = "cuda", test))]
fn returned(policy: GpuFailure, error: anyhow::Error) -> Option<anyhow::Error> {
    if policy == GpuFailure::Error {
        return Some(error);
    }
    log::warn!("cuzk: {error:#}; proving on the CPU");
    None
}

/// A Groth16 proof of `cs` under `pk` with randomisers `r`, `s`, GPU
/// failures handled as `policy` says.
pub fn prove_under(policy: GpuFailure, pk: &Arc<ProvingKey>, cs: impl Into<Assignment>, r: Fr, s: Fr) -> Result<Proof> {
    prove_timed(policy, Placement::ANY, pk, cs, r, s).map(|t| t.proof)
}

/// Puts `pk`, and its recorded matrices if it has them, on a GPU that `on`
/// allows now, as the proofs placed there will find it (within their GPU
/// memory budget), so that the first proof under it does not pay the upload.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
pub fn warm(pk: &Arc<ProvingKey>, on: Placement) -> Result<()> {
    #[cfg(feature = "cuda")]
    if let Some(gpu) = crate::gpu::GpuProver::acquire_among(pk, on.gpus, on.rank, on.gpu_memory_budget) {
        let gpu = gpu?;
        if let Some(m) = pk.matrices.get() {
            gpu.upload_matrices(m)?;
        }
    }
    Ok(())
}

/// A proof, where it was computed and how long its steps took.
pub struct Timed {
    pub proof: Proof,
    /// The GPU's index; `None` on the CPU.
    pub gpu: Option<usize>,
    pub stages: StageTimes,
}

/// Host bytes taken from the engine's budget for one step, given back when
/// dropped.
pub struct HostBytes<'a>(Option<Box<dyn FnOnce() + 'a>>);

impl<'a> HostBytes<'a> {
    /// Bytes taken until this is dropped, then given back by `give_back`.
    pub fn taken(give_back: impl FnOnce() + 'a) -> Self {
        HostBytes(Some(Box::new(give_back)))
    }
}

impl Drop for HostBytes<'_> {
    fn drop(&mut self) {
        if let Some(give_back) = self.0.take() {
            give_back();
        }
    }
}

/// Takes host bytes from the engine's budget now, or says why it cannot.
pub type HostRoom<'a> = &'a (dyn Fn(u64) -> Result<HostBytes<'a>> + Sync);

/// Which GPUs a proof may run on, how urgently its steps take one, and
/// where a step retried on the CPU gets the host memory it needs.
#[derive(Clone, Copy)]
pub struct Placement<'a> {
    /// Indices among the usable devices; `None`: any.
    pub gpus: Option<&'a [usize]>,
    /// The job's priority rank (0 first): between two steps of a proof, a
    /// GPU goes to the most urgent step waiting for it.
    pub rank: u8,
    /// Bytes of a GPU's memory cuzk may hold (`Config::gpu_memory_budget`);
    /// `None`: what is free.
    pub gpu_memory_budget: Option<u64>,
    /// The budget a witness's H step retried on the CPU takes its a, b, c
    /// and H's vectors from (memory its partition was not admitted with: a
    /// 32 GiB partition's is tens of GB); `None`: unbounded.
    pub host_room: Option<HostRoom<'a>>,
}

impl Placement<'_> {
    pub const ANY: Placement<'static> = Placement { gpus: None, rank: 0, gpu_memory_budget: None, host_room: None };
}

/// As `prove_under`, placed as `on` says, with where and how long. `cs` is
/// consumed: a synthesized circuit's a, b, c are freed once H is done (see
/// `groth16::prove_timed`), so a GPU step that fails later is retried on the
/// CPU alone, from the steps already done. A witness's H step retried on the
/// CPU evaluates a, b and c there, in memory taken from `on.host_room` for
/// the step (the retry is refused, and the proof fails, when it has none).
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
pub fn prove_timed(
    policy: GpuFailure,
    on: Placement,
    pk: &Arc<ProvingKey>,
    cs: impl Into<Assignment>,
    r: Fr,
    s: Fr,
) -> Result<Timed> {
    let cs = cs.into();
    #[cfg(feature = "cuda")]
    if let Some(gpu) = crate::gpu::GpuProver::acquire_among(pk, on.gpus, on.rank, on.gpu_memory_budget) {
        match gpu {
            Ok(gpu) => {
                let device = gpu.device();
                let cpu = Cpu(pk);
                let h_on_cpu = super::estimate::cpu_h_of_witness_bytes(pk);
                let retrying = StepsRetried { gpu: &gpu, cpu: &cpu, host_room: on.host_room, h_on_cpu };
                let backend: &dyn Backend = if policy == GpuFailure::Error { &gpu } else { &retrying };
                let (proof, stages) = groth16::prove_timed(backend, pk, cs, r, s)
                    .map_err(|e| e.context(format!("proving on GPU {} ({})", device.index, device.name)))?;
                log::debug!("cuzk: proved on GPU {} (key parts on the device: {:?})", device.index, gpu.residency());
                return Ok(Timed { proof, gpu: usize::try_from(device.index).ok(), stages });
            }
            Err(e) => {
                if let Some(e) = returned(policy, e) {
                    return Err(e);
                }
            }
        }
    }
    let (proof, stages) = groth16::prove_timed(&Cpu(pk), pk, cs, r, s)?;
    Ok(Timed { proof, gpu: None, stages })
}

/// The GPU's steps, each retried on the CPU when it fails: every step's
/// result is the same whichever computes it.
#[cfg(any(feature = "cuda", test))]
struct StepsRetried<'a, 'r> {
    gpu: &'a dyn Backend,
    cpu: &'a dyn Backend,
    host_room: Option<HostRoom<'r>>,
    /// Host bytes a witness's H step takes on the CPU.
    h_on_cpu: u64,
}

#[cfg(any(feature = "cuda", test))]
impl StepsRetried<'_, '_> {
    /// `on` the GPU, else on the CPU with `host_bytes` (memory the step
    /// takes there beyond its partition's) taken from `host_room` first.
    fn retried<T>(&self, step: &str, host_bytes: u64, on: impl Fn(&dyn Backend) -> Result<T>) -> Result<T> {
        on(self.gpu).or_else(|e| {
            let _room = match self.host_room {
                Some(take) if host_bytes > 0 => Some(
                    take(host_bytes).map_err(|refused| refused.context(format!("GPU {step}: {e:#}; not retried on the CPU")))?,
                ),
                _ => None,
            };
            log::warn!("cuzk: GPU {step}: {e:#}; retrying it on the CPU");
            on(self.cpu)
        })
    }
}

#[cfg(any(feature = "cuda", test))]
impl Backend for StepsRetried<'_, '_> {
    fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<HTerm> {
        self.retried("H", 0, |be| be.h_term(a, b, c))
    }

    fn h_term_of_witness(&self, m: &Matrices, w: &Witness, packed: Option<&PackedWitness>) -> Result<HTerm> {
        self.retried("H", self.h_on_cpu, |be| be.h_term_of_witness(m, w, packed))
    }

    fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective> {
        self.retried("MSM", 0, |be| be.msm_g1(query, scalars))
    }

    fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective> {
        self.retried("MSM B G2", 0, |be| be.msm_b_g2(scalars))
    }

    fn msm_g1_over(&self, query: G1Query, scalars: &MsmScalars) -> Result<G1Projective> {
        self.retried("MSM", 0, |be| be.msm_g1_over(query, scalars))
    }

    fn msm_b_g2_over(&self, scalars: &MsmScalars) -> Result<G2Projective> {
        self.retried("MSM B G2", 0, |be| be.msm_b_g2_over(scalars))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPU backend, failing at one step as a GPU out of memory would.
    struct FailsAt(&'static str, Cpu<'static>);

    impl Backend for FailsAt {
        fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<HTerm> {
            anyhow::ensure!(self.0 != "h", "CUDA error 2: out of memory");
            self.1.h_term(a, b, c)
        }
        fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective> {
            anyhow::ensure!(self.0 != "l" || query != G1Query::L, "CUDA error 2: out of memory");
            self.1.msm_g1(query, scalars)
        }
        fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective> {
            anyhow::ensure!(self.0 != "b2", "CUDA error 2: out of memory");
            self.1.msm_b_g2(scalars)
        }
    }

    #[test]
    fn a_failed_step_is_redone_on_the_cpu_and_the_proof_is_the_same() {
        use crate::{circuit::{synthesize, MulChain}, groth16::synthetic_srs};
        let cs = synthesize(MulChain { start: Fr::from(5u64), links: 300 }).unwrap();
        let pk: &'static ProvingKey = Box::leak(Box::new(synthetic_srs::key_for(&cs, 9)));
        let (r, s) = (Fr::from(7u64), Fr::from(9u64));
        let cpu = Cpu(pk);
        let expected = groth16::prove(pk, cs.clone(), r, s).unwrap();
        for step in ["h", "l", "b2"] {
            let failing = FailsAt(step, Cpu(pk));
            assert!(groth16::prove_timed(&failing, pk, cs.clone(), r, s).is_err(), "{step}");
            let retried = StepsRetried { gpu: &failing, cpu: &cpu, host_room: None, h_on_cpu: 0 };
            let (proof, _) = groth16::prove_timed(&retried, pk, cs.clone(), r, s).unwrap();
            assert_eq!(proof, expected, "{step}");
        }
    }

    #[test]
    fn a_witness_h_retried_on_the_cpu_takes_its_memory_from_the_budget_or_fails() {
        use std::sync::atomic::{AtomicU64, Ordering};

        use crate::{circuit::{record, MulChain}, groth16::synthetic_srs};
        let (m, w) = record(MulChain { start: Fr::from(5u64), links: 300 }).unwrap();
        let pk: &'static ProvingKey = Box::leak(Box::new(synthetic_srs::key_for(&m.evaluate(w.clone()).unwrap(), 9)));
        let (cpu, failing) = (Cpu(pk), FailsAt("h", Cpu(pk)));
        let expected = cpu.h_term_of_witness(&m, &w, None).unwrap().term;
        let counter = AtomicU64::new(0);
        let taken = &counter;
        let budget = 1000u64;
        let take = |bytes: u64| -> Result<HostBytes<'_>> {
            anyhow::ensure!(taken.load(Ordering::SeqCst) + bytes <= budget, "the host budget has no {bytes} bytes free");
            taken.fetch_add(bytes, Ordering::SeqCst);
            Ok(HostBytes::taken(move || {
                taken.fetch_sub(bytes, Ordering::SeqCst);
            }))
        };
        let within = StepsRetried { gpu: &failing, cpu: &cpu, host_room: Some(&take), h_on_cpu: budget };
        assert_eq!(within.h_term_of_witness(&m, &w, None).unwrap().term, expected);
        assert_eq!(taken.load(Ordering::SeqCst), 0, "the bytes were given back after the step");
        let beyond = StepsRetried { gpu: &failing, cpu: &cpu, host_room: Some(&take), h_on_cpu: budget + 1 };
        let e = format!("{:#}", beyond.h_term_of_witness(&m, &w, None).unwrap_err());
        assert!(e.contains("not retried on the CPU") && e.contains("out of memory") && e.contains("no 1001 bytes"), "{e}");
    }

    #[test]
    fn a_gpu_failure_is_retried_on_the_cpu_or_returned_never_lost() {
        let oom = || anyhow::anyhow!("CUDA error 2: out of memory");
        assert!(returned(GpuFailure::RetryOnCpu, oom()).is_none());
        let e = returned(GpuFailure::Error, oom()).expect("the error is returned");
        assert!(format!("{e:#}").contains("out of memory"));
    }
}
