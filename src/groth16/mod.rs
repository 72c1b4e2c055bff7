//! Groth16 over BLS12-381: the proving key layout, the math of the prover
//! (H through NTTs, the MSMs, assembly) and the proof encoding. Backend-agnostic
//! data in, proof out; the CPU implementations of NTT and MSM live here too.

mod affine;
pub mod backend;
pub mod cpu;
pub mod generator;
mod free_later;
pub mod msm;
pub mod ntt;
pub mod params;
pub mod proof;
pub mod prover;
#[cfg(feature = "fixtures")]
pub mod synthetic_srs;

pub use params::ProvingKey;
pub use proof::{Proof, PROOF_BYTES};
pub use backend::{Backend, G1Query, HTerm, MsmScalars};
pub use prover::{prove, prove_timed, prove_with, random_rs, StageTimes};
