//! The C ABI of filecoin-ffi's filcrypto.h: the only `#[no_mangle]` code.
//! Every export converts its arguments, calls `crate::api`, and returns through
//! the panic boundary in `boundary`.

/// Reads the export's argument `$arg` with `$read` (`bytes`, `array32`,
/// `path`, ...: unsafe readers of borrowed C memory), naming the argument in
/// the error, and returns early with that error (rustls-ffi's `try_*`). Only
/// for an export's (or an unsafe helper's) own arguments, whose `# Safety`
/// contract makes them valid for the reader.
macro_rules! try_arg {
    ($read:path, $arg:ident) => {
        // SAFETY: the calling function's contract covers its argument `$arg`.
        unsafe { $read($arg, stringify!($arg)) }?
    };
}

pub mod aggregate;
pub mod bls;
mod boundary;
mod boxed;
mod fd;
mod owned;
pub mod info;
pub mod pieces;
pub mod destroy;
pub mod engine;
pub mod engine_types;
pub mod logging;
pub mod post;
pub mod seal;
pub mod sealing;
pub mod slices;
pub mod snap;
pub mod types;
