//! Process-global state of the prover.

pub mod prover;
pub mod srs_cache;
