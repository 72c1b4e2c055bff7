//! Information exports.

use super::{boundary::respond, types::*};
use crate::engine::devices;

/// The names of the GPUs cuzk proves on; an empty list (not an error) where
/// none is usable or the build has no GPU backend. Free the response with
/// `destroy_gpu_device_response`.
#[no_mangle]
pub extern "C" fn get_gpu_devices() -> *mut Result_slice_boxed_slice_boxed_uint8_t {
    respond("get_gpu_devices", || {
        Ok(slice_boxed_slice_boxed_uint8_t::from_vec(devices::gpu_names().into_iter().map(String::into_bytes).collect()))
    })
}
