//! Rust-owned byte buffers for inputs typed `slice_boxed_uint8_t`.

use super::{boundary::guard, owned::Owned, types::slice_boxed_uint8_t};

/// A zeroed Rust-owned buffer of `size` bytes; free it with `destroy_boxed_slice`.
/// Returns `{NULL, 0}` if the allocation panics (e.g. an absurd size).
#[no_mangle]
pub extern "C" fn alloc_boxed_slice(size: usize) -> slice_boxed_uint8_t {
    let none = slice_boxed_uint8_t { ptr: std::ptr::null_mut(), len: 0 };
    guard("alloc_boxed_slice", none, || slice_boxed_uint8_t::from_vec(vec![0u8; size]))
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
