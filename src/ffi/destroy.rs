//! The response destructors. Each frees the box, its error message and every
//! buffer its value owns; NULL is accepted and ignored. Destructors of the same
//! C type are interchangeable, as in stock (Go relies on that). Written out one
//! by one because cbindgen does not expand macros.

use super::{boundary::destroy, types::*};

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
