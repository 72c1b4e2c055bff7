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
    let mut cs = open()?;
    circuit.synthesize(&mut cs)?;
    close(&mut cs);
    Ok(cs)
}

/// A system with the constant-one input, ready for a circuit.
pub(super) fn open() -> Result<Synthesized, SynthesisError> {
    let mut cs = Synthesized::default();
    cs.alloc_input(|| "one", || Ok(Fr::ONE))?;
    Ok(cs)
}

/// The `input * 0 = 0` constraints that end every system.
pub(super) fn close(cs: &mut Synthesized) {
    for i in 0..cs.inputs.len() {
        cs.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
    }
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

/// Montgomery limbs of 1 and -1 (2^256 mod r and r - 2^256 mod r).
const ONE: [u64; 4] = [0x0000_0001_ffff_fffe, 0x5884_b7fa_0003_4802, 0x998c_4fef_ecbc_4ff5, 0x1824_b159_acc5_056f];
const MINUS_ONE: [u64; 4] = [0xffff_fffd_0000_0003, 0xfb38_ec08_fffb_13fc, 0x99ad_8818_1ce5_880f, 0x5bc8_f5f9_7cd8_77d8];

/// An element's Montgomery limbs. Synthesis compares them directly: the
/// field's `==` is constant-time, which costs a tenth of synthesis and
/// protects nothing on the prover's own machine.
#[inline]
fn limbs(x: &Fr) -> [u64; 4] {
    blst::blst_fr::from(*x).l
}

/// `acc += coeff * value`, skipping the multiplication where the gadgets'
/// terms usually are: a boolean's value 0, a coefficient of 1 or -1. False
/// for a zero coefficient (the variable is not in the combination).
#[inline]
fn add_term(acc: &mut Fr, value: &Fr, coeff: &Fr) -> bool {
    let c = limbs(coeff);
    if c == [0; 4] {
        return false;
    }
    if limbs(value) != [0; 4] {
        match c {
            ONE => *acc += value,
            MINUS_ONE => *acc -= value,
            _ => *acc += *value * coeff,
        }
    }
    true
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

    /// Extensible: circuits that can (the PoSt circuits, over sectors)
    /// synthesize parts in parallel into fresh systems and `extend` this one.
    fn new() -> Self {
        Self::default()
    }

    fn is_extensible() -> bool {
        true
    }

    /// Appends a system built by `new()`: its constraints (already evaluated),
    /// its inputs but its own constant one (input 0, which its constraints
    /// used as one, as ours), its aux variables, and their densities.
    fn extend(&mut self, other: &Self) {
        self.a.extend_from_slice(&other.a);
        self.b.extend_from_slice(&other.b);
        self.c.extend_from_slice(&other.c);
        self.inputs.extend_from_slice(other.inputs.get(1..).unwrap_or_default());
        self.aux.extend_from_slice(&other.aux);
        self.a_aux_density.append(&other.a_aux_density, 0);
        self.b_aux_density.append(&other.b_aux_density, 0);
        if other.b_input_density.len() > 0 && other.b_input_density.is_set(0) && self.b_input_density.len() > 0 {
            self.b_input_density.mark(0);
        }
        self.b_input_density.append(&other.b_input_density, 1);
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

    #[test]
    fn the_limb_constants_are_one_and_minus_one() {
        assert_eq!(limbs(&Fr::ONE), ONE);
        assert_eq!(limbs(&-Fr::ONE), MINUS_ONE);
        assert_eq!(limbs(&Fr::ZERO), [0; 4]);
    }

    #[test]
    fn every_shortcut_of_a_term_adds_what_the_product_adds() {
        let values = [Fr::ZERO, Fr::ONE, -Fr::ONE, Fr::from(7u64), -Fr::from(1u64 << 40)];
        for value in values {
            for coeff in values {
                let mut acc = Fr::from(1000u64);
                let present = add_term(&mut acc, &value, &coeff);
                assert_eq!(acc, Fr::from(1000u64) + value * coeff, "{value:?} * {coeff:?}");
                assert_eq!(present, coeff != Fr::ZERO);
            }
        }
    }
}
