//! A partition as synthesis hands it to the prover.

use blstrs::Scalar as Fr;

use super::{PackedWitness, Synthesized, Witness};

pub enum Assignment {
    /// Every constraint evaluated: a, b and c are in host memory.
    Evaluated(Synthesized),
    /// The witness alone: a, b and c are evaluated where the proof runs (on
    /// a GPU, in device memory) from the circuit's recorded matrices, which
    /// its proving key keeps. With it, where synthesis packed it for a GPU,
    /// the same witness packed (`PackedWitness::pack` of it).
    Witness(Witness, Option<PackedWitness>),
}

impl Assignment {
    /// The public inputs, the constant one first.
    pub fn inputs(&self) -> &[Fr] {
        match self {
            Assignment::Evaluated(cs) => &cs.inputs,
            Assignment::Witness(w, _) => &w.inputs,
        }
    }
}

impl From<Synthesized> for Assignment {
    fn from(cs: Synthesized) -> Self {
        Assignment::Evaluated(cs)
    }
}

impl From<Witness> for Assignment {
    fn from(w: Witness) -> Self {
        Assignment::Witness(w, None)
    }
}
