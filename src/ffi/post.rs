//! PoSt exports: Winning and Window SNARKs from vanilla proofs (cuzk's prover),
//! merging partition proofs, and verification (stock verifiers).

use std::collections::BTreeMap;

use anyhow::{anyhow, ensure, Result};
use filecoin_proofs::PoStType;
use filecoin_proofs_api::{PrivateReplicaInfo, PublicReplicaInfo, RegisteredPoStProof, SectorId};

use super::{
    boundary::{respond, respond_with, Errors},
    boxed::{array32, boxed_path, byte_lists, list, path_of},
    types::*,
};
use crate::{
    api::{params::POST_PROOFS, post},
    engine::CallContext,
};

/// The registered PoSt proof of C enum value `v` (Window `V1_1` is api `V1_2`).
pub fn post_proof(v: RegisteredPoStProof_t) -> Result<RegisteredPoStProof> {
    usize::try_from(v)
        .ok()
        .and_then(|i| POST_PROOFS.get(i).copied())
        .ok_or_else(|| anyhow!("invalid RegisteredPoStProof value {v} (expected 0..={})", POST_PROOFS.len() - 1))
}

/// The C enum value of `rp`.
fn post_proof_value(rp: RegisteredPoStProof) -> RegisteredPoStProof_t {
    POST_PROOFS.iter().position(|p| *p == rp).expect("every api PoSt type has a C value") as i32
}

struct Request {
    rp: RegisteredPoStProof,
    randomness: [u8; 32],
    prover_id: [u8; 32],
    vanilla: Vec<Vec<u8>>,
}

/// # Safety
/// Pointers NULL or readable; the vanilla list and its buffers readable.
unsafe fn request(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
) -> Result<Request> {
    Ok(Request {
        rp: post_proof(registered_proof)?,
        randomness: try_arg!(array32, randomness),
        prover_id: try_arg!(array32, prover_id),
        vanilla: try_arg!(byte_lists, vanilla_proofs),
    })
}

fn post_proofs(rp: RegisteredPoStProof, proof: Vec<u8>) -> slice_boxed_PoStProof_t {
    slice_boxed_PoStProof_t::from_vec(vec![PoStProof_t {
        registered_proof: post_proof_value(rp),
        proof: slice_boxed_uint8_t::from_vec(proof),
    }])
}

/// Winning PoSt SNARK from vanilla proofs; one `PoStProof_t` of 192 bytes.
///
/// # Safety
/// Pointers NULL or readable; the vanilla list and its buffers readable.
/// Free with `destroy_generate_winning_post_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_winning_post_with_vanilla(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
) -> *mut Result_slice_boxed_PoStProof_t {
    respond("generate_winning_post_with_vanilla", Errors::Chain, || {
        // SAFETY: forwarded from this function's contract.
        let r = unsafe { request(registered_proof, randomness, prover_id, vanilla_proofs)? };
        let proof = post::post_with_vanilla(&CallContext::blocking(), PoStType::Winning, r.rp, r.randomness, r.prover_id, &r.vanilla)?;
        Ok(post_proofs(r.rp, proof))
    })
}

/// Window PoSt SNARK (all partitions) from vanilla proofs.
///
/// # Safety
/// As `generate_winning_post_with_vanilla`; free with `destroy_generate_window_post_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_window_post_with_vanilla(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
) -> *mut Result_GenerateWindowPoSt_t {
    respond("generate_window_post_with_vanilla", Errors::Message, || {
        // SAFETY: forwarded from this function's contract.
        let r = unsafe { request(registered_proof, randomness, prover_id, vanilla_proofs)? };
        let proof = post::post_with_vanilla(&CallContext::blocking(), PoStType::Window, r.rp, r.randomness, r.prover_id, &r.vanilla)?;
        Ok(GenerateWindowPoSt_t { proofs: post_proofs(r.rp, proof), faulty_sectors: slice_boxed_uint64_t::from_vec(Vec::new()) })
    })
}

/// One Window PoSt partition's SNARK; tagged with the input type.
///
/// # Safety
/// As `generate_winning_post_with_vanilla`; free with
/// `destroy_generate_single_window_post_with_vanilla_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_single_window_post_with_vanilla(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
    partition_index: usize,
) -> *mut Result_GenerateSingleWindowPoStWithVanilla_t {
    respond("generate_single_window_post_with_vanilla", Errors::Message, || {
        // SAFETY: forwarded from this function's contract.
        let r = unsafe { request(registered_proof, randomness, prover_id, vanilla_proofs)? };
        let proof = post::single_window_post_with_vanilla(&CallContext::blocking(), r.rp, r.randomness, r.prover_id, &r.vanilla, partition_index)?;
        Ok(GenerateSingleWindowPoStWithVanilla_t {
            partition_proof: PartitionSnarkProof_t { registered_proof, proof: slice_boxed_uint8_t::from_vec(proof) },
            faulty_sectors: slice_boxed_uint64_t::from_vec(Vec::new()),
        })
    })
}

/// Concatenates Window PoSt partition proofs into one proof of the input type.
///
/// # Safety
/// The list and its buffers readable; free with
/// `destroy_merge_window_post_partition_proofs_response`.
#[no_mangle]
pub unsafe extern "C" fn merge_window_post_partition_proofs(
    registered_proof: RegisteredPoStProof_t,
    partition_proofs: slice_ref_slice_boxed_uint8_t,
) -> *mut Result_PoStProof_t {
    respond("merge_window_post_partition_proofs", Errors::Chain, || {
        let rp = post_proof(registered_proof)?;
        ensure!(rp.typ() == PoStType::Window, "{rp:?} is not a Window PoSt proof type");
        let parts = try_arg!(byte_lists, partition_proofs);
        ensure!(!parts.is_empty(), "partition_proofs is an empty list");
        let parts = parts.into_iter().map(filecoin_proofs::PartitionSnarkProof).collect::<Vec<_>>();
        let merged = filecoin_proofs_api::post::merge_window_post_partition_proofs(rp, parts)?;
        Ok(PoStProof_t { registered_proof, proof: slice_boxed_uint8_t::from_vec(merged) })
    })
}

/// A replica's files as cuzk's api takes them; `i` names it in errors.
///
/// # Safety
/// Both path buffers NULL or readable for their lengths.
unsafe fn replica(r: &PrivateReplicaInfo_t, what: &str) -> Result<post::Replica> {
    Ok(post::Replica {
        registered_proof: post_proof(r.registered_proof).map_err(|e| anyhow!("{what}: {e}"))?,
        comm_r: r.comm_r.idx,
        // SAFETY (two): forwarded from this function's contract.
        cache_dir: unsafe { boxed_path(&r.cache_dir_path, &format!("{what}.cache_dir_path"))? },
        replica_path: unsafe { boxed_path(&r.replica_path, &format!("{what}.replica_path"))? },
    })
}

/// The caller's replicas keyed by sector (a repeated sector keeps its last
/// entry, as stock's map does).
///
/// # Safety
/// The list and every path buffer readable.
unsafe fn private_replicas(replicas: slice_ref_PrivateReplicaInfo_t) -> Result<BTreeMap<u64, post::Replica>> {
    // SAFETY: forwarded from this function's contract.
    let list = unsafe { list(replicas.ptr, replicas.len, "replicas")? };
    ensure!(!list.is_empty(), "replicas is an empty list");
    list.iter()
        .enumerate()
        // SAFETY: forwarded from this function's contract.
        .map(|(i, r)| Ok((r.sector_id, unsafe { replica(r, &format!("replicas[{i}]"))? })))
        .collect()
}

/// Winning PoSt from the replicas themselves (stock vanilla proofs, cuzk's
/// SNARK); the PoSt type is the first replica's.
///
/// # Safety
/// Pointers NULL or readable; the replica list and its path buffers readable.
/// Free with `destroy_generate_winning_post_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_winning_post(
    randomness: *const uint8_32_array_t,
    replicas: slice_ref_PrivateReplicaInfo_t,
    prover_id: *const uint8_32_array_t,
) -> *mut Result_slice_boxed_PoStProof_t {
    respond("generate_winning_post", Errors::Chain, || {
        let randomness = try_arg!(array32, randomness);
        let prover_id = try_arg!(array32, prover_id);
        // SAFETY: forwarded from this function's contract.
        let replicas = unsafe { private_replicas(replicas)? };
        let (rp, proof) = post::post_from_replicas(&CallContext::blocking(), PoStType::Winning, randomness, prover_id, &replicas)?;
        Ok(post_proofs(rp, proof))
    })
}

/// The error value of `generate_window_post`: no proof, and the faulty sectors
/// when the error is stock's `FaultySectors`.
fn window_post_error(e: &anyhow::Error) -> GenerateWindowPoSt_t {
    GenerateWindowPoSt_t {
        proofs: slice_boxed_PoStProof_t::from_vec(Vec::new()),
        faulty_sectors: slice_boxed_uint64_t::from_vec(post::faulty_sectors(e)),
    }
}

/// Window PoSt (all partitions) from the replicas themselves. As stock, a
/// sector that cannot be proved fails the call (status 1, "faulty sectors
/// [...]") with every such sector listed in `value.faulty_sectors`.
///
/// # Safety
/// As `generate_winning_post`; free with `destroy_generate_window_post_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_window_post(
    randomness: *const uint8_32_array_t,
    replicas: slice_ref_PrivateReplicaInfo_t,
    prover_id: *const uint8_32_array_t,
) -> *mut Result_GenerateWindowPoSt_t {
    respond_with("generate_window_post", Errors::Message, window_post_error, || {
        let randomness = try_arg!(array32, randomness);
        let prover_id = try_arg!(array32, prover_id);
        // SAFETY: forwarded from this function's contract.
        let replicas = unsafe { private_replicas(replicas)? };
        let (rp, proof) = post::post_from_replicas(&CallContext::blocking(), PoStType::Window, randomness, prover_id, &replicas)?;
        Ok(GenerateWindowPoSt_t { proofs: post_proofs(rp, proof), faulty_sectors: slice_boxed_uint64_t::from_vec(Vec::new()) })
    })
}

/// The challenged leaves of each sector (stock), sectors in ascending order.
///
/// # Safety
/// Pointers NULL or readable; `sector_ids` readable for its length.
/// Free with `destroy_generate_fallback_sector_challenges_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_fallback_sector_challenges(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    sector_ids: slice_ref_uint64_t,
    prover_id: *const uint8_32_array_t,
) -> *mut Result_GenerateFallbackSectorChallenges_t {
    respond("generate_fallback_sector_challenges", Errors::Chain, || {
        let rp = post_proof(registered_proof)?;
        let randomness = try_arg!(array32, randomness);
        let prover_id = try_arg!(array32, prover_id);
        // SAFETY: forwarded from this function's contract.
        let ids = unsafe { list(sector_ids.ptr, sector_ids.len, "sector_ids")? };
        let ids: Vec<SectorId> = ids.iter().map(|&id| SectorId::from(id)).collect();
        let map = filecoin_proofs_api::post::generate_fallback_sector_challenges(rp, &randomness, &ids, prover_id)?;
        Ok(GenerateFallbackSectorChallenges_t {
            ids: slice_boxed_uint64_t::from_vec(map.keys().map(|&id| u64::from(id)).collect()),
            challenges: slice_boxed_slice_boxed_uint64_t::from_vec(map.into_values().collect()),
        })
    })
}

/// One sector's vanilla PoSt proof (stock). Takes `replica` by value: its two
/// path buffers are freed here, on every path.
///
/// # Safety
/// The path buffers must come from `alloc_boxed_slice` and not be used after
/// the call; `challenges` readable for its length. Free with
/// `destroy_generate_single_vanilla_proof_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_single_vanilla_proof(
    replica: PrivateReplicaInfo_t,
    challenges: slice_ref_uint64_t,
) -> *mut Result_slice_boxed_uint8_t {
    // SAFETY (two): the caller hands both buffers over, by this function's contract.
    let cache_dir = unsafe { replica.cache_dir_path.into_vec() };
    let replica_path = unsafe { replica.replica_path.into_vec() };
    respond("generate_single_vanilla_proof", Errors::Chain, || {
        let rp = post_proof(replica.registered_proof)?;
        let cache_dir = path_of(&cache_dir, "replica.cache_dir_path")?;
        let replica_path = path_of(&replica_path, "replica.replica_path")?;
        // SAFETY: forwarded from this function's contract.
        let challenges = unsafe { list(challenges.ptr, challenges.len, "challenges")? };
        let info = PrivateReplicaInfo::new(rp, replica.comm_r.idx, cache_dir, replica_path);
        let proof = filecoin_proofs_api::post::generate_single_vanilla_proof(
            rp,
            SectorId::from(replica.sector_id),
            &info,
            challenges,
        )?;
        Ok(slice_boxed_uint8_t::from_vec(proof))
    })
}

/// The indices (into the caller's sector set) of the sectors a Winning PoSt
/// challenges (stock).
///
/// # Safety
/// Pointers NULL or readable. Free with `destroy_generate_winning_post_sector_challenge`.
#[no_mangle]
pub unsafe extern "C" fn generate_winning_post_sector_challenge(
    registered_proof: RegisteredPoStProof_t,
    randomness: *const uint8_32_array_t,
    sector_set_len: u64,
    prover_id: *const uint8_32_array_t,
) -> *mut Result_slice_boxed_uint64_t {
    respond("generate_winning_post_sector_challenge", Errors::Chain, || {
        let rp = post_proof(registered_proof)?;
        let randomness = try_arg!(array32, randomness);
        let prover_id = try_arg!(array32, prover_id);
        let picked =
            filecoin_proofs_api::post::generate_winning_post_sector_challenge(rp, &randomness, sector_set_len, prover_id)?;
        Ok(slice_boxed_uint64_t::from_vec(picked))
    })
}

/// Public replicas keyed by sector, and the proofs' (type, bytes) pairs.
///
/// # Safety
/// Both lists and every proof buffer readable.
unsafe fn verify_inputs(
    replicas: slice_ref_PublicReplicaInfo_t,
    proofs: slice_ref_PoStProof_t,
) -> Result<(BTreeMap<SectorId, PublicReplicaInfo>, Vec<(RegisteredPoStProof, Vec<u8>)>)> {
    // SAFETY: forwarded from this function's contract.
    let replicas = unsafe { list(replicas.ptr, replicas.len, "replicas")? };
    ensure!(!replicas.is_empty(), "replicas is an empty list");
    let mut map = BTreeMap::new();
    for r in replicas {
        map.insert(SectorId::from(r.sector_id), PublicReplicaInfo::new(post_proof(r.registered_proof)?, r.comm_r.idx));
    }
    // SAFETY: forwarded from this function's contract.
    let proofs = unsafe { list(proofs.ptr, proofs.len, "proofs")? };
    ensure!(!proofs.is_empty(), "proofs is an empty list");
    let proofs = proofs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // SAFETY: forwarded from this function's contract.
            let bytes = unsafe { list(p.proof.ptr.cast_const(), p.proof.len, &format!("proofs[{i}]"))? };
            Ok((post_proof(p.registered_proof)?, bytes.to_vec()))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((map, proofs))
}

/// Verifies a Winning PoSt (the bytes of all proofs, concatenated) with stock.
///
/// # Safety
/// Pointers NULL or readable, lists readable; free with `destroy_verify_winning_post_response`.
#[no_mangle]
pub unsafe extern "C" fn verify_winning_post(
    randomness: *const uint8_32_array_t,
    replicas: slice_ref_PublicReplicaInfo_t,
    proofs: slice_ref_PoStProof_t,
    prover_id: *const uint8_32_array_t,
) -> *mut Result_bool_t {
    respond("verify_winning_post", Errors::Chain, || {
        let randomness = try_arg!(array32, randomness);
        let prover_id = try_arg!(array32, prover_id);
        // SAFETY: forwarded from this function's contract.
        let (replicas, proofs) = unsafe { verify_inputs(replicas, proofs)? };
        let bytes: Vec<u8> = proofs.into_iter().flat_map(|(_, b)| b).collect();
        filecoin_proofs_api::post::verify_winning_post(&randomness, &bytes, &replicas, prover_id)
    })
}

/// Verifies a Window PoSt with stock, from (type, bytes) pairs.
///
/// # Safety
/// As `verify_winning_post`; free with `destroy_verify_window_post_response`.
#[no_mangle]
pub unsafe extern "C" fn verify_window_post(
    randomness: *const uint8_32_array_t,
    replicas: slice_ref_PublicReplicaInfo_t,
    proofs: slice_ref_PoStProof_t,
    prover_id: *const uint8_32_array_t,
) -> *mut Result_bool_t {
    respond("verify_window_post", Errors::Chain, || {
        let randomness = try_arg!(array32, randomness);
        let prover_id = try_arg!(array32, prover_id);
        // SAFETY: forwarded from this function's contract.
        let (replicas, proofs) = unsafe { verify_inputs(replicas, proofs)? };
        let pairs: Vec<(RegisteredPoStProof, &[u8])> = proofs.iter().map(|(rp, b)| (*rp, b.as_slice())).collect();
        filecoin_proofs_api::post::verify_window_post(&randomness, &pairs, &replicas, prover_id)
    })
}
