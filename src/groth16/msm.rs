//! Multi-scalar multiplication on the CPU.
//!
//! We call blst's Pippenger (`blst::MultiPoint`) rather than writing our own: it is
//! the assembly-optimised, multi-threaded implementation maintained by Supranational,
//! measured several times faster than bellperson's generic Rust multiexp (see
//! docs/BENCHMARKS.md), and `blstrs` — whose point types the SRS uses — is a thin
//! wrapper over the same library, so no conversion is needed.

use blst::{blst_p1_affine, blst_p2_affine, MultiPoint};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use group::Group;
use rayon::prelude::*;

/// Bits of a BLS12-381 scalar: r < 2^255.
const SCALAR_BITS: usize = 255;

/// Canonical little-endian encodings, as blst's Pippenger reads them.
fn scalar_bytes(scalars: &[Fr]) -> Vec<u8> {
    let mut out = vec![0u8; scalars.len() * 32];
    out.par_chunks_mut(32)
        .zip(scalars.par_iter())
        .for_each(|(dst, s)| dst.copy_from_slice(&s.to_bytes_le()));
    out
}

/// `sum(scalars[i] * bases[i])` in G1. The slices must have the same length.
pub fn msm_g1(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
    assert_eq!(bases.len(), scalars.len(), "MSM G1: bases and scalars differ in length");
    if bases.is_empty() {
        return G1Projective::identity();
    }
    // SAFETY: blstrs declares `G1Affine` as `#[repr(transparent)]` over
    // `blst_p1_affine`, so the slice has the same layout, length and lifetime.
    let points: &[blst_p1_affine] =
        unsafe { std::slice::from_raw_parts(bases.as_ptr().cast(), bases.len()) };
    let sum = points.mult(&scalar_bytes(scalars), SCALAR_BITS);
    let mut out = G1Projective::identity();
    *out.as_mut() = sum;
    out
}

/// `sum(scalars[i] * bases[i])` in G2. The slices must have the same length.
pub fn msm_g2(bases: &[G2Affine], scalars: &[Fr]) -> G2Projective {
    assert_eq!(bases.len(), scalars.len(), "MSM G2: bases and scalars differ in length");
    if bases.is_empty() {
        return G2Projective::identity();
    }
    // SAFETY: `G2Affine` is `#[repr(transparent)]` over `blst_p2_affine`.
    let points: &[blst_p2_affine] =
        unsafe { std::slice::from_raw_parts(bases.as_ptr().cast(), bases.len()) };
    let sum = points.mult(&scalar_bytes(scalars), SCALAR_BITS);
    let mut out = G2Projective::identity();
    *out.as_mut() = sum;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use group::Curve;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn naive_g1(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
        bases.iter().zip(scalars).map(|(b, s)| *b * s).sum()
    }

    #[test]
    fn matches_naive_sum_at_several_sizes_with_zero_scalars() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in [0usize, 1, 2, 31, 100, 777] {
            let bases: Vec<G1Affine> =
                (0..n).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
            let mut scalars: Vec<Fr> = (0..n).map(|_| Fr::random(&mut rng)).collect();
            for s in scalars.iter_mut().step_by(3) {
                *s = Fr::ZERO;
            }
            assert_eq!(msm_g1(&bases, &scalars), naive_g1(&bases, &scalars), "n = {n}");
        }
    }

    #[test]
    fn g2_matches_naive_sum() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let bases: Vec<G2Affine> =
            (0..65).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
        let scalars: Vec<Fr> = (0..65).map(|_| Fr::random(&mut rng)).collect();
        let naive: G2Projective = bases.iter().zip(&scalars).map(|(b, s)| *b * s).sum();
        assert_eq!(msm_g2(&bases, &scalars), naive);
    }
}
