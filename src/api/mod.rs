//! Safe Rust per proof type: parse inputs, build circuits, prove through cuzk's
//! engine, assemble and self-verify. The FFI layer only converts and calls these.

pub mod keys;
pub mod params;
pub mod porep;
pub mod porep_circuit;
pub mod post;
pub mod prove;
pub mod random_vanilla;
#[cfg(feature = "fixtures")]
pub mod sample;
pub mod sealing;
pub mod snap;
pub mod snap_circuit;
mod shape;
mod tree_d;
mod vanilla_check;
