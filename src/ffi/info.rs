//! Information exports: GPUs, parameter and verifying-key files of each proof
//! type, proof versions, sizes and partition counts.

use anyhow::Result;
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};

use super::{
    boundary::{guard, respond, Errors},
    post::post_proof,
    seal::seal_proof,
    types::*,
};
use crate::{api::sealing, engine::devices};

/// The names of the GPUs cuzk proves on; an empty list (not an error) where
/// none is usable or the build has no GPU backend. Free the response with
/// `destroy_gpu_device_response`.
#[no_mangle]
pub extern "C" fn get_gpu_devices() -> *mut Result_slice_boxed_slice_boxed_uint8_t {
    respond("get_gpu_devices", Errors::Chain, || {
        Ok(slice_boxed_slice_boxed_uint8_t::from_vec(devices::gpu_names().into_iter().map(String::into_bytes).collect()))
    })
}

/// A string about seal proof `v`; errors in `Display` form and logging left
/// alone, as stock's accessors.
fn seal_string(
    name: &str,
    v: RegisteredSealProof_t,
    op: fn(RegisteredSealProof) -> Result<String>,
) -> *mut Result_slice_boxed_uint8_t {
    respond(name, Errors::Accessor, || op(seal_proof(v)?).map(|s| slice_boxed_uint8_t::from_vec(s.into_bytes())))
}

/// A string about PoSt proof `v` (Window `V1_1` is api `V1_2`), as `seal_string`.
fn post_string(
    name: &str,
    v: RegisteredPoStProof_t,
    op: fn(RegisteredPoStProof) -> Result<String>,
) -> *mut Result_slice_boxed_uint8_t {
    respond(name, Errors::Accessor, || op(post_proof(v)?).map(|s| slice_boxed_uint8_t::from_vec(s.into_bytes())))
}

/// The path of the `.params` file of the seal proof's circuit (it need not
/// exist). Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_seal_params_path(registered_proof: RegisteredSealProof_t) -> *mut Result_slice_boxed_uint8_t {
    seal_string("get_seal_params_path", registered_proof, |p| Ok(p.cache_params_path()?.to_string_lossy().into_owned()))
}

/// The path of the verifying key of the seal proof's circuit. Free with
/// `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_seal_verifying_key_path(registered_proof: RegisteredSealProof_t) -> *mut Result_slice_boxed_uint8_t {
    seal_string("get_seal_verifying_key_path", registered_proof, |p| {
        Ok(p.cache_verifying_key_path()?.to_string_lossy().into_owned())
    })
}

/// The CID of the seal proof's `.params` file (from the published manifest).
/// Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_seal_params_cid(registered_proof: RegisteredSealProof_t) -> *mut Result_slice_boxed_uint8_t {
    seal_string("get_seal_params_cid", registered_proof, RegisteredSealProof::params_cid)
}

/// The CID of the seal proof's verifying key. Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_seal_verifying_key_cid(registered_proof: RegisteredSealProof_t) -> *mut Result_slice_boxed_uint8_t {
    seal_string("get_seal_verifying_key_cid", registered_proof, RegisteredSealProof::verifying_key_cid)
}

/// The identifier of the seal proof's circuit. Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_seal_circuit_identifier(registered_proof: RegisteredSealProof_t) -> *mut Result_slice_boxed_uint8_t {
    seal_string("get_seal_circuit_identifier", registered_proof, RegisteredSealProof::circuit_identifier)
}

/// The api's name of the seal proof (e.g. `StackedDrg32GiBV1_1`). Free with
/// `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_seal_version(registered_proof: RegisteredSealProof_t) -> *mut Result_slice_boxed_uint8_t {
    seal_string("get_seal_version", registered_proof, |p| Ok(format!("{p:?}")))
}

/// The path of the `.params` file of the PoSt proof's circuit. Free with
/// `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_post_params_path(registered_proof: RegisteredPoStProof_t) -> *mut Result_slice_boxed_uint8_t {
    post_string("get_post_params_path", registered_proof, |p| Ok(p.cache_params_path()?.to_string_lossy().into_owned()))
}

/// The path of the verifying key of the PoSt proof's circuit. Free with
/// `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_post_verifying_key_path(registered_proof: RegisteredPoStProof_t) -> *mut Result_slice_boxed_uint8_t {
    post_string("get_post_verifying_key_path", registered_proof, |p| {
        Ok(p.cache_verifying_key_path()?.to_string_lossy().into_owned())
    })
}

/// The CID of the PoSt proof's `.params` file. Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_post_params_cid(registered_proof: RegisteredPoStProof_t) -> *mut Result_slice_boxed_uint8_t {
    post_string("get_post_params_cid", registered_proof, RegisteredPoStProof::params_cid)
}

/// The CID of the PoSt proof's verifying key. Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_post_verifying_key_cid(registered_proof: RegisteredPoStProof_t) -> *mut Result_slice_boxed_uint8_t {
    post_string("get_post_verifying_key_cid", registered_proof, RegisteredPoStProof::verifying_key_cid)
}

/// The identifier of the PoSt proof's circuit. Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_post_circuit_identifier(registered_proof: RegisteredPoStProof_t) -> *mut Result_slice_boxed_uint8_t {
    post_string("get_post_circuit_identifier", registered_proof, RegisteredPoStProof::circuit_identifier)
}

/// The api's name of the PoSt proof; Window `V1_1` comes back as `…V1_2`, as
/// stock. Free with `destroy_string_response`.
#[no_mangle]
pub extern "C" fn get_post_version(registered_proof: RegisteredPoStProof_t) -> *mut Result_slice_boxed_uint8_t {
    post_string("get_post_version", registered_proof, |p| Ok(format!("{p:?}")))
}

/// The unpadded bytes a sector of `registered_proof` holds; 0 for a value that
/// is not a `RegisteredSealProof` (stock has no error channel here).
#[no_mangle]
pub extern "C" fn get_max_user_bytes_per_staged_sector(registered_proof: RegisteredSealProof_t) -> u64 {
    guard("get_max_user_bytes_per_staged_sector", 0, || seal_proof(registered_proof).map_or(0, sealing::max_user_bytes))
}

/// The Window PoSt partitions `num_sectors` sectors take: at least 1. Only
/// Window types are accepted. Free with
/// `destroy_get_num_partition_for_fallback_post_response`.
#[no_mangle]
pub extern "C" fn get_num_partition_for_fallback_post(
    registered_proof: RegisteredPoStProof_t,
    num_sectors: usize,
) -> *mut Result_size_t {
    respond("get_num_partition_for_fallback_post", Errors::Chain, || {
        filecoin_proofs_api::post::get_num_partition_for_fallback_post(post_proof(registered_proof)?, num_sectors)
    })
}
