//! The host memory a partition holds from the start of its synthesis to the
//! end of its proof, estimated from the proving key alone (the circuit is not
//! known before it is synthesized). With N the key's domain size (`h.len() + 1`,
//! at least the number of constraints) and V its variables (inputs + aux:
//! `ic.len() + l.len()`), 32 bytes per field element, the partition holds its
//! assignment (V) throughout, and at most one of:
//!
//! - until H is done: the a, b, c evaluations (3 N), and on the CPU the three
//!   domain-size vectors of the H polynomial (3 N more; a GPU computes H in
//!   device memory instead). A witness proved on a GPU holds neither: a, b
//!   and c are evaluated in device memory from the circuit's matrices (which
//!   the key's memory counts);
//! - after H (a, b, c freed): the A or the B MSM scalars, one at a time (V
//!   at most), picked in host memory unless a GPU holding the witness picks
//!   them on the device (then the partition holds its witness alone).
//!
//! Densities (one bit per variable) and proofs are negligible. The estimate is
//! an upper bound for every circuit cuzk proves: their constraint counts fill
//! most of the domain, and every variable is counted once per copy. Not
//! counted: a PoRep partition synthesized in pieces briefly holds one piece
//! twice while appending it (one challenge of 18 at 32 GiB, ~0.9 GB); a
//! piece is dropped once appended, and each of its bytes is either in a
//! piece or in the partition, so the two never hold its memory twice.

use super::config::SynthesisMode;
use crate::groth16::ProvingKey;

const FIELD_BYTES: u64 = 32;

/// Estimated peak host bytes of one partition under `pk`, proved on the CPU
/// or on a GPU, synthesized as `mode` says.
pub fn partition_bytes(pk: &ProvingKey, cpu_prover: bool, mode: SynthesisMode) -> u64 {
    let domain = pk.h.len() as u64 + 1;
    let variables = (pk.vk.ic.len() + pk.l.len()) as u64;
    let until_h = match (cpu_prover, mode) {
        (true, _) => 6 * domain,
        (false, SynthesisMode::Full) => 3 * domain,
        (false, SynthesisMode::Witness) => 0,
    };
    FIELD_BYTES * (variables + until_h.max(variables))
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
        let gpu = partition_bytes(&pk, false, SynthesisMode::Full);
        let cpu = partition_bytes(&pk, true, SynthesisMode::Full);
        assert!(gpu >= held, "estimate {gpu} < synthesized {held}");
        // 1002 constraints in a domain of 1024: the estimate is tight, not wild.
        assert!(gpu < 3 * held, "estimate {gpu} far above {held}");
        assert_eq!(cpu - gpu, 32 * 3 * 1024);
        assert_eq!(partition_bytes(&pk, true, SynthesisMode::Witness), cpu, "the CPU evaluates a, b, c in host memory");
        // A witness on a GPU: the assignment and, after H, one query's MSM scalars.
        let variables = (cs.inputs.len() + cs.aux.len()) as u64;
        assert_eq!(partition_bytes(&pk, false, SynthesisMode::Witness), 32 * 2 * variables);
    }
}
