//! PoRep exports: C2 and seal verification.

use anyhow::{anyhow, Result};
use filecoin_proofs_api::RegisteredSealProof;

use super::{
    boundary::{respond, Errors},
    boxed::{array32, bytes},
    types::*,
};
use crate::{api::porep, engine::CallContext};

/// The registered seal proof of C enum value `v`.
pub fn seal_proof(v: RegisteredSealProof_t) -> Result<RegisteredSealProof> {
    usize::try_from(v)
        .ok()
        .and_then(|i| porep::SEAL_PROOFS.get(i).copied())
        .ok_or_else(|| anyhow!("invalid RegisteredSealProof value {v} (expected 0..={})", porep::SEAL_PROOFS.len() - 1))
}

/// Proves C2 from the C1 output (JSON), verifies the proof, returns its bytes.
///
/// # Safety
/// `seal_commit_phase1_output` must be readable for its length; `prover_id`
/// NULL or readable. Free the response with `destroy_seal_commit_phase2_response`.
#[no_mangle]
pub unsafe extern "C" fn seal_commit_phase2(
    seal_commit_phase1_output: slice_ref_uint8_t,
    sector_id: u64,
    prover_id: *const uint8_32_array_t,
) -> *mut Result_slice_boxed_uint8_t {
    respond("seal_commit_phase2", Errors::Chain, || {
        let c1 = try_arg!(bytes, seal_commit_phase1_output);
        // SAFETY: as above.
        let prover_id = try_arg!(array32, prover_id);
        porep::seal_commit_phase2(&CallContext::blocking(), c1, sector_id, prover_id).map(slice_boxed_uint8_t::from_vec)
    })
}

/// The raw partition proofs (`partitions x 192` bytes), each verified.
///
/// # Safety
/// As `seal_commit_phase2`.
#[no_mangle]
pub unsafe extern "C" fn seal_commit_phase2_circuit_proofs(
    seal_commit_phase1_output: slice_ref_uint8_t,
    sector_id: u64,
) -> *mut Result_slice_boxed_uint8_t {
    respond("seal_commit_phase2_circuit_proofs", Errors::Chain, || {
        let _ = sector_id;
        let c1 = try_arg!(bytes, seal_commit_phase1_output);
        porep::seal_commit_phase2_circuit_proofs(&CallContext::blocking(), c1).map(slice_boxed_uint8_t::from_vec)
    })
}

/// Verifies a PoRep proof with the stock verifier.
///
/// # Safety
/// Every pointer must be NULL or readable; `proof` readable for its length.
/// Free the response with `destroy_verify_seal_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn verify_seal(
    registered_proof: RegisteredSealProof_t,
    comm_r: *const uint8_32_array_t,
    comm_d: *const uint8_32_array_t,
    prover_id: *const uint8_32_array_t,
    ticket: *const uint8_32_array_t,
    seed: *const uint8_32_array_t,
    sector_id: u64,
    proof: slice_ref_uint8_t,
) -> *mut Result_bool_t {
    respond("verify_seal", Errors::Chain, || {
        let registered = seal_proof(registered_proof)?;
        let (comm_r, comm_d) = (try_arg!(array32, comm_r), try_arg!(array32, comm_d));
        let (prover_id, ticket) = (try_arg!(array32, prover_id), try_arg!(array32, ticket));
        let seed = try_arg!(array32, seed);
        let proof = try_arg!(bytes, proof);
        porep::verify_seal(registered, comm_r, comm_d, prover_id, ticket, seed, sector_id, proof)
    })
}
