//! Conversions between Rust-owned buffers and their C form, and the borrowed
//! inputs' checks. The only place that builds or frees `slice_boxed_*`.

use anyhow::{bail, Result};

use super::types::{slice_boxed_uint8_t, slice_ref_uint8_t, uint8_32_array_t};

impl slice_boxed_uint8_t {
    pub fn from_vec(v: Vec<u8>) -> Self {
        let boxed: Box<[u8]> = v.into_boxed_slice();
        let len = boxed.len();
        Self { ptr: Box::into_raw(boxed).cast(), len }
    }

    pub fn empty() -> Self {
        Self::from_vec(Vec::new())
    }

    /// Frees the buffer. NULL is accepted and ignored.
    ///
    /// # Safety
    /// `self` must come from `from_vec` (directly or through `alloc_boxed_slice`)
    /// and not have been freed before.
    pub unsafe fn free(self) {
        if self.ptr.is_null() {
            return;
        }
        let slice = std::ptr::slice_from_raw_parts_mut(self.ptr, self.len);
        // SAFETY: by the contract above the pointer and length are those of a
        // leaked `Box<[u8]>` that nobody else frees.
        drop(unsafe { Box::from_raw(slice) });
    }
}

/// The caller's bytes, or an error naming `what` when the slice is malformed.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes that outlive the borrow.
pub unsafe fn bytes<'a>(s: slice_ref_uint8_t, what: &str) -> Result<&'a [u8]> {
    if s.ptr.is_null() {
        if s.len != 0 {
            bail!("{what}: NULL pointer with length {}", s.len);
        }
        return Ok(&[]);
    }
    // SAFETY: non-NULL, and by the contract above valid for `len` bytes.
    Ok(unsafe { std::slice::from_raw_parts(s.ptr, s.len) })
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
