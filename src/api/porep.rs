//! PoRep C2: parse a C1 output, build each partition's circuit with
//! storage-proofs, synthesize and prove it with cuzk's Groth16 prover, and verify
//! the result before returning it.

use std::any::Any;

use anyhow::{anyhow, ensure, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_proofs::{parameters::setup_params, DefaultPieceDomain, DefaultPieceHasher};
use filecoin_proofs_api::{
    seal::{SealCommitPhase1Output, SealCommitPhase2Output, VanillaSealProof},
    ApiFeature, RegisteredAggregationProof, RegisteredSealProof, SectorId,
};
use filecoin_hashers::Hasher;
use storage_proofs_core::{compound_proof, compound_proof::CompoundProof, merkle::MerkleTreeTrait};
use storage_proofs_porep::stacked::{self, StackedCompound, StackedDrg};

use super::porep_circuit::PorepCircuit;
use super::shape::with_shape;
use super::{keys::KeyOf, prove::prove_works, vanilla_check};
use crate::{
    circuit::Pieces,
    engine::{synthesis_of, CallContext, ProofKind},
    groth16::{Proof, PROOF_BYTES},
};

/// serde_json's default nesting limit (128) rejects deeply nested input before
/// it can exhaust the stack.
pub fn parse_c1(bytes: &[u8]) -> Result<SealCommitPhase1Output> {
    ensure!(!bytes.is_empty(), "seal_commit_phase1_output is empty");
    serde_json::from_slice(bytes)
        .map_err(|e| anyhow!("seal_commit_phase1_output is not a valid C1 output (JSON of SealCommitPhase1Output): {e}"))
}

/// `seal_commit_phase2`: the proof bytes stock returns (partitions x 192, or a
/// SnarkPack aggregate for NI-PoRep), verified with the stock verifier.
pub fn seal_commit_phase2(context: &CallContext, c1: &[u8], sector_id: u64, prover_id: [u8; 32]) -> Result<Vec<u8>> {
    seal_commit_phase2_of(context, parse_c1(c1)?, sector_id, prover_id)
}

/// `seal_commit_phase2` of a C1 output already parsed (`parse_c1`).
pub fn seal_commit_phase2_of(context: &CallContext, c1: SealCommitPhase1Output, sector_id: u64, prover_id: [u8; 32]) -> Result<Vec<u8>> {
    let (registered, comm_r, comm_d, ticket, seed) = (c1.registered_proof, c1.comm_r, c1.comm_d, c1.ticket, c1.seed);
    let circuit_proofs = circuit_proofs(context, c1)?;
    let proof = if registered.feature_enabled(ApiFeature::NonInteractivePoRep) {
        filecoin_proofs_api::seal::aggregate_seal_commit_proofs(
            registered,
            RegisteredAggregationProof::SnarkPackV2,
            &[comm_r],
            &[seed],
            &[SealCommitPhase2Output { proof: circuit_proofs }],
        )
        .context("aggregating the NI-PoRep partition proofs")?
    } else {
        circuit_proofs
    };
    let valid = filecoin_proofs_api::seal::verify_seal(
        registered,
        comm_r,
        comm_d,
        prover_id,
        SectorId::from(sector_id),
        ticket,
        seed,
        &proof,
    )
    .context("verifying the new proof")?;
    ensure!(valid, "cuzk produced a PoRep proof that does not verify (prover_id or C1 output inconsistent?); it was not returned");
    Ok(proof)
}

/// `seal_commit_phase2_circuit_proofs`: the raw partition proofs, each verified
/// against the public inputs derived from the C1 output.
pub fn seal_commit_phase2_circuit_proofs(context: &CallContext, c1: &[u8]) -> Result<Vec<u8>> {
    circuit_proofs(context, parse_c1(c1)?)
}

fn circuit_proofs(context: &CallContext, c1: SealCommitPhase1Output) -> Result<Vec<u8>> {
    ensure!(c1.registered_proof.major_version() == 1, "unsupported seal proof version");
    let size = u64::from(c1.registered_proof.sector_size());
    let proofs = with_shape!(size, prove_partitions, context, c1)?;
    let mut out = Vec::with_capacity(proofs.len() * PROOF_BYTES);
    for p in &proofs {
        out.extend_from_slice(&p.to_bytes());
    }
    Ok(out)
}

/// Size of the sectors of a vanilla proof variant, to check it against the
/// registered proof (2 KiB, 8 MiB and 512 MiB share one tree type, so the type
/// system alone cannot tell them apart).
fn vanilla_sector_size(v: &VanillaSealProof) -> u64 {
    use filecoin_proofs::constants::*;
    match v {
        VanillaSealProof::StackedDrg2KiBV1(_) => SECTOR_SIZE_2_KIB,
        VanillaSealProof::StackedDrg8MiBV1(_) => SECTOR_SIZE_8_MIB,
        VanillaSealProof::StackedDrg512MiBV1(_) => SECTOR_SIZE_512_MIB,
        VanillaSealProof::StackedDrg32GiBV1(_) => SECTOR_SIZE_32_GIB,
        VanillaSealProof::StackedDrg64GiBV1(_) => SECTOR_SIZE_64_GIB,
    }
}

type Vanilla<Tree> = Vec<Vec<stacked::Proof<Tree, DefaultPieceHasher>>>;

/// Moves the vanilla proofs out of the size-tagged enum into the tree-typed vector.
fn typed_vanilla<Tree: 'static + MerkleTreeTrait>(v: VanillaSealProof) -> Result<Vanilla<Tree>> {
    let boxed: Box<dyn Any> = match v {
        VanillaSealProof::StackedDrg2KiBV1(p) => Box::new(p),
        VanillaSealProof::StackedDrg8MiBV1(p) => Box::new(p),
        VanillaSealProof::StackedDrg512MiBV1(p) => Box::new(p),
        VanillaSealProof::StackedDrg32GiBV1(p) => Box::new(p),
        VanillaSealProof::StackedDrg64GiBV1(p) => Box::new(p),
    };
    boxed
        .downcast::<Vanilla<Tree>>()
        .map(|b| *b)
        .map_err(|_| anyhow!("vanilla proofs have another tree shape than the registered proof"))
}

/// The circuits of every partition of a C1 output, with the public inputs the
/// verifier derives for each.
pub struct PartitionCircuits<Tree: 'static + MerkleTreeTrait> {
    pub registered_proof: RegisteredSealProof,
    pub circuits: Vec<PorepCircuit<Tree>>,
    pub public_inputs: Vec<Vec<Fr>>,
}

/// As `PartitionCircuits`, each partition's circuit given as one circuit per
/// challenge (the commitments, then that challenge alone), for
/// `circuit::synthesize_pieces`: a partition then synthesizes on many threads.
pub struct PartitionPieces<Tree: 'static + MerkleTreeTrait> {
    pub registered_proof: RegisteredSealProof,
    pub pieces: Vec<Vec<PorepCircuit<Tree>>>,
    pub public_inputs: Vec<Vec<Fr>>,
}

/// storage-proofs opens each challenge's sub-circuit in a top-level namespace
/// `challenge_<i>`, after the commitments every challenge shares.
pub const CHALLENGE_NAMESPACE: &str = "challenge_";

/// Checks a parsed C1 output and builds its partition circuits with storage-proofs.
pub fn partition_circuits<Tree: 'static + MerkleTreeTrait>(c1: SealCommitPhase1Output) -> Result<PartitionCircuits<Tree>> {
    let PartitionPieces { registered_proof, pieces, public_inputs } = build::<Tree>(c1, false)?;
    let circuits = pieces.into_iter().map(|mut p| p.pop().expect("one whole circuit")).collect();
    Ok(PartitionCircuits { registered_proof, circuits, public_inputs })
}

/// Checks a parsed C1 output and builds each partition's circuit in pieces.
pub fn partition_pieces<Tree: 'static + MerkleTreeTrait>(c1: SealCommitPhase1Output) -> Result<PartitionPieces<Tree>> {
    build::<Tree>(c1, true)
}

fn build<Tree: 'static + MerkleTreeTrait>(c1: SealCommitPhase1Output, per_challenge: bool) -> Result<PartitionPieces<Tree>> {
    let (registered_proof, pieces, public_inputs) = build_with(c1, per_challenge, |inputs, proofs, _, _| PorepCircuit::new(inputs, proofs))?;
    Ok(PartitionPieces { registered_proof, pieces, public_inputs })
}

/// The stock circuits (`StackedCircuit`) of a C1 output, in pieces as
/// `partition_pieces` gives cuzk's, for the tests that compare the two.
#[cfg(test)]
pub(crate) fn stock_pieces<Tree: 'static + MerkleTreeTrait>(
    c1: SealCommitPhase1Output,
) -> Result<Vec<Vec<stacked::StackedCircuit<Tree, DefaultPieceHasher>>>> {
    let make = |inputs: &_, proofs: &[_], params: &_, k| {
        StackedCompound::<Tree, DefaultPieceHasher>::circuit(inputs, (), &proofs.to_vec(), params, Some(k))
    };
    Ok(build_with(c1, true, make)?.1)
}

/// A C1 output's public inputs per partition, and its circuits made by
/// `make` (from the public inputs, a partition's vanilla proofs or one of
/// them, the vanilla parameters and the partition's index), one per
/// partition or one per challenge.
#[allow(clippy::type_complexity)]
fn build_with<Tree: 'static + MerkleTreeTrait, C>(
    c1: SealCommitPhase1Output,
    per_challenge: bool,
    make: impl Fn(
        &stacked::PublicInputs<<Tree::Hasher as Hasher>::Domain, DefaultPieceDomain>,
        &[stacked::Proof<Tree, DefaultPieceHasher>],
        &stacked::PublicParams<Tree>,
        usize,
    ) -> Result<C>,
) -> Result<(RegisteredSealProof, Vec<Vec<C>>, Vec<Vec<Fr>>)> {
    let SealCommitPhase1Output { registered_proof, vanilla_proofs, comm_r, comm_d, replica_id, seed, ticket: _ } = c1;
    let sector_size = u64::from(registered_proof.sector_size());
    ensure!(
        vanilla_sector_size(&vanilla_proofs) == sector_size,
        "vanilla proofs are for {} byte sectors, registered proof {:?} for {} byte sectors",
        vanilla_sector_size(&vanilla_proofs),
        registered_proof,
        sector_size
    );
    let vanilla = typed_vanilla::<Tree>(vanilla_proofs)?;
    ensure!(comm_d != [0; 32], "invalid all-zero commitment comm_d");
    ensure!(comm_r != [0; 32], "invalid all-zero commitment comm_r");
    ensure!(seed != [0; 32], "invalid all-zero PoRep challenge seed");
    let config = registered_proof.as_v1_config();
    let partitions = usize::from(config.partitions);
    ensure!(
        vanilla.len() == partitions,
        "C1 output has {} partitions of vanilla proofs, {:?} needs {}",
        vanilla.len(),
        registered_proof,
        partitions
    );
    ensure!(vanilla.iter().all(|p| !p.is_empty()), "C1 output has a partition without vanilla proofs");
    for (k, partition) in vanilla.iter().enumerate() {
        for (c, proof) in partition.iter().enumerate() {
            vanilla_check::porep_challenge(proof, || format!("C1 output: partition {k}'s challenge {c}"))?;
        }
    }

    vanilla_check::field_values([replica_id], || "C1 output: replica_id".into())?;
    let public_inputs = stacked::PublicInputs {
        replica_id: Fr::from(replica_id).into(),
        tau: Some(stacked::Tau {
            comm_d: vanilla_check::public_value::<DefaultPieceDomain>(&comm_d, "comm_d")?,
            comm_r: vanilla_check::public_value(&comm_r, "comm_r")?,
        }),
        k: None,
        seed: Some(seed),
    };
    let compound = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<StackedDrg<'_, Tree, DefaultPieceHasher>, _>>::setup(
        &compound_proof::SetupParams {
            vanilla_params: setup_params(&config)?,
            partitions: Some(partitions),
            priority: false,
        },
    )?;
    let (mut pieces, mut partition_inputs) = (Vec::new(), Vec::new());
    for (k, partition) in vanilla.iter().enumerate() {
        let circuit = |proofs: &[stacked::Proof<Tree, DefaultPieceHasher>]| make(&public_inputs, proofs, &compound.vanilla_params, k);
        pieces.push(if per_challenge {
            partition.chunks(1).map(circuit).collect::<Result<_>>()?
        } else {
            vec![circuit(partition)?]
        });
        partition_inputs.push(StackedCompound::<Tree, DefaultPieceHasher>::generate_public_inputs(
            &public_inputs,
            &compound.vanilla_params,
            Some(k),
        )?);
    }
    Ok((registered_proof, pieces, partition_inputs))
}

fn prove_partitions<Tree: 'static + MerkleTreeTrait>(context: &CallContext, c1: SealCommitPhase1Output) -> Result<Vec<Proof>> {
    let PartitionPieces { registered_proof, pieces, public_inputs } = partition_pieces::<Tree>(c1)?;
    let pk = KeyOf::Seal(registered_proof).load()?;
    let synthesize = pieces.into_iter().map(|pieces| synthesis_of(Pieces { pieces, namespace: CHALLENGE_NAMESPACE }));
    prove_works(context, ProofKind::PorepC2, &pk, synthesize.collect(), public_inputs, &format!("{registered_proof:?}"))
}

/// The seal proof types of the C ABI, in the order of its enum values.
pub const SEAL_PROOFS: [RegisteredSealProof; 20] = {
    use RegisteredSealProof::*;
    [
        StackedDrg2KiBV1, StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1, StackedDrg64GiBV1,
        StackedDrg2KiBV1_1, StackedDrg8MiBV1_1, StackedDrg512MiBV1_1, StackedDrg32GiBV1_1, StackedDrg64GiBV1_1,
        StackedDrg2KiBV1_1_Feat_SyntheticPoRep, StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
        StackedDrg512MiBV1_1_Feat_SyntheticPoRep, StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, StackedDrg8MiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg512MiBV1_2_Feat_NonInteractivePoRep, StackedDrg32GiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
    ]
};

/// `verify_seal` with the stock verifier.
#[allow(clippy::too_many_arguments)]
pub fn verify_seal(
    registered: RegisteredSealProof,
    comm_r: [u8; 32],
    comm_d: [u8; 32],
    prover_id: [u8; 32],
    ticket: [u8; 32],
    seed: [u8; 32],
    sector_id: u64,
    proof: &[u8],
) -> Result<bool> {
    ensure!(!proof.is_empty(), "proof is empty");
    if !registered.feature_enabled(ApiFeature::NonInteractivePoRep) {
        let expected = usize::from(registered.partitions()) * PROOF_BYTES;
        ensure!(
            proof.len() == expected,
            "proof is {} bytes, {:?} proofs are {} ({} partitions x {})",
            proof.len(),
            registered,
            expected,
            registered.partitions(),
            PROOF_BYTES
        );
    }
    filecoin_proofs_api::seal::verify_seal(registered, comm_r, comm_d, prover_id, SectorId::from(sector_id), ticket, seed, proof)
}
