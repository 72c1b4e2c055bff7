//! The Groth16 prover: data in (a synthesized circuit, a proving key, the
//! randomisers r and s), proof out; the heavy steps run on a [`Backend`].

use std::time::Instant;

use anyhow::{ensure, Result};
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve};
use serde::Serialize;

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
    Ok(prove_timed(&Cpu(pk), pk, cs, r, s)?.0)
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
    let h = backend.h_term(&cs.a, &cs.b, &cs.c)?;
    Ok(prove_after_h(backend, pk, cs, h.term, r, s)?.0)
}

/// Seconds each step of a proof took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StageTimes {
    /// The H step: a, b and c in, 7 NTTs and the pointwise step, its MSM,
    /// and any wait for the device between them.
    pub h: f64,
    /// Of `h`: host-to-device copies of a, b and c, staging through pinned
    /// memory included (in the GPU's one-vector plan also the parked
    /// vector's trips); 0 on the CPU.
    pub h_copies: f64,
    /// Of `h`: the NTTs and the pointwise step.
    pub h_ntt: f64,
    /// Of `h`: the MSM over the H query.
    pub h_msm: f64,
    /// Picking the A and B scalars by density (CPU).
    pub select: f64,
    pub msm_l: f64,
    pub msm_a: f64,
    pub msm_b_g1: f64,
    pub msm_b_g2: f64,
}

/// `prove_with`, consuming `cs`, with the time of each step. The a, b, c
/// evaluations are freed once H is done, before the MSM scalars are gathered,
/// so a partition never holds both (3 N + 2 V field elements at 32 GiB).
pub fn prove_timed(backend: &dyn Backend, pk: &ProvingKey, mut cs: Synthesized, r: Fr, s: Fr) -> Result<(Proof, StageTimes)> {
    check_shape(pk, &cs)?;
    let start = Instant::now();
    let h = backend.h_term(&cs.a, &cs.b, &cs.c)?;
    let h_seconds = start.elapsed().as_secs_f64();
    for v in [&mut cs.a, &mut cs.b, &mut cs.c] {
        *v = Vec::new();
    }
    let (proof, mut times) = prove_after_h(backend, pk, &cs, h.term, r, s)?;
    times.h = h_seconds;
    (times.h_copies, times.h_ntt, times.h_msm) = (h.copies, h.ntt, h.msm);
    Ok((proof, times))
}

/// The MSMs and the assembly, given the H term.
fn prove_after_h(backend: &dyn Backend, pk: &ProvingKey, cs: &Synthesized, h_acc: G1Projective, r: Fr, s: Fr) -> Result<(Proof, StageTimes)> {
    let mut times = StageTimes::default();
    let mut clock = Instant::now();
    let mut lap = |field: &mut f64| {
        *field = clock.elapsed().as_secs_f64();
        clock = Instant::now();
    };
    let a_scalars = cs.a_aux_density.select_after(&cs.inputs, &cs.aux);
    let b_scalars = cs.b_aux_density.select_after(&cs.b_input_density.select(&cs.inputs), &cs.aux);
    lap(&mut times.select);

    let l_acc = backend.msm_g1(G1Query::L, &cs.aux)?;
    lap(&mut times.msm_l);
    let a_acc = backend.msm_g1(G1Query::A, &a_scalars)?;
    lap(&mut times.msm_a);
    let b1_acc = backend.msm_g1(G1Query::BG1, &b_scalars)?;
    lap(&mut times.msm_b_g1);
    let b2_acc = backend.msm_b_g2(&b_scalars)?;
    lap(&mut times.msm_b_g2);
    log::debug!("cuzk prover: {times:?} after H");

    Ok((assemble(pk, r, s, h_acc, l_acc, a_acc, b1_acc, b2_acc), times))
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
