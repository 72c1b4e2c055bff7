use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use ff::Field;

use super::Density;

/// A synthesized circuit, ready for the Groth16 prover.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Synthesized {
    /// `<A_i, z>` for every constraint `i` (including one `x * 0 = 0` per input).
    pub a: Vec<Fr>,
    /// `<B_i, z>`.
    pub b: Vec<Fr>,
    /// `<C_i, z>`.
    pub c: Vec<Fr>,
    /// Input assignment; element 0 is the constant one.
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
    /// Aux variables with a non-zero coefficient in some A combination.
    pub a_aux_density: Density,
    /// Input variables with a non-zero coefficient in some B combination.
    pub b_input_density: Density,
    /// Aux variables with a non-zero coefficient in some B combination.
    pub b_aux_density: Density,
}

impl Synthesized {
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }
}

/// Runs `circuit` through cuzk's constraint system.
///
/// Like every Groth16 prover compatible with bellperson's parameters, it allocates
/// the constant-one input first and closes with one `input * 0 = 0` constraint per
/// input, which makes every input appear in the A query.
pub fn synthesize<C: Circuit<Fr>>(circuit: C) -> Result<Synthesized, SynthesisError> {
    let mut cs = Synthesized::default();
    cs.alloc_input(|| "one", || Ok(Fr::ONE))?;
    circuit.synthesize(&mut cs)?;
    for i in 0..cs.inputs.len() {
        cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
    }
    Ok(cs)
}

/// `<lc, z>`, marking in the given densities every variable with a non-zero coefficient.
fn evaluate(
    lc: &LinearCombination<Fr>,
    inputs: &[Fr],
    aux: &[Fr],
    mut input_density: Option<&mut Density>,
    mut aux_density: Option<&mut Density>,
) -> Fr {
    let mut acc = Fr::ZERO;
    for (&i, coeff) in lc.iter_inputs() {
        if bool::from(coeff.is_zero()) {
            continue;
        }
        acc += term(inputs[i], coeff);
        if let Some(d) = input_density.as_deref_mut() {
            d.mark(i);
        }
    }
    for (&i, coeff) in lc.iter_aux() {
        if bool::from(coeff.is_zero()) {
            continue;
        }
        acc += term(aux[i], coeff);
        if let Some(d) = aux_density.as_deref_mut() {
            d.mark(i);
        }
    }
    acc
}

#[inline]
fn term(value: Fr, coeff: &Fr) -> Fr {
    if *coeff == Fr::ONE {
        value
    } else {
        value * coeff
    }
}

impl ConstraintSystem<Fr> for Synthesized {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        self.a_aux_density.push();
        self.b_aux_density.push();
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        self.b_input_density.push();
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let (a, b, c) = (
            a(LinearCombination::zero()),
            b(LinearCombination::zero()),
            c(LinearCombination::zero()),
        );
        let a = evaluate(&a, &self.inputs, &self.aux, None, Some(&mut self.a_aux_density));
        let b = evaluate(
            &b,
            &self.inputs,
            &self.aux,
            Some(&mut self.b_input_density),
            Some(&mut self.b_aux_density),
        );
        let c = evaluate(&c, &self.inputs, &self.aux, None, None);
        self.a.push(a);
        self.b.push(b);
        self.c.push(c);
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}
