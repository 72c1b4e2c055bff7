//! Shape-true proving keys made of valid, deterministic curve points, generated
//! fast and in parallel: benchmarks need the SRS of a circuit shape, not its
//! trapdoor. Proofs under such a key are well-formed but do not verify.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use bellperson::groth16::VerifyingKey;
use ff::Field;
use group::{Curve, Group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::{
    affine::{batch_to_affine, Jacobian},
    ntt::Domain,
    ProvingKey,
};
use crate::circuit::Synthesized;

const CHUNK: usize = 1 << 12;

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
    g1_progression(n, (Fr::random(&mut *rng), Fr::random(rng)))
}

/// `n` distinct valid G2 points, fast.
pub fn g2s(n: usize, rng: &mut ChaCha8Rng) -> Vec<G2Affine> {
    g2_progression(n, (Fr::random(&mut *rng), Fr::random(rng)))
}

/// `n` scalars as a witness's, seeded: of these kinds per mille (zero, one,
/// minus one), the rest random.
pub fn scalars_of_kinds(n: usize, seed: u64, [zero, one, minus_one]: [u32; 3]) -> Vec<Fr> {
    (0..n)
        .into_par_iter()
        .map(|i| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ ((i as u64) << 8));
            match rng.gen_range(0..1000) {
                k if k < zero => Fr::ZERO,
                k if k < zero + one => Fr::ONE,
                k if k < zero + one + minus_one => -Fr::ONE,
                _ => Fr::random(rng),
            }
        })
        .collect()
}

/// The points `(base + (j + 1) * step) * G1` for j < n.
fn g1_progression(n: usize, (base, step): (Fr, Fr)) -> Vec<G1Affine> {
    let g = G1Projective::generator();
    progression(n, g * base, g * step)
}

fn g2_progression(n: usize, (base, step): (Fr, Fr)) -> Vec<G2Affine> {
    let g = G2Projective::generator();
    progression(n, g * base, g * step)
}

/// The discrete logarithms a synthetic key is made of: each single point is
/// `x * G`, each query the progression of its (base, step).
struct KeyScalars {
    alpha_g1: Fr,
    beta_g1: Fr,
    beta_g2: Fr,
    gamma_g2: Fr,
    delta_g1: Fr,
    delta_g2: Fr,
    ic: (Fr, Fr),
    h: (Fr, Fr),
    l: (Fr, Fr),
    a: (Fr, Fr),
    b_g1: (Fr, Fr),
    b_g2: (Fr, Fr),
}

impl KeyScalars {
    fn draw(seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut x = || Fr::random(&mut rng);
        // Fields are drawn in the order they are written.
        KeyScalars {
            alpha_g1: x(),
            beta_g1: x(),
            beta_g2: x(),
            gamma_g2: x(),
            delta_g1: x(),
            delta_g2: x(),
            ic: (x(), x()),
            h: (x(), x()),
            l: (x(), x()),
            a: (x(), x()),
            b_g1: (x(), x()),
            b_g2: (x(), x()),
        }
    }
}

/// A key with exactly the query lengths `cs` needs.
pub fn key_for(cs: &Synthesized, seed: u64) -> ProvingKey {
    let k = KeyScalars::draw(seed);
    let domain = Domain::new(cs.num_constraints()).expect("circuit too large for the field");
    let b_len = cs.b_input_density.count() + cs.b_aux_density.count();
    let g1 = |x: Fr| (G1Projective::generator() * x).to_affine();
    let g2 = |x: Fr| (G2Projective::generator() * x).to_affine();
    let vk = VerifyingKey::<blstrs::Bls12> {
        alpha_g1: g1(k.alpha_g1),
        beta_g1: g1(k.beta_g1),
        beta_g2: g2(k.beta_g2),
        gamma_g2: g2(k.gamma_g2),
        delta_g1: g1(k.delta_g1),
        delta_g2: g2(k.delta_g2),
        ic: g1_progression(cs.inputs.len(), k.ic),
    };
    ProvingKey {
        vk,
        h: g1_progression(domain.size() - 1, k.h),
        l: g1_progression(cs.aux.len(), k.l),
        a: g1_progression(cs.inputs.len() + cs.a_aux_density.count(), k.a),
        b_g1: g1_progression(b_len, k.b_g1),
        b_g2: g2_progression(b_len, k.b_g2),
        prepared_vk: Default::default(),
        matrices: Default::default(),
        source: None,
    }
}

/// The A and B of any proof of `cs` under `key_for(cs, seed)` with
/// randomizers `r`, `s`, computed from how that key is made, not by a
/// multi-scalar multiplication: a query's sum over the witness is one
/// scalar, `sum z_j (base + (j + 1) step)`. An independent check of a
/// prover's A and B where the witness does not satisfy the circuit and the
/// proof cannot be verified (C depends on the quotient, which it then
/// does not have).
pub fn expected_a_b(cs: &Synthesized, seed: u64, r: Fr, s: Fr) -> (G1Affine, G2Affine) {
    let k = KeyScalars::draw(seed);
    // The query's points are taken in order by the variables in it. The
    // selection by density is written here, not taken from the prover's
    // `Density::select`, so that the check shares none of the prover's code.
    let query_sum = |(base, step): (Fr, Fr), z: &mut dyn Iterator<Item = Fr>| {
        z.zip(1u64..).fold(Fr::ZERO, |acc, (z, j)| acc + z * (base + Fr::from(j) * step))
    };
    let a_aux = cs.aux.iter().enumerate().filter(|(i, _)| cs.a_aux_density.is_set(*i)).map(|(_, z)| *z);
    let a = k.alpha_g1 + query_sum(k.a, &mut cs.inputs.iter().copied().chain(a_aux)) + r * k.delta_g1;
    let b_inputs = cs.inputs.iter().enumerate().filter(|(i, _)| cs.b_input_density.is_set(*i)).map(|(_, z)| *z);
    let b_aux = cs.aux.iter().enumerate().filter(|(i, _)| cs.b_aux_density.is_set(*i)).map(|(_, z)| *z);
    let b = k.beta_g2 + query_sum(k.b_g2, &mut b_inputs.chain(b_aux)) + s * k.delta_g2;
    ((G1Projective::generator() * a).to_affine(), (G2Projective::generator() * b).to_affine())
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

    #[test]
    fn a_proofs_a_and_b_equal_the_keys_closed_form_even_when_the_witness_fails() {
        use crate::{circuit::{synthesize, MulChain}, groth16::prove};
        let mut cs = synthesize(MulChain { start: Fr::from(3u64), links: 300 }).unwrap();
        let (r, s) = (Fr::from(5u64), Fr::from(6u64));
        let pk = key_for(&cs, 4);
        let proof = prove(&pk, cs.clone(), r, s).unwrap();
        assert_eq!((proof.a, proof.b), expected_a_b(&cs, 4, r, s));
        // A witness that no longer satisfies the circuit: A and B still follow.
        cs.aux[7] += Fr::ONE;
        let proof = prove(&pk, cs.clone(), r, s).unwrap();
        assert_eq!((proof.a, proof.b), expected_a_b(&cs, 4, r, s));
        assert_ne!((proof.a, proof.b), expected_a_b(&cs, 5, r, s), "another key's closed form");
    }
}
