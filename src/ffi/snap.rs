//! SnapDeals exports: the update SNARK from vanilla partition proofs or from the
//! sector files (cuzk's prover), and its verification (stock verifier).

use anyhow::{anyhow, Result};
use filecoin_proofs_api::{update as stock, RegisteredUpdateProof};

use super::{
    boundary::{respond, Errors},
    boxed::{self, array32, byte_lists, bytes, path},
    fd,
    types::*,
};
use crate::{
    api::snap::{self, UpdateCommitments, UpdateFiles, UPDATE_PROOFS},
    engine::CallContext,
};

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
    Ok(UpdateCommitments {
        comm_r_old: try_arg!(array32, comm_r_old),
        comm_r_new: try_arg!(array32, comm_r_new),
        comm_d_new: try_arg!(array32, comm_d_new),
    })
}

/// # Safety
/// Each slice readable for its length.
unsafe fn update_files(
    sector_key_path: slice_ref_uint8_t,
    sector_key_cache_dir_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    replica_cache_path: slice_ref_uint8_t,
) -> Result<UpdateFiles> {
    Ok(UpdateFiles {
        sector_key: try_arg!(path, sector_key_path),
        sector_key_cache: try_arg!(path, sector_key_cache_dir_path),
        replica: try_arg!(path, replica_path),
        replica_cache: try_arg!(path, replica_cache_path),
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
    respond("generate_empty_sector_update_proof_with_vanilla", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        let vanilla = try_arg!(byte_lists, vanilla_proofs);
        // SAFETY: forwarded from this function's contract.
        let comms = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        Ok(slice_boxed_uint8_t::from_vec(snap::update_proof_with_vanilla(&CallContext::blocking(), rp, &vanilla, comms)?))
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
    respond("generate_empty_sector_update_proof", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        // SAFETY (two): forwarded from this function's contract.
        let comms = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        let files = unsafe { update_files(sector_key_path, sector_key_cache_dir_path, replica_path, replica_cache_path)? };
        Ok(slice_boxed_uint8_t::from_vec(snap::update_proof(&CallContext::blocking(), rp, comms, &files)?))
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
    respond("verify_empty_sector_update_proof", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        let proof = try_arg!(bytes, proof);
        // SAFETY: forwarded from this function's contract.
        let c = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        stock::verify_empty_sector_update_proof(rp, proof, c.comm_r_old, c.comm_r_new, c.comm_d_new)
    })
}

/// Encodes the staged data into a new replica of the sector key (stock).
///
/// # Safety
/// Each path slice readable for its length; `pieces` readable.
/// Free with `destroy_empty_sector_update_encode_into_response`.
#[no_mangle]
pub unsafe extern "C" fn empty_sector_update_encode_into(
    registered_proof: RegisteredUpdateProof_t,
    new_replica_path: slice_ref_uint8_t,
    new_cache_dir_path: slice_ref_uint8_t,
    sector_key_path: slice_ref_uint8_t,
    sector_key_cache_dir_path: slice_ref_uint8_t,
    staged_data_path: slice_ref_uint8_t,
    pieces: slice_ref_PublicPieceInfo_t,
) -> *mut Result_EmptySectorUpdateEncodeInto_t {
    respond("empty_sector_update_encode_into", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        let new_replica = try_arg!(path, new_replica_path);
        let new_cache = try_arg!(path, new_cache_dir_path);
        let sector_key = try_arg!(path, sector_key_path);
        let sector_key_cache = try_arg!(path, sector_key_cache_dir_path);
        let staged = try_arg!(path, staged_data_path);
        let pieces = try_arg!(boxed::pieces, pieces);
        let out =
            stock::empty_sector_update_encode_into(rp, new_replica, new_cache, sector_key, sector_key_cache, staged, &pieces)?;
        Ok(EmptySectorUpdateEncodeInto_t {
            comm_r_new: uint8_32_array_t { idx: out.comm_r_new },
            comm_r_last_new: uint8_32_array_t { idx: out.comm_r_last_new },
            comm_d_new: uint8_32_array_t { idx: out.comm_d_new },
        })
    })
}

/// Decodes the data of an updated replica into `out_data_path` (stock).
///
/// # Safety
/// Each path slice readable for its length; `comm_d_new` NULL or readable.
/// Free with `destroy_empty_sector_update_decode_from_response`.
#[no_mangle]
pub unsafe extern "C" fn empty_sector_update_decode_from(
    registered_proof: RegisteredUpdateProof_t,
    out_data_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    sector_key_path: slice_ref_uint8_t,
    sector_key_cache_dir_path: slice_ref_uint8_t,
    comm_d_new: *const uint8_32_array_t,
) -> *mut Result_void_t {
    respond("empty_sector_update_decode_from", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        let out = try_arg!(path, out_data_path);
        let replica = try_arg!(path, replica_path);
        let sector_key = try_arg!(path, sector_key_path);
        let sector_key_cache = try_arg!(path, sector_key_cache_dir_path);
        let comm_d_new = try_arg!(array32, comm_d_new);
        stock::empty_sector_update_decode_from(rp, out, replica, sector_key, sector_key_cache, comm_d_new)
    })
}

/// Decodes `num_nodes` nodes from `nodes_offset` of an updated replica, reading
/// `input_fd` (replica) and `sector_key_fd`, writing `output_fd` (stock). The
/// descriptors stay open.
///
/// # Safety
/// The commitments NULL or readable; each non-negative descriptor open for the
/// call. Free with `destroy_empty_sector_update_decode_from_range_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn empty_sector_update_decode_from_range(
    registered_proof: RegisteredUpdateProof_t,
    comm_d: *const uint8_32_array_t,
    comm_r: *const uint8_32_array_t,
    input_fd: i32,
    sector_key_fd: i32,
    output_fd: i32,
    nodes_offset: u64,
    num_nodes: u64,
) -> *mut Result_void_t {
    respond("empty_sector_update_decode_from_range", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        let comm_d = try_arg!(array32, comm_d);
        let comm_r = try_arg!(array32, comm_r);
        let input = try_arg!(fd::borrow, input_fd);
        let sector_key = try_arg!(fd::borrow, sector_key_fd);
        let output = try_arg!(fd::borrow, output_fd);
        stock::empty_sector_update_decode_from_range(
            rp,
            comm_d,
            comm_r,
            &*input,
            &*sector_key,
            &mut &*output,
            usize::try_from(nodes_offset)?,
            usize::try_from(num_nodes)?,
        )
    })
}

/// Recovers the sector key from an updated replica and its data (stock).
///
/// # Safety
/// Each path slice readable for its length; `comm_d_new` NULL or readable.
/// Free with `destroy_empty_sector_update_remove_encoded_data_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn empty_sector_update_remove_encoded_data(
    registered_proof: RegisteredUpdateProof_t,
    sector_key_path: slice_ref_uint8_t,
    sector_key_cache_dir_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    replica_cache_path: slice_ref_uint8_t,
    data_path: slice_ref_uint8_t,
    comm_d_new: *const uint8_32_array_t,
) -> *mut Result_void_t {
    respond("empty_sector_update_remove_encoded_data", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        // SAFETY: forwarded from this function's contract.
        let f = unsafe { update_files(sector_key_path, sector_key_cache_dir_path, replica_path, replica_cache_path)? };
        let data = try_arg!(path, data_path);
        let comm_d_new = try_arg!(array32, comm_d_new);
        stock::empty_sector_update_remove_encoded_data(
            rp,
            f.sector_key,
            f.sector_key_cache,
            f.replica,
            f.replica_cache,
            data,
            comm_d_new,
        )
    })
}

/// The vanilla proof of every partition of an update (stock), in order.
///
/// # Safety
/// Pointers NULL or readable; each path slice readable for its length.
/// Free with `destroy_generate_empty_sector_update_partition_proof_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn generate_empty_sector_update_partition_proofs(
    registered_proof: RegisteredUpdateProof_t,
    comm_r_old: *const uint8_32_array_t,
    comm_r_new: *const uint8_32_array_t,
    comm_d_new: *const uint8_32_array_t,
    sector_key_path: slice_ref_uint8_t,
    sector_key_cache_dir_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    replica_cache_path: slice_ref_uint8_t,
) -> *mut Result_slice_boxed_slice_boxed_uint8_t {
    respond("generate_empty_sector_update_partition_proofs", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        // SAFETY (two): forwarded from this function's contract.
        let comms = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        let files = unsafe { update_files(sector_key_path, sector_key_cache_dir_path, replica_path, replica_cache_path)? };
        let proofs = snap::partition_vanilla_proofs(rp, comms, &files)?;
        Ok(slice_boxed_slice_boxed_uint8_t::from_vec(proofs))
    })
}

/// Verifies the vanilla partition proofs of an update (stock).
///
/// # Safety
/// Pointers NULL or readable; the list and its buffers readable.
/// Free with `destroy_verify_empty_sector_update_partition_proof_response`.
#[no_mangle]
pub unsafe extern "C" fn verify_empty_sector_update_partition_proofs(
    registered_proof: RegisteredUpdateProof_t,
    proofs: slice_ref_slice_boxed_uint8_t,
    comm_r_old: *const uint8_32_array_t,
    comm_r_new: *const uint8_32_array_t,
    comm_d_new: *const uint8_32_array_t,
) -> *mut Result_bool_t {
    respond("verify_empty_sector_update_partition_proofs", Errors::Chain, || {
        let rp = update_proof(registered_proof)?;
        let proofs = try_arg!(byte_lists, proofs);
        // SAFETY: forwarded from this function's contract.
        let c = unsafe { commitments(comm_r_old, comm_r_new, comm_d_new)? };
        let proofs: Vec<_> = proofs.into_iter().map(filecoin_proofs_api::PartitionProofBytes).collect();
        stock::verify_partition_proofs(rp, &proofs, c.comm_r_old, c.comm_r_new, c.comm_d_new)
    })
}
