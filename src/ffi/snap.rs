//! SnapDeals exports: the update SNARK from vanilla partition proofs or from the
//! sector files (cuzk's prover), and its verification (stock verifier).

use anyhow::{anyhow, Result};
use filecoin_proofs_api::{update as stock, RegisteredUpdateProof};

use super::{
    boundary::respond,
    boxed::{array32, byte_lists, bytes, path},
    types::*,
};
use crate::api::snap::{self, UpdateCommitments};

const UPDATE_PROOFS: [RegisteredUpdateProof; 5] = [
    RegisteredUpdateProof::StackedDrg2KiBV1,
    RegisteredUpdateProof::StackedDrg8MiBV1,
    RegisteredUpdateProof::StackedDrg512MiBV1,
    RegisteredUpdateProof::StackedDrg32GiBV1,
    RegisteredUpdateProof::StackedDrg64GiBV1,
];

/// The registered update proof of C enum value `v`.
pub fn update_proof(v: RegisteredUpdateProof_t) -> Result<RegisteredUpdateProof> {
    usize::try_from(v)
        .ok()
        .and_then(|i| UPDATE_PROOFS.get(i).copied())
        .ok_or_else(|| anyhow!("invalid RegisteredUpdateProof value {v} (expected 0..={})", UPDATE_PROOFS.len() - 1))
}

/// # Safety
/// Each pointer NULL or readable.
unsafe fn commitments(
    comm_r_old: *const uint8_32_array_t,
    comm_r_new: *const uint8_32_array_t,
    comm_d_new: *const uint8_32_array_t,
) -> Result<UpdateCommitments> {
    // SAFETY (three): forwarded from this function's contract.
    Ok(UpdateCommitments {
        comm_r_old: unsafe { array32(comm_r_old, "comm_r_old")? },
        comm_r_new: unsafe { array32(comm_r_new, "comm_r_new")? },
        comm_d_new: unsafe { array32(comm_d_new, "comm_d_new")? },
    })
}

/// The update SNARK (`partitions x 192` bytes) from one vanilla proof per partition.
///
/// # Safety
/// Pointers NULL or readable; the vanilla list and its buffers readable.
/// Free with `destroy_empty_sector_update_generate_proof_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_empty_sector_update_proof_with_vanilla(
    registered_proof: RegisteredUpdateProof_t,
    vanilla_proofs: slice_ref_slice_boxed_uint8_t,
    comm_r_old: *const uint8_32_array_t,
    comm_r_new: *const uint8_32_array_t,
    comm_d_new: *const uint8_32_array_t,
) -> *mut Result_slice_boxed_uint8_t {
    respond("generate_empty_sector_update_proof_with_vanilla", || {
        let rp = update_proof(registered_proof)?;
        // SAFETY (two): forwarded from this function's contract.
        let vanilla = unsafe { byte_lists(vanilla_proofs, "vanilla_proofs")? };
        let comms = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        Ok(slice_boxed_uint8_t::from_vec(snap::update_proof_with_vanilla(rp, &vanilla, comms)?))
    })
}

/// The update SNARK from the sector key and the updated replica (and their caches).
///
/// # Safety
/// Pointers NULL or readable; each path slice readable for its length.
/// Free with `destroy_empty_sector_update_generate_proof_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn generate_empty_sector_update_proof(
    registered_proof: RegisteredUpdateProof_t,
    comm_r_old: *const uint8_32_array_t,
    comm_r_new: *const uint8_32_array_t,
    comm_d_new: *const uint8_32_array_t,
    sector_key_path: slice_ref_uint8_t,
    sector_key_cache_dir_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    replica_cache_path: slice_ref_uint8_t,
) -> *mut Result_slice_boxed_uint8_t {
    respond("generate_empty_sector_update_proof", || {
        let rp = update_proof(registered_proof)?;
        // SAFETY (all): forwarded from this function's contract.
        let comms = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        let sector_key = unsafe { path(sector_key_path, "sector_key_path")? };
        let sector_key_cache = unsafe { path(sector_key_cache_dir_path, "sector_key_cache_dir_path")? };
        let replica = unsafe { path(replica_path, "replica_path")? };
        let replica_cache = unsafe { path(replica_cache_path, "replica_cache_path")? };
        let proof = snap::update_proof(rp, comms, &sector_key, &sector_key_cache, &replica, &replica_cache)?;
        Ok(slice_boxed_uint8_t::from_vec(proof))
    })
}

/// Verifies an update SNARK (stock verifier).
///
/// # Safety
/// Pointers NULL or readable; `proof` readable for its length.
/// Free with `destroy_empty_sector_update_verify_proof_response`.
#[no_mangle]
pub unsafe extern "C" fn verify_empty_sector_update_proof(
    registered_proof: RegisteredUpdateProof_t,
    proof: slice_ref_uint8_t,
    comm_r_old: *const uint8_32_array_t,
    comm_r_new: *const uint8_32_array_t,
    comm_d_new: *const uint8_32_array_t,
) -> *mut Result_bool_t {
    respond("verify_empty_sector_update_proof", || {
        let rp = update_proof(registered_proof)?;
        // SAFETY (two): forwarded from this function's contract.
        let proof = unsafe { bytes(proof, "proof")? };
        let c = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        stock::verify_empty_sector_update_proof(rp, proof, c.comm_r_old, c.comm_r_new, c.comm_d_new)
    })
}
