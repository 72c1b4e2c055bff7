//! Recording a circuit's R1CS: a constraint system that keeps every
//! constraint's linear combinations as rows of sparse matrices (and the
//! assignment, which recording computes anyway), to be evaluated against
//! other instances' witnesses (`Matrices`).

use std::collections::HashMap;

use anyhow::{ensure, Result};
use bellperson::{Circuit, ConstraintSystem, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use ff::Field;

use super::{
    joinable::{append_densities, own_root_extensible, synthesize_whole, Joinable, Sizes},
    matrices::{Csr, Matrices, Term, CODE_MINUS_ONE, CODE_ONE},
    par_copy::extend_mapped,
    term::{limbs, MINUS_ONE, ONE},
    Density, Witness,
};
use crate::room::Growth;

/// While recording, a column is an aux index, or an input index with this
/// bit set (the inputs' count is known only at the end).
const INPUT: u32 = 1 << 31;

/// Distinct coefficient values and their codes.
#[derive(Clone, Debug)]
struct Coefficients {
    values: Vec<Fr>,
    codes: HashMap<[u64; 4], u32>,
}

impl Default for Coefficients {
    fn default() -> Self {
        let values = vec![Fr::ONE, -Fr::ONE];
        let codes = HashMap::from([(ONE, CODE_ONE), (MINUS_ONE, CODE_MINUS_ONE)]);
        Coefficients { values, codes }
    }
}

impl Coefficients {
    fn code(&mut self, value: &Fr) -> u32 {
        match limbs(value) {
            ONE => CODE_ONE,
            MINUS_ONE => CODE_MINUS_ONE,
            key => *self.codes.entry(key).or_insert_with(|| {
                self.values.push(*value);
                (self.values.len() - 1) as u32
            }),
        }
    }
}

/// cuzk's recording system. Like every cuzk system it is joinable, so a
/// circuit records in pieces on many threads (`synthesize_pieces`).
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    matrices: [Csr; 3],
    coeffs: Coefficients,
    witness: Witness,
    a_aux_density: Density,
    b_input_density: Density,
    b_aux_density: Density,
    /// A column or term count beyond what the matrices' u32 indices hold.
    too_large: bool,
}

/// Records `circuit`'s matrices, with its witness.
pub fn record<C: Circuit<Fr>>(circuit: C) -> Result<(Matrices, Witness)> {
    synthesize_whole::<Recorder, _>(circuit)?.finish()
}

impl Recorder {
    /// The matrices (columns renumbered into `z = inputs ++ aux`) and the witness.
    pub fn finish(self) -> Result<(Matrices, Witness)> {
        let (num_inputs, num_aux) = (self.witness.inputs.len(), self.witness.aux.len());
        ensure!(
            !self.too_large && (num_inputs + num_aux) <= u32::MAX as usize,
            "the circuit is too large to record: its matrices' indices exceed 32 bits"
        );
        let [a, b, c] = self.matrices.map(|m| {
            let column = |t: &Term| Term {
                column: if t.column & INPUT != 0 { t.column & !INPUT } else { t.column + num_inputs as u32 },
                coeff: t.coeff,
            };
            let mut terms = Vec::new();
            extend_mapped(&mut terms, &m.terms, column);
            Csr { row_starts: m.row_starts, terms }
        });
        let matrices = Matrices {
            a,
            b,
            c,
            coeffs: self.coeffs.values,
            num_inputs,
            num_aux,
            a_aux_density: self.a_aux_density,
            b_input_density: self.b_input_density,
            b_aux_density: self.b_aux_density,
        };
        Ok((matrices, self.witness))
    }
}

/// Appends to `csr` the row of `lc`'s non-zero terms, marking their
/// variables in the densities given.
fn push_row(
    csr: &mut Csr,
    coeffs: &mut Coefficients,
    too_large: &mut bool,
    lc: &LinearCombination<Fr>,
    mut input_density: Option<&mut Density>,
    mut aux_density: Option<&mut Density>,
) {
    let inputs = lc.iter_inputs().map(|(&i, c)| (i, c, true));
    let aux = lc.iter_aux().map(|(&i, c)| (i, c, false));
    for (i, coeff, is_input) in inputs.chain(aux) {
        if limbs(coeff) == [0; 4] {
            continue;
        }
        *too_large |= i >= INPUT as usize;
        let density = if is_input { input_density.as_deref_mut() } else { aux_density.as_deref_mut() };
        if let Some(d) = density {
            d.mark(i);
        }
        let column = if is_input { INPUT | i as u32 } else { i as u32 };
        csr.terms.push(Term { column, coeff: coeffs.code(coeff) });
    }
    *too_large |= csr.terms.len() > u32::MAX as usize;
    csr.row_starts.push(csr.terms.len() as u32);
}

impl Joinable for Recorder {
    fn sizes(&self) -> Sizes {
        Sizes { constraints: self.matrices[0].rows(), inputs: self.witness.inputs.len(), aux: self.witness.aux.len() }
    }

    fn same_prefix(&self, piece: &Self, p: Sizes) -> bool {
        let value = |r: &Recorder, t: &Term| (t.column, r.coeffs.values[t.coeff as usize]);
        self.witness.same_prefix(&piece.witness, Sizes { constraints: 0, ..p })
            && (0..3).all(|m| {
                let (ours, theirs) = (&self.matrices[m], &piece.matrices[m]);
                ours.row_starts[..=p.constraints] == theirs.row_starts[..=p.constraints]
                    && ours.terms[..ours.row_starts[p.constraints] as usize]
                        .iter()
                        .zip(&theirs.terms)
                        .all(|(x, y)| value(self, x) == value(piece, y))
            })
    }

    fn reserve(&mut self, more: Sizes, growth: Growth) -> anyhow::Result<()> {
        let rows = self.matrices[0].rows().max(1);
        for m in &mut self.matrices {
            let terms_per_row = m.terms.len() / rows + 1;
            growth.room(&mut m.row_starts, more.constraints, "a matrix's rows")?;
            growth.room(&mut m.terms, more.constraints * terms_per_row, "a matrix's terms")?;
        }
        self.witness.reserve(more, growth)
    }

    fn append(&mut self, piece: Self, p: Sizes) {
        let ours = self.sizes();
        let codes: Vec<u32> = piece.coeffs.values.iter().map(|v| self.coeffs.code(v)).collect();
        let (input_shift, aux_shift) = ((ours.inputs - p.inputs) as u32, (ours.aux - p.aux) as u32);
        let renumber = |t: &Term| {
            let column = match t.column {
                c if c & INPUT != 0 && (c & !INPUT) as usize >= p.inputs => c + input_shift,
                c if c & INPUT == 0 && c as usize >= p.aux => c + aux_shift,
                c => c,
            };
            Term { column, coeff: codes[t.coeff as usize] }
        };
        for (to, from) in self.matrices.iter_mut().zip(&piece.matrices) {
            let first = from.row_starts[p.constraints] as usize;
            let base = to.terms.len() as u64;
            extend_mapped(&mut to.terms, &from.terms[first..], renumber);
            for &start in &from.row_starts[p.constraints + 1..] {
                let start = base + (start as usize - first) as u64;
                self.too_large |= start > u32::MAX as u64;
                to.row_starts.push(start as u32);
            }
        }
        self.too_large |= piece.too_large || ours.aux + piece.witness.aux.len() >= INPUT as usize;
        append_densities(
            [&mut self.a_aux_density, &mut self.b_input_density, &mut self.b_aux_density],
            [&piece.a_aux_density, &piece.b_input_density, &piece.b_aux_density],
            p,
        );
        self.witness.append(piece.witness, Sizes { constraints: 0, ..p });
    }
}

impl ConstraintSystem<Fr> for Recorder {
    own_root_extensible!();

    fn alloc<F, A, AR>(&mut self, name: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let v = self.witness.alloc(name, f)?;
        self.a_aux_density.push();
        self.b_aux_density.push();
        Ok(v)
    }

    fn alloc_input<F, A, AR>(&mut self, name: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let v = self.witness.alloc_input(name, f)?;
        self.b_input_density.push();
        Ok(v)
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let (a, b, c) = (a(LinearCombination::zero()), b(LinearCombination::zero()), c(LinearCombination::zero()));
        let Recorder { matrices: [ma, mb, mc], coeffs, a_aux_density, b_input_density, b_aux_density, too_large, .. } = self;
        push_row(ma, coeffs, too_large, &a, None, Some(a_aux_density));
        push_row(mb, coeffs, too_large, &b, Some(b_input_density), Some(b_aux_density));
        push_row(mc, coeffs, too_large, &c, None, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::{synthesize, synthesize_witness, MulChain, Synthesized};

    /// Terms of every kind: inputs in A, B and C, coefficients 1, -1, 3 and
    /// 2^k, a variable whose terms cancel (coefficient 0: not in the row),
    /// zero values, and, when `split`, parts synthesized apart and joined
    /// with `extend` (as the PoSt circuits do on extensible systems).
    #[derive(Clone)]
    struct Mixed {
        seed: u64,
        split: bool,
    }

    impl Mixed {
        fn part<CS: ConstraintSystem<Fr>>(cs: &mut CS, seed: u64, k: u64) -> Result<(), SynthesisError> {
            let x = cs.alloc(|| "x", || Ok(Fr::from(seed + k)))?;
            let zero = cs.alloc(|| "zero", || Ok(Fr::ZERO))?;
            let input = cs.alloc_input(|| "in", || Ok(Fr::from(seed * k + 1)))?;
            let product = Fr::from(seed + k) * Fr::from(3 * (seed * k + 1)) + Fr::from(1 << k) * Fr::from(seed + k);
            let y = cs.alloc(|| "y", || Ok(product))?;
            cs.enforce(
                || "y",
                |lc| lc + x + (Fr::from(5u64), zero) - (Fr::from(5u64), zero),
                |lc| lc + (Fr::from(3u64), input) + (Fr::from(1 << k), CS::one()) + zero,
                |lc| lc + y - zero + (Fr::from(2u64), zero),
            );
            cs.enforce(|| "in", |lc| lc + input, |lc| lc + CS::one(), |lc| lc - CS::one() + input + CS::one());
            Ok(())
        }
    }

    impl Circuit<Fr> for Mixed {
        fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            for k in 0..6 {
                if self.split {
                    let mut sub = CS::new();
                    sub.alloc_input(|| "temp one", || Ok(Fr::ONE))?;
                    Self::part(&mut sub, self.seed, k)?;
                    cs.extend(&sub);
                } else {
                    Self::part(cs, self.seed, k)?;
                }
            }
            Ok(())
        }
    }

    /// A circuit family by seed: its full synthesis, recording and witness.
    struct Family {
        name: &'static str,
        full: Box<dyn Fn(u64) -> Synthesized>,
        recorded: Box<dyn Fn(u64) -> (Matrices, Witness)>,
        witness: Box<dyn Fn(u64) -> Witness>,
    }

    fn family<C: Circuit<Fr> + 'static>(name: &'static str, circuit: impl Fn(u64) -> C + Copy + 'static) -> Family {
        Family {
            name,
            full: Box::new(move |seed| synthesize(circuit(seed)).unwrap()),
            recorded: Box::new(move |seed| record(circuit(seed)).unwrap()),
            witness: Box::new(move |seed| synthesize_witness(circuit(seed)).unwrap()),
        }
    }

    fn families() -> Vec<Family> {
        vec![
            family("chain", |seed| MulChain { start: Fr::from(seed), links: 300 }),
            family("mixed", |seed| Mixed { seed, split: false }),
            family("mixed, extended", |seed| Mixed { seed, split: true }),
        ]
    }

    #[test]
    fn recorded_matrices_times_another_instances_witness_equal_its_synthesis() {
        for Family { name, full, recorded, witness } in families() {
            let (matrices, own) = recorded(3);
            assert_eq!(matrices.evaluate(own.clone()).unwrap(), full(3), "{name}: the recorded instance");
            assert_eq!(witness(3), own, "{name}: witness-only synthesis gives the recorder's witness");
            for seed in [4, 11] {
                assert_eq!(matrices.evaluate(witness(seed)).unwrap(), full(seed), "{name}: instance {seed}");
            }
        }
    }

    #[test]
    fn coefficients_are_coded_once_with_one_and_minus_one_first_and_zero_terms_dropped() {
        let (m, _) = record(Mixed { seed: 2, split: false }).unwrap();
        assert_eq!(&m.coeffs[..2], &[Fr::ONE, -Fr::ONE]);
        let mut distinct = m.coeffs.iter().map(limbs).collect::<Vec<_>>();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), m.coeffs.len(), "a value coded twice");
        // Per part: A holds x (zero's terms cancel), B three terms, C y and
        // zero (-1 + 2 = 1); then the second constraint, then one A row per input.
        assert_eq!(m.a.row(0), &[Term { column: m.num_inputs as u32, coeff: CODE_ONE }]);
        assert_eq!(m.b.row(0).len(), 3);
        assert_eq!(m.c.row(0).len(), 2);
        assert!(m.c.row(1).iter().all(|t| t.coeff != CODE_MINUS_ONE || t.column != 0), "-1 + 1 on one: no term");
        assert_eq!(m.num_constraints(), 6 * 2 + m.num_inputs);
    }

    #[test]
    fn recorded_matrices_pass_their_check_and_broken_ones_do_not() {
        let (m, _) = record(Mixed { seed: 2, split: true }).unwrap();
        m.check().unwrap();
        type Breaks = Box<dyn Fn(&mut Matrices)>;
        let broken: [(&str, Breaks); 5] = [
            ("column", Box::new(|m| m.b.terms[0].column = (m.num_inputs + m.num_aux) as u32)),
            ("code", Box::new(|m| m.c.terms[0].coeff = m.coeffs.len() as u32)),
            ("row starts", Box::new(|m| m.a.row_starts[1] = m.a.row_starts[2] + 1)),
            ("last row start", Box::new(|m| *m.a.row_starts.last_mut().unwrap() -= 1)),
            ("one", Box::new(|m| m.coeffs[0] = Fr::from(2u64))),
        ];
        for (what, breaks) in broken {
            let mut bad = m.clone();
            breaks(&mut bad);
            assert!(bad.check().is_err(), "{what}");
        }
    }

    #[test]
    fn a_witness_of_another_shape_is_an_error() {
        let (m, mut w) = record(MulChain { start: Fr::from(3u64), links: 10 }).unwrap();
        w.aux.pop();
        let e = m.evaluate(w).unwrap_err();
        assert!(e.to_string().contains("the witness has 2 inputs and 9 aux variables, the circuit's recorded matrices 2 and 10"), "{e}");
    }
}
