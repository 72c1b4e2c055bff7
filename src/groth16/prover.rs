//! The Groth16 prover: data in (a synthesized circuit, a proving key, the
//! randomisers r and s), proof out; the heavy steps run on a [`Backend`].

use anyhow::{ensure, Result};
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve};

use super::{
    backend::{Backend, G1Query},
    cpu::Cpu,
    ntt::Domain,
    params::ProvingKey,
    proof::Proof,
};
use crate::circuit::Synthesized;

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

/// A Groth16 proof of `cs` with randomisers `r`, `s`, on the CPU.
pub fn prove(pk: &ProvingKey, cs: Synthesized, r: Fr, s: Fr) -> Result<Proof> {
    prove_with(&Cpu(pk), pk, &cs, r, s)
}

/// A Groth16 proof of `cs` with randomisers `r`, `s`, its heavy steps on `backend`:
///
/// ```text
/// A = alpha + sum a_i A_i + r delta
/// B = beta  + sum b_i B_i + s delta
/// C = s (sum a_i A_i) + r (sum b_i B_i) + r s delta + s alpha + r beta + H + L
/// ```
pub fn prove_with(backend: &dyn Backend, pk: &ProvingKey, cs: &Synthesized, r: Fr, s: Fr) -> Result<Proof> {
    check_shape(pk, cs)?;
    let start = std::time::Instant::now();
    let h_acc = backend.h_term(&cs.a, &cs.b, &cs.c)?;
    let h_done = start.elapsed();

    let a_scalars: Vec<Fr> = cs.inputs.iter().copied().chain(cs.a_aux_density.select(&cs.aux)).collect();
    let b_scalars: Vec<Fr> = cs
        .b_input_density
        .select(&cs.inputs)
        .into_iter()
        .chain(cs.b_aux_density.select(&cs.aux))
        .collect();

    let l_acc = backend.msm_g1(G1Query::L, &cs.aux)?;
    let a_acc = backend.msm_g1(G1Query::A, &a_scalars)?;
    let b1_acc = backend.msm_g1(G1Query::BG1, &b_scalars)?;
    let b2_acc = backend.msm_b_g2(&b_scalars)?;
    log::debug!("cuzk prover: H (NTTs and MSM) {h_done:?}, other MSMs {:?}", start.elapsed() - h_done);

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
