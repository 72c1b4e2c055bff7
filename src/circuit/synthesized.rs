use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use ff::Field;

use super::{
    joinable::{append_densities, own_root_extensible, synthesize_whole, Joinable, Sizes},
    par_copy::extend_in_parallel,
    term::add_term,
    Density,
};
use crate::room::Growth;

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

/// Runs `circuit` through cuzk's full system.
pub fn synthesize<C: Circuit<Fr>>(circuit: C) -> Result<Synthesized, SynthesisError> {
    synthesize_whole(circuit)
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
        if add_term(&mut acc, &inputs[i], coeff) {
            if let Some(d) = input_density.as_deref_mut() {
                d.mark(i);
            }
        }
    }
    for (&i, coeff) in lc.iter_aux() {
        if add_term(&mut acc, &aux[i], coeff) {
            if let Some(d) = aux_density.as_deref_mut() {
                d.mark(i);
            }
        }
    }
    acc
}

impl Joinable for Synthesized {
    fn sizes(&self) -> Sizes {
        Sizes { constraints: self.a.len(), inputs: self.inputs.len(), aux: self.aux.len() }
    }

    fn same_prefix(&self, piece: &Self, p: Sizes) -> bool {
        piece.a[..p.constraints] == self.a[..p.constraints]
            && piece.b[..p.constraints] == self.b[..p.constraints]
            && piece.c[..p.constraints] == self.c[..p.constraints]
            && piece.inputs[..p.inputs] == self.inputs[..p.inputs]
            && piece.aux[..p.aux] == self.aux[..p.aux]
    }

    fn reserve(&mut self, more: Sizes, growth: Growth) -> anyhow::Result<()> {
        growth.room(&mut self.a, more.constraints, "a circuit's a")?;
        growth.room(&mut self.b, more.constraints, "a circuit's b")?;
        growth.room(&mut self.c, more.constraints, "a circuit's c")?;
        growth.room(&mut self.aux, more.aux, "a circuit's aux values")
    }

    /// Each vector of `piece` is freed once copied: the copy's new memory is
    /// taken while a third of the piece's is still held, not all of it.
    fn append(&mut self, mut piece: Self, p: Sizes) {
        for (to, from) in [(&mut self.a, &mut piece.a), (&mut self.b, &mut piece.b), (&mut self.c, &mut piece.c)] {
            extend_in_parallel(to, &std::mem::take(from)[p.constraints..]);
        }
        extend_in_parallel(&mut self.aux, &std::mem::take(&mut piece.aux)[p.aux..]);
        self.inputs.extend_from_slice(&piece.inputs[p.inputs..]);
        append_densities(
            [&mut self.a_aux_density, &mut self.b_input_density, &mut self.b_aux_density],
            [&piece.a_aux_density, &piece.b_input_density, &piece.b_aux_density],
            p,
        );
    }
}

impl ConstraintSystem<Fr> for Synthesized {
    own_root_extensible!();

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::MulChain;

    /// Chains synthesized one after another, or (as the PoSt circuits do on an
    /// extensible system) each into a fresh system, then joined with `extend`.
    struct Chains {
        parts: Vec<MulChain>,
        split: bool,
    }

    impl Circuit<Fr> for Chains {
        fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
            for part in self.parts {
                if self.split {
                    let mut sub = CS::new();
                    sub.alloc_input(|| "temp one", || Ok(Fr::ONE))?;
                    part.synthesize(&mut sub)?;
                    cs.extend(&sub);
                } else {
                    part.synthesize(cs)?;
                }
            }
            Ok(())
        }
    }

    #[test]
    fn extending_with_parts_synthesized_apart_equals_synthesizing_in_one() {
        // links = 0 puts the constant one in B: the inputs' B density merges.
        let parts = || [5usize, 0, 70, 1, 0, 130].map(|links| MulChain { start: Fr::from(links as u64 + 2), links }).to_vec();
        let whole = synthesize(Chains { parts: parts(), split: false }).unwrap();
        let joined = synthesize(Chains { parts: parts(), split: true }).unwrap();
        assert!(<Synthesized as ConstraintSystem<Fr>>::is_extensible());
        assert_eq!(joined, whole);
        assert!(whole.b_input_density.is_set(0));
        assert_eq!(whole.inputs.len(), 1 + 6);
    }
}
