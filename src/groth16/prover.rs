//! The Groth16 prover: data in (a synthesized circuit or a witness, a proving
//! key, the randomisers r and s), proof out; the heavy steps run on a [`Backend`].

use std::{thread::JoinHandle, time::Instant};

use anyhow::{ensure, Context, Result};
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve};
use serde::Serialize;

use super::{
    backend::{Backend, G1Query, MsmScalars},
    cpu::Cpu,
    free_later::free_later,
    ntt::Domain,
    params::ProvingKey,
    proof::Proof,
};
use crate::circuit::{Assignment, Matrices, Synthesized, Witness};

fn scalars_of(cs: &Synthesized) -> MsmScalars<'_> {
    MsmScalars::new(&cs.inputs, &cs.aux, &cs.a_aux_density, &cs.b_input_density, &cs.b_aux_density)
}

fn scalars_of_witness<'a>(w: &'a Witness, m: &'a Matrices) -> MsmScalars<'a> {
    MsmScalars::new(&w.inputs, &w.aux, &m.a_aux_density, &m.b_input_density, &m.b_aux_density)
}

/// Checks that a circuit of `constraints` constraints and these MSM inputs
/// has the shape `pk` was generated for; a mismatch names `pk`'s file (a
/// file of another circuit under this one's name).
fn check_shape(pk: &ProvingKey, constraints: usize, cs: &MsmScalars) -> Result<()> {
    let checked = same_shape(pk, constraints, cs);
    match &pk.source {
        Some(file) => checked.with_context(|| format!("the parameters in {} are not this circuit's", file.display())),
        None => checked,
    }
}

fn same_shape(pk: &ProvingKey, constraints: usize, cs: &MsmScalars) -> Result<()> {
    let domain = Domain::new(constraints)?;
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
pub fn prove(pk: &ProvingKey, cs: impl Into<Assignment>, r: Fr, s: Fr) -> Result<Proof> {
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
    check_shape(pk, cs.num_constraints(), &scalars_of(cs))?;
    let h = backend.h_term(&cs.a, &cs.b, &cs.c)?;
    Ok(prove_after_h(backend, pk, scalars_of(cs), h.term, r, s, None)?.0)
}

/// Seconds each step of a proof took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StageTimes {
    /// The H step: a, b and c in, 7 NTTs and the pointwise step, its MSM,
    /// and any wait for the device between them.
    pub h: f64,
    /// Of `h`: evaluating a, b and c from a witness and the circuit's
    /// matrices (0 for a synthesized circuit).
    pub h_abc: f64,
    /// Of `h`: host-to-device copies of a, b and c, staging through pinned
    /// memory included (in the GPU's one-vector plan also the parked
    /// vector's trips); 0 on the CPU.
    pub h_copies: f64,
    /// Of `h`: the NTTs and the pointwise step.
    pub h_ntt: f64,
    /// Of `h`: the MSM over the H query.
    pub h_msm: f64,
    pub msm_l: f64,
    /// Picking the A and B scalars by density in host memory (0 where a GPU
    /// picks them from the witness it holds), and the wait before for a, b
    /// and c to be freed.
    pub select: f64,
    pub msm_a: f64,
    pub msm_b_g1: f64,
    pub msm_b_g2: f64,
}

/// `prove_with`, consuming the assignment, with the time of each step. A
/// synthesized circuit's a, b, c evaluations are freed once H is done,
/// during the L MSM and before the MSM scalars are gathered, so a partition
/// never holds both (3 N + 2 V field elements at 32 GiB). A witness is
/// proved with a, b and c from `pk`'s recorded matrices, evaluated by the
/// backend's H step.
pub fn prove_timed(backend: &dyn Backend, pk: &ProvingKey, input: impl Into<Assignment>, r: Fr, s: Fr) -> Result<(Proof, StageTimes)> {
    let start = Instant::now();
    let (proof, mut times, h) = match input.into() {
        Assignment::Evaluated(mut cs) => {
            check_shape(pk, cs.num_constraints(), &scalars_of(&cs))?;
            let h = backend.h_term(&cs.a, &cs.b, &cs.c)?;
            let h_seconds = start.elapsed().as_secs_f64();
            let abc = [&mut cs.a, &mut cs.b, &mut cs.c].map(std::mem::take);
            let freeing = free_later(abc.iter().map(Vec::capacity).sum::<usize>() * SCALAR_BYTES, abc);
            let (proof, times) = prove_after_h(backend, pk, scalars_of(&cs), h.term, r, s, freeing)?;
            free_later((cs.aux.capacity() + cs.inputs.capacity()) * SCALAR_BYTES, cs);
            (proof, StageTimes { h: h_seconds, ..times }, h)
        }
        Assignment::Witness(w, packed) => {
            let m = pk.matrices.get().context("a witness to prove, but its proving key has no recorded matrices")?;
            m.check_witness(&w)?;
            check_shape(pk, m.num_constraints(), &scalars_of_witness(&w, m))?;
            let h = backend.h_term_of_witness(m, &w, packed.as_ref())?;
            drop(packed);
            let h_seconds = start.elapsed().as_secs_f64();
            let (proof, times) = prove_after_h(backend, pk, scalars_of_witness(&w, m), h.term, r, s, None)?;
            free_later((w.aux.capacity() + w.inputs.capacity()) * SCALAR_BYTES, w);
            (proof, StageTimes { h: h_seconds, ..times }, h)
        }
    };
    (times.h_abc, times.h_copies, times.h_ntt, times.h_msm) = (h.abc, h.copies, h.ntt, h.msm);
    Ok((proof, times))
}

const SCALAR_BYTES: usize = std::mem::size_of::<Fr>();

/// The MSMs and the assembly, given the H term. L goes first: it needs no
/// new memory, so the a, b, c being freed (`freeing`) are gone before the
/// A and B scalars are picked (that wait counts as `select`, with the
/// picking itself where the backend picks them in host memory).
#[allow(clippy::too_many_arguments)]
fn prove_after_h(
    backend: &dyn Backend,
    pk: &ProvingKey,
    mut scalars: MsmScalars,
    h_acc: G1Projective,
    r: Fr,
    s: Fr,
    freeing: Option<JoinHandle<()>>,
) -> Result<(Proof, StageTimes)> {
    let mut times = StageTimes::default();
    let mut clock = Instant::now();
    let mut picked = 0.0;
    // Seconds since the last lap, less the picking of scalars done meanwhile
    // (`picking`: the total so far), which counts as `select`.
    let mut lap = |picking: f64| {
        let seconds = clock.elapsed().as_secs_f64() - (picking - picked);
        (picked, clock) = (picking, Instant::now());
        seconds
    };
    let l_acc = backend.msm_g1_over(G1Query::L, &scalars)?;
    times.msm_l = lap(scalars.picking_seconds());
    if let Some(freeing) = freeing {
        // A panic while dropping vectors is not the proof's concern.
        let _ = freeing.join();
    }
    times.select = lap(scalars.picking_seconds());
    let a_acc = backend.msm_g1_over(G1Query::A, &scalars)?;
    times.msm_a = lap(scalars.picking_seconds());
    let b1_acc = backend.msm_g1_over(G1Query::BG1, &scalars)?;
    times.msm_b_g1 = lap(scalars.picking_seconds());
    let b2_acc = backend.msm_b_g2_over(&scalars)?;
    times.msm_b_g2 = lap(scalars.picking_seconds());
    times.select += scalars.picking_seconds();
    let picked = scalars.take_picked();
    free_later(picked.capacity() * SCALAR_BYTES, picked);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        circuit::{synthesize, MulChain},
        groth16::synthetic_srs,
    };

    #[test]
    fn a_witness_proves_with_the_keys_matrices_as_its_synthesis_does() {
        use crate::circuit::{record, synthesize_witness};
        let chain = |start: u64| MulChain { start: Fr::from(start), links: 3000 };
        let cs = synthesize(chain(4)).unwrap();
        let pk = synthetic_srs::key_for(&cs, 5);
        let (r, s) = (Fr::from(8u64), Fr::from(9u64));
        let witness = synthesize_witness(chain(4)).unwrap();
        let e = prove(&pk, witness.clone(), r, s).unwrap_err();
        assert!(format!("{e:#}").contains("no recorded matrices"), "{e:#}");

        assert!(pk.matrices.set(record(chain(7)).unwrap().0).is_ok());
        let expected = prove(&pk, cs, r, s).unwrap();
        let (proof, t) = prove_timed(&Cpu(&pk), &pk, witness.clone(), r, s).unwrap();
        assert_eq!(proof, expected);
        assert!(t.h_abc > 0.0 && t.h_abc + t.h_ntt + t.h_msm <= t.h + 1e-6, "{t:?}");

        let mut short = witness;
        short.aux.pop();
        let e = prove(&pk, short, r, s).unwrap_err();
        assert!(format!("{e:#}").contains("the witness has"), "{e:#}");
    }

    #[test]
    fn the_timed_proof_is_the_untimed_one_and_its_h_parts_fit_the_step() {
        let cs = synthesize(MulChain { start: Fr::from(3u64), links: 2000 }).unwrap();
        let pk = synthetic_srs::key_for(&cs, 4);
        let (r, s) = (Fr::from(5u64), Fr::from(6u64));
        let untimed = prove_with(&Cpu(&pk), &pk, &cs, r, s).unwrap();
        let (timed, t) = prove_timed(&Cpu(&pk), &pk, cs, r, s).unwrap();
        assert_eq!(timed.to_bytes(), untimed.to_bytes());
        assert_eq!(t.h_copies, 0.0, "the CPU copies nothing to a device");
        assert!(t.h_ntt > 0.0 && t.h_msm > 0.0 && t.h_ntt + t.h_msm <= t.h + 1e-6, "{t:?}");
    }
}
