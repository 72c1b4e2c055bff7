//! The C types of filcrypto.h, with identical layout. Rust names are the C
//! typedef names; build.rs restores the struct tags (`struct slice_ref_uint8`)
//! that cbindgen cannot name differently from the typedef.
//!
//! Ownership: `slice_ref_*` are borrowed from the caller for the duration of the
//! call. `slice_boxed_*` and every `Result_*_t *` are owned by Rust and freed
//! only by the matching `destroy_*` function (NULL is accepted and ignored).
#![allow(non_camel_case_types)]

/// Borrowed bytes; `ptr` may be NULL only when `len` is 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_uint8_t {
    pub ptr: *const u8,
    pub len: usize,
}

/// A Rust-owned `Box<[u8]>`; free with `destroy_boxed_slice` (or the destructor
/// of the response that holds it).
#[repr(C)]
pub struct slice_boxed_uint8_t {
    pub ptr: *mut u8,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct uint8_32_array_t {
    pub idx: [u8; 32],
}

/// Response status codes; cuzk uses `NO_ERROR` and `UNCLASSIFIED_ERROR`, as stock.
#[repr(i32)]
pub enum FCPResponseStatus {
    F_C_P_RESPONSE_STATUS_NO_ERROR = 0,
    F_C_P_RESPONSE_STATUS_UNCLASSIFIED_ERROR = 1,
    F_C_P_RESPONSE_STATUS_CALLER_ERROR = 2,
    F_C_P_RESPONSE_STATUS_RECEIVER_ERROR = 3,
}
pub type FCPResponseStatus_t = i32;

// A response of a filcrypto call: its status, the error message (empty on
// success) and the value (stock's zero value on error). A plain comment, not a
// doc comment: cbindgen would copy a doc comment onto every instance, and
// build.rs names each instance after its alias (`Result_bool_t`).
#[repr(C)]
pub struct Response<T> {
    pub status_code: FCPResponseStatus_t,
    pub error_msg: slice_boxed_uint8_t,
    pub value: T,
}

#[repr(i32)]
pub enum RegisteredSealProof {
    REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1 = 0,
    REGISTERED_SEAL_PROOF_STACKED_DRG8_MI_B_V1 = 1,
    REGISTERED_SEAL_PROOF_STACKED_DRG512_MI_B_V1 = 2,
    REGISTERED_SEAL_PROOF_STACKED_DRG32_GI_B_V1 = 3,
    REGISTERED_SEAL_PROOF_STACKED_DRG64_GI_B_V1 = 4,
    REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1 = 5,
    REGISTERED_SEAL_PROOF_STACKED_DRG8_MI_B_V1_1 = 6,
    REGISTERED_SEAL_PROOF_STACKED_DRG512_MI_B_V1_1 = 7,
    REGISTERED_SEAL_PROOF_STACKED_DRG32_GI_B_V1_1 = 8,
    REGISTERED_SEAL_PROOF_STACKED_DRG64_GI_B_V1_1 = 9,
    REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1__FEAT__SYNTHETIC_PO_REP = 10,
    REGISTERED_SEAL_PROOF_STACKED_DRG8_MI_B_V1_1__FEAT__SYNTHETIC_PO_REP = 11,
    REGISTERED_SEAL_PROOF_STACKED_DRG512_MI_B_V1_1__FEAT__SYNTHETIC_PO_REP = 12,
    REGISTERED_SEAL_PROOF_STACKED_DRG32_GI_B_V1_1__FEAT__SYNTHETIC_PO_REP = 13,
    REGISTERED_SEAL_PROOF_STACKED_DRG64_GI_B_V1_1__FEAT__SYNTHETIC_PO_REP = 14,
    REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_2__FEAT__NON_INTERACTIVE_PO_REP = 15,
    REGISTERED_SEAL_PROOF_STACKED_DRG8_MI_B_V1_2__FEAT__NON_INTERACTIVE_PO_REP = 16,
    REGISTERED_SEAL_PROOF_STACKED_DRG512_MI_B_V1_2__FEAT__NON_INTERACTIVE_PO_REP = 17,
    REGISTERED_SEAL_PROOF_STACKED_DRG32_GI_B_V1_2__FEAT__NON_INTERACTIVE_PO_REP = 18,
    REGISTERED_SEAL_PROOF_STACKED_DRG64_GI_B_V1_2__FEAT__NON_INTERACTIVE_PO_REP = 19,
}
/// Received as its `int32_t` and validated: an out-of-range value is an error.
pub type RegisteredSealProof_t = i32;

pub type Result_slice_boxed_uint8_t = Response<slice_boxed_uint8_t>;

pub type Result_bool_t = Response<bool>;

#[repr(C)]
pub struct slice_boxed_uint64_t {
    pub ptr: *mut u64,
    pub len: usize,
}

/// Borrowed list of Rust-owned buffers (each from `alloc_boxed_slice`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_slice_boxed_uint8_t {
    pub ptr: *const slice_boxed_uint8_t,
    pub len: usize,
}

#[repr(i32)]
pub enum RegisteredPoStProof {
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING2_KI_B_V1 = 0,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING8_MI_B_V1 = 1,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING512_MI_B_V1 = 2,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING32_GI_B_V1 = 3,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING64_GI_B_V1 = 4,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1 = 5,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW8_MI_B_V1 = 6,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW512_MI_B_V1 = 7,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW32_GI_B_V1 = 8,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW64_GI_B_V1 = 9,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1_1 = 10,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW8_MI_B_V1_1 = 11,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW512_MI_B_V1_1 = 12,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW32_GI_B_V1_1 = 13,
    REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW64_GI_B_V1_1 = 14,
}
/// Received as its `int32_t` and validated. Window `*_V1_1` is stock's api `V1_2`.
pub type RegisteredPoStProof_t = i32;

#[repr(i32)]
pub enum RegisteredUpdateProof {
    REGISTERED_UPDATE_PROOF_STACKED_DRG2_KI_B_V1 = 0,
    REGISTERED_UPDATE_PROOF_STACKED_DRG8_MI_B_V1 = 1,
    REGISTERED_UPDATE_PROOF_STACKED_DRG512_MI_B_V1 = 2,
    REGISTERED_UPDATE_PROOF_STACKED_DRG32_GI_B_V1 = 3,
    REGISTERED_UPDATE_PROOF_STACKED_DRG64_GI_B_V1 = 4,
}
/// Received as its `int32_t` and validated: an out-of-range value is an error.
pub type RegisteredUpdateProof_t = i32;

#[repr(C)]
pub struct PoStProof_t {
    pub registered_proof: RegisteredPoStProof_t,
    pub proof: slice_boxed_uint8_t,
}

#[repr(C)]
pub struct PartitionSnarkProof_t {
    pub registered_proof: RegisteredPoStProof_t,
    pub proof: slice_boxed_uint8_t,
}

#[repr(C)]
pub struct slice_boxed_slice_boxed_uint8_t {
    pub ptr: *mut slice_boxed_uint8_t,
    pub len: usize,
}

pub type Result_slice_boxed_slice_boxed_uint8_t = Response<slice_boxed_slice_boxed_uint8_t>;

#[repr(C)]
pub struct slice_boxed_PoStProof_t {
    pub ptr: *mut PoStProof_t,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_PoStProof_t {
    pub ptr: *const PoStProof_t,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct PublicReplicaInfo_t {
    pub registered_proof: RegisteredPoStProof_t,
    pub comm_r: uint8_32_array_t,
    pub sector_id: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_PublicReplicaInfo_t {
    pub ptr: *const PublicReplicaInfo_t,
    pub len: usize,
}

#[repr(C)]
pub struct GenerateWindowPoSt_t {
    pub proofs: slice_boxed_PoStProof_t,
    pub faulty_sectors: slice_boxed_uint64_t,
}

#[repr(C)]
pub struct GenerateSingleWindowPoStWithVanilla_t {
    pub partition_proof: PartitionSnarkProof_t,
    pub faulty_sectors: slice_boxed_uint64_t,
}

pub type Result_slice_boxed_PoStProof_t = Response<slice_boxed_PoStProof_t>;

pub type Result_GenerateWindowPoSt_t = Response<GenerateWindowPoSt_t>;

pub type Result_GenerateSingleWindowPoStWithVanilla_t = Response<GenerateSingleWindowPoStWithVanilla_t>;

pub type Result_PoStProof_t = Response<PoStProof_t>;

/// `Result<()>`: stock omits the value field.
#[repr(C)]
pub struct Result_void_t {
    pub status_code: FCPResponseStatus_t,
    pub error_msg: slice_boxed_uint8_t,
}

pub type Result_size_t = Response<usize>;

pub type Result_uint8_32_array_t = Response<uint8_32_array_t>;

/// Borrowed `u64`s; `ptr` may be NULL only when `len` is 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_uint64_t {
    pub ptr: *const u64,
    pub len: usize,
}

/// A piece of a sector: its unpadded size and its commitment.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PublicPieceInfo_t {
    pub num_bytes: u64,
    pub comm_p: uint8_32_array_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_PublicPieceInfo_t {
    pub ptr: *const PublicPieceInfo_t,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WriteWithAlignment_t {
    pub comm_p: uint8_32_array_t,
    pub left_alignment_unpadded: u64,
    pub total_write_unpadded: u64,
}

pub type Result_WriteWithAlignment_t = Response<WriteWithAlignment_t>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WriteWithoutAlignment_t {
    pub comm_p: uint8_32_array_t,
    pub total_write_unpadded: u64,
}

pub type Result_WriteWithoutAlignment_t = Response<WriteWithoutAlignment_t>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GeneratePieceCommitment_t {
    pub comm_p: uint8_32_array_t,
    pub num_bytes_aligned: u64,
}

pub type Result_GeneratePieceCommitment_t = Response<GeneratePieceCommitment_t>;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SealPreCommitPhase2_t {
    pub registered_proof: RegisteredSealProof_t,
    pub comm_d: uint8_32_array_t,
    pub comm_r: uint8_32_array_t,
}

pub type Result_SealPreCommitPhase2_t = Response<SealPreCommitPhase2_t>;

#[repr(C)]
pub struct slice_boxed_slice_boxed_uint64_t {
    pub ptr: *mut slice_boxed_uint64_t,
    pub len: usize,
}

/// A replica a PoSt reads. The path buffers are Rust-owned (`alloc_boxed_slice`):
/// borrowed in a `slice_ref_PrivateReplicaInfo_t`, taken (and freed) by
/// `generate_single_vanilla_proof`, which receives the struct by value.
#[repr(C)]
pub struct PrivateReplicaInfo_t {
    pub registered_proof: RegisteredPoStProof_t,
    pub cache_dir_path: slice_boxed_uint8_t,
    pub comm_r: uint8_32_array_t,
    pub replica_path: slice_boxed_uint8_t,
    pub sector_id: u64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_PrivateReplicaInfo_t {
    pub ptr: *const PrivateReplicaInfo_t,
    pub len: usize,
}

/// The challenged leaves of each sector: `challenges[i]` belongs to `ids[i]`.
#[repr(C)]
pub struct GenerateFallbackSectorChallenges_t {
    pub ids: slice_boxed_uint64_t,
    pub challenges: slice_boxed_slice_boxed_uint64_t,
}

pub type Result_GenerateFallbackSectorChallenges_t = Response<GenerateFallbackSectorChallenges_t>;

pub type Result_slice_boxed_uint64_t = Response<slice_boxed_uint64_t>;

/// A BLS public key (compressed G1), Rust-owned when returned; free with
/// `destroy_box_bls_public_key`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct uint8_48_array_t {
    pub idx: [u8; 48],
}

/// A BLS signature or message digest (compressed G2), Rust-owned when returned;
/// free with `destroy_box_bls_signature` / `destroy_box_bls_digest`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct uint8_96_array_t {
    pub idx: [u8; 96],
}

/// Borrowed `size_t`s; `ptr` may be NULL only when `len` is 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_size_t {
    pub ptr: *const usize,
    pub len: usize,
}

/// The commitments of a SnapDeals update.
#[repr(C)]
pub struct EmptySectorUpdateEncodeInto_t {
    pub comm_r_new: uint8_32_array_t,
    pub comm_r_last_new: uint8_32_array_t,
    pub comm_d_new: uint8_32_array_t,
}

pub type Result_EmptySectorUpdateEncodeInto_t = Response<EmptySectorUpdateEncodeInto_t>;

#[repr(i32)]
pub enum RegisteredAggregationProof {
    REGISTERED_AGGREGATION_PROOF_SNARK_PACK_V1 = 0,
    REGISTERED_AGGREGATION_PROOF_SNARK_PACK_V2 = 1,
}

/// Received as its `int32_t` and validated: an out-of-range value is an error.
pub type RegisteredAggregationProof_t = i32;

/// Borrowed 32-byte arrays; `ptr` may be NULL only when `len` is 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_uint8_32_array_t {
    pub ptr: *const uint8_32_array_t,
    pub len: usize,
}

/// What the verifier of an aggregated PoRep knows of one sector.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AggregationInputs_t {
    pub comm_r: uint8_32_array_t,
    pub comm_d: uint8_32_array_t,
    pub sector_id: u64,
    pub ticket: uint8_32_array_t,
    pub seed: uint8_32_array_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice_ref_AggregationInputs_t {
    pub ptr: *const AggregationInputs_t,
    pub len: usize,
}
