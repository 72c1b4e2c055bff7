//! The response destructors. Each frees the box, its error message and every
//! buffer its value owns; NULL is accepted and ignored. Destructors of the same
//! C type are interchangeable, as in stock (Go relies on that). Written out one
//! by one because cbindgen does not expand macros.

use super::{boundary::destroy, boxed::free_value, types::*};

/// Frees a response of `seal_commit_phase2(_circuit_proofs)`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_seal_commit_phase2_response(ptr: *mut Result_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `verify_seal`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_verify_seal_response(ptr: *mut Result_bool_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_winning_post(_with_vanilla)`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_winning_post_response(ptr: *mut Result_slice_boxed_PoStProof_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_window_post(_with_vanilla)`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_window_post_response(ptr: *mut Result_GenerateWindowPoSt_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_single_window_post_with_vanilla`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_single_window_post_with_vanilla_response(ptr: *mut Result_GenerateSingleWindowPoStWithVanilla_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `merge_window_post_partition_proofs`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_merge_window_post_partition_proofs_response(ptr: *mut Result_PoStProof_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `verify_winning_post`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_verify_winning_post_response(ptr: *mut Result_bool_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `verify_window_post`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_verify_window_post_response(ptr: *mut Result_bool_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_empty_sector_update_proof(_with_vanilla)`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_empty_sector_update_generate_proof_response(ptr: *mut Result_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `verify_empty_sector_update_proof`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_empty_sector_update_verify_proof_response(ptr: *mut Result_bool_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `get_gpu_devices`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_gpu_device_response(ptr: *mut Result_slice_boxed_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `write_with_alignment`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_write_with_alignment_response(ptr: *mut Result_WriteWithAlignment_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `write_without_alignment`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_write_without_alignment_response(ptr: *mut Result_WriteWithoutAlignment_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_piece_commitment`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_piece_commitment_response(ptr: *mut Result_GeneratePieceCommitment_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_data_commitment`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_data_commitment_response(ptr: *mut Result_uint8_32_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `seal_pre_commit_phase1`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_seal_pre_commit_phase1_response(ptr: *mut Result_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `seal_pre_commit_phase2`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_seal_pre_commit_phase2_response(ptr: *mut Result_SealPreCommitPhase2_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `seal_commit_phase1`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_seal_commit_phase1_response(ptr: *mut Result_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `unseal_range`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_unseal_range_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_synth_proofs`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_synth_proofs_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `clear_cache` and `clear_synthetic_proofs`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_clear_cache_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `fauxrep` and `fauxrep2`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_fauxrep_response(ptr: *mut Result_uint8_32_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_sdr`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_sdr_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_tree_c`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_tree_c_response(ptr: *mut Result_uint8_32_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_tree_r_last`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_tree_r_last_response(ptr: *mut Result_uint8_32_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of stock's (removed) `finalize_ticket`; any `Result_uint8_32_array_t`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_finalize_ticket_response(ptr: *mut Result_uint8_32_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of the `get_seal_*` and `get_post_*` string accessors.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_string_response(ptr: *mut Result_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `get_num_partition_for_fallback_post`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_get_num_partition_for_fallback_post_response(ptr: *mut Result_size_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `init_log_fd`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_init_log_fd_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_fallback_sector_challenges`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_fallback_sector_challenges_response(ptr: *mut Result_GenerateFallbackSectorChallenges_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_single_vanilla_proof`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_single_vanilla_proof_response(ptr: *mut Result_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_winning_post_sector_challenge`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_winning_post_sector_challenge(ptr: *mut Result_slice_boxed_uint64_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a digest from `hash`.
///
/// # Safety
/// `ptr` must be NULL or such a digest, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_box_bls_digest(ptr: *mut uint8_96_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { free_value(ptr) }
}

/// Frees a private key from `private_key_generate(_with_seed)`.
///
/// # Safety
/// `ptr` must be NULL or such a key, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_box_bls_private_key(ptr: *mut uint8_32_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { free_value(ptr) }
}

/// Frees a public key from `private_key_public_key`.
///
/// # Safety
/// `ptr` must be NULL or such a key, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_box_bls_public_key(ptr: *mut uint8_48_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { free_value(ptr) }
}

/// Frees a signature from `private_key_sign`, `aggregate` or `create_zero_signature`.
///
/// # Safety
/// `ptr` must be NULL or such a signature, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_box_bls_signature(ptr: *mut uint8_96_array_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { free_value(ptr) }
}

/// Frees a response of `empty_sector_update_encode_into`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_empty_sector_update_encode_into_response(ptr: *mut Result_EmptySectorUpdateEncodeInto_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `empty_sector_update_decode_from`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_empty_sector_update_decode_from_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `empty_sector_update_decode_from_range`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_empty_sector_update_decode_from_range_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `empty_sector_update_remove_encoded_data`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_empty_sector_update_remove_encoded_data_response(ptr: *mut Result_void_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `generate_empty_sector_update_partition_proofs`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_generate_empty_sector_update_partition_proof_response(ptr: *mut Result_slice_boxed_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `verify_empty_sector_update_partition_proofs`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_verify_empty_sector_update_partition_proof_response(ptr: *mut Result_bool_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `aggregate_seal_proofs`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_aggregate_proof(ptr: *mut Result_slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}

/// Frees a response of `verify_aggregate_seal_proof`.
///
/// # Safety
/// `ptr` must be NULL or such a response, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn destroy_verify_aggregate_seal_response(ptr: *mut Result_bool_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { destroy(ptr) }
}
