//! The heavy steps of a Groth16 proof, behind one interface so that the CPU
//! and the GPU compute them from the same data: H through NTTs, and the MSMs
//! over the queries of a proving key.

use anyhow::Result;
use blstrs::{G1Projective, G2Projective, Scalar as Fr};

/// The G1 queries of a proving key besides H.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum G1Query {
    L,
    A,
    BG1,
}

/// The H term of a proof, and the seconds its parts took.
#[derive(Clone, Copy, Debug)]
pub struct HTerm {
    pub term: G1Projective,
    /// Copies between host and device (a, b and c in; 0 on the CPU).
    pub copies: f64,
    /// The NTTs and the pointwise step.
    pub ntt: f64,
    /// The MSM over the H query.
    pub msm: f64,
}

pub trait Backend {
    /// `sum(h_i * H_i)` over the coefficients of `H(x) = (A(x) B(x) - C(x)) / Z(x)`
    /// and the H query, from the evaluations of A, B and C on the subgroup
    /// (zero-padded to the domain). One step, so that a GPU keeps H on the device.
    fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<HTerm>;

    /// `sum(scalars[i] * query[i])`; `scalars` is as long as the query.
    fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective>;

    /// `sum(scalars[i] * b_g2[i])`.
    fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective>;
}
