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
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use anyhow::{bail, ensure, Context, Result};
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
    pub fn read_file(path: &Path) -> Result<Self> {
        let file = File::open(path)
            .with_context(|| format!("cannot open Groth16 parameters {}", path.display()))?;
        // SAFETY: the map is read-only and dropped before returning; the parameter
        // cache is not modified while in use (stock writes it once, under a lock).
        let map = unsafe { memmap2::Mmap::map(&file) }
            .with_context(|| format!("cannot map Groth16 parameters {}", path.display()))?;
        let key = Self::read_bytes(&map).with_context(|| format!("invalid Groth16 parameters {}", path.display()))?;
        Ok(Self { source: Some(path.to_owned()), ..key })
    }

    pub fn read_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader { bytes, pos: 0 };
        let vk_len = 3 * G1_BYTES + 3 * G2_BYTES;
        let fixed = r.take(vk_len)?;
        let ic_len = r.u32()? as usize;
        let ic_bytes = r.take(ic_len.checked_mul(G1_BYTES).context("ic length overflows")?)?;
        let mut vk_bytes = Vec::with_capacity(vk_len + 4 + ic_bytes.len());
        vk_bytes.extend_from_slice(fixed);
        vk_bytes.extend_from_slice(&(ic_len as u32).to_be_bytes());
        vk_bytes.extend_from_slice(ic_bytes);
        let vk = VerifyingKey::<Bls12>::read(&vk_bytes[..]).context("verifying key")?;
        let h = r.g1_section("h")?;
        let l = r.g1_section("l")?;
        let a = r.g1_section("a")?;
        let b_g1 = r.g1_section("b_g1")?;
        let b_g2 = r.g2_section("b_g2")?;
        ensure!(r.pos == bytes.len(), "{} trailing bytes after b_g2", bytes.len() - r.pos);
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

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).context("length overflows")?;
        if end > self.bytes.len() {
            bail!(
                "truncated: need {} bytes at offset {}, file has {}",
                n,
                self.pos,
                self.bytes.len()
            );
        }
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn section(&mut self, point_bytes: usize) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n.checked_mul(point_bytes).context("section length overflows")?)
    }

    fn g1_section(&mut self, name: &str) -> Result<Vec<G1Affine>> {
        let raw = self.section(G1_BYTES)?;
        decode(raw, G1_BYTES, |b| {
            Option::from(G1Affine::from_uncompressed_unchecked(b.try_into().unwrap()))
        })
        .with_context(|| format!("section {name}"))
    }

    fn g2_section(&mut self, name: &str) -> Result<Vec<G2Affine>> {
        let raw = self.section(G2_BYTES)?;
        decode(raw, G2_BYTES, |b| {
            Option::from(G2Affine::from_uncompressed_unchecked(b.try_into().unwrap()))
        })
        .with_context(|| format!("section {name}"))
    }
}

/// Decodes uncompressed points in parallel, rejecting off-curve points and infinity.
fn decode<P, F>(raw: &[u8], size: usize, parse: F) -> Result<Vec<P>>
where
    P: PrimeCurveAffine + Send,
    F: Fn(&[u8]) -> Option<P> + Sync,
{
    raw.par_chunks(size)
        .enumerate()
        .map(|(i, b)| match parse(b) {
            Some(p) if !bool::from(p.is_identity()) => Ok(p),
            Some(_) => bail!("point {i} is at infinity"),
            None => bail!("point {i} is not on the curve"),
        })
        .collect()
}
