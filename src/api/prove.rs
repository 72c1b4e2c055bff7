//! The proving step every proof type shares: each partition's circuit becomes
//! a synthesis closure with the public inputs the verifier derives for it, and
//! the engine synthesizes, checks the inputs, proves and verifies them
//! (pipelined, by priority, within the memory budget). Blocking: returns the
//! verified proofs in partition order.

use std::sync::Arc;

use anyhow::{ensure, Result};
use bellperson::Circuit;
use blstrs::Scalar as Fr;

use crate::{
    circuit::Whole,
    engine::{self, synthesis_of, CallContext, JobSpec, PartitionWork, ProofKind, SynthesizeFn, Verification},
    groth16::{Proof, ProvingKey},
};

/// Proves `circuits[k]` with public inputs `public_inputs[k]` (without the
/// leading one) under `pk` as a job of `kind` in `context`; `what` names the
/// proof type in errors and logs.
pub fn prove_circuits<C: Circuit<Fr> + Send + 'static>(
    context: &CallContext,
    kind: ProofKind,
    pk: &Arc<ProvingKey>,
    circuits: Vec<C>,
    public_inputs: Vec<Vec<Fr>>,
    what: &str,
) -> Result<Vec<Proof>> {
    let synthesize = circuits.into_iter().map(|circuit| synthesis_of(Whole(circuit))).collect();
    prove_works(context, kind, pk, synthesize, public_inputs, what)
}

/// As `prove_circuits`, each partition given by how to synthesize it.
pub fn prove_works(
    context: &CallContext,
    kind: ProofKind,
    pk: &Arc<ProvingKey>,
    synthesize: Vec<SynthesizeFn>,
    public_inputs: Vec<Vec<Fr>>,
    what: &str,
) -> Result<Vec<Proof>> {
    ensure!(synthesize.len() == public_inputs.len(), "{what}: {} circuits for {} input sets", synthesize.len(), public_inputs.len());
    let partitions = synthesize
        .into_iter()
        .zip(public_inputs)
        .map(|(synthesize, public_inputs)| PartitionWork { synthesize, public_inputs })
        .collect();
    engine::prove(context, JobSpec {
        kind,
        priority: kind.default_priority(),
        label: what.to_owned(),
        key: pk.clone(),
        partitions,
        verification: Verification::Required,
    })
}
