//! The Groth16 proving key (SRS) in memory, and its reader for the standard
//! `.params` file layout written by bellperson:
//!
//! ```text
//! vk:   alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 | u32 n, n x G1 (ic)
//! h:    u32 n, n x G1      l: u32 n, n x G1      a: u32 n, n x G1
//! b_g1: u32 n, n x G1      b_g2: u32 n, n x G2
//! ```
//! Points are uncompressed (G1 96 bytes, G2 192 bytes), lengths big-endian.

use std::{
    fs::File,
    io::{ErrorKind, Read},
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use anyhow::{anyhow, bail, ensure, Context, Result};
use bellperson::groth16::{prepare_verifying_key, Parameters, PreparedVerifyingKey, VerifyingKey};
use blstrs::{Bls12, G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use once_cell::sync::OnceCell;
use rayon::prelude::*;

use crate::circuit::Matrices;

const G1_BYTES: usize = 96;
const G2_BYTES: usize = 192;

/// Everything the prover needs of an SRS, decoded into affine points.
pub struct ProvingKey {
    pub vk: VerifyingKey<Bls12>,
    /// `tau^i * Z(tau) / delta` for i in 0..n-1.
    pub h: Vec<G1Affine>,
    /// One per aux variable.
    pub l: Vec<G1Affine>,
    /// All inputs, then the aux variables of the A density.
    pub a: Vec<G1Affine>,
    /// The inputs, then the aux variables, of the B density.
    pub b_g1: Vec<G1Affine>,
    pub b_g2: Vec<G2Affine>,
    /// `vk` prepared for verification, once per key (every proof is verified).
    pub(super) prepared_vk: OnceLock<PreparedVerifyingKey<Bls12>>,
    /// The R1CS of the circuit this key proves, recorded from the first
    /// partition synthesized for it in witness mode (or read from its file).
    pub matrices: OnceCell<Matrices>,
    /// The `.params` file the key was read from.
    pub source: Option<PathBuf>,
}

impl ProvingKey {
    /// Reads a `.params` file; points are checked to be on the curve and not at
    /// infinity (the subgroup check is skipped, as stock does for its cache).
    /// The file is read, not mapped, in chunks decoded as they come: a file
    /// cut short, or shrinking while it is read, is an error rather than a
    /// fault on a page that no longer exists.
    pub fn read_file(path: &Path) -> Result<Self> {
        let file = File::open(path).with_context(|| format!("cannot open Groth16 parameters {}", path.display()))?;
        let len = file.metadata().with_context(|| format!("cannot stat Groth16 parameters {}", path.display()))?.len();
        let key = Self::read_from(file, len).with_context(|| format!("invalid Groth16 parameters {}", path.display()))?;
        Ok(Self { source: Some(path.to_owned()), ..key })
    }

    pub fn read_bytes(bytes: &[u8]) -> Result<Self> {
        Self::read_from(bytes, bytes.len() as u64)
    }

    /// Reads a key from `source`, `len` bytes long.
    fn read_from(source: impl Read, len: u64) -> Result<Self> {
        let mut r = Reader { source, pos: 0, len, buf: Vec::new() };
        let vk_len = 3 * G1_BYTES + 3 * G2_BYTES;
        let mut vk_bytes = r.take(vk_len as u64)?.to_vec();
        let ic_len = r.u32()?;
        vk_bytes.extend_from_slice(&ic_len.to_be_bytes());
        vk_bytes.extend_from_slice(r.take(u64::from(ic_len) * G1_BYTES as u64)?);
        let vk = VerifyingKey::<Bls12>::read(&vk_bytes[..]).context("verifying key")?;
        let h = r.points("h", G1_BYTES, parse_g1)?;
        let l = r.points("l", G1_BYTES, parse_g1)?;
        let a = r.points("a", G1_BYTES, parse_g1)?;
        let b_g1 = r.points("b_g1", G1_BYTES, parse_g1)?;
        let b_g2 = r.points("b_g2", G2_BYTES, parse_g2)?;
        ensure!(r.pos == len, "{} trailing bytes after b_g2", len - r.pos);
        ensure!(
            !bool::from(vk.delta_g1.is_identity() | vk.delta_g2.is_identity()),
            "delta is the point at infinity"
        );
        Ok(Self { vk, h, l, a, b_g1, b_g2, prepared_vk: OnceLock::new(), matrices: OnceCell::new(), source: None })
    }

    /// The verifying key prepared for pairing checks, computed on first use.
    pub fn prepared_vk(&self) -> &PreparedVerifyingKey<Bls12> {
        self.prepared_vk.get_or_init(|| prepare_verifying_key(&self.vk))
    }

    /// A copy in bellperson's type, to run its prover on the same key.
    pub fn to_bellperson(&self) -> Parameters<Bls12> {
        Parameters {
            vk: self.vk.clone(),
            h: Arc::new(self.h.clone()),
            l: Arc::new(self.l.clone()),
            a: Arc::new(self.a.clone()),
            b_g1: Arc::new(self.b_g1.clone()),
            b_g2: Arc::new(self.b_g2.clone()),
        }
    }

    /// Bytes of host memory held by the decoded points and the recorded matrices.
    pub fn size_bytes(&self) -> usize {
        let g1 = std::mem::size_of::<G1Affine>();
        (self.h.len() + self.l.len() + self.a.len() + self.b_g1.len() + self.vk.ic.len()) * g1
            + self.b_g2.len() * std::mem::size_of::<G2Affine>()
            + self.matrices.get().map_or(0, Matrices::size_bytes)
    }
}

/// Points decoded per read: bounds the read buffer while keeping every core
/// busy decoding.
const CHUNK_POINTS: usize = 1 << 20;

/// A sequential reader of a key's bytes that knows how many there should be.
struct Reader<R> {
    source: R,
    pos: u64,
    len: u64,
    buf: Vec<u8>,
}

impl<R: Read> Reader<R> {
    /// The next `n` bytes. Lengths are checked against the file's size
    /// before anything is allocated, so a damaged length is an error.
    fn take(&mut self, n: u64) -> Result<&[u8]> {
        let end = self.pos.checked_add(n).context("length overflows")?;
        if end > self.len {
            bail!("truncated: need {n} bytes at offset {}, file has {}", self.pos, self.len);
        }
        self.buf.resize(n as usize, 0);
        self.source.read_exact(&mut self.buf).map_err(|e| match e.kind() {
            ErrorKind::UnexpectedEof => anyhow!("the file ended before offset {end} (it has shrunk since it was opened)"),
            _ => anyhow!("cannot read {n} bytes at offset {}: {e}", self.pos),
        })?;
        self.pos = end;
        Ok(&self.buf)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    /// A section: its length, then that many points of `size` bytes, decoded
    /// in parallel a chunk at a time.
    fn points<P: PrimeCurveAffine + Send>(&mut self, name: &str, size: usize, parse: fn(&[u8]) -> Option<P>) -> Result<Vec<P>> {
        let n = self.u32()? as usize;
        let bytes = (n as u64).checked_mul(size as u64).context("section length overflows")?;
        let end = self.pos.checked_add(bytes).context("section length overflows")?;
        if end > self.len {
            bail!("section {name}: truncated: need {bytes} bytes at offset {}, file has {}", self.pos, self.len);
        }
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let first = out.len();
            let count = CHUNK_POINTS.min(n - first);
            let raw = self.take((count * size) as u64).with_context(|| format!("section {name}"))?;
            out.extend(decode(raw, size, first, parse).with_context(|| format!("section {name}"))?);
        }
        Ok(out)
    }
}

fn parse_g1(b: &[u8]) -> Option<G1Affine> {
    Option::from(G1Affine::from_uncompressed_unchecked(b.try_into().ok()?))
}

fn parse_g2(b: &[u8]) -> Option<G2Affine> {
    Option::from(G2Affine::from_uncompressed_unchecked(b.try_into().ok()?))
}

/// Decodes uncompressed points in parallel, rejecting off-curve points and
/// infinity; the first is the section's point `first`.
fn decode<P: PrimeCurveAffine + Send>(raw: &[u8], size: usize, first: usize, parse: fn(&[u8]) -> Option<P>) -> Result<Vec<P>> {
    raw.par_chunks(size)
        .enumerate()
        .map(|(i, b)| (first + i, b))
        .map(|(i, b)| match parse(b) {
            Some(p) if !bool::from(p.is_identity()) => Ok(p),
            Some(_) => bail!("point {i} is at infinity"),
            None => bail!("point {i} is not on the curve"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        circuit::{synthesize, MulChain},
        groth16::synthetic_srs,
    };

    #[test]
    fn a_file_that_shrinks_while_it_is_read_is_an_error() {
        let cs = synthesize(MulChain { start: 3u64.into(), links: 100 }).unwrap();
        let mut bytes = Vec::new();
        synthetic_srs::key_for(&cs, 1).to_bellperson().write(&mut bytes).unwrap();
        let key = ProvingKey::read_bytes(&bytes).unwrap();
        assert_eq!(key.l.len(), cs.aux.len());
        // The size read when the file was opened, fewer bytes when it is read.
        let Err(error) = ProvingKey::read_from(&bytes[..bytes.len() - 100], bytes.len() as u64) else {
            panic!("a key read from fewer bytes than its file has");
        };
        assert!(format!("{error:#}").contains("shrunk"), "{error:#}");
    }
}
