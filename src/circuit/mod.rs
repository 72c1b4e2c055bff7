//! cuzk's constraint system for synthesis: a circuit written against bellperson's
//! `ConstraintSystem` trait is run once, and what the prover needs is kept — the
//! evaluations of the A, B, C linear combinations per constraint, the densities of
//! the A and B queries, and the input and auxiliary assignments. Nothing else
//! (names, namespaces, the linear combinations themselves) is stored.

mod bench_circuit;
mod density;
mod pieces;
mod witness;

pub use bench_circuit::MulChain;
pub use density::Density;
pub use pieces::{segment_pieces, segment_pieces_on, synthesize_pieces, synthesize_segments};
pub use witness::{synthesize, Synthesized};
