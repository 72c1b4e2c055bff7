//! The panic boundary every export goes through. `catch` is the one place a
//! panic is caught; `respond` turns a body's `Result` into the boxed response
//! C frees with the matching destructor, `guard` gives the BLS calls their
//! fallback, and ffi/engine.rs turns an outcome into a `cuzk_result_t`. No
//! panic and no Rust error crosses into C.

use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::Result;

use super::{owned::Owned, types::*};
use crate::panic_message::panic_message;

/// Runs `body`; a panic becomes its message ("Rust panic: ...").
pub fn catch<T>(body: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(body)).map_err(|payload| panic_message(payload.as_ref()))
}

/// A boxed filcrypto response: `Response<T>`, or `Result_void_t`, which has no
/// value field.
pub trait Reply: Sized {
    type Value: Owned;
    fn new(status_code: i32, error_msg: slice_boxed_uint8_t, value: Self::Value) -> Self;
    fn into_parts(self) -> (slice_boxed_uint8_t, Self::Value);
}

impl<T: Owned> Reply for Response<T> {
    type Value = T;
    fn new(status_code: i32, error_msg: slice_boxed_uint8_t, value: T) -> Self {
        Self { status_code, error_msg, value }
    }
    fn into_parts(self) -> (slice_boxed_uint8_t, T) {
        (self.error_msg, self.value)
    }
}

impl Reply for Result_void_t {
    type Value = ();
    fn new(status_code: i32, error_msg: slice_boxed_uint8_t, _value: ()) -> Self {
        Self { status_code, error_msg }
    }
    fn into_parts(self) -> (slice_boxed_uint8_t, ()) {
        (self.error_msg, ())
    }
}

/// How an export reports an error, as its stock counterpart does.
#[derive(Clone, Copy)]
pub enum Errors {
    /// anyhow's `Debug` form (message plus `Caused by:` chain), as stock's
    /// `catch_panic_response`.
    Chain,
    /// The `Display` form, as stock's Window PoSt generators.
    Message,
    /// The `Display` form, leaving logging alone, as stock's `get_*`
    /// accessors: they may come before `init_log_fd` without making it fail.
    Accessor,
}

/// Runs `body` for the export `name` and boxes its outcome; an error's value
/// is the type's empty one.
pub fn respond<R: Reply>(name: &str, errors: Errors, body: impl FnOnce() -> Result<R::Value>) -> *mut R {
    respond_with(name, errors, |_| R::Value::empty(), body)
}

/// `respond` whose error response carries `on_error(&e)` as its value (stock's
/// Window PoSt generators report the faulty sectors so).
pub fn respond_with<R: Reply>(
    name: &str,
    errors: Errors,
    on_error: fn(&anyhow::Error) -> R::Value,
    body: impl FnOnce() -> Result<R::Value>,
) -> *mut R {
    if !matches!(errors, Errors::Accessor) {
        super::logging::init();
    }
    log::debug!("{name}: start");
    let (status, message, value) = match catch(body) {
        Ok(Ok(value)) => (FCPResponseStatus::F_C_P_RESPONSE_STATUS_NO_ERROR, None, value),
        Ok(Err(e)) => {
            let message = match errors {
                Errors::Chain => format!("{e:?}"),
                Errors::Message | Errors::Accessor => e.to_string(),
            };
            (FCPResponseStatus::F_C_P_RESPONSE_STATUS_UNCLASSIFIED_ERROR, Some(message), on_error(&e))
        }
        Err(panic) => (FCPResponseStatus::F_C_P_RESPONSE_STATUS_UNCLASSIFIED_ERROR, Some(panic), R::Value::empty()),
    };
    log::debug!("{name}: end");
    let error_msg = message.map_or_else(slice_boxed_uint8_t::empty, |m| slice_boxed_uint8_t::from_vec(m.into_bytes()));
    Box::into_raw(Box::new(R::new(status as i32, error_msg, value)))
}

/// The panic boundary of the exports that return no response (BLS): runs
/// `body`, or gives `fallback` if it panics. Logging is not initialized here,
/// as stock's BLS calls do not (so `init_log_fd` may still come after them).
pub fn guard<T>(name: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    catch(body).unwrap_or_else(|panic| {
        log::error!("{name}: {panic}");
        fallback
    })
}

/// Frees a response built by `respond`. NULL is accepted and ignored.
///
/// # Safety
/// `ptr` must be NULL or come from `respond` and not have been freed before.
pub unsafe fn destroy<R: Reply>(ptr: *mut R) {
    if ptr.is_null() {
        return;
    }
    let freed = catch(|| {
        // SAFETY: by the contract above, `ptr` is a live `Box<R>` from `respond`.
        let response = unsafe { Box::from_raw(ptr) };
        let (error_msg, value) = response.into_parts();
        // SAFETY: both buffers belong to this response, freed exactly once, here.
        unsafe {
            value.free();
            error_msg.free();
        }
    });
    if let Err(panic) = freed {
        log::error!("freeing a response: {panic}; memory may have leaked");
    }
}
