//! Groth16 parameters of a circuit from its recorded matrices, for test and
//! demo sectors (production keys come from the ceremony). The QAP is
//! evaluated at tau through the Lagrange basis (the inverse NTT of tau's
//! powers), and every point is a fixed-base multiplication over precomputed
//! window tables, on all cores. The result is what bellperson's
//! `generate_parameters` gives for the same toxic waste, in its types, so
//! that it is written in the standard `.params` / `.vk` layout.

use std::{ops::AddAssign, sync::Arc, time::Instant};

use anyhow::{ensure, Result};
use bellperson::groth16::{Parameters, VerifyingKey};
use blstrs::{Bls12, G1Projective, G2Projective, Scalar as Fr};
use ff::{Field, PrimeField};
use group::{Curve, Group};
use rand::RngCore;
use rayon::prelude::*;

use super::{
    affine::{add_batch, batch_to_affine, Affine, Jacobian},
    ntt::Domain,
};
use crate::circuit::{Csr, Matrices};

/// The trapdoor of a key, and the generators its points are multiples of.
#[derive(Clone, Copy, Debug)]
pub struct ToxicWaste {
    pub g1: G1Projective,
    pub g2: G2Projective,
    pub alpha: Fr,
    pub beta: Fr,
    pub gamma: Fr,
    pub delta: Fr,
    pub tau: Fr,
}

impl ToxicWaste {
    /// Drawn as bellperson's `generate_random_parameters` draws it.
    pub fn random(rng: &mut impl RngCore) -> Self {
        Self {
            g1: G1Projective::random(&mut *rng),
            g2: G2Projective::random(&mut *rng),
            alpha: Fr::random(&mut *rng),
            beta: Fr::random(&mut *rng),
            gamma: Fr::random(&mut *rng),
            delta: Fr::random(&mut *rng),
            tau: Fr::random(rng),
        }
    }
}

/// Multiples of one base point for fixed-base multiplication: table `w`
/// holds `d * 2^(w * bits) * base` for `d` in `1..2^bits`, so a product is
/// one mixed addition per window.
struct FixedBase<P: Jacobian> {
    bits: usize,
    tables: Vec<Vec<P::AffineRepr>>,
}

impl<P> FixedBase<P>
where
    P: Jacobian + for<'a> AddAssign<&'a P::AffineRepr>,
    P::AffineRepr: Send + Sync + Default + Copy,
{
    /// Tables sized for `count` products: wider windows cost more to build
    /// and less per product.
    fn new(base: P, count: usize) -> Self {
        let bits = (usize::BITS - count.max(1).leading_zeros()).saturating_sub(5).clamp(2, 16) as usize;
        let windows = (Fr::NUM_BITS as usize).div_ceil(bits);
        let tables = (0..windows)
            .into_par_iter()
            .map(|w| {
                let step = base * Fr::from(2u64).pow_vartime([(w * bits) as u64]);
                let mut multiples = Vec::with_capacity((1 << bits) - 1);
                let mut acc = step;
                for _ in 1..1 << bits {
                    multiples.push(acc);
                    acc += step;
                }
                let mut table = vec![P::AffineRepr::default(); multiples.len()];
                batch_to_affine(&multiples, &mut table);
                table
            })
            .collect();
        Self { bits, tables }
    }

    /// `s * base`, projectively: the reference `mul_all` is tested against.
    #[cfg(test)]
    fn mul(&self, s: &Fr) -> P {
        let bytes = s.to_bytes_le();
        let mut acc = P::identity();
        for (w, table) in self.tables.iter().enumerate() {
            let digit = window(&bytes, w * self.bits, self.bits);
            if digit != 0 {
                acc += &table[digit - 1];
            }
        }
        acc
    }

    /// `mul_all`, with a log line before (an estimate from `per_point`, the
    /// seconds per point of the group's query before, updated here) and
    /// after: a large key takes minutes.
    fn mul_logged(&self, query: &str, scalars: &[Fr], per_point: &mut Option<f64>) -> Vec<P::AffineRepr> {
        let estimate = per_point.map_or(String::new(), |s| format!(", about {:.0} s", s * scalars.len() as f64));
        log::info!("cuzk generator: {query} query, {} points{estimate}", scalars.len());
        let start = Instant::now();
        let points = self.mul_all(scalars);
        let seconds = start.elapsed().as_secs_f64();
        log::info!("cuzk generator: {query} query done in {seconds:.1} s");
        if !scalars.is_empty() {
            *per_point = Some(seconds / scalars.len() as f64);
        }
        points
    }

    /// `s * base` for every scalar, in affine form: a chunk of products at
    /// a time, window by window, each window's additions in one batch of
    /// affine additions (`add_batch`).
    fn mul_all(&self, scalars: &[Fr]) -> Vec<P::AffineRepr> {
        let mut out = vec![P::AffineRepr::default(); scalars.len()];
        out.par_chunks_mut(1 << 12).zip(scalars.par_chunks(1 << 12)).for_each(|(dst, src)| {
            let bytes: Vec<[u8; 32]> = src.iter().map(Fr::to_bytes_le).collect();
            let mut acc: Vec<Affine<P>> = vec![None; src.len()];
            let mut adds = Vec::with_capacity(src.len());
            for (w, table) in self.tables.iter().enumerate() {
                adds.clear();
                for (lane, b) in bytes.iter().enumerate() {
                    let digit = window(b, w * self.bits, self.bits);
                    if digit != 0 {
                        adds.push((lane, table[digit - 1]));
                    }
                }
                add_batch::<P>(&mut acc, &adds);
            }
            for (o, a) in dst.iter_mut().zip(acc) {
                *o = a.map_or_else(|| P::identity().to_affine(), |(x, y)| P::affine_unchecked(x, y));
            }
        });
        out
    }
}

/// Bits `at..at + bits` of a little-endian number (`bits` <= 16).
fn window(bytes: &[u8; 32], at: usize, bits: usize) -> usize {
    let mut word = [0u8; 4];
    for (k, b) in word.iter_mut().enumerate() {
        *b = bytes.get(at / 8 + k).copied().unwrap_or(0);
    }
    ((u32::from_le_bytes(word) >> (at % 8)) & ((1 << bits) - 1)) as usize
}

/// The polynomial of every column of `m`, evaluated at tau: `sum over rows j
/// of coeff * L_j(tau)`.
fn columns_at_tau(m: &Csr, coeffs: &[Fr], lagrange: &[Fr], columns: usize) -> Vec<Fr> {
    let mut out = vec![Fr::ZERO; columns];
    for (j, l) in lagrange.iter().enumerate().take(m.rows()) {
        for t in m.row(j) {
            out[t.column as usize] += coeffs[t.coeff as usize] * l;
        }
    }
    out
}

/// The parameters of the circuit whose matrices are `m`, under `waste`.
pub fn generate(m: &Matrices, waste: &ToxicWaste) -> Result<Parameters<Bls12>> {
    m.check()?;
    log::info!("cuzk generator: {} constraints, {} variables", m.num_constraints(), m.num_inputs + m.num_aux);
    let ToxicWaste { g1, g2, alpha, beta, gamma, delta, tau } = *waste;
    let domain = Domain::new(m.num_constraints())?;
    let n = domain.size();
    let gamma_inv = Option::<Fr>::from(gamma.invert()).ok_or_else(|| anyhow::anyhow!("gamma is zero"))?;
    let delta_inv = Option::<Fr>::from(delta.invert()).ok_or_else(|| anyhow::anyhow!("delta is zero"))?;

    let mut powers = vec![Fr::ONE; n];
    powers.par_chunks_mut(1 << 12).enumerate().for_each(|(c, chunk)| {
        let mut p = tau.pow_vartime([(c << 12) as u64]);
        for x in chunk {
            *x = p;
            p *= tau;
        }
    });
    // H: tau^i * Z(tau) / delta for i < n - 1, Z(x) = x^n - 1.
    let z_over_delta = (tau.pow_vartime([n as u64]) - Fr::ONE) * delta_inv;
    let h: Vec<Fr> = powers[..n - 1].par_iter().map(|p| p * z_over_delta).collect();
    let mut lagrange = powers;
    domain.intt(&mut lagrange);

    let num_z = m.num_inputs + m.num_aux;
    let [u, v, w] = [&m.a, &m.b, &m.c].map(|csr| columns_at_tau(csr, &m.coeffs, &lagrange, num_z));
    // (beta u + alpha v + w) / gamma for inputs (IC), / delta for aux (L).
    let ext: Vec<Fr> = (0..num_z)
        .into_par_iter()
        .map(|k| (beta * u[k] + alpha * v[k] + w[k]) * if k < m.num_inputs { gamma_inv } else { delta_inv })
        .collect();
    ensure!(
        ext[m.num_inputs..].iter().all(|e| !bool::from(e.is_zero())),
        "an aux variable is unconstrained: the L query would hold the point at infinity"
    );
    // A and B hold the variables whose polynomials are not zero at tau.
    let nonzero = |x: &[Fr]| -> Vec<Fr> { x.iter().copied().filter(|e| !bool::from(e.is_zero())).collect() };
    let (a, b) = (nonzero(&u), nonzero(&v));

    let g1_base = FixedBase::new(g1, h.len() + ext.len() + a.len() + b.len());
    let g2_base = FixedBase::new(g2, b.len());
    let (mut g1_rate, mut g2_rate) = (None, None);
    let mut ic = g1_base.mul_logged("IC and L", &ext, &mut g1_rate);
    let l = ic.split_off(m.num_inputs);
    let (g1, g2) = (g1.to_affine(), g2.to_affine());
    let vk = VerifyingKey::<Bls12> {
        alpha_g1: (g1 * alpha).to_affine(),
        beta_g1: (g1 * beta).to_affine(),
        beta_g2: (g2 * beta).to_affine(),
        gamma_g2: (g2 * gamma).to_affine(),
        delta_g1: (g1 * delta).to_affine(),
        delta_g2: (g2 * delta).to_affine(),
        ic,
    };
    Ok(Parameters {
        vk,
        h: Arc::new(g1_base.mul_logged("H", &h, &mut g1_rate)),
        l: Arc::new(l),
        a: Arc::new(g1_base.mul_logged("A", &a, &mut g1_rate)),
        b_g1: Arc::new(g1_base.mul_logged("B (G1)", &b, &mut g1_rate)),
        b_g2: Arc::new(g2_base.mul_logged("B (G2)", &b, &mut g2_rate)),
    })
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::circuit::{record, MulChain};

    #[test]
    fn fixed_base_products_are_scalar_multiplications() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let base = G1Projective::random(&mut rng);
        for count in [1, 100, 5000] {
            let table = FixedBase::new(base, count);
            let scalars: Vec<Fr> = [Fr::ZERO, Fr::ONE, -Fr::ONE].into_iter().chain((0..20).map(|_| Fr::random(&mut rng))).collect();
            let products = table.mul_all(&scalars);
            for (s, p) in scalars.iter().zip(&products) {
                assert_eq!(*p, (base * s).to_affine(), "{count} products, scalar {s:?}");
                assert_eq!(*p, table.mul(s).to_affine(), "{count} products, scalar {s:?}: the projective path");
            }
        }
    }

    #[test]
    fn the_keys_points_are_bellpersons_for_the_same_toxic_waste() {
        let circuit = |start: u64| MulChain { start: Fr::from(start), links: 700 };
        let waste = ToxicWaste::random(&mut ChaCha8Rng::seed_from_u64(11));
        let ours = generate(&record(circuit(3)).unwrap().0, &waste).unwrap();
        let ToxicWaste { g1, g2, alpha, beta, gamma, delta, tau } = waste;
        let stock = bellperson::groth16::generate_parameters::<Bls12, _>(circuit(5), g1, g2, alpha, beta, gamma, delta, tau).unwrap();
        assert!(ours.vk == stock.vk, "verifying keys differ");
        assert!(ours.h == stock.h && ours.l == stock.l, "H or L differ");
        assert!(ours.a == stock.a && ours.b_g1 == stock.b_g1 && ours.b_g2 == stock.b_g2, "A or B differ");
    }
}
