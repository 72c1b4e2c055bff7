//! What a response's value owns: the value it holds on error (stock's zero
//! value: empty buffers, zero bytes) and how its memory is freed. The only
//! place that frees a `slice_boxed_*`.

use super::{
    boxed::{leak, unleak},
    types::*,
};

/// A C value handed out by cuzk and freed only through `free`.
pub trait Owned {
    /// The value of an error response.
    fn empty() -> Self;

    /// Frees every buffer the value owns. NULL buffers are accepted and ignored.
    ///
    /// # Safety
    /// The value must have been built here (or by `alloc_boxed_slice`) and
    /// not freed before.
    unsafe fn free(self);
}

/// Boxed slices of plain elements.
macro_rules! plain_boxed_slice {
    ($ty:ident, $elem:ty) => {
        impl $ty {
            pub fn from_vec(v: Vec<$elem>) -> Self {
                let (ptr, len) = leak(v);
                Self { ptr, len }
            }
        }

        impl Owned for $ty {
            fn empty() -> Self {
                Self::from_vec(Vec::new())
            }
            unsafe fn free(self) {
                // SAFETY: forwarded from the trait's contract.
                drop(unsafe { unleak(self.ptr, self.len) });
            }
        }
    };
}

plain_boxed_slice!(slice_boxed_uint8_t, u8);
plain_boxed_slice!(slice_boxed_uint64_t, u64);

/// Boxed slices whose elements own memory too, built from `Vec<$from>`.
macro_rules! nested_boxed_slice {
    ($ty:ident, $elem:ty, $from:ty, $convert:expr) => {
        impl $ty {
            pub fn from_vec(v: Vec<$from>) -> Self {
                let (ptr, len) = leak(v.into_iter().map($convert).collect::<Vec<$elem>>());
                Self { ptr, len }
            }
        }

        impl Owned for $ty {
            fn empty() -> Self {
                Self::from_vec(Vec::new())
            }
            unsafe fn free(self) {
                // SAFETY: forwarded from the trait's contract.
                for element in unsafe { unleak(self.ptr, self.len) } {
                    // SAFETY: each element is owned by the list, freed once.
                    unsafe { element.free() };
                }
            }
        }
    };
}

nested_boxed_slice!(slice_boxed_slice_boxed_uint8_t, slice_boxed_uint8_t, Vec<u8>, slice_boxed_uint8_t::from_vec);
nested_boxed_slice!(slice_boxed_slice_boxed_uint64_t, slice_boxed_uint64_t, Vec<u64>, slice_boxed_uint64_t::from_vec);
nested_boxed_slice!(slice_boxed_PoStProof_t, PoStProof_t, PoStProof_t, std::convert::identity);

/// Structs whose fields are all `Owned` (and no other).
macro_rules! owned_fields {
    ($ty:ident { $($field:ident),* }, $($plain:ident: $zero:expr),*) => {
        impl Owned for $ty {
            fn empty() -> Self {
                Self { $($field: Owned::empty(),)* $($plain: $zero,)* }
            }
            unsafe fn free(self) {
                // SAFETY: forwarded from the trait's contract, for each field once.
                unsafe { $(self.$field.free();)* }
            }
        }
    };
}

owned_fields!(PoStProof_t { proof }, registered_proof: 0);
owned_fields!(PartitionSnarkProof_t { proof }, registered_proof: 0);
owned_fields!(GenerateWindowPoSt_t { proofs, faulty_sectors },);
owned_fields!(GenerateSingleWindowPoStWithVanilla_t { partition_proof, faulty_sectors },);
owned_fields!(GenerateFallbackSectorChallenges_t { ids, challenges },);

/// Values that own no memory: stock's `Default` (all zeros) on error, nothing to free.
macro_rules! plain_value {
    ($ty:ty, $zero:expr) => {
        impl Owned for $ty {
            fn empty() -> Self {
                $zero
            }
            unsafe fn free(self) {}
        }
    };
}

const ZERO32: uint8_32_array_t = uint8_32_array_t { idx: [0; 32] };

plain_value!((), ());
plain_value!(bool, false);
plain_value!(usize, 0);
plain_value!(uint8_32_array_t, ZERO32);
plain_value!(WriteWithAlignment_t, WriteWithAlignment_t { comm_p: ZERO32, left_alignment_unpadded: 0, total_write_unpadded: 0 });
plain_value!(WriteWithoutAlignment_t, WriteWithoutAlignment_t { comm_p: ZERO32, total_write_unpadded: 0 });
plain_value!(GeneratePieceCommitment_t, GeneratePieceCommitment_t { comm_p: ZERO32, num_bytes_aligned: 0 });
plain_value!(SealPreCommitPhase2_t, SealPreCommitPhase2_t { registered_proof: 0, comm_d: ZERO32, comm_r: ZERO32 });
plain_value!(
    EmptySectorUpdateEncodeInto_t,
    EmptySectorUpdateEncodeInto_t { comm_r_new: ZERO32, comm_r_last_new: ZERO32, comm_d_new: ZERO32 }
);
