//! SnapDeals (empty-sector update) SNARKs: the stock update circuit of every
//! partition, proved and verified by cuzk's prover. Output bytes as stock:
//! `partitions x 192`.

use std::path::PathBuf;

use anyhow::{anyhow, ensure, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_proofs::{DefaultPieceDomain, SectorUpdateConfig};
use filecoin_proofs_api::{update as stock, RegisteredUpdateProof};
use storage_proofs_core::{
    compound_proof::{self, CompoundProof},
    proof::ProofScheme,
    merkle::MerkleTreeTrait,
};
use storage_proofs_update::{
    circuit::PrivateInputs,
    constants::TreeRHasher, EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof, PublicInputs,
    SetupParams,
};

use super::{keys::KeyOf, prove::prove_works, shape::with_shape, vanilla_check, snap_circuit::{UpdateCircuit, CHALLENGE_NAMESPACE}};
use crate::{
    circuit::{segment_pieces, synthesize_pieces, Joinable, PartitionCircuit},
    engine::{synthesis_of, CallContext, ProofKind},
    groth16::PROOF_BYTES,
};

/// The update proof types of the C ABI, in the order of its enum values.
pub const UPDATE_PROOFS: [RegisteredUpdateProof; 5] = [
    RegisteredUpdateProof::StackedDrg2KiBV1,
    RegisteredUpdateProof::StackedDrg8MiBV1,
    RegisteredUpdateProof::StackedDrg512MiBV1,
    RegisteredUpdateProof::StackedDrg32GiBV1,
    RegisteredUpdateProof::StackedDrg64GiBV1,
];

/// The update proof type of sectors of `sector_size` bytes.
pub fn update_proof_for(sector_size: u64) -> Result<RegisteredUpdateProof> {
    UPDATE_PROOFS
        .into_iter()
        .find(|rp| u64::from(rp.sector_size()) == sector_size)
        .ok_or_else(|| anyhow!("no update proof for {sector_size} byte sectors"))
}

/// The three commitments an update proof is about.
#[derive(Clone, Copy, Debug)]
pub struct UpdateCommitments {
    pub comm_r_old: [u8; 32],
    pub comm_r_new: [u8; 32],
    pub comm_d_new: [u8; 32],
}

/// The circuits of every partition of an update, with the public inputs the
/// verifier derives for each.
pub struct UpdateCircuits<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> {
    pub circuits: Vec<EmptySectorUpdateCircuit<Tree>>,
    pub public_inputs: Vec<Vec<Fr>>,
    /// Challenges per partition.
    pub challenges: usize,
}

/// The stock update circuit checks each challenge in a run of top-level
/// namespaces named `... (c_index=<i>)`, after what the partition's
/// challenges share (commitments, challenge bits, the apex tree): its
/// segments, for `circuit::synthesize_segments`.
pub fn challenge_of(name: &str) -> Option<usize> {
    let (_, rest) = name.split_once("(c_index=")?;
    rest[..rest.find(|c: char| !c.is_ascii_digit())?].parse().ok()
}

/// A partition's circuit for the engine: synthesized in pieces of its
/// `challenges` (`synthesize_partition`).
pub struct Partition<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> {
    pub circuit: EmptySectorUpdateCircuit<Tree>,
    pub challenges: usize,
}

impl<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>> PartitionCircuit for Partition<Tree> {
    fn synthesize_into<J: Joinable>(self) -> Result<J> {
        synthesize_partition(self.circuit, self.challenges)
    }
}

/// A copy of a partition's stock circuit: stock derives Clone for the
/// circuit's private inputs only where the tree type is Clone; their fields
/// all are.
pub fn copy_circuit<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuit: &EmptySectorUpdateCircuit<Tree>,
) -> EmptySectorUpdateCircuit<Tree> {
    let p = &circuit.priv_inputs;
    EmptySectorUpdateCircuit {
        pub_params: circuit.pub_params.clone(),
        pub_inputs: circuit.pub_inputs.clone(),
        priv_inputs: PrivateInputs {
            comm_c: p.comm_c,
            root_r_old: p.root_r_old,
            root_r_new: p.root_r_new,
            apex_leafs: p.apex_leafs.clone(),
            challenge_proofs: p.challenge_proofs.clone(),
        },
    }
}

/// A partition's circuit, as cuzk writes it (`UpdateCircuit`), synthesized
/// on rayon's pool in `circuit::segment_pieces(challenges)` pieces of about
/// as many challenges each (`circuit::synthesize_pieces`); every piece
/// builds what the challenges share, the last one runs to the end.
pub fn synthesize_partition<J: Joinable, Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    circuit: EmptySectorUpdateCircuit<Tree>,
    challenges: usize,
) -> Result<J> {
    let per_piece = challenges.div_ceil(segment_pieces(challenges)).max(1);
    let starts: Vec<usize> = (0..challenges.max(1)).step_by(per_piece).collect();
    let ends = starts.iter().skip(1).copied().chain([usize::MAX]);
    let pieces = (starts.iter().zip(ends))
        .map(|(&start, end)| UpdateCircuit::piece(copy_circuit(&circuit), start..end))
        .collect();
    synthesize_pieces(pieces, CHALLENGE_NAMESPACE)
}

/// `generate_empty_sector_update_proof_with_vanilla`: one serialized
/// `PartitionProof` per partition, in partition order.
pub fn update_proof_with_vanilla(
    context: &CallContext,
    rp: RegisteredUpdateProof,
    vanilla: &[Vec<u8>],
    comms: UpdateCommitments,
) -> Result<Vec<u8>> {
    let size = u64::from(rp.sector_size());
    with_shape!(size, prove_update, context, rp, vanilla, comms)
}

/// The files of an updated sector: the sector key (the old replica), the
/// updated replica, and their cache folders.
#[derive(Clone, Debug)]
pub struct UpdateFiles {
    pub sector_key: PathBuf,
    pub sector_key_cache: PathBuf,
    pub replica: PathBuf,
    pub replica_cache: PathBuf,
}

/// `generate_empty_sector_update_partition_proofs`: stock's vanilla proof of
/// every partition, serialized, in order.
pub fn partition_vanilla_proofs(rp: RegisteredUpdateProof, comms: UpdateCommitments, files: &UpdateFiles) -> Result<Vec<Vec<u8>>> {
    let proofs = stock::generate_partition_proofs(
        rp,
        comms.comm_r_old,
        comms.comm_r_new,
        comms.comm_d_new,
        &files.sector_key,
        &files.sector_key_cache,
        &files.replica,
        &files.replica_cache,
    )
    .context("generating the SnapDeals vanilla proofs")?;
    Ok(proofs.into_iter().map(|p| p.0).collect())
}

/// `generate_empty_sector_update_proof`: the vanilla proofs read from the sector
/// key and the updated replica by stock, then the SNARKs by cuzk.
pub fn update_proof(context: &CallContext, rp: RegisteredUpdateProof, comms: UpdateCommitments, files: &UpdateFiles) -> Result<Vec<u8>> {
    update_proof_with_vanilla(context, rp, &partition_vanilla_proofs(rp, comms, files)?, comms)
}

fn prove_update<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    context: &CallContext,
    rp: RegisteredUpdateProof,
    vanilla: &[Vec<u8>],
    comms: UpdateCommitments,
) -> Result<Vec<u8>> {
    let UpdateCircuits { circuits, public_inputs, challenges } = partition_circuits::<Tree>(rp, vanilla, comms)?;
    let pk = KeyOf::Update(rp).load()?;
    let synthesize = circuits.into_iter().map(|circuit| synthesis_of(Partition { circuit, challenges }));
    let proofs = prove_works(context, ProofKind::SnapDeals, &pk, synthesize.collect(), public_inputs, &format!("{rp:?}"))?;
    let mut out = Vec::with_capacity(proofs.len() * PROOF_BYTES);
    for p in &proofs {
        out.extend_from_slice(&p.to_bytes());
    }
    Ok(out)
}


/// The vanilla public parameters the circuits of `config`'s updates take.
pub(super) fn circuit_params<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    config: &SectorUpdateConfig,
) -> Result<storage_proofs_update::PublicParams> {
    let pub_params = <EmptySectorUpdateCompound<Tree> as CompoundProof<_, _>>::setup(&compound_proof::SetupParams {
        vanilla_params: SetupParams { sector_bytes: u64::from(config.sector_size) },
        partitions: Some(usize::from(config.update_partitions)),
        priority: false,
    })?;
    Ok(pub_params.vanilla_params)
}

/// Checks a partition's vanilla proof where stock would panic (`vanilla_check`).
fn check_vanilla<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(proof: &PartitionProof<Tree>) -> Result<()> {
    vanilla_check::field_values([proof.comm_c], || "comm_c".into())?;
    vanilla_check::field_values(proof.apex_leafs.iter().copied(), || "apex_leafs".into())?;
    for (c, challenge) in proof.challenge_proofs.iter().enumerate() {
        let what = |tree: &'static str| move || format!("challenge {c}'s {tree} proof");
        vanilla_check::merkle_proof(&challenge.proof_r_old, what("proof_r_old"))?;
        vanilla_check::merkle_proof(&challenge.proof_d_new, what("proof_d_new"))?;
        vanilla_check::merkle_proof(&challenge.proof_r_new, what("proof_r_new"))?;
    }
    Ok(())
}

/// Checks the vanilla proofs against `rp` and builds the circuit of each partition.
pub fn partition_circuits<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    rp: RegisteredUpdateProof,
    vanilla: &[Vec<u8>],
    comms: UpdateCommitments,
) -> Result<UpdateCircuits<Tree>> {
    ensure!(!vanilla.is_empty(), "vanilla_proofs is an empty list");
    let config = SectorUpdateConfig::from_porep_config(&rp.as_v1_config());
    let partitions = usize::from(config.update_partitions);
    ensure!(
        vanilla.len() == partitions,
        "{rp:?} takes {partitions} partition vanilla proofs, got {}",
        vanilla.len()
    );
    let pub_inputs = PublicInputs {
        k: partitions,
        comm_r_old: vanilla_check::public_value(&comms.comm_r_old, "comm_r_old")?,
        comm_d_new: vanilla_check::public_value::<DefaultPieceDomain>(&comms.comm_d_new, "comm_d_new")?,
        comm_r_new: vanilla_check::public_value(&comms.comm_r_new, "comm_r_new")?,
        h: config.h,
    };
    let vp = &circuit_params::<Tree>(&config)?;
    let mut out = UpdateCircuits {
        circuits: Vec::with_capacity(partitions),
        public_inputs: Vec::with_capacity(partitions),
        challenges: vp.challenge_count,
    };
    for (k, bytes) in vanilla.iter().enumerate() {
        let proof: PartitionProof<Tree> = bincode::deserialize(bytes)
            .map_err(|e| anyhow!("vanilla proof {k} is not a {rp:?} partition proof: {e}"))?;
        check_vanilla(&proof).map_err(|e| anyhow!("vanilla proof {k}: {e}"))?;
        // Checked before synthesis: a proof of another sector or size would only
        // show up as a proof that does not verify.
        let valid = EmptySectorUpdate::<Tree>::verify(vp, &PublicInputs { k, ..pub_inputs }, &proof)
            .map_err(|e| anyhow!("vanilla proof {k} is malformed for {rp:?}: {e}"))?;
        ensure!(valid, "vanilla proof {k} does not verify against these commitments for {rp:?}");
        out.circuits.push(EmptySectorUpdateCompound::<Tree>::circuit(&pub_inputs, (), &proof, vp, Some(k))?);
        out.public_inputs.push(EmptySectorUpdateCompound::<Tree>::generate_public_inputs(&pub_inputs, vp, Some(k))?);
    }
    Ok(out)
}
