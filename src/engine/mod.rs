//! Process-global state of the prover.

pub mod srs_cache;
