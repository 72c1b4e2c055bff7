//! Process-global state of the prover.

pub mod devices;
pub mod prover;
pub mod srs_cache;
