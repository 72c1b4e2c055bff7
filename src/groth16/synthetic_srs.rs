//! Shape-true proving keys made of valid, deterministic curve points, generated
//! fast and in parallel: benchmarks need the SRS of a circuit shape, not its
//! trapdoor. Proofs under such a key are well-formed but do not verify.

use blstrs::{Fp, Fp2, G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use bellperson::groth16::VerifyingKey;
use ff::Field;
use group::{Curve, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{ntt::Domain, ProvingKey};
use crate::circuit::Synthesized;

const CHUNK: usize = 1 << 12;

/// Projective points in blst's Jacobian coordinates (x = X/Z², y = Y/Z³),
/// which `group`'s default `batch_normalize` converts one inversion per point.
trait Jacobian: Curve + Group<Scalar = Fr> + Send + Sync {
    type Base: Field;
    fn coordinates(&self) -> (Self::Base, Self::Base, Self::Base);
    fn affine_unchecked(x: Self::Base, y: Self::Base) -> Self::AffineRepr;
}

impl Jacobian for G1Projective {
    type Base = Fp;
    fn coordinates(&self) -> (Fp, Fp, Fp) {
        (self.x(), self.y(), self.z())
    }
    fn affine_unchecked(x: Fp, y: Fp) -> G1Affine {
        G1Affine::from_raw_unchecked(x, y, false)
    }
}

impl Jacobian for G2Projective {
    type Base = Fp2;
    fn coordinates(&self) -> (Fp2, Fp2, Fp2) {
        (self.x(), self.y(), self.z())
    }
    fn affine_unchecked(x: Fp2, y: Fp2) -> G2Affine {
        G2Affine::from_raw_unchecked(x, y, false)
    }
}

/// Affine forms of `proj` with one field inversion in all (Montgomery's trick).
fn batch_to_affine<P: Jacobian>(proj: &[P], out: &mut [P::AffineRepr]) {
    if proj.iter().any(|p| bool::from(p.is_identity())) {
        return P::batch_normalize(proj, out);
    }
    let mut prefix = Vec::with_capacity(proj.len());
    let mut acc = P::Base::ONE;
    for p in proj {
        prefix.push(acc);
        acc *= p.coordinates().2;
    }
    let mut inv = acc.invert().expect("no Z is zero: identities were excluded");
    for ((p, before), o) in proj.iter().zip(prefix).zip(out.iter_mut()).rev() {
        let (x, y, z) = p.coordinates();
        let z_inv = inv * before;
        inv *= z;
        let z_inv2 = z_inv.square();
        *o = P::affine_unchecked(x * z_inv2, y * z_inv2 * z_inv);
    }
}

/// `n` points `base + (offset + i) * step`: one addition each, then one batched
/// conversion to affine, so millions of points take seconds.
fn progression<P>(n: usize, base: P, step: P) -> Vec<P::AffineRepr>
where
    P: Jacobian,
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
        batch_to_affine(&proj, dst);
    });
    out
}

/// `n` distinct valid G1 points, fast (one addition each).
pub fn g1s(n: usize, rng: &mut ChaCha8Rng) -> Vec<G1Affine> {
    let g = G1Projective::generator();
    progression(n, g * Fr::random(&mut *rng), g * Fr::random(rng))
}

/// `n` distinct valid G2 points, fast.
pub fn g2s(n: usize, rng: &mut ChaCha8Rng) -> Vec<G2Affine> {
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
        prepared_vk: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progressions_are_the_points_they_claim() {
        let n = 2 * CHUNK + 77;
        let g1 = g1s(n, &mut ChaCha8Rng::seed_from_u64(5));
        let g2 = g2s(n, &mut ChaCha8Rng::seed_from_u64(6));
        let (mut r1, mut r2) = (ChaCha8Rng::seed_from_u64(5), ChaCha8Rng::seed_from_u64(6));
        let (b1, s1) = (G1Projective::generator() * Fr::random(&mut r1), G1Projective::generator() * Fr::random(&mut r1));
        let (b2, s2) = (G2Projective::generator() * Fr::random(&mut r2), G2Projective::generator() * Fr::random(&mut r2));
        for j in [0, 1, CHUNK - 1, CHUNK, n - 1] {
            let k = Fr::from(j as u64 + 1);
            assert_eq!(g1[j], (b1 + s1 * k).to_affine(), "G1 point {j}");
            assert_eq!(g2[j], (b2 + s2 * k).to_affine(), "G2 point {j}");
        }
        assert!(g1.iter().all(|p| bool::from(p.is_on_curve() & p.is_torsion_free())));
        assert!(g2.iter().all(|p| bool::from(p.is_on_curve() & p.is_torsion_free())));
    }
}
