//! The Groth16 prover: data in (a synthesized circuit, a proving key, the
//! randomisers r and s), proof out; the heavy steps run on a [`Backend`].

use std::{thread::JoinHandle, time::Instant};

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
    Ok(prove_after_h(backend, pk, cs, h.term, r, s, None)?.0)
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
    pub msm_l: f64,
    /// Picking the A and B scalars by density (CPU), after waiting for a, b
    /// and c to be freed.
    pub select: f64,
    pub msm_a: f64,
    pub msm_b_g1: f64,
    pub msm_b_g2: f64,
}

/// `prove_with`, consuming `cs`, with the time of each step. The a, b, c
/// evaluations are freed once H is done, during the L MSM and before the MSM
/// scalars are gathered, so a partition never holds both (3 N + 2 V field
/// elements at 32 GiB).
pub fn prove_timed(backend: &dyn Backend, pk: &ProvingKey, mut cs: Synthesized, r: Fr, s: Fr) -> Result<(Proof, StageTimes)> {
    check_shape(pk, &cs)?;
    let start = Instant::now();
    let h = backend.h_term(&cs.a, &cs.b, &cs.c)?;
    let h_seconds = start.elapsed().as_secs_f64();
    let abc = [&mut cs.a, &mut cs.b, &mut cs.c].map(std::mem::take);
    let freeing = free_later(abc.iter().map(Vec::capacity).sum::<usize>() * SCALAR_BYTES, abc);
    let (proof, mut times) = prove_after_h(backend, pk, &cs, h.term, r, s, freeing)?;
    times.h = h_seconds;
    (times.h_copies, times.h_ntt, times.h_msm) = (h.copies, h.ntt, h.msm);
    free_later((cs.aux.capacity() + cs.inputs.capacity()) * SCALAR_BYTES, cs);
    Ok((proof, times))
}

const SCALAR_BYTES: usize = std::mem::size_of::<Fr>();

/// Drops `value` (about `bytes` in size) on a thread of its own when it is
/// large, returning that thread: giving gigabytes back to the kernel takes
/// ~0.05 s a GB, which the prover, and its GPU, need not wait for (0.9-2.1 s
/// per 32 GiB PoRep partition went untimed between the steps on the H200's
/// host, 0.4-0.8 s per SnapDeals one). Small values drop here. The engine
/// counts a partition's memory free when its proof returns, under a second
/// early for what is freed last; the next partition's synthesis takes its
/// memory over many seconds.
fn free_later<T: Send + 'static>(bytes: usize, value: T) -> Option<JoinHandle<()>> {
    if bytes < 64 << 20 {
        return None;
    }
    // A failed spawn drops the closure, and `value` with it, here.
    std::thread::Builder::new().name("cuzk-free".into()).spawn(move || drop(value)).ok()
}

/// The MSMs and the assembly, given the H term. L goes first: it needs no
/// new memory, so the a, b, c being freed (`freeing`) are gone before the
/// A and B scalars are gathered (that wait counts as `select`).
#[allow(clippy::too_many_arguments)]
fn prove_after_h(
    backend: &dyn Backend,
    pk: &ProvingKey,
    cs: &Synthesized,
    h_acc: G1Projective,
    r: Fr,
    s: Fr,
    freeing: Option<JoinHandle<()>>,
) -> Result<(Proof, StageTimes)> {
    let mut times = StageTimes::default();
    let mut clock = Instant::now();
    let mut lap = |field: &mut f64| {
        *field = clock.elapsed().as_secs_f64();
        clock = Instant::now();
    };
    let l_acc = backend.msm_g1(G1Query::L, &cs.aux)?;
    lap(&mut times.msm_l);

    if let Some(freeing) = freeing {
        // A panic while dropping vectors is not the proof's concern.
        let _ = freeing.join();
    }
    let a_scalars = cs.a_aux_density.select_after(&cs.inputs, &cs.aux);
    let b_scalars = cs.b_aux_density.select_after(&cs.b_input_density.select(&cs.inputs), &cs.aux);
    lap(&mut times.select);
    let a_acc = backend.msm_g1(G1Query::A, &a_scalars)?;
    lap(&mut times.msm_a);
    let b1_acc = backend.msm_g1(G1Query::BG1, &b_scalars)?;
    lap(&mut times.msm_b_g1);
    let b2_acc = backend.msm_b_g2(&b_scalars)?;
    lap(&mut times.msm_b_g2);
    free_later((a_scalars.capacity() + b_scalars.capacity()) * SCALAR_BYTES, (a_scalars, b_scalars));
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
    use std::sync::mpsc;

    use super::*;
    use crate::{
        circuit::{synthesize, MulChain},
        groth16::synthetic_srs,
    };

    /// Sends the name of the thread that drops it.
    struct Dropped(mpsc::Sender<Option<String>>);

    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().name().map(String::from));
        }
    }

    #[test]
    fn large_values_are_dropped_on_a_thread_of_their_own_and_small_ones_here() {
        let (tx, rx) = mpsc::channel();
        assert!(free_later(1 << 10, Dropped(tx.clone())).is_none());
        assert_eq!(rx.try_recv().unwrap(), std::thread::current().name().map(String::from));
        let freeing = free_later(1 << 30, Dropped(tx)).expect("a thread for a large value");
        freeing.join().unwrap();
        assert_eq!(rx.try_recv().unwrap().as_deref(), Some("cuzk-free"));
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
