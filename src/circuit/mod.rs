//! cuzk's constraint systems. A circuit written against bellperson's
//! `ConstraintSystem` trait runs through one of them, keeping what the prover
//! needs and nothing else (names, namespaces): `Synthesized` evaluates every
//! constraint's A, B and C combinations and the densities of the A and B
//! queries as it goes; `Recorder` records the combinations themselves, once
//! per circuit, as sparse matrices (`Matrices`); `Witness` keeps only the
//! assignment, which the recorded matrices turn into what `Synthesized`
//! gives. All three synthesize a circuit in pieces on many threads
//! (`pieces`). What the prover takes is an `Assignment`: a synthesized
//! circuit, or a witness whose a, b and c the prover evaluates.

mod assignment;
#[cfg(feature = "fixtures")]
mod bench_circuit;
mod density;
mod joinable;
mod matrices;
pub mod matrices_file;
mod packed_witness;
mod par_copy;
mod partition;
mod pieces;
mod recorder;
pub mod sha256;
mod synthesized;
mod term;
mod witness;

pub use assignment::Assignment;
#[cfg(feature = "fixtures")]
pub use bench_circuit::MulChain;
pub use density::Density;
pub use joinable::{synthesize_whole, Joinable, Sizes};
pub use matrices::{Csr, Matrices, Term, CODE_MINUS_ONE, CODE_ONE};
pub use packed_witness::PackedWitness;
pub use partition::{PartitionCircuit, Pieces, Whole};
pub use pieces::{segment_pieces, segment_pieces_on, synthesize_pieces, synthesize_segment_range, synthesize_segments};
pub use recorder::{record, Recorder};
pub use synthesized::{synthesize, Synthesized};
pub use witness::{synthesize_witness, Witness};
