//! Winning and Window PoSt SNARKs from vanilla proofs: the stock fallback-PoSt
//! circuits, proved and verified by cuzk's prover. Output bytes as stock:
//! `partitions x 192`.

use anyhow::{anyhow, ensure, Context, Result};
use blstrs::Scalar as Fr;
use filecoin_hashers::Hasher;
use filecoin_proofs::{
    as_safe_commitment, partition_vanilla_proofs,
    parameters::{window_post_setup_params, winning_post_setup_params},
    single_partition_vanilla_proofs, FallbackPoStSectorProof, PoStConfig, PoStType,
};
use filecoin_proofs_api::RegisteredPoStProof;
use storage_proofs_core::{compound_proof, compound_proof::CompoundProof, merkle::MerkleTreeTrait};
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound, PublicSector};

use super::{prove::prove_circuits, shape::with_shape};
use crate::{engine::srs_cache, groth16::PROOF_BYTES};

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
    typ: PoStType,
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
) -> Result<Vec<u8>> {
    ensure!(rp.typ() == typ, "{rp:?} is not a {typ:?} PoSt proof type");
    fallback_post(rp, randomness, prover_id, vanilla, Scope::All)
}

/// `generate_single_window_post_with_vanilla`: the 192-byte proof of one partition.
pub fn single_window_post_with_vanilla(
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
    partition_index: usize,
) -> Result<Vec<u8>> {
    ensure!(rp.typ() == PoStType::Window, "{rp:?} is not a Window PoSt proof type");
    fallback_post(rp, randomness, prover_id, vanilla, Scope::Partition(partition_index))
}

fn fallback_post(
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
    scope: Scope,
) -> Result<Vec<u8>> {
    let size = u64::from(rp.sector_size());
    with_shape!(size, fallback_post_typed, rp, randomness, prover_id, vanilla, scope)
}

fn partitions_for_window(sectors: usize, config: &PoStConfig) -> Option<usize> {
    let partitions = sectors.div_ceil(config.sector_count);
    (partitions > 1).then_some(partitions)
}

fn fallback_post_typed<Tree: 'static + MerkleTreeTrait>(
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: &[Vec<u8>],
    scope: Scope,
) -> Result<Vec<u8>> {
    let PostCircuits { circuits, public_inputs } = partition_circuits::<Tree>(rp, randomness, prover_id, vanilla, scope)?;
    let pk = srs_cache::get(&rp.circuit_identifier()?, &rp.cache_params_path()?)
        .with_context(|| format!("{rp:?} parameters"))?;
    let proofs = prove_circuits(&pk, circuits, public_inputs, &format!("{rp:?}"))?;
    let mut out = Vec::with_capacity(proofs.len() * PROOF_BYTES);
    for p in &proofs {
        out.extend_from_slice(&p.to_bytes());
    }
    Ok(out)
}

/// The circuits of the partitions a PoSt proves, with the public inputs the
/// verifier derives for each.
pub struct PostCircuits<Tree: 'static + MerkleTreeTrait> {
    pub circuits: Vec<FallbackPoStCircuit<Tree>>,
    pub public_inputs: Vec<Vec<Fr>>,
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
            bincode::deserialize::<FallbackPoStSectorProof<Tree>>(bytes)
                .map_err(|e| anyhow!("vanilla proof {i} is not a {rp:?} vanilla proof: {e}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let (vanilla_params, partitions) = match config.typ {
        PoStType::Winning => {
            ensure!(
                sector_proofs.len() == config.sector_count,
                "{rp:?} takes {} vanilla proofs, got {}",
                config.sector_count,
                sector_proofs.len()
            );
            (winning_post_setup_params(&config)?, None)
        }
        PoStType::Window => {
            (window_post_setup_params(&config), partitions_for_window(sector_proofs.len(), &config))
        }
    };
    let pub_params = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::setup(
        &compound_proof::SetupParams { vanilla_params, partitions, priority: false },
    )?;
    let pub_inputs = fallback::PublicInputs {
        randomness: as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(&randomness, "randomness")?,
        prover_id: as_safe_commitment::<<Tree::Hasher as Hasher>::Domain, _>(&prover_id, "prover_id")?,
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
                (0..pub_params.vanilla_params.sector_count).flat_map(|_| pub_inputs.sectors.iter().cloned()).collect()
            }
            PoStType::Window => pub_inputs.sectors.clone(),
        },
        k: pub_inputs.k,
    };
    let partitioned = match scope {
        Scope::All => partition_vanilla_proofs(
            &config,
            &pub_params.vanilla_params,
            &pub_inputs,
            partitions.unwrap_or(1),
            &sector_proofs,
        )?,
        Scope::Partition(_) => {
            vec![single_partition_vanilla_proofs(&config, &pub_params.vanilla_params, &pub_inputs, &sector_proofs)?]
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
            &pub_params.vanilla_params,
            Some(k),
        )?);
        inputs.push(FallbackPoStCompound::<Tree>::generate_public_inputs(
            &verifier_view,
            &pub_params.vanilla_params,
            Some(k),
        )?);
    }
    Ok(PostCircuits { circuits, public_inputs: inputs })
}
