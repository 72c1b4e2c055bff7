//! Witness-only synthesis: a circuit is run for its assignment alone. Its
//! `enforce` never runs the closures that build linear combinations, and it
//! reports itself a witness generator, so gadgets with a fast witness path
//! (neptune's Poseidon) take it. The constraints come from the circuit's
//! recorded matrices instead (`Matrices`), the same for every instance.

use bellperson::{Circuit, ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;

use super::{
    joinable::{own_root_extensible, synthesize_whole, Joinable, Sizes},
    par_copy::extend_in_parallel,
};
use crate::room::{try_room, Growth};

/// A circuit's assignment: inputs (the constant one first) and aux.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Witness {
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
}

/// Runs `circuit` for its witness.
pub fn synthesize_witness<C: Circuit<Fr>>(circuit: C) -> Result<Witness, SynthesisError> {
    synthesize_whole(circuit)
}

impl Joinable for Witness {
    const BUILDS_CONSTRAINTS: bool = false;

    /// No constraints: a witness keeps none (and a gadget's witness path
    /// does not even call `enforce`).
    fn sizes(&self) -> Sizes {
        Sizes { constraints: 0, inputs: self.inputs.len(), aux: self.aux.len() }
    }

    fn same_prefix(&self, piece: &Self, p: Sizes) -> bool {
        piece.inputs[..p.inputs] == self.inputs[..p.inputs] && piece.aux[..p.aux] == self.aux[..p.aux]
    }

    fn reserve(&mut self, more: Sizes, growth: Growth) -> anyhow::Result<()> {
        growth.room(&mut self.aux, more.aux, "a witness's aux values")
    }

    fn append(&mut self, piece: Self, p: Sizes) {
        extend_in_parallel(&mut self.aux, &piece.aux[p.aux..]);
        self.inputs.extend_from_slice(&piece.inputs[p.inputs..]);
    }
}

/// Room for one more value in `v`, doubling as `push` would but fallibly:
/// a witness of gigabytes that cannot grow fails its partition, not the
/// process (bellperson's errors have no out-of-memory kind but I/O's).
fn room_for_one(v: &mut Vec<Fr>) -> Result<(), SynthesisError> {
    if v.len() < v.capacity() {
        return Ok(());
    }
    try_room(v, v.len().max(1024), "a witness's values")
        .map_err(|e| SynthesisError::IoError(std::io::Error::new(std::io::ErrorKind::OutOfMemory, format!("{e:#}"))))
}

/// The tail of `v` after growing it by `n` zeros.
fn grow(v: &mut Vec<Fr>, n: usize) -> &mut [Fr] {
    let at = v.len();
    v.resize(at + n, Fr::from(0u64));
    &mut v[at..]
}

impl ConstraintSystem<Fr> for Witness {
    own_root_extensible!();

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let value = f()?;
        room_for_one(&mut self.aux)?;
        self.aux.push(value);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        let value = f()?;
        room_for_one(&mut self.inputs)?;
        self.inputs.push(value);
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, _: LA, _: LB, _: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
    }

    fn is_witness_generator(&self) -> bool {
        true
    }

    fn extend_inputs(&mut self, new_inputs: &[Fr]) {
        self.inputs.extend_from_slice(new_inputs);
    }

    fn extend_aux(&mut self, new_aux: &[Fr]) {
        self.aux.extend_from_slice(new_aux);
    }

    fn allocate_empty(&mut self, aux_n: usize, inputs_n: usize) -> (&mut [Fr], &mut [Fr]) {
        (grow(&mut self.aux, aux_n), grow(&mut self.inputs, inputs_n))
    }

    fn allocate_empty_inputs(&mut self, n: usize) -> &mut [Fr] {
        grow(&mut self.inputs, n)
    }

    fn allocate_empty_aux(&mut self, n: usize) -> &mut [Fr] {
        grow(&mut self.aux, n)
    }

    fn inputs_slice(&self) -> &[Fr] {
        &self.inputs
    }

    fn aux_slice(&self) -> &[Fr] {
        &self.aux
    }
}
