//! Rust-owned byte buffers for inputs typed `slice_boxed_uint8_t`.

use std::panic::catch_unwind;

use super::types::slice_boxed_uint8_t;

/// A zeroed Rust-owned buffer of `size` bytes; free it with `destroy_boxed_slice`.
/// Returns `{NULL, 0}` if the allocation panics (e.g. an absurd size).
#[no_mangle]
pub extern "C" fn alloc_boxed_slice(size: usize) -> slice_boxed_uint8_t {
    catch_unwind(|| slice_boxed_uint8_t::from_vec(vec![0u8; size]))
        .unwrap_or(slice_boxed_uint8_t { ptr: std::ptr::null_mut(), len: 0 })
}

/// Frees a buffer from `alloc_boxed_slice`. `{NULL, _}` is accepted and ignored.
///
/// # Safety
/// `ptr` must come from `alloc_boxed_slice` (unchanged) and not be freed twice.
#[no_mangle]
pub unsafe extern "C" fn destroy_boxed_slice(ptr: slice_boxed_uint8_t) {
    // SAFETY: forwarded from this function's contract.
    unsafe { ptr.free() }
}
