//! What synthesizing a circuit in pieces asks of the system the pieces are
//! synthesized into: its sizes, a check that two pieces share a prefix, and
//! appending a piece after it. cuzk's three systems have it: the full one
//! (`Synthesized`: a, b, c evaluated), the witness generator (`Witness`:
//! the assignment only) and the recorder (`Recorder`: the matrices and the
//! assignment).

use bellperson::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use ff::Field;

use super::Density;
use crate::room::Growth;

/// How much of a system there is: constraints (`enforce` calls seen),
/// inputs (the constant one included) and aux variables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    pub constraints: usize,
    pub inputs: usize,
    pub aux: usize,
}

impl Sizes {
    /// The part every system shares with a fresh one: the constant one.
    pub const ONE_INPUT: Sizes = Sizes { constraints: 0, inputs: 1, aux: 0 };
}

pub trait Joinable: ConstraintSystem<Fr, Root = Self> + Send + Sized {
    /// Whether `enforce` looks at its linear combinations. A witness
    /// generator's does not, and pieces then never build them.
    const BUILDS_CONSTRAINTS: bool = true;

    fn sizes(&self) -> Sizes;

    /// Whether `piece` agrees with `self` on everything up to `prefix`.
    fn same_prefix(&self, piece: &Self, prefix: Sizes) -> bool;

    /// Room for `more` beyond the current sizes, taken as `growth` says, so
    /// that appending does not reallocate (and briefly double) vectors of
    /// gigabytes. Where the memory cannot be had, an error (the partition
    /// fails, not the process).
    fn reserve(&mut self, more: Sizes, growth: Growth) -> anyhow::Result<()>;

    /// Appends what `piece` has beyond `prefix` (which `self` has too): its
    /// constraints, and its variables numbered after `self`'s; its marks on
    /// prefix variables are merged into `self`'s.
    fn append(&mut self, piece: Self, prefix: Sizes);

    /// A system with the constant-one input, ready for a circuit.
    fn open() -> Result<Self, SynthesisError> {
        let mut cs = Self::new();
        cs.alloc_input(|| "one", || Ok(Fr::ONE))?;
        Ok(cs)
    }

    /// The `input * 0 = 0` constraints that end every system: like every
    /// Groth16 prover compatible with bellperson's parameters, one per
    /// input, which puts every input in the A query.
    fn close(&mut self) {
        for i in 0..self.sizes().inputs {
            self.enforce(|| "", |lc| lc + Variable::new_unchecked(Index::Input(i)), |lc| lc, |lc| lc);
        }
    }
}

/// Runs `circuit`, whole and on this thread, through system `J`.
pub fn synthesize_whole<J: Joinable, C: Circuit<Fr>>(circuit: C) -> Result<J, SynthesisError> {
    let mut cs = J::open()?;
    circuit.synthesize(&mut cs)?;
    cs.close();
    Ok(cs)
}

/// `ConstraintSystem::extend` for a joinable system: `other` was made by
/// `new()` and opened with its own constant one, which stands for ours.
/// `extend` cannot return an error, so room that cannot be had is a panic
/// naming it: the engine fails that synthesis's job with the message, where
/// growing without the room would abort the process.
pub fn extend<S: Joinable + Clone>(cs: &mut S, other: &S) {
    let theirs = other.sizes();
    let more = Sizes { constraints: theirs.constraints, inputs: theirs.inputs.saturating_sub(1), aux: theirs.aux };
    if let Err(e) = cs.reserve(more, Growth::Doubling) {
        panic!("{e:#}");
    }
    cs.append(other.clone(), Sizes::ONE_INPUT);
}

/// The part of `ConstraintSystem` every cuzk system shares: it is its own
/// root, keeps no names, and is extensible (circuits that can, the PoSt
/// circuits over their sectors, synthesize parts in parallel into fresh
/// systems and `extend` this one), joined as pieces are.
macro_rules! own_root_extensible {
    () => {
        type Root = Self;

        fn push_namespace<NR: Into<String>, N: FnOnce() -> NR>(&mut self, _: N) {}

        fn pop_namespace(&mut self) {}

        fn get_root(&mut self) -> &mut Self::Root {
            self
        }

        fn new() -> Self {
            Self::default()
        }

        fn is_extensible() -> bool {
            true
        }

        fn extend(&mut self, other: &Self) {
            $crate::circuit::joinable::extend(self, other)
        }
    };
}
pub(super) use own_root_extensible;

/// Appends `piece`'s A-aux, B-input and B-aux densities to `ours` as
/// `Joinable::append` appends a piece: marks on prefix variables merged,
/// the rest appended.
pub(super) fn append_densities(ours: [&mut Density; 3], theirs: [&Density; 3], p: Sizes) {
    let [a_aux, b_input, b_aux] = ours;
    for (ours, theirs, prefix) in [(a_aux, theirs[0], p.aux), (b_input, theirs[1], p.inputs), (b_aux, theirs[2], p.aux)] {
        ours.merge_prefix(theirs, prefix);
        ours.append(theirs, prefix);
    }
}
