//! cuzk: a drop-in replacement for filecoin-ffi's `libfilcrypto` whose SNARKs
//! (PoRep C2, PoSt, SnapDeals) run through cuzk's own synthesis and Groth16 prover.
//! See docs/ARCHITECTURE.md for the flow of a proof through the modules.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod api;
pub mod circuit;
pub mod engine;
pub mod ffi;
/// cbindgen:ignore
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod groth16;
mod panic_message;
mod room;
