//! The 192-byte Groth16 proof: `a` (G1) ‖ `b` (G2) ‖ `c` (G1), each compressed,
//! exactly as bellperson's `Proof::write` emits it.

use blstrs::{G1Affine, G2Affine};

pub const PROOF_BYTES: usize = 192;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}

impl Proof {
    pub fn to_bytes(&self) -> [u8; PROOF_BYTES] {
        let mut out = [0u8; PROOF_BYTES];
        out[..48].copy_from_slice(&self.a.to_compressed());
        out[48..144].copy_from_slice(&self.b.to_compressed());
        out[144..].copy_from_slice(&self.c.to_compressed());
        out
    }

    /// The same proof as bellperson's type, for its verifier.
    pub fn to_bellperson(&self) -> bellperson::groth16::Proof<blstrs::Bls12> {
        bellperson::groth16::Proof { a: self.a, b: self.b, c: self.c }
    }
}
