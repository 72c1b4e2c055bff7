//! The heavy steps of a Groth16 proof, behind one interface so that the CPU
//! and the GPU compute them from the same data: H through NTTs, and the MSMs
//! over the queries of a proving key.

use std::{borrow::Cow, cell::Cell, time::Instant};

use anyhow::Result;
use blstrs::{G1Projective, G2Projective, Scalar as Fr};
use once_cell::unsync::OnceCell;

use super::free_later::free_later;
use crate::circuit::{Density, Matrices, PackedWitness, Witness};

/// The G1 queries of a proving key besides H.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum G1Query {
    L,
    A,
    BG1,
}

/// The H term of a proof, and the seconds its parts took.
#[derive(Clone, Copy, Debug)]
pub struct HTerm {
    pub term: G1Projective,
    /// Evaluating a, b and c from a witness and the circuit's matrices (0
    /// when they were given).
    pub abc: f64,
    /// Copies between host and device (a, b and c or the witness in; 0 on
    /// the CPU).
    pub copies: f64,
    /// The NTTs and the pointwise step.
    pub ntt: f64,
    /// The MSM over the H query.
    pub msm: f64,
}

pub trait Backend {
    /// `sum(h_i * H_i)` over the coefficients of `H(x) = (A(x) B(x) - C(x)) / Z(x)`
    /// and the H query, from the evaluations of A, B and C on the subgroup
    /// (zero-padded to the domain). One step, so that a GPU keeps H on the device.
    fn h_term(&self, a: &[Fr], b: &[Fr], c: &[Fr]) -> Result<HTerm>;

    /// As `h_term`, for witness `w` of the circuit whose recorded matrices
    /// are `m` (its proving key's): a, b and c evaluated first, here on the
    /// CPU and held only for the step. `packed`, where given, is `w` packed
    /// (a GPU copies that instead).
    fn h_term_of_witness(&self, m: &Matrices, w: &Witness, _packed: Option<&PackedWitness>) -> Result<HTerm> {
        h_term_from_host_abc(self, m, w)
    }

    /// `sum(scalars[i] * query[i])`; `scalars` is as long as the query.
    fn msm_g1(&self, query: G1Query, scalars: &[Fr]) -> Result<G1Projective>;

    /// `sum(scalars[i] * b_g2[i])`.
    fn msm_b_g2(&self, scalars: &[Fr]) -> Result<G2Projective>;

    /// The MSM of `query` over its scalars from the proof's assignment
    /// (`MsmScalars::of`). By default they are picked in host memory; a GPU
    /// that kept the witness of its H step picks them there.
    fn msm_g1_over(&self, query: G1Query, scalars: &MsmScalars) -> Result<G1Projective> {
        msm_g1_picked_on_host(self, query, scalars)
    }

    /// As `msm_g1_over`, for the B query in G2 (B's scalars).
    fn msm_b_g2_over(&self, scalars: &MsmScalars) -> Result<G2Projective> {
        self.msm_b_g2(&scalars.of(G1Query::BG1))
    }
}

/// `backend.msm_g1` over `query`'s scalars picked in host memory.
pub fn msm_g1_picked_on_host(backend: &(impl Backend + ?Sized), query: G1Query, scalars: &MsmScalars) -> Result<G1Projective> {
    let picked = scalars.of(query);
    let msm = backend.msm_g1(query, &picked);
    if let Cow::Owned(picked) = picked {
        free_later(picked.capacity() * std::mem::size_of::<Fr>(), picked);
    }
    msm
}

/// What the MSMs after H take their scalars from: the assignment, and the
/// densities that pick the A and B scalars from it. Picked scalars live in
/// host memory only as long as needed: A's for its MSM, B's (shared by its
/// G1 and G2 MSMs) until this is dropped.
pub struct MsmScalars<'a> {
    pub inputs: &'a [Fr],
    pub aux: &'a [Fr],
    pub a_aux_density: &'a Density,
    pub b_input_density: &'a Density,
    pub b_aux_density: &'a Density,
    b: OnceCell<Vec<Fr>>,
    picking: Cell<f64>,
}

impl<'a> MsmScalars<'a> {
    pub fn new(inputs: &'a [Fr], aux: &'a [Fr], a_aux_density: &'a Density, b_input_density: &'a Density, b_aux_density: &'a Density) -> Self {
        Self { inputs, aux, a_aux_density, b_input_density, b_aux_density, b: OnceCell::new(), picking: Cell::new(0.0) }
    }

    /// The scalars of `query`: aux for L, `inputs ++ aux` as the densities
    /// pick them for A and B.
    pub fn of(&self, query: G1Query) -> Cow<'_, [Fr]> {
        let start = Instant::now();
        let picked = match query {
            G1Query::L => return Cow::Borrowed(self.aux),
            G1Query::A => Cow::Owned(self.a_aux_density.select_after(self.inputs, self.aux)),
            G1Query::BG1 => Cow::Borrowed(
                self.b.get_or_init(|| self.b_aux_density.select_after(&self.b_input_density.select(self.inputs), self.aux)).as_slice(),
            ),
        };
        self.picking.set(self.picking.get() + start.elapsed().as_secs_f64());
        picked
    }

    /// Seconds spent picking scalars in host memory so far.
    pub fn picking_seconds(&self) -> f64 {
        self.picking.get()
    }

    /// The picked B scalars, to free elsewhere.
    pub fn take_picked(&mut self) -> Vec<Fr> {
        self.b.take().unwrap_or_default()
    }
}

/// `backend.h_term` of a, b and c evaluated from `m` and `w` on the CPU.
pub fn h_term_from_host_abc(backend: &(impl Backend + ?Sized), m: &Matrices, w: &Witness) -> Result<HTerm> {
    let start = Instant::now();
    let [a, b, c] = m.abc(w)?;
    let abc = start.elapsed().as_secs_f64();
    Ok(HTerm { abc, ..backend.h_term(&a, &b, &c)? })
}
