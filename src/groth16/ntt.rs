//! Radix-2 number-theoretic transforms over the BLS12-381 scalar field, in place
//! and parallel (rayon), for the evaluation domains of the Groth16 H polynomial.

use anyhow::{ensure, Result};
use blstrs::Scalar as Fr;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Butterflies of a stage are split into parallel tasks of this many pairs.
const TASK: usize = 1 << 10;

/// A multiplicative subgroup of size `2^log_n`, and the coset `g * H` used to
/// divide by the vanishing polynomial.
#[derive(Clone, Copy, Debug)]
pub struct Domain {
    log_n: u32,
    omega: Fr,
    omega_inv: Fr,
    n_inv: Fr,
    /// Coset shift `g`: the field's multiplicative generator, not in any 2-adic subgroup.
    g: Fr,
    g_inv: Fr,
}

impl Domain {
    /// The smallest domain with at least `min_size` points.
    pub fn new(min_size: usize) -> Result<Self> {
        let n = min_size.max(1).next_power_of_two();
        let log_n = n.trailing_zeros();
        ensure!(
            log_n <= Fr::S,
            "an evaluation domain of 2^{log_n} points exceeds the field's 2-adicity 2^{}",
            Fr::S
        );
        let mut omega = Fr::ROOT_OF_UNITY;
        for _ in log_n..Fr::S {
            omega = omega.square();
        }
        let g = Fr::MULTIPLICATIVE_GENERATOR;
        Ok(Self {
            log_n,
            omega,
            omega_inv: omega.invert().unwrap(),
            n_inv: Fr::from(n as u64).invert().unwrap(),
            g,
            g_inv: g.invert().unwrap(),
        })
    }

    pub fn size(&self) -> usize {
        1 << self.log_n
    }

    /// Coefficients to evaluations on the subgroup.
    pub fn ntt(&self, v: &mut [Fr]) {
        self.check(v);
        transform(v, self.omega);
    }

    /// Evaluations on the subgroup to coefficients.
    pub fn intt(&self, v: &mut [Fr]) {
        self.check(v);
        transform(v, self.omega_inv);
        scale(v, self.n_inv);
    }

    /// Coefficients to evaluations on the coset `g * H`.
    pub fn coset_ntt(&self, v: &mut [Fr]) {
        self.check(v);
        distribute_powers(v, self.g);
        transform(v, self.omega);
    }

    /// Evaluations on the coset `g * H` to coefficients.
    pub fn icoset_ntt(&self, v: &mut [Fr]) {
        self.intt(v);
        distribute_powers(v, self.g_inv);
    }

    /// `1 / Z(g x)` for every x in H: the vanishing polynomial `x^n - 1` is the
    /// constant `g^n - 1` on the coset.
    pub fn vanishing_on_coset_inverse(&self) -> Fr {
        (self.g.pow_vartime([self.size() as u64]) - Fr::ONE).invert().unwrap()
    }

    fn check(&self, v: &[Fr]) {
        assert_eq!(v.len(), self.size(), "vector length differs from the domain size");
    }
}

/// `v[i] *= c`.
pub fn scale(v: &mut [Fr], c: Fr) {
    v.par_chunks_mut(TASK).for_each(|chunk| chunk.iter_mut().for_each(|x| *x *= c));
}

/// `v[i] *= base^i`.
fn distribute_powers(v: &mut [Fr], base: Fr) {
    v.par_chunks_mut(TASK).enumerate().for_each(|(c, chunk)| {
        let mut p = base.pow_vartime([(c * TASK) as u64]);
        for x in chunk {
            *x *= p;
            p *= base;
        }
    });
}

/// `[1, w, w^2, ..., w^(len-1)]`.
fn powers(w: Fr, len: usize) -> Vec<Fr> {
    let mut out = vec![Fr::ZERO; len];
    out.par_chunks_mut(TASK).enumerate().for_each(|(c, chunk)| {
        let mut p = w.pow_vartime([(c * TASK) as u64]);
        for x in chunk {
            *x = p;
            p *= w;
        }
    });
    out
}

fn bit_reverse(v: &mut [Fr]) {
    let log_n = v.len().trailing_zeros();
    if log_n == 0 {
        return;
    }
    for i in 0..v.len() {
        let j = i.reverse_bits() >> (usize::BITS - log_n);
        if i < j {
            v.swap(i, j);
        }
    }
}

/// Iterative Cooley-Tukey (decimation in time) with root `w` of order `v.len()`.
fn transform(v: &mut [Fr], w: Fr) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    bit_reverse(v);
    let twiddles = powers(w, n / 2);
    let mut half = 1;
    while half < n {
        let stride = n / (2 * half);
        if half >= TASK {
            // Few, large blocks: split each block's butterflies across tasks.
            for block in v.chunks_mut(2 * half) {
                let (lo, hi) = block.split_at_mut(half);
                lo.par_chunks_mut(TASK)
                    .zip(hi.par_chunks_mut(TASK))
                    .enumerate()
                    .for_each(|(c, (lo, hi))| {
                        butterflies(lo, hi, c * TASK, stride, &twiddles)
                    });
            }
        } else {
            // Many small blocks: one task handles a run of whole blocks.
            let per_task = (TASK / half).max(1) * 2 * half;
            v.par_chunks_mut(per_task).for_each(|run| {
                for block in run.chunks_mut(2 * half) {
                    let (lo, hi) = block.split_at_mut(half);
                    butterflies(lo, hi, 0, stride, &twiddles);
                }
            });
        }
        half *= 2;
    }
}

#[inline]
fn butterflies(lo: &mut [Fr], hi: &mut [Fr], first: usize, stride: usize, twiddles: &[Fr]) {
    for (k, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
        let t = *y * twiddles[(first + k) * stride];
        *y = *x - t;
        *x += t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Horner evaluation of the polynomial `coeffs` at `x`.
    fn eval(coeffs: &[Fr], x: Fr) -> Fr {
        coeffs.iter().rev().fold(Fr::ZERO, |acc, c| acc * x + c)
    }

    #[test]
    fn ntt_evaluates_on_subgroup_and_coset() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for log_n in [0u32, 1, 3, 11, 12] {
            let n = 1usize << log_n;
            let d = Domain::new(n).unwrap();
            let coeffs: Vec<Fr> = (0..n).map(|_| Fr::random(&mut rng)).collect();
            let mut evals = coeffs.clone();
            d.ntt(&mut evals);
            let mut coset = coeffs.clone();
            d.coset_ntt(&mut coset);
            for i in [0, n / 2, n - 1] {
                let x = d.omega.pow_vartime([i as u64]);
                assert_eq!(evals[i], eval(&coeffs, x), "log_n {log_n} i {i}");
                assert_eq!(coset[i], eval(&coeffs, d.g * x), "coset log_n {log_n} i {i}");
            }
            d.intt(&mut evals);
            assert_eq!(evals, coeffs);
            d.icoset_ntt(&mut coset);
            assert_eq!(coset, coeffs);
        }
    }

    #[test]
    fn domain_rounds_up_and_rejects_oversize() {
        assert_eq!(Domain::new(5).unwrap().size(), 8);
        assert_eq!(Domain::new(0).unwrap().size(), 1);
        assert!(Domain::new((1usize << 32) + 1).is_err());
    }
}
