//! The host memory a partition holds from the start of its synthesis to the
//! end of its proof, estimated from the proving key (the circuit is not known
//! before it is synthesized) and from where its a, b and c are evaluated.
//! With N the key's domain size (`h.len() + 1`, at least the number of
//! constraints) and V its variables (inputs + aux: `ic.len() + l.len()`), 32
//! bytes per field element, the partition holds its assignment (V)
//! throughout, and at most one of:
//!
//! - until H is done: the a, b, c evaluations (3 N), and on the CPU the three
//!   domain-size vectors of the H polynomial (3 N more; a GPU computes H in
//!   device memory instead). A witness proved on a GPU that holds its
//!   circuit's matrices holds neither: a, b and c are evaluated in device
//!   memory (the key's memory counts the matrices);
//! - after H (a, b, c freed): the A or the B MSM scalars, one at a time (V
//!   at most), picked in host memory unless the GPU holding the witness
//!   picks them on the device (then the partition holds its witness alone).
//!
//! Densities (one bit per variable) and proofs are negligible. The estimate is
//! an upper bound for every circuit cuzk proves: their constraint counts fill
//! most of the domain, and every variable is counted once per copy. Not
//! counted: a PoRep partition synthesized in pieces briefly holds one piece
//! twice while appending it (one challenge of 18 at 32 GiB, ~0.9 GB); a
//! piece is dropped once appended, and each of its bytes is either in a
//! piece or in the partition, so the two never hold its memory twice. Nor
//! a witness step that falls back to the host after its partition started
//! because its GPU dropped the matrices for another key: it evaluates a, b
//! and c in host memory. A witness's H step that failed on the GPU is
//! retried on the CPU only with `cpu_h_of_witness_bytes` taken from the
//! budget for the step (engine/prover.rs).

use std::sync::Arc;

use super::{
    config::Config,
    devices,
};
use crate::groth16::ProvingKey;

const FIELD_BYTES: u64 = 32;

/// Where a partition's a, b and c are evaluated, which decides what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// By the CPU prover, in host memory, beside H's vectors.
    Cpu,
    /// In host memory, for a GPU prover: a witness whose circuit's matrices
    /// are not on the GPUs.
    HostForGpu,
    /// On a GPU holding the circuit's matrices, from the witness.
    Gpu,
}

impl Evaluation {
    /// How a partition starting now is evaluated: on the CPU without GPUs,
    /// else on them when they all hold its circuit's matrices
    /// (`matrices_on_gpus`, asked only where there are GPUs).
    pub fn of(gpus: usize, matrices_on_gpus: impl FnOnce() -> bool) -> Self {
        match gpus {
            0 => Evaluation::Cpu,
            _ if matrices_on_gpus() => Evaluation::Gpu,
            _ => Evaluation::HostForGpu,
        }
    }
}

/// Estimated peak host bytes of one partition under `pk`, its a, b and c
/// evaluated as `at` says.
pub fn partition_bytes(pk: &ProvingKey, at: Evaluation) -> u64 {
    let domain = pk.h.len() as u64 + 1;
    let variables = (pk.vk.ic.len() + pk.l.len()) as u64;
    let later = match at {
        Evaluation::Cpu => (6 * domain).max(variables),
        Evaluation::HostForGpu => (3 * domain).max(variables),
        Evaluation::Gpu => 0,
    };
    FIELD_BYTES * (variables + later)
}

/// Host bytes a witness's H step under `pk` takes when it runs on the CPU
/// (a GPU that failed it): what a CPU partition holds beyond the witness.
pub fn cpu_h_of_witness_bytes(pk: &ProvingKey) -> u64 {
    partition_bytes(pk, Evaluation::Cpu) - partition_bytes(pk, Evaluation::Gpu)
}

/// The estimate for a partition under `pk` that starts now, proved as
/// `config` says.
pub fn partition_bytes_now(config: &Config, pk: &Arc<ProvingKey>) -> u64 {
    let gpus = config.selected_gpus();
    partition_bytes(pk, Evaluation::of(gpus.len(), || devices::hold_matrices(pk, &gpus)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        circuit::{synthesize, MulChain},
        groth16::synthetic_srs,
    };

    #[test]
    fn the_estimate_bounds_what_a_synthesized_partition_holds() {
        let cs = synthesize(MulChain { start: 3u64.into(), links: 1000 }).unwrap();
        let pk = synthetic_srs::key_for(&cs, 1);
        let held = 32 * (cs.a.len() + cs.b.len() + cs.c.len() + cs.inputs.len() + cs.aux.len()) as u64;
        let gpu = partition_bytes(&pk, Evaluation::HostForGpu);
        let cpu = partition_bytes(&pk, Evaluation::Cpu);
        assert!(gpu >= held, "estimate {gpu} < synthesized {held}");
        // 1002 constraints in a domain of 1024: the estimate is tight, not wild.
        assert!(gpu < 3 * held, "estimate {gpu} far above {held}");
        assert_eq!(cpu - gpu, 32 * 3 * 1024);
        // A witness on a GPU holding the matrices: the assignment alone.
        let variables = (cs.inputs.len() + cs.aux.len()) as u64;
        assert_eq!(partition_bytes(&pk, Evaluation::Gpu), 32 * variables);
    }

    #[test]
    fn a_witness_counts_alone_only_where_every_gpu_holds_its_matrices() {
        let never = || -> bool { panic!("asked for the matrices without GPUs") };
        assert_eq!(Evaluation::of(0, never), Evaluation::Cpu);
        assert_eq!(Evaluation::of(1, || false), Evaluation::HostForGpu);
        assert_eq!(Evaluation::of(2, || true), Evaluation::Gpu);
    }
}
