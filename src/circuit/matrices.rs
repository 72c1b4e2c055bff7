//! A circuit's R1CS, recorded once (`Recorder`): the A, B and C matrices in
//! compressed sparse rows, the densities of the A and B queries, and the
//! variable counts. A circuit's structure is the same for every instance of
//! a proof type, so with its matrices a proof needs only a witness
//! (`Witness`): `evaluate` gives the a, b, c that full synthesis gives.
//!
//! Columns index the assignment `z = inputs ++ aux` (the constant one is
//! input 0). Coefficients are codes into a per-circuit table of distinct
//! values; code 0 is 1 and code 1 is -1, which need no multiplication.

use anyhow::{ensure, Result};
use blstrs::Scalar as Fr;
use ff::Field;
use rayon::prelude::*;

use super::{
    term::{add_term, limbs},
    Density, Synthesized, Witness,
};
use crate::room::try_room;

/// The codes of the coefficients 1 and -1.
pub const CODE_ONE: u32 = 0;
pub const CODE_MINUS_ONE: u32 = 1;

/// One term of a constraint: a column of `z` and its coefficient's code.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Term {
    pub column: u32,
    pub coeff: u32,
}

/// One matrix: row `i`'s terms are `terms[row_starts[i]..row_starts[i + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    pub row_starts: Vec<u32>,
    pub terms: Vec<Term>,
}

impl Default for Csr {
    fn default() -> Self {
        Csr { row_starts: vec![0], terms: Vec::new() }
    }
}

impl Csr {
    pub fn rows(&self) -> usize {
        self.row_starts.len() - 1
    }

    pub fn row(&self, i: usize) -> &[Term] {
        &self.terms[self.row_starts[i] as usize..self.row_starts[i + 1] as usize]
    }

    fn size_bytes(&self) -> usize {
        self.row_starts.len() * 4 + self.terms.len() * std::mem::size_of::<Term>()
    }

    /// `<row_i, z>` for every row, in parallel; an error where the memory
    /// cannot be had.
    fn evaluate(&self, coeffs: &[Fr], inputs: &[Fr], aux: &[Fr]) -> Result<Vec<Fr>> {
        let value = |column: u32| {
            let column = column as usize;
            if column < inputs.len() {
                &inputs[column]
            } else {
                &aux[column - inputs.len()]
            }
        };
        let mut out = Vec::new();
        try_room(&mut out, self.rows(), "a circuit's a, b or c")?;
        out.spare_capacity_mut()[..self.rows()].par_chunks_mut(ROWS_PER_TASK).enumerate().for_each(|(chunk, slots)| {
            for (k, slot) in slots.iter_mut().enumerate() {
                let mut acc = Fr::ZERO;
                for t in self.row(chunk * ROWS_PER_TASK + k) {
                    let v = value(t.column);
                    match t.coeff {
                        CODE_ONE => {
                            if limbs(v) != [0; 4] {
                                acc += v
                            }
                        }
                        CODE_MINUS_ONE => {
                            if limbs(v) != [0; 4] {
                                acc -= v
                            }
                        }
                        code => {
                            add_term(&mut acc, v, &coeffs[code as usize]);
                        }
                    }
                }
                slot.write(acc);
            }
        });
        // SAFETY: the chunks cover the first `rows()` spare elements, each
        // written once above.
        unsafe { out.set_len(self.rows()) };
        Ok(out)
    }
}

/// Rows evaluated per task of the pool.
const ROWS_PER_TASK: usize = 1 << 14;

/// A circuit's recorded R1CS.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrices {
    pub a: Csr,
    pub b: Csr,
    pub c: Csr,
    /// Coefficient values by code; `coeffs[0]` is 1, `coeffs[1]` is -1.
    pub coeffs: Vec<Fr>,
    pub num_inputs: usize,
    pub num_aux: usize,
    /// Aux variables with a non-zero coefficient in some A row.
    pub a_aux_density: Density,
    /// Input variables with a non-zero coefficient in some B row.
    pub b_input_density: Density,
    /// Aux variables with a non-zero coefficient in some B row.
    pub b_aux_density: Density,
}

impl Matrices {
    pub fn num_constraints(&self) -> usize {
        self.a.rows()
    }

    /// Host bytes held.
    pub fn size_bytes(&self) -> usize {
        let densities = (2 * self.num_aux + self.num_inputs) / 8;
        self.a.size_bytes() + self.b.size_bytes() + self.c.size_bytes() + self.coeffs.len() * 32 + densities
    }

    /// Every term of every matrix.
    pub fn num_terms(&self) -> usize {
        self.a.terms.len() + self.b.terms.len() + self.c.terms.len()
    }

    /// Checks that the matrices are well formed: every row's terms within
    /// the matrix, every column a variable, every code a coefficient, 1 and
    /// -1 where their codes say, densities of the variables' counts. What
    /// the recorder makes always is; matrices from elsewhere (a file, a
    /// device upload's caller) are checked before any index is trusted.
    pub fn check(&self) -> Result<()> {
        let num_z = self.num_inputs + self.num_aux;
        ensure!(self.coeffs.len() >= 2 && self.coeffs[0] == Fr::ONE && self.coeffs[1] == -Fr::ONE, "coefficient codes 0 and 1 are not 1 and -1");
        ensure!(
            self.a_aux_density.len() == self.num_aux
                && self.b_aux_density.len() == self.num_aux
                && self.b_input_density.len() == self.num_inputs,
            "densities do not match the variable counts"
        );
        for (name, m) in [("A", &self.a), ("B", &self.b), ("C", &self.c)] {
            ensure!(m.rows() == self.a.rows(), "matrix {name} has {} rows, A {}", m.rows(), self.a.rows());
            ensure!(
                m.row_starts[0] == 0
                    && m.row_starts.windows(2).all(|w| w[0] <= w[1])
                    && m.row_starts[m.rows()] as usize == m.terms.len(),
                "matrix {name}: row starts do not ascend to its {} terms",
                m.terms.len()
            );
            ensure!(
                m.terms.par_iter().all(|t| (t.column as usize) < num_z && (t.coeff as usize) < self.coeffs.len()),
                "matrix {name}: a term's column or coefficient code is out of range"
            );
        }
        Ok(())
    }

    /// Checks that `w` is an assignment of this circuit's shape.
    pub fn check_witness(&self, w: &Witness) -> Result<()> {
        ensure!(
            w.inputs.len() == self.num_inputs && w.aux.len() == self.num_aux,
            "the witness has {} inputs and {} aux variables, the circuit's recorded matrices {} and {}",
            w.inputs.len(),
            w.aux.len(),
            self.num_inputs,
            self.num_aux
        );
        Ok(())
    }

    /// a, b and c of witness `w` (in parallel on rayon's pool).
    pub fn abc(&self, w: &Witness) -> Result<[Vec<Fr>; 3]> {
        self.check_witness(w)?;
        let [a, b, c] = [&self.a, &self.b, &self.c].map(|m| m.evaluate(&self.coeffs, &w.inputs, &w.aux));
        Ok([a?, b?, c?])
    }

    /// The synthesized circuit of witness `w`: a, b, c evaluated from the
    /// matrices (in parallel on rayon's pool), equal to what full synthesis
    /// of the same instance gives.
    pub fn evaluate(&self, w: Witness) -> Result<Synthesized> {
        let [a, b, c] = self.abc(&w)?;
        Ok(Synthesized {
            a,
            b,
            c,
            inputs: w.inputs,
            aux: w.aux,
            a_aux_density: self.a_aux_density.clone(),
            b_input_density: self.b_input_density.clone(),
            b_aux_density: self.b_aux_density.clone(),
        })
    }
}
