//! The panic boundary every export goes through: run the body, turn its
//! `Result` or a panic into a heap-allocated response that C frees with the
//! matching destructor. No panic and no Rust error crosses into C.

use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::Result;

use super::types::*;
use crate::panic_message::panic_message;

/// A value a response carries: what it is on error, and how it is freed.
pub trait CValue {
    fn on_error() -> Self;
    /// # Safety
    /// The value must be owned by a response built here and not freed before.
    unsafe fn release(self);
}

impl CValue for bool {
    fn on_error() -> Self {
        false
    }
    unsafe fn release(self) {}
}

impl CValue for slice_boxed_uint8_t {
    fn on_error() -> Self {
        Self::empty()
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe { self.free() }
    }
}

impl CValue for slice_boxed_PoStProof_t {
    fn on_error() -> Self {
        Self::from_vec(Vec::new())
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe { self.free() }
    }
}

impl CValue for slice_boxed_slice_boxed_uint8_t {
    fn on_error() -> Self {
        Self::from_vec(Vec::new())
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe { self.free() }
    }
}

impl CValue for PoStProof_t {
    fn on_error() -> Self {
        Self { registered_proof: 0, proof: slice_boxed_uint8_t::empty() }
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe { self.proof.free() }
    }
}

impl CValue for GenerateWindowPoSt_t {
    fn on_error() -> Self {
        Self { proofs: slice_boxed_PoStProof_t::on_error(), faulty_sectors: slice_boxed_uint64_t::from_vec(Vec::new()) }
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe {
            self.proofs.free();
            self.faulty_sectors.free();
        }
    }
}

impl CValue for GenerateSingleWindowPoStWithVanilla_t {
    fn on_error() -> Self {
        Self {
            partition_proof: PartitionSnarkProof_t { registered_proof: 0, proof: slice_boxed_uint8_t::empty() },
            faulty_sectors: slice_boxed_uint64_t::from_vec(Vec::new()),
        }
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe {
            self.partition_proof.proof.free();
            self.faulty_sectors.free();
        }
    }
}

impl CValue for slice_boxed_uint64_t {
    fn on_error() -> Self {
        Self::from_vec(Vec::new())
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe { self.free() }
    }
}

impl CValue for GenerateFallbackSectorChallenges_t {
    fn on_error() -> Self {
        Self { ids: slice_boxed_uint64_t::on_error(), challenges: slice_boxed_slice_boxed_uint64_t::from_vec(Vec::new()) }
    }
    unsafe fn release(self) {
        // SAFETY: forwarded from the trait's contract.
        unsafe {
            self.ids.free();
            self.challenges.free();
        }
    }
}

/// Values that own no memory: stock's `Default` (all zeros) on error, nothing to free.
macro_rules! plain_value {
    ($ty:ty, $zero:expr) => {
        impl CValue for $ty {
            fn on_error() -> Self {
                $zero
            }
            unsafe fn release(self) {}
        }
    };
}

const ZERO32: uint8_32_array_t = uint8_32_array_t { idx: [0; 32] };

plain_value!((), ());
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

/// A `Result_*_t` response: status, error message and value.
pub trait Response: Sized {
    type Value: CValue;
    fn new(status_code: i32, error_msg: slice_boxed_uint8_t, value: Self::Value) -> Self;
    fn into_parts(self) -> (slice_boxed_uint8_t, Self::Value);

    fn ok(value: Self::Value) -> Self {
        Self::new(FCPResponseStatus::F_C_P_RESPONSE_STATUS_NO_ERROR as i32, slice_boxed_uint8_t::empty(), value)
    }

    fn err(message: String) -> Self {
        Self::new(
            FCPResponseStatus::F_C_P_RESPONSE_STATUS_UNCLASSIFIED_ERROR as i32,
            slice_boxed_uint8_t::from_vec(message.into_bytes()),
            Self::Value::on_error(),
        )
    }
}

macro_rules! response {
    ($ty:ident, $value:ty) => {
        impl Response for $ty {
            type Value = $value;
            fn new(status_code: i32, error_msg: slice_boxed_uint8_t, value: $value) -> Self {
                Self { status_code, error_msg, value }
            }
            fn into_parts(self) -> (slice_boxed_uint8_t, $value) {
                (self.error_msg, self.value)
            }
        }
    };
}

response!(Result_slice_boxed_uint8_t, slice_boxed_uint8_t);
response!(Result_bool_t, bool);
response!(Result_slice_boxed_PoStProof_t, slice_boxed_PoStProof_t);
response!(Result_PoStProof_t, PoStProof_t);
response!(Result_slice_boxed_slice_boxed_uint8_t, slice_boxed_slice_boxed_uint8_t);
response!(Result_GenerateWindowPoSt_t, GenerateWindowPoSt_t);
response!(Result_GenerateSingleWindowPoStWithVanilla_t, GenerateSingleWindowPoStWithVanilla_t);
response!(Result_slice_boxed_uint64_t, slice_boxed_uint64_t);
response!(Result_EmptySectorUpdateEncodeInto_t, EmptySectorUpdateEncodeInto_t);
response!(Result_GenerateFallbackSectorChallenges_t, GenerateFallbackSectorChallenges_t);
response!(Result_size_t, usize);
response!(Result_uint8_32_array_t, uint8_32_array_t);
response!(Result_WriteWithAlignment_t, WriteWithAlignment_t);
response!(Result_WriteWithoutAlignment_t, WriteWithoutAlignment_t);
response!(Result_GeneratePieceCommitment_t, GeneratePieceCommitment_t);
response!(Result_SealPreCommitPhase2_t, SealPreCommitPhase2_t);

/// `Result<()>` has no value field in C.
impl Response for Result_void_t {
    type Value = ();
    fn new(status_code: i32, error_msg: slice_boxed_uint8_t, _value: ()) -> Self {
        Self { status_code, error_msg }
    }
    fn into_parts(self) -> (slice_boxed_uint8_t, ()) {
        (self.error_msg, ())
    }
}

/// Runs `body` for the export `name` and boxes its outcome. Errors carry anyhow's
/// `Debug` form (message plus `Caused by:` chain), as stock's `catch_panic_response`.
pub fn respond<R: Response>(name: &str, body: impl FnOnce() -> Result<R::Value>) -> *mut R {
    respond_as(name, |e| format!("{e:?}"), body)
}

/// `respond` with the error's `Display` form, as stock's Window PoSt generators.
pub fn respond_display<R: Response>(name: &str, body: impl FnOnce() -> Result<R::Value>) -> *mut R {
    respond_as(name, |e| e.to_string(), body)
}

/// `respond_display` whose error response carries `on_error(&e)` as its value
/// (stock's Window PoSt generators report the faulty sectors so).
pub fn respond_display_with<R: Response>(
    name: &str,
    on_error: fn(&anyhow::Error) -> R::Value,
    body: impl FnOnce() -> Result<R::Value>,
) -> *mut R {
    respond_with(name, |e| e.to_string(), true, on_error, body)
}

/// `respond_display` that leaves logging alone, as stock's `get_*` accessors:
/// they may come before `init_log_fd` without making it fail.
pub fn respond_accessor<R: Response>(name: &str, body: impl FnOnce() -> Result<R::Value>) -> *mut R {
    respond_with(name, |e| e.to_string(), false, |_| R::Value::on_error(), body)
}

fn respond_as<R: Response>(
    name: &str,
    message: fn(&anyhow::Error) -> String,
    body: impl FnOnce() -> Result<R::Value>,
) -> *mut R {
    respond_with(name, message, true, |_| R::Value::on_error(), body)
}

fn respond_with<R: Response>(
    name: &str,
    message: fn(&anyhow::Error) -> String,
    init_log: bool,
    on_error: fn(&anyhow::Error) -> R::Value,
    body: impl FnOnce() -> Result<R::Value>,
) -> *mut R {
    if init_log {
        super::logging::init();
    }
    log::debug!("{name}: start");
    let response = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => R::ok(value),
        Ok(Err(e)) => R::new(
            FCPResponseStatus::F_C_P_RESPONSE_STATUS_UNCLASSIFIED_ERROR as i32,
            slice_boxed_uint8_t::from_vec(message(&e).into_bytes()),
            on_error(&e),
        ),
        Err(payload) => R::err(panic_message(payload.as_ref())),
    };
    log::debug!("{name}: end");
    Box::into_raw(Box::new(response))
}

/// The panic boundary of the exports that return no response (BLS): runs
/// `body`, or gives `fallback` if it panics. Logging is not initialized here,
/// as stock's BLS calls do not (so `init_log_fd` may still come after them).
pub fn guard<T>(name: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(payload) => {
            log::error!("{name}: {}", panic_message(payload.as_ref()));
            fallback
        }
    }
}

/// Frees a response built by `respond`. NULL is accepted and ignored.
///
/// # Safety
/// `ptr` must be NULL or come from `respond` and not have been freed before.
pub unsafe fn destroy<R: Response>(ptr: *mut R) {
    if ptr.is_null() {
        return;
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: by the contract above, `ptr` is a live `Box<R>` from `respond`.
        let response = unsafe { Box::from_raw(ptr) };
        let (error_msg, value) = response.into_parts();
        // SAFETY: both buffers belong to this response, freed exactly once, here.
        unsafe {
            value.release();
            error_msg.free();
        }
    }));
    if result.is_err() {
        log::error!("panic while freeing a response; memory may have leaked");
    }
}
