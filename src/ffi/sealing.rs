//! Sealing exports, delegated to filecoin-proofs-api: PC1, PC2, C1, synthetic
//! proofs, unsealing, the cache, the SDR and tree steps, and faux replicas.

use anyhow::Result;

use super::{
    boundary::{respond, Errors},
    boxed::{self, array32, bytes, path},
    fd,
    seal::seal_proof,
    types::*,
};
use crate::api::{porep::SEAL_PROOFS, sealing};

/// The C enum value of `rp`.
fn seal_proof_value(rp: filecoin_proofs_api::RegisteredSealProof) -> RegisteredSealProof_t {
    SEAL_PROOFS.iter().position(|p| *p == rp).expect("every api seal proof has a C value") as i32
}

/// PC1: labels the staged sector into the cache and the sealed file. Returns
/// the PC1 output (JSON) for `seal_pre_commit_phase2`.
///
/// # Safety
/// Slices readable for their lengths; pointers NULL or readable. Free with
/// `destroy_seal_pre_commit_phase1_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn seal_pre_commit_phase1(
    registered_proof: RegisteredSealProof_t,
    cache_dir_path: slice_ref_uint8_t,
    staged_sector_path: slice_ref_uint8_t,
    sealed_sector_path: slice_ref_uint8_t,
    sector_id: u64,
    prover_id: *const uint8_32_array_t,
    ticket: *const uint8_32_array_t,
    pieces: slice_ref_PublicPieceInfo_t,
) -> *mut Result_slice_boxed_uint8_t {
    respond("seal_pre_commit_phase1", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let cache = try_arg!(path, cache_dir_path);
        let staged = try_arg!(path, staged_sector_path);
        let sealed = try_arg!(path, sealed_sector_path);
        let (prover_id, ticket) = (try_arg!(array32, prover_id), try_arg!(array32, ticket));
        let pieces = try_arg!(boxed::pieces, pieces);
        sealing::pre_commit_phase1(rp, &cache, &staged, &sealed, sector_id, prover_id, ticket, &pieces)
            .map(slice_boxed_uint8_t::from_vec)
    })
}

/// PC2: builds tree C and tree R from the PC1 output; returns comm_d and comm_r.
///
/// # Safety
/// Slices readable for their lengths. Free with
/// `destroy_seal_pre_commit_phase2_response`.
#[no_mangle]
pub unsafe extern "C" fn seal_pre_commit_phase2(
    seal_pre_commit_phase1_output: slice_ref_uint8_t,
    cache_dir_path: slice_ref_uint8_t,
    sealed_sector_path: slice_ref_uint8_t,
) -> *mut Result_SealPreCommitPhase2_t {
    respond("seal_pre_commit_phase2", Errors::Chain, || {
        let pc1 = try_arg!(bytes, seal_pre_commit_phase1_output);
        let cache = try_arg!(path, cache_dir_path);
        let sealed = try_arg!(path, sealed_sector_path);
        let out = sealing::pre_commit_phase2(pc1, &cache, &sealed)?;
        Ok(SealPreCommitPhase2_t {
            registered_proof: seal_proof_value(out.registered_proof),
            comm_d: uint8_32_array_t { idx: out.comm_d },
            comm_r: uint8_32_array_t { idx: out.comm_r },
        })
    })
}

/// The arguments C1 and the synthetic proofs share.
struct SealedArgs {
    rp: filecoin_proofs_api::RegisteredSealProof,
    comm_r: [u8; 32],
    comm_d: [u8; 32],
    cache: std::path::PathBuf,
    replica: std::path::PathBuf,
    prover_id: [u8; 32],
    ticket: [u8; 32],
    pieces: Vec<filecoin_proofs_api::PieceInfo>,
}

impl SealedArgs {
    fn sealed(&self, sector_id: u64) -> sealing::Sealed<'_> {
        sealing::Sealed {
            rp: self.rp,
            comm_r: self.comm_r,
            comm_d: self.comm_d,
            cache: &self.cache,
            replica: &self.replica,
            sector_id,
            prover_id: self.prover_id,
            ticket: self.ticket,
        }
    }
}

/// # Safety
/// Slices readable for their lengths; pointers NULL or readable.
#[allow(clippy::too_many_arguments)]
unsafe fn sealed_args(
    registered_proof: RegisteredSealProof_t,
    comm_r: *const uint8_32_array_t,
    comm_d: *const uint8_32_array_t,
    cache_dir_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    prover_id: *const uint8_32_array_t,
    ticket: *const uint8_32_array_t,
    pieces: slice_ref_PublicPieceInfo_t,
) -> Result<SealedArgs> {
    Ok(SealedArgs {
        rp: seal_proof(registered_proof)?,
        comm_r: try_arg!(array32, comm_r),
        comm_d: try_arg!(array32, comm_d),
        cache: try_arg!(path, cache_dir_path),
        replica: try_arg!(path, replica_path),
        prover_id: try_arg!(array32, prover_id),
        ticket: try_arg!(array32, ticket),
        pieces: try_arg!(boxed::pieces, pieces),
    })
}

/// C1: the vanilla proofs of the sealed sector for `seed`'s challenges.
/// Returns `serde_json` of `SealCommitPhase1Output`, the input of
/// `seal_commit_phase2`.
///
/// # Safety
/// Slices readable for their lengths; pointers NULL or readable. Free with
/// `destroy_seal_commit_phase1_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn seal_commit_phase1(
    registered_proof: RegisteredSealProof_t,
    comm_r: *const uint8_32_array_t,
    comm_d: *const uint8_32_array_t,
    cache_dir_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    sector_id: u64,
    prover_id: *const uint8_32_array_t,
    ticket: *const uint8_32_array_t,
    seed: *const uint8_32_array_t,
    pieces: slice_ref_PublicPieceInfo_t,
) -> *mut Result_slice_boxed_uint8_t {
    respond("seal_commit_phase1", Errors::Chain, || {
        // SAFETY: forwarded from this function's contract.
        let a = unsafe {
            sealed_args(registered_proof, comm_r, comm_d, cache_dir_path, replica_path, prover_id, ticket, pieces)?
        };
        let seed = try_arg!(array32, seed);
        sealing::commit_phase1(&a.sealed(sector_id), seed, &a.pieces).map(slice_boxed_uint8_t::from_vec)
    })
}

/// Synthetic PoRep: computes and stores the synthetic vanilla proofs in the cache.
///
/// # Safety
/// As `seal_commit_phase1`. Free with `destroy_generate_synth_proofs_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn generate_synth_proofs(
    registered_proof: RegisteredSealProof_t,
    comm_r: *const uint8_32_array_t,
    comm_d: *const uint8_32_array_t,
    cache_dir_path: slice_ref_uint8_t,
    replica_path: slice_ref_uint8_t,
    sector_id: u64,
    prover_id: *const uint8_32_array_t,
    ticket: *const uint8_32_array_t,
    pieces: slice_ref_PublicPieceInfo_t,
) -> *mut Result_void_t {
    respond("generate_synth_proofs", Errors::Chain, || {
        // SAFETY: forwarded from this function's contract.
        let a = unsafe {
            sealed_args(registered_proof, comm_r, comm_d, cache_dir_path, replica_path, prover_id, ticket, pieces)?
        };
        sealing::generate_synth_proofs(&a.sealed(sector_id), &a.pieces)
    })
}

/// Unseals `unpadded_bytes_amount` bytes from `unpadded_byte_index` of the
/// sealed sector read from `sealed_sector_fd_raw`, writing them to
/// `unseal_output_fd_raw`. Neither descriptor is closed.
///
/// # Safety
/// Slices readable for their lengths; pointers NULL or readable; both
/// descriptors stay open during the call. Free with `destroy_unseal_range_response`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn unseal_range(
    registered_proof: RegisteredSealProof_t,
    cache_dir_path: slice_ref_uint8_t,
    sealed_sector_fd_raw: i32,
    unseal_output_fd_raw: i32,
    sector_id: u64,
    prover_id: *const uint8_32_array_t,
    ticket: *const uint8_32_array_t,
    comm_d: *const uint8_32_array_t,
    unpadded_byte_index: u64,
    unpadded_bytes_amount: u64,
) -> *mut Result_void_t {
    respond("unseal_range", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let cache = try_arg!(path, cache_dir_path);
        let (prover_id, ticket) = (try_arg!(array32, prover_id), try_arg!(array32, ticket));
        let comm_d = try_arg!(array32, comm_d);
        let sealed = try_arg!(fd::borrow, sealed_sector_fd_raw);
        let out = try_arg!(fd::borrow, unseal_output_fd_raw);
        sealing::unseal_range(
            rp,
            &cache,
            &sealed,
            &out,
            sector_id,
            prover_id,
            ticket,
            comm_d,
            unpadded_byte_index,
            unpadded_bytes_amount,
        )
    })
}

/// Removes the cache files not needed after sealing (keeps what PoSt reads).
///
/// # Safety
/// `cache_dir_path` readable for its length. Free with `destroy_clear_cache_response`.
#[no_mangle]
pub unsafe extern "C" fn clear_cache(cache_dir_path: slice_ref_uint8_t) -> *mut Result_void_t {
    respond("clear_cache", Errors::Chain, || {
        let cache = try_arg!(path, cache_dir_path);
        filecoin_proofs_api::seal::clear_cache(&cache)
    })
}

/// Removes the synthetic vanilla proofs from the cache.
///
/// # Safety
/// `cache_dir_path` readable for its length. Free with `destroy_clear_cache_response`.
#[no_mangle]
pub unsafe extern "C" fn clear_synthetic_proofs(cache_dir_path: slice_ref_uint8_t) -> *mut Result_void_t {
    respond("clear_synthetic_proofs", Errors::Chain, || {
        let cache = try_arg!(path, cache_dir_path);
        filecoin_proofs_api::seal::clear_synthetic_proofs(&cache)
    })
}

/// A faux replica (for network genesis): fills `sealed_sector_path` and the
/// cache, returns its comm_r.
///
/// # Safety
/// Slices readable for their lengths. Free with `destroy_fauxrep_response`.
#[no_mangle]
pub unsafe extern "C" fn fauxrep(
    registered_proof: RegisteredSealProof_t,
    cache_dir_path: slice_ref_uint8_t,
    sealed_sector_path: slice_ref_uint8_t,
) -> *mut Result_uint8_32_array_t {
    respond("fauxrep", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let cache = try_arg!(path, cache_dir_path);
        let sealed = try_arg!(path, sealed_sector_path);
        let comm_r = filecoin_proofs_api::seal::fauxrep(rp, &cache, &sealed)?;
        Ok(uint8_32_array_t { idx: comm_r })
    })
}

/// A faux replica reusing the `p_aux` of an earlier one; returns its comm_r.
///
/// # Safety
/// Slices readable for their lengths. Free with `destroy_fauxrep_response`.
#[no_mangle]
pub unsafe extern "C" fn fauxrep2(
    registered_proof: RegisteredSealProof_t,
    cache_dir_path: slice_ref_uint8_t,
    existing_p_aux_path: slice_ref_uint8_t,
) -> *mut Result_uint8_32_array_t {
    respond("fauxrep2", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let cache = try_arg!(path, cache_dir_path);
        let p_aux = try_arg!(path, existing_p_aux_path);
        let comm_r = filecoin_proofs_api::seal::fauxrep2(rp, &cache, &p_aux)?;
        Ok(uint8_32_array_t { idx: comm_r })
    })
}

/// The SDR label layers of `replica_id`, written to `output_dir`.
///
/// # Safety
/// `output_dir` readable for its length; `replica_id` NULL or readable. Free
/// with `destroy_generate_sdr_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_sdr(
    registered_proof: RegisteredSealProof_t,
    output_dir: slice_ref_uint8_t,
    replica_id: *const uint8_32_array_t,
) -> *mut Result_void_t {
    respond("generate_sdr", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let output_dir = try_arg!(path, output_dir);
        let replica_id = try_arg!(array32, replica_id);
        sealing::generate_sdr(rp, &output_dir, replica_id)
    })
}

/// Tree C over the label layers in `input_dir`, written to `output_dir`;
/// returns comm_c.
///
/// # Safety
/// Slices readable for their lengths. Free with `destroy_generate_tree_c_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_tree_c(
    registered_proof: RegisteredSealProof_t,
    input_dir: slice_ref_uint8_t,
    output_dir: slice_ref_uint8_t,
) -> *mut Result_uint8_32_array_t {
    respond("generate_tree_c", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let input_dir = try_arg!(path, input_dir);
        let output_dir = try_arg!(path, output_dir);
        let comm_c = filecoin_proofs_api::seal::generate_tree_c(rp, &input_dir, &output_dir)?;
        Ok(uint8_32_array_t { idx: comm_c })
    })
}

/// Tree R (last) over the replica, written to `output_dir`; returns comm_r_last.
///
/// # Safety
/// Slices readable for their lengths. Free with
/// `destroy_generate_tree_r_last_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_tree_r_last(
    registered_proof: RegisteredSealProof_t,
    replica_path: slice_ref_uint8_t,
    output_dir: slice_ref_uint8_t,
) -> *mut Result_uint8_32_array_t {
    respond("generate_tree_r_last", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let replica = try_arg!(path, replica_path);
        let output_dir = try_arg!(path, output_dir);
        let comm_r_last = filecoin_proofs_api::seal::generate_tree_r_last(rp, &replica, &output_dir)?;
        Ok(uint8_32_array_t { idx: comm_r_last })
    })
}
