//! Information exports: `get_gpu_devices` lists what the engine proves on.

use cuzk::{
    engine::devices,
    ffi::{destroy::destroy_gpu_device_response, info::get_gpu_devices},
};

#[test]
fn gpu_devices_are_the_engines_and_never_an_error() {
    let resp = get_gpu_devices();
    assert!(!resp.is_null());
    // SAFETY: a live response, read, then freed once.
    let names: Vec<String> = unsafe {
        let r = &*resp;
        assert_eq!(r.status_code, 0);
        let list = std::slice::from_raw_parts(r.value.ptr, r.value.len);
        let names = list.iter().map(|b| String::from_utf8(std::slice::from_raw_parts(b.ptr, b.len).to_vec()).unwrap()).collect();
        destroy_gpu_device_response(resp);
        names
    };
    assert_eq!(names, devices::gpu_names());
    if !cfg!(feature = "cuda") || std::env::var("BELLMAN_NO_GPU").is_ok_and(|v| v != "0") {
        assert!(names.is_empty(), "{names:?}");
    }
    // NULL is accepted by the destructor.
    // SAFETY: NULL is part of its contract.
    unsafe { destroy_gpu_device_response(std::ptr::null_mut()) };
}
