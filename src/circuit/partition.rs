//! A partition's circuit as the engine takes it: something that synthesizes
//! into any of cuzk's systems, whole or in pieces on many threads, so that
//! the engine picks the system (full, witness only, recording) when the
//! partition's turn comes.

use anyhow::{anyhow, Result};
use bellperson::Circuit;
use blstrs::Scalar as Fr;

use super::{synthesize_pieces, synthesize_whole, Joinable};

pub trait PartitionCircuit: Send + 'static {
    fn synthesize_into<J: Joinable>(self) -> Result<J>;
}

/// A circuit synthesized whole, on one thread (its own parallel parts aside).
pub struct Whole<C>(pub C);

impl<C: Circuit<Fr> + Send + 'static> PartitionCircuit for Whole<C> {
    fn synthesize_into<J: Joinable>(self) -> Result<J> {
        synthesize_whole(self.0).map_err(|e| anyhow!("{e}"))
    }
}

/// A circuit given as pieces (`synthesize_pieces`): the pieces, and the
/// name that opens each piece's top-level namespace.
pub struct Pieces<C> {
    pub pieces: Vec<C>,
    pub namespace: &'static str,
}

impl<C: Circuit<Fr> + Send + 'static> PartitionCircuit for Pieces<C> {
    fn synthesize_into<J: Joinable>(self) -> Result<J> {
        synthesize_pieces(self.pieces, self.namespace)
    }
}
