//! A partition's synthesis as the configuration says: in full, or its
//! witness alone with a, b and c from the circuit's recorded matrices. The
//! matrices are recorded from the first partition synthesized under a key
//! (its witness comes with them), kept with the key, and serve every later
//! partition; concurrent first partitions wait for that one recording.

use std::time::Instant;

use anyhow::{bail, Result};

use crate::{
    circuit::{Matrices, Synthesized},
    engine::{
        config::SynthesisMode,
        job::{Synthesis, SynthesisKind, SynthesizeFn},
    },
    groth16::ProvingKey,
};

/// Runs `synthesize` for a partition under `pk` as `mode` says.
pub(super) fn synthesize(synthesize: SynthesizeFn, pk: &ProvingKey, mode: SynthesisMode) -> Result<Synthesized> {
    if mode == SynthesisMode::Full {
        let Synthesis::Full(cs) = synthesize(SynthesisKind::Full)? else { bail!(unlike(SynthesisKind::Full)) };
        return Ok(cs);
    }
    let mut synthesize = Some(synthesize);
    let mut recorded = None;
    let matrices = pk.matrices.get_or_try_init(|| -> Result<Matrices> {
        let start = Instant::now();
        let record = synthesize.take().expect("the partition's synthesis is there until used");
        let Synthesis::Recorded(matrices, witness) = record(SynthesisKind::Record)? else { bail!(unlike(SynthesisKind::Record)) };
        log::info!(
            "cuzk: recorded the circuit's matrices in {:?}: {} constraints, {} terms, {} MiB",
            start.elapsed(),
            matrices.num_constraints(),
            matrices.num_terms(),
            matrices.size_bytes() >> 20
        );
        recorded = Some(witness);
        Ok(matrices)
    })?;
    let witness = match (recorded, synthesize) {
        (Some(witness), _) => witness,
        (None, Some(synthesize)) => {
            let Synthesis::Witness(witness) = synthesize(SynthesisKind::Witness)? else { bail!(unlike(SynthesisKind::Witness)) };
            witness
        }
        (None, None) => unreachable!("a partition recorded gives its witness"),
    };
    matrices.evaluate(witness)
}

fn unlike(kind: SynthesisKind) -> String {
    format!("asked for {kind:?} synthesis, the partition's synthesis gave another")
}
