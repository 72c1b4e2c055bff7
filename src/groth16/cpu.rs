//! The CPU backend: cuzk's radix-2 NTTs and blst's Pippenger.

use std::time::Instant;

use anyhow::Result;
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use ff::Field;
use rayon::prelude::*;

use super::{
    backend::{Backend, G1Query, HTerm},
    msm,
    ntt::Domain,
    ProvingKey,
};
use crate::room::try_room;

pub struct Cpu<'a>(pub &'a ProvingKey);

impl Backend for Cpu<'_> {
    fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<HTerm> {
        let start = Instant::now();
        let h = h_coefficients(a, b, c)?;
        let ntt = start.elapsed().as_secs_f64();
        let term = msm::msm_g1(&self.0.h, &h);
        Ok(HTerm { term, abc: 0.0, copies: 0.0, ntt, msm: start.elapsed().as_secs_f64() - ntt })
    }

    fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective> {
        let pk = self.0;
        let bases = match query {
            G1Query::L => &pk.l,
            G1Query::A => &pk.a,
            G1Query::BG1 => &pk.b_g1,
        };
        Ok(msm::msm_g1(bases, scalars))
    }

    fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective> {
        Ok(msm::msm_g2(&self.0.b_g2, scalars))
    }
}

/// A, B and C are given by their evaluations on the subgroup; interpolate, move
/// to the coset `gH` where Z is a non-zero constant, divide there, interpolate back.
pub fn h_coefficients(a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<Vec<Fr>> {
    let domain = Domain::new(a.len())?;
    let to_coset = |evals: &[Fr]| -> Result<Vec<Fr>> {
        let mut v = Vec::new();
        try_room(&mut v, domain.size(), "a vector of H's transforms")?;
        v.extend_from_slice(evals);
        v.resize(domain.size(), Fr::ZERO);
        domain.intt(&mut v);
        domain.coset_ntt(&mut v);
        Ok(v)
    };
    let (a, (b, c)) = rayon::join(|| to_coset(a), || rayon::join(|| to_coset(b), || to_coset(c)));
    let (mut a, b, c) = (a?, b?, c?);
    let z_inv = domain.vanishing_on_coset_inverse();
    a.par_iter_mut()
        .zip(b.par_iter().zip(c.par_iter()))
        .for_each(|(a, (b, c))| *a = (*a * b - c) * z_inv);
    drop((b, c));
    domain.icoset_ntt(&mut a);
    // deg H <= n - 2: the top coefficient is zero for a satisfied circuit, and
    // the SRS carries n - 1 points for H.
    a.truncate(domain.size() - 1);
    Ok(a)
}
