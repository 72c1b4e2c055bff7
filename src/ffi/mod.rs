//! The C ABI of filecoin-ffi's filcrypto.h: the only `#[no_mangle]` code.
//! Every export converts its arguments, calls `crate::api`, and returns through
//! the panic boundary in `boundary`.

pub mod aggregate;
pub mod bls;
mod boundary;
mod boxed;
mod fd;
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
