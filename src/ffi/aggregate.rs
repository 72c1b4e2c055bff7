//! SnarkPack aggregation of PoRep (C2) proofs and its verification, delegated
//! to stock. Both read the inner-product SRS (`v28-fil-inner-product-v1.srs`)
//! from the parameter cache, as stock.

use anyhow::{anyhow, ensure, Result};
use filecoin_proofs_api::{seal, RegisteredAggregationProof, SectorId};

use super::{
    boundary::{respond, Errors},
    boxed::{array32, byte_lists, bytes, list},
    seal::seal_proof,
    types::*,
};

const AGGREGATION_PROOFS: [RegisteredAggregationProof; 2] =
    [RegisteredAggregationProof::SnarkPackV1, RegisteredAggregationProof::SnarkPackV2];

/// The aggregation type of C enum value `v`.
pub fn aggregation_proof(v: RegisteredAggregationProof_t) -> Result<RegisteredAggregationProof> {
    usize::try_from(v)
        .ok()
        .and_then(|i| AGGREGATION_PROOFS.get(i).copied())
        .ok_or_else(|| anyhow!("invalid RegisteredAggregationProof value {v} (expected 0..={})", AGGREGATION_PROOFS.len() - 1))
}

/// Aggregates C2 outputs (one per sector, with its comm_r and seed) into one
/// SnarkPack proof (stock).
///
/// # Safety
/// Each list (and every buffer in `seal_commit_responses`) readable for its
/// length. Free with `destroy_aggregate_proof`.
#[no_mangle]
pub unsafe extern "C" fn aggregate_seal_proofs(
    registered_proof: RegisteredSealProof_t,
    registered_aggregation: RegisteredAggregationProof_t,
    comm_rs: slice_ref_uint8_32_array_t,
    seeds: slice_ref_uint8_32_array_t,
    seal_commit_responses: slice_ref_slice_boxed_uint8_t,
) -> *mut Result_slice_boxed_uint8_t {
    respond("aggregate_seal_proofs", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let ra = aggregation_proof(registered_aggregation)?;
        // SAFETY (two): forwarded from this function's contract.
        let comm_rs: Vec<[u8; 32]> = unsafe { list(comm_rs.ptr, comm_rs.len, "comm_rs")? }.iter().map(|c| c.idx).collect();
        let seeds: Vec<[u8; 32]> = unsafe { list(seeds.ptr, seeds.len, "seeds")? }.iter().map(|s| s.idx).collect();
        let outputs = try_arg!(byte_lists, seal_commit_responses);
        ensure!(!outputs.is_empty(), "seal_commit_responses is an empty list");
        ensure!(
            comm_rs.len() == outputs.len() && seeds.len() == outputs.len(),
            "{} proofs need as many comm_rs and seeds (got {} and {})",
            outputs.len(),
            comm_rs.len(),
            seeds.len()
        );
        let outputs: Vec<_> = outputs.into_iter().map(|proof| seal::SealCommitPhase2Output { proof }).collect();
        let proof = seal::aggregate_seal_commit_proofs(rp, ra, &comm_rs, &seeds, &outputs)?;
        Ok(slice_boxed_uint8_t::from_vec(proof))
    })
}

/// Verifies a SnarkPack proof against the public inputs of every sector (stock).
///
/// # Safety
/// `prover_id` NULL or readable; `proof` and `commit_inputs` readable for their
/// lengths. Free with `destroy_verify_aggregate_seal_response`.
#[no_mangle]
pub unsafe extern "C" fn verify_aggregate_seal_proof(
    registered_proof: RegisteredSealProof_t,
    registered_aggregation: RegisteredAggregationProof_t,
    prover_id: *const uint8_32_array_t,
    proof: slice_ref_uint8_t,
    commit_inputs: slice_ref_AggregationInputs_t,
) -> *mut Result_bool_t {
    respond("verify_aggregate_seal_proof", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let ra = aggregation_proof(registered_aggregation)?;
        let prover_id = try_arg!(array32, prover_id);
        let proof = try_arg!(bytes, proof).to_vec();
        // SAFETY: forwarded from this function's contract.
        let inputs = unsafe { list(commit_inputs.ptr, commit_inputs.len, "commit_inputs")? };
        ensure!(!inputs.is_empty(), "commit_inputs is an empty list");
        let mut public = Vec::new();
        for i in inputs {
            public.extend(seal::get_seal_inputs(
                rp,
                i.comm_r.idx,
                i.comm_d.idx,
                prover_id,
                SectorId::from(i.sector_id),
                i.ticket.idx,
                i.seed.idx,
            )?);
        }
        let comm_rs: Vec<[u8; 32]> = inputs.iter().map(|i| i.comm_r.idx).collect();
        let seeds: Vec<[u8; 32]> = inputs.iter().map(|i| i.seed.idx).collect();
        seal::verify_aggregate_seal_commit_proofs(rp, ra, proof, &comm_rs, &seeds, public)
    })
}
