//! Shape-true proving keys made of valid, deterministic curve points, generated
//! fast and in parallel: benchmarks need the SRS of a circuit shape, not its
//! trapdoor. Proofs under such a key are well-formed but do not verify.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use bellperson::groth16::VerifyingKey;
use ff::Field;
use group::{Curve, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{ntt::Domain, ProvingKey};
use crate::circuit::Synthesized;

const CHUNK: usize = 1 << 12;

/// `n` points `base + (offset + i) * step`: one addition each, then one batched
/// conversion to affine, so millions of points take seconds.
fn progression<P>(n: usize, base: P, step: P) -> Vec<P::AffineRepr>
where
    P: Curve + Group<Scalar = Fr> + Send + Sync,
    P::AffineRepr: Send + Default + Copy,
{
    let mut out = vec![P::AffineRepr::default(); n];
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, dst)| {
        let mut p = base + step * Fr::from((c * CHUNK) as u64 + 1);
        let mut proj = Vec::with_capacity(dst.len());
        for _ in 0..dst.len() {
            proj.push(p);
            p += step;
        }
        P::batch_normalize(&proj, dst);
    });
    out
}

fn g1s(n: usize, rng: &mut ChaCha8Rng) -> Vec<G1Affine> {
    let g = G1Projective::generator();
    progression(n, g * Fr::random(&mut *rng), g * Fr::random(rng))
}

fn g2s(n: usize, rng: &mut ChaCha8Rng) -> Vec<G2Affine> {
    let g = G2Projective::generator();
    progression(n, g * Fr::random(&mut *rng), g * Fr::random(rng))
}

/// A key with exactly the query lengths `cs` needs.
pub fn key_for(cs: &Synthesized, seed: u64) -> ProvingKey {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let domain = Domain::new(cs.num_constraints()).expect("circuit too large for the field");
    let b_len = cs.b_input_density.count() + cs.b_aux_density.count();
    let one_g1 = |rng: &mut ChaCha8Rng| (G1Projective::generator() * Fr::random(rng)).to_affine();
    let one_g2 = |rng: &mut ChaCha8Rng| (G2Projective::generator() * Fr::random(rng)).to_affine();
    let vk = VerifyingKey::<blstrs::Bls12> {
        alpha_g1: one_g1(&mut rng),
        beta_g1: one_g1(&mut rng),
        beta_g2: one_g2(&mut rng),
        gamma_g2: one_g2(&mut rng),
        delta_g1: one_g1(&mut rng),
        delta_g2: one_g2(&mut rng),
        ic: g1s(cs.inputs.len(), &mut rng),
    };
    ProvingKey {
        vk,
        h: g1s(domain.size() - 1, &mut rng),
        l: g1s(cs.aux.len(), &mut rng),
        a: g1s(cs.inputs.len() + cs.a_aux_density.count(), &mut rng),
        b_g1: g1s(b_len, &mut rng),
        b_g2: g2s(b_len, &mut rng),
    }
}
