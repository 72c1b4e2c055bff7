//! Piece exports: writing pieces into a staged sector (with or without
//! alignment), and piece and data commitments.

use super::{
    boundary::{respond, Errors},
    boxed::{self, u64s},
    fd,
    seal::seal_proof,
    types::*,
};
use crate::api::sealing;

/// Appends `src_size` unpadded bytes read from `src_fd` to the staged sector
/// open at `dst_fd` (which already holds pieces of `existing_piece_sizes`
/// unpadded bytes), preceded by the zero alignment the piece needs. Neither
/// descriptor is closed.
///
/// # Safety
/// `existing_piece_sizes` readable for its length; both descriptors stay open
/// during the call. Free with `destroy_write_with_alignment_response`.
#[no_mangle]
pub unsafe extern "C" fn write_with_alignment(
    registered_proof: RegisteredSealProof_t,
    src_fd: i32,
    src_size: u64,
    dst_fd: i32,
    existing_piece_sizes: slice_ref_uint64_t,
) -> *mut Result_WriteWithAlignment_t {
    respond("write_with_alignment", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let existing = try_arg!(u64s, existing_piece_sizes);
        let src = try_arg!(fd::borrow, src_fd);
        let dst = try_arg!(fd::borrow, dst_fd);
        let a = sealing::write_with_alignment(rp, &src, src_size, &dst, existing)?;
        Ok(WriteWithAlignment_t {
            comm_p: uint8_32_array_t { idx: a.comm_p },
            left_alignment_unpadded: a.left_alignment_unpadded,
            total_write_unpadded: a.total_write_unpadded,
        })
    })
}

/// Writes `src_size` unpadded bytes read from `src_fd` to `dst_fd` with no
/// alignment. Neither descriptor is closed.
///
/// # Safety
/// Both descriptors stay open during the call. Free with
/// `destroy_write_without_alignment_response`.
#[no_mangle]
pub unsafe extern "C" fn write_without_alignment(
    registered_proof: RegisteredSealProof_t,
    src_fd: i32,
    src_size: u64,
    dst_fd: i32,
) -> *mut Result_WriteWithoutAlignment_t {
    respond("write_without_alignment", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let src = try_arg!(fd::borrow, src_fd);
        let dst = try_arg!(fd::borrow, dst_fd);
        let (comm_p, total) = sealing::write_without_alignment(rp, &src, src_size, &dst)?;
        Ok(WriteWithoutAlignment_t { comm_p: uint8_32_array_t { idx: comm_p }, total_write_unpadded: total })
    })
}

/// The commitment of the `unpadded_piece_size` bytes read from `piece_fd_raw`
/// (not closed), and the piece's size once padded to a power of two.
///
/// # Safety
/// The descriptor stays open during the call. Free with
/// `destroy_generate_piece_commitment_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_piece_commitment(
    registered_proof: RegisteredSealProof_t,
    piece_fd_raw: i32,
    unpadded_piece_size: u64,
) -> *mut Result_GeneratePieceCommitment_t {
    respond("generate_piece_commitment", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let piece = try_arg!(fd::borrow, piece_fd_raw);
        let info = filecoin_proofs_api::seal::generate_piece_commitment(
            rp,
            &*piece,
            filecoin_proofs_api::UnpaddedBytesAmount(unpadded_piece_size),
        )?;
        Ok(GeneratePieceCommitment_t { comm_p: uint8_32_array_t { idx: info.commitment }, num_bytes_aligned: info.size.into() })
    })
}

/// comm_d of a sector of `registered_proof` holding `pieces` (padded with zero
/// pieces to the sector size).
///
/// # Safety
/// `pieces` readable for its length. Free with
/// `destroy_generate_data_commitment_response`.
#[no_mangle]
pub unsafe extern "C" fn generate_data_commitment(
    registered_proof: RegisteredSealProof_t,
    pieces: slice_ref_PublicPieceInfo_t,
) -> *mut Result_uint8_32_array_t {
    respond("generate_data_commitment", Errors::Chain, || {
        let rp = seal_proof(registered_proof)?;
        let pieces = try_arg!(boxed::pieces, pieces);
        let comm_d = filecoin_proofs_api::seal::compute_comm_d(rp, &pieces)?;
        Ok(uint8_32_array_t { idx: comm_d })
    })
}
