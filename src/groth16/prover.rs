//! The Groth16 prover on the CPU: data in (a synthesized circuit, a proving key,
//! the randomisers r and s), proof out.

use anyhow::{ensure, Result};
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve};
use rayon::prelude::*;

use super::{msm, ntt::Domain, params::ProvingKey, proof::Proof};
use crate::circuit::Synthesized;

/// Coefficients of `H(x) = (A(x) B(x) - C(x)) / Z(x)`, `domain - 1` of them.
///
/// A, B and C are given by their evaluations on the subgroup; interpolate, move to
/// the coset `gH` where Z is a non-zero constant, divide there, interpolate back.
pub fn h_coefficients(a: Vec<Fr>, b: Vec<Fr>, c: Vec<Fr>) -> Result<Vec<Fr>> {
    let domain = Domain::new(a.len())?;
    let to_coset = |mut v: Vec<Fr>| {
        v.resize(domain.size(), Fr::ZERO);
        domain.intt(&mut v);
        domain.coset_ntt(&mut v);
        v
    };
    let (mut a, (b, c)) = rayon::join(|| to_coset(a), || rayon::join(|| to_coset(b), || to_coset(c)));
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

/// Checks that `cs` has the shape `pk` was generated for.
fn check_shape(pk: &ProvingKey, cs: &Synthesized) -> Result<()> {
    let domain = Domain::new(cs.num_constraints())?;
    ensure!(
        pk.vk.ic.len() == cs.inputs.len(),
        "circuit has {} public inputs, parameters expect {}",
        cs.inputs.len(),
        pk.vk.ic.len()
    );
    ensure!(
        pk.h.len() == domain.size() - 1,
        "circuit needs {} H points (domain 2^{}), parameters have {}",
        domain.size() - 1,
        domain.size().trailing_zeros(),
        pk.h.len()
    );
    ensure!(
        pk.l.len() == cs.aux.len(),
        "circuit has {} aux variables, parameters expect {}",
        cs.aux.len(),
        pk.l.len()
    );
    ensure!(
        pk.a.len() == cs.inputs.len() + cs.a_aux_density.count(),
        "A query: circuit needs {} points, parameters have {}",
        cs.inputs.len() + cs.a_aux_density.count(),
        pk.a.len()
    );
    let b_len = cs.b_input_density.count() + cs.b_aux_density.count();
    ensure!(
        pk.b_g1.len() == b_len && pk.b_g2.len() == b_len,
        "B query: circuit needs {} points, parameters have {} (G1) and {} (G2)",
        b_len,
        pk.b_g1.len(),
        pk.b_g2.len()
    );
    Ok(())
}

/// A Groth16 proof of `cs` with randomisers `r`, `s`:
///
/// ```text
/// A = alpha + sum a_i A_i + r delta
/// B = beta  + sum b_i B_i + s delta
/// C = s (sum a_i A_i) + r (sum b_i B_i) + r s delta + s alpha + r beta + H + L
/// ```
pub fn prove(pk: &ProvingKey, cs: Synthesized, r: Fr, s: Fr) -> Result<Proof> {
    check_shape(pk, &cs)?;
    let Synthesized { a, b, c, inputs, aux, a_aux_density, b_input_density, b_aux_density } = cs;

    let start = std::time::Instant::now();
    let h = h_coefficients(a, b, c)?;
    let ntt_done = start.elapsed();

    let a_scalars: Vec<Fr> = inputs.iter().copied().chain(a_aux_density.select(&aux)).collect();
    let b_scalars: Vec<Fr> = b_input_density
        .select(&inputs)
        .into_iter()
        .chain(b_aux_density.select(&aux))
        .collect();

    let h_acc = msm::msm_g1(&pk.h, &h);
    drop(h);
    let l_acc = msm::msm_g1(&pk.l, &aux);
    let a_acc = msm::msm_g1(&pk.a, &a_scalars);
    let b1_acc = msm::msm_g1(&pk.b_g1, &b_scalars);
    let b2_acc = msm::msm_g2(&pk.b_g2, &b_scalars);
    log::debug!("cuzk prover: H via NTT {ntt_done:?}, MSMs {:?}", start.elapsed() - ntt_done);

    Ok(assemble(pk, r, s, h_acc, l_acc, a_acc, b1_acc, b2_acc))
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    pk: &ProvingKey,
    r: Fr,
    s: Fr,
    h: G1Projective,
    l: G1Projective,
    a: G1Projective,
    b1: G1Projective,
    b2: G2Projective,
) -> Proof {
    let vk = &pk.vk;
    let g_a = vk.alpha_g1.to_curve() + a + vk.delta_g1 * r;
    let g_b = vk.beta_g2.to_curve() + b2 + vk.delta_g2 * s;
    let g_c = a * s + b1 * r + vk.delta_g1 * (r * s) + vk.alpha_g1 * s + vk.beta_g1 * r + h + l;
    Proof { a: g_a.to_affine(), b: g_b.to_affine(), c: g_c.to_affine() }
}

/// Fresh uniformly random `(r, s)`.
pub fn random_rs<R: rand::RngCore>(rng: &mut R) -> (Fr, Fr) {
    (Fr::random(&mut *rng), Fr::random(rng))
}
