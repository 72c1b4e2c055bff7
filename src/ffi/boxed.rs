//! Conversions between Rust-owned buffers and their C form, and the borrowed
//! inputs' checks.

use anyhow::{bail, ensure, Result};

use super::types::*;

/// Hands `v` to C as a boxed slice's `(ptr, len)`; empty gives a dangling,
/// non-NULL pointer, as stock.
pub fn leak<T>(v: Vec<T>) -> (*mut T, usize) {
    let boxed = v.into_boxed_slice();
    let len = boxed.len();
    (Box::into_raw(boxed).cast(), len)
}

/// Takes back what `leak` handed out. NULL gives an empty vector.
///
/// # Safety
/// `(ptr, len)` must come from `leak::<T>` and not have been taken back before.
pub unsafe fn unleak<T>(ptr: *mut T, len: usize) -> Vec<T> {
    if ptr.is_null() {
        return Vec::new();
    }
    // SAFETY: by the contract above, a leaked `Box<[T]>` of `len` elements.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }.into_vec()
}

impl slice_boxed_uint8_t {
    /// Takes back a buffer the caller handed over (by value) as a vector.
    ///
    /// # Safety
    /// `self` must come from `from_vec` (or `alloc_boxed_slice`) and must not
    /// be used or freed afterwards.
    pub unsafe fn into_vec(self) -> Vec<u8> {
        // SAFETY: forwarded from this function's contract.
        unsafe { unleak(self.ptr, self.len) }
    }
}

/// The caller's `len` elements at `ptr`, or an error naming `what` when the
/// slice is malformed (NULL with a length).
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable elements that outlive the borrow.
pub unsafe fn list<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T]> {
    if ptr.is_null() {
        if len != 0 {
            bail!("{what}: NULL pointer with length {len}");
        }
        return Ok(&[]);
    }
    // SAFETY: non-NULL, and by the contract above valid for `len` elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Copies of the caller's buffers.
///
/// # Safety
/// As `list`, for the outer list and each buffer in it.
pub unsafe fn byte_lists(s: slice_ref_slice_boxed_uint8_t, what: &str) -> Result<Vec<Vec<u8>>> {
    // SAFETY: forwarded from this function's contract.
    let outer = unsafe { list(s.ptr, s.len, what)? };
    outer
        .iter()
        .enumerate()
        // SAFETY: forwarded from this function's contract.
        .map(|(i, b)| unsafe { list(b.ptr.cast_const(), b.len, &format!("{what}[{i}]")) }.map(<[u8]>::to_vec))
        .collect()
}

/// The caller's bytes, or an error naming `what` when the slice is malformed.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes that outlive the borrow.
pub unsafe fn bytes<'a>(s: slice_ref_uint8_t, what: &str) -> Result<&'a [u8]> {
    // SAFETY: forwarded from this function's contract.
    unsafe { list(s.ptr, s.len, what) }
}

/// A file system path given as UTF-8 bytes (as stock reads them).
///
/// # Safety
/// As `bytes`.
pub unsafe fn path(s: slice_ref_uint8_t, what: &str) -> Result<std::path::PathBuf> {
    // SAFETY: forwarded from this function's contract.
    path_of(unsafe { bytes(s, what)? }, what)
}

/// A path held in a caller's Rust-owned buffer (borrowed, not freed).
///
/// # Safety
/// A non-NULL `s.ptr` must point to `s.len` readable bytes that outlive the call.
pub unsafe fn boxed_path(s: &slice_boxed_uint8_t, what: &str) -> Result<std::path::PathBuf> {
    // SAFETY: forwarded from this function's contract.
    path_of(unsafe { list(s.ptr.cast_const(), s.len, what)? }, what)
}

/// `b` as a UTF-8 path, or an error naming `what`.
pub fn path_of(b: &[u8], what: &str) -> Result<std::path::PathBuf> {
    ensure!(!b.is_empty(), "{what} is empty");
    let s = std::str::from_utf8(b).map_err(|e| anyhow::anyhow!("{what} is not UTF-8: {e}"))?;
    Ok(s.into())
}

/// The 32 bytes behind `p`, or an error naming `what` when `p` is NULL.
///
/// # Safety
/// A non-NULL `p` must point to a readable `uint8_32_array_t`.
pub unsafe fn array32(p: *const uint8_32_array_t, what: &str) -> Result<[u8; 32]> {
    if p.is_null() {
        bail!("{what} is NULL");
    }
    // SAFETY: non-NULL, and by the contract above readable.
    Ok(unsafe { (*p).idx })
}

/// Hands `value` to C as a Rust-owned box (BLS keys, signatures, digests).
pub fn boxed_value<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Frees a box from `boxed_value`. NULL is accepted and ignored.
///
/// # Safety
/// `ptr` must be NULL or come from `boxed_value::<T>` and not be freed twice.
pub unsafe fn free_value<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: by the contract above, a live box of `T`.
        drop(unsafe { Box::from_raw(ptr) });
    }
}

/// The caller's pieces as the api's `PieceInfo`s (copied as stock, unchecked).
///
/// # Safety
/// As `list`.
pub unsafe fn pieces(s: slice_ref_PublicPieceInfo_t, what: &str) -> Result<Vec<filecoin_proofs_api::PieceInfo>> {
    // SAFETY: forwarded from this function's contract.
    let pieces = unsafe { list(s.ptr, s.len, what)? };
    Ok(pieces
        .iter()
        .map(|p| filecoin_proofs_api::PieceInfo {
            commitment: p.comm_p.idx,
            size: filecoin_proofs_api::UnpaddedBytesAmount(p.num_bytes),
        })
        .collect())
}

/// The caller's `u64`s.
///
/// # Safety
/// As `list`.
pub unsafe fn u64s<'a>(s: slice_ref_uint64_t, what: &str) -> Result<&'a [u64]> {
    // SAFETY: forwarded from this function's contract.
    unsafe { list(s.ptr, s.len, what) }
}
