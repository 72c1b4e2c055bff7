//! Winning and Window PoSt SNARKs from vanilla proofs: the stock fallback-PoSt
//! circuits, proved and verified by cuzk's prover. Output bytes as stock:
//! `partitions x 192`.

use std::{collections::BTreeMap, path::PathBuf};

use anyhow::{anyhow, ensure, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::{HashFunction, Hasher};
use filecoin_proofs::{
    partition_vanilla_proofs,
    parameters::{window_post_setup_params, winning_post_setup_params},
    single_partition_vanilla_proofs, FallbackPoStSectorProof, PoStConfig, PoStType, PrivateReplicaInfo,
};
use filecoin_proofs_api::RegisteredPoStProof;
use storage_proofs_core::{compound_proof::CompoundProof, error::Error as StorageProofsError, merkle::MerkleTreeTrait, proof::ProofScheme, sector::SectorId};
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PrivateSector, PublicSector};
use rayon::prelude::*;

use super::{keys::KeyOf, prove::prove_circuits, shape::with_shape, vanilla_check};
use crate::{
    engine::{CallContext, ProofKind},
    groth16::PROOF_BYTES,
};

/// Which proof of a PoSt type to build.
#[derive(Clone, Copy, Debug)]
pub enum Scope {
    /// Every partition the vanilla proofs make up.
    All,
    /// Only the partition with this index (the vanilla proofs are its sectors').
    Partition(usize),
}

/// `generate_winning_post_with_vanilla` (`typ` Winning) or
/// `generate_window_post_with_vanilla` (`typ` Window, all partitions concatenated).
pub fn post_with_vanilla(
    context: &CallContext,
    typ: PoStType,
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
) -> Result<Vec<u8>> {
    ensure!(rp.typ() == typ, "{rp:?} is not a {typ:?} PoSt proof type");
    fallback_post(context, rp, randomness, prover_id, vanilla, Scope::All)
}

/// `generate_single_window_post_with_vanilla`: the 192-byte proof of one partition.
pub fn single_window_post_with_vanilla(
    context: &CallContext,
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
    partition_index: usize,
) -> Result<Vec<u8>> {
    ensure!(rp.typ() == PoStType::Window, "{rp:?} is not a Window PoSt proof type");
    fallback_post(context, rp, randomness, prover_id, vanilla, Scope::Partition(partition_index))
}

/// A sealed replica a PoSt reads: `filecoin_proofs_api::PrivateReplicaInfo`
/// with its fields in the open.
#[derive(Clone, Debug)]
pub struct Replica {
    pub registered_proof: RegisteredPoStProof,
    pub comm_r: [u8; 32],
    pub cache_dir: PathBuf,
    pub replica_path: PathBuf,
}

/// `generate_winning_post` (`typ` Winning) or `generate_window_post` (`typ`
/// Window) from the replicas themselves: stock's vanilla proofs (challenges as
/// `generate_fallback_sector_challenges`, one proof per sector), then cuzk's
/// SNARK. The PoSt type is the first replica's, as stock.
///
/// Errors as stock: a replica that cannot be opened (missing `p_aux`, replica or
/// trees) is a plain error; a sector whose challenged leaves cannot be proved
/// against its commitments fails the call with
/// `storage_proofs_core::error::Error::FaultySectors` listing every such sector.
pub fn post_from_replicas(
    context: &CallContext,
    typ: PoStType,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    replicas: &BTreeMap<u64, Replica>,
) -> Result<(RegisteredPoStProof, Vec<u8>)> {
    let rp = replicas.values().next().map(|r| r.registered_proof).ok_or_else(|| anyhow!("no replicas supplied"))?;
    ensure!(rp.typ() == typ, "{rp:?} is not a {typ:?} PoSt proof type");
    ensure!(
        replicas.values().all(|r| r.registered_proof == rp),
        "can only generate the same kind of PoSt ({rp:?} and others mixed)"
    );
    if typ == PoStType::Winning {
        let count = rp.as_v1_config().sector_count;
        ensure!(replicas.len() == count, "{rp:?} takes {count} replicas, got {}", replicas.len());
    }
    let size = u64::from(rp.sector_size());
    let vanilla = with_shape!(size, replica_vanilla_proofs, rp, randomness, prover_id, replicas)?;
    Ok((rp, fallback_post(context, rp, randomness, prover_id, &vanilla, Scope::All)?))
}

/// The vanilla proof of every replica, in sector order (bincode, as
/// `generate_single_vanilla_proof` returns them).
fn replica_vanilla_proofs<Tree: 'static + MerkleTreeTrait>(
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    replicas: &BTreeMap<u64, Replica>,
) -> Result<Vec<Vec<u8>>> {
    let config = rp.as_v1_config();
    let ids: Vec<SectorId> = replicas.keys().map(|&id| SectorId::from(id)).collect();
    let challenges = filecoin_proofs::generate_fallback_sector_challenges::<Tree>(&config, &randomness, &ids, prover_id)?;
    // Opening every replica first, as stock: any failure there is a plain error.
    let opened = replicas
        .iter()
        .map(|(&id, r)| {
            let info = PrivateReplicaInfo::<Tree>::new(r.replica_path.clone(), r.comm_r, r.cache_dir.clone())
                .with_context(|| format!("sector {id}: opening the replica"))?;
            let tree = info
                .merkle_tree(config.sector_size)
                .with_context(|| format!("sector {id}: merkle_tree failed"))?;
            let comm_r = info.safe_comm_r().with_context(|| format!("sector {id}: safe_comm_r failed"))?;
            Ok((SectorId::from(id), info, tree, comm_r))
        })
        .collect::<Result<Vec<_>>>()?;
    // Then one vanilla proof per sector; a sector that cannot be proved is faulty.
    let proofs: Vec<std::result::Result<FallbackPoStSectorProof<Tree>, SectorId>> = opened
        .par_iter()
        .map(|(id, info, tree, comm_r)| {
            let (comm_c, comm_r_last) = (info.safe_comm_c(), info.safe_comm_r_last());
            if *comm_r != <Tree::Hasher as Hasher>::Function::hash2(&comm_c, &comm_r_last) {
                log::error!("Found faulty sector: {id:?}: comm_r does not match the cached trees");
                return Err(*id);
            }
            let sectors = [PrivateSector { tree, comm_c, comm_r_last }];
            let priv_inputs = fallback::PrivateInputs::<Tree> { sectors: &sectors };
            fallback::vanilla_proof(*id, &priv_inputs, &challenges[id])
                .map(|vanilla_proof| FallbackPoStSectorProof { sector_id: *id, comm_r: *comm_r, vanilla_proof })
                .map_err(|e| {
                    log::error!("Found faulty sector: {id:?}: {e:?}");
                    *id
                })
        })
        .collect();
    let faulty: Vec<SectorId> = proofs.iter().filter_map(|p| p.as_ref().err().copied()).collect();
    if !faulty.is_empty() {
        return Err(StorageProofsError::FaultySectors(faulty).into());
    }
    proofs
        .into_iter()
        .map(|p| Ok(bincode::serialize(&p.expect("faults returned above"))?))
        .collect()
}

/// The faulty sectors an error of `post_from_replicas` reports, if any.
pub fn faulty_sectors(e: &anyhow::Error) -> Vec<u64> {
    match e.downcast_ref::<StorageProofsError>() {
        Some(StorageProofsError::FaultySectors(ids)) => ids.iter().map(|&id| u64::from(id)).collect(),
        _ => Vec::new(),
    }
}

fn fallback_post(
    context: &CallContext,
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
    scope: Scope,
) -> Result<Vec<u8>> {
    let size = u64::from(rp.sector_size());
    with_shape!(size, fallback_post_typed, context, rp, randomness, prover_id, vanilla, scope)
}

fn partitions_for_window(sectors: usize, config: &PoStConfig) -> Option<usize> {
    let partitions = sectors.div_ceil(config.sector_count);
    (partitions > 1).then_some(partitions)
}

fn fallback_post_typed<Tree: 'static + MerkleTreeTrait>(
    context: &CallContext,
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
    scope: Scope,
) -> Result<Vec<u8>> {
    let PostCircuits { circuits, public_inputs } = partition_circuits::<Tree>(rp, randomness, prover_id, vanilla, scope)?;
    let pk = KeyOf::Post(rp).load()?;
    let kind = match rp.typ() {
        PoStType::Winning => ProofKind::WinningPost,
        PoStType::Window => ProofKind::WindowPost,
    };
    let proofs = prove_circuits(context, kind, &pk, circuits, public_inputs, &format!("{rp:?}"))?;
    let mut out = Vec::with_capacity(proofs.len() * PROOF_BYTES);
    for p in &proofs {
        out.extend_from_slice(&p.to_bytes());
    }
    Ok(out)
}

/// Checks a sector's vanilla proof where stock would panic (`vanilla_check`).
fn check_vanilla<Tree: MerkleTreeTrait>(proof: &FallbackPoStSectorProof<Tree>) -> Result<()> {
    vanilla_check::field_values([proof.comm_r], || "comm_r".into())?;
    for (s, sector) in proof.vanilla_proof.sectors.iter().enumerate() {
        vanilla_check::field_values([sector.comm_c, sector.comm_r_last], || format!("sector {s}'s comm_c or comm_r_last"))?;
        for (c, inclusion) in sector.inclusion_proofs.iter().enumerate() {
            vanilla_check::merkle_proof(inclusion, || format!("sector {s}'s inclusion proof {c}"))?;
        }
    }
    Ok(())
}

/// The circuits of the partitions a PoSt proves, with the public inputs the
/// verifier derives for each.
pub struct PostCircuits<Tree: 'static + MerkleTreeTrait> {
    pub circuits: Vec<FallbackPoStCircuit<Tree>>,
    pub public_inputs: Vec<Vec<Fr>>,
}

/// The vanilla public parameters the circuits of `config`'s PoSt type take
/// (Winning: its sector once per challenge).
pub(super) fn circuit_params<Tree: 'static + MerkleTreeTrait>(config: &PoStConfig) -> Result<fallback::PublicParams> {
    let vanilla_params = match config.typ {
        PoStType::Winning => winning_post_setup_params(config)?,
        PoStType::Window => window_post_setup_params(config),
    };
    Ok(<FallbackPoSt<'_, Tree> as ProofScheme<'_>>::setup(&vanilla_params)?)
}

/// Checks the vanilla proofs against `rp` and builds the circuit of each
/// partition `scope` selects, as stock's `circuit_proofs` does.
pub fn partition_circuits<Tree: 'static + MerkleTreeTrait>(
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
    scope: Scope,
) -> Result<PostCircuits<Tree>> {
    ensure!(!vanilla.is_empty(), "vanilla_proofs is an empty list");
    let config = rp.as_v1_config();
    let sector_proofs = vanilla
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            let proof = bincode::deserialize::<FallbackPoStSectorProof<Tree>>(bytes)
                .map_err(|e| anyhow!("vanilla proof {i} is not a {rp:?} vanilla proof: {e}"))?;
            check_vanilla(&proof).map_err(|e| anyhow!("vanilla proof {i}: {e}"))?;
            Ok(proof)
        })
        .collect::<Result<Vec<_>>>()?;
    let partitions = match config.typ {
        PoStType::Winning => {
            ensure!(
                sector_proofs.len() == config.sector_count,
                "{rp:?} takes {} vanilla proofs, got {}",
                config.sector_count,
                sector_proofs.len()
            );
            None
        }
        PoStType::Window => partitions_for_window(sector_proofs.len(), &config),
    };
    let vanilla_params = circuit_params::<Tree>(&config)?;
    let pub_inputs = fallback::PublicInputs {
        randomness: vanilla_check::public_value(&randomness, "randomness")?,
        prover_id: vanilla_check::public_value(&prover_id, "prover_id")?,
        sectors: sector_proofs.iter().map(|p| PublicSector { id: p.sector_id, comm_r: p.comm_r }).collect(),
        k: match scope {
            Scope::All => None,
            Scope::Partition(k) => Some(k),
        },
    };
    // The verifier sees Winning PoSt's sectors once per challenge "sector" of
    // the circuit; Window PoSt's once each, as the prover does.
    let verifier_view = fallback::PublicInputs {
        randomness: pub_inputs.randomness,
        prover_id: pub_inputs.prover_id,
        sectors: match config.typ {
            PoStType::Winning => {
                (0..vanilla_params.sector_count).flat_map(|_| pub_inputs.sectors.iter().cloned()).collect()
            }
            PoStType::Window => pub_inputs.sectors.clone(),
        },
        k: pub_inputs.k,
    };
    let partitioned = match scope {
        Scope::All => partition_vanilla_proofs(
            &config,
            &vanilla_params,
            &pub_inputs,
            partitions.unwrap_or(1),
            &sector_proofs,
        )?,
        Scope::Partition(_) => {
            vec![single_partition_vanilla_proofs(&config, &vanilla_params, &pub_inputs, &sector_proofs)?]
        }
    };
    // Partition k of the proofs handed over.
    let mut circuits = Vec::with_capacity(partitioned.len());
    let mut inputs = Vec::with_capacity(partitioned.len());
    for (k, proof) in partitioned.iter().enumerate() {
        circuits.push(FallbackPoStCompound::<Tree>::circuit(
            &pub_inputs,
            Default::default(),
            proof,
            &vanilla_params,
            Some(k),
        )?);
        inputs.push(FallbackPoStCompound::<Tree>::generate_public_inputs(
            &verifier_view,
            &vanilla_params,
            Some(k),
        )?);
    }
    Ok(PostCircuits { circuits, public_inputs: inputs })
}
