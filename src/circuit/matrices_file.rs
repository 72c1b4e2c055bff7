//! Recorded matrices on disk, so that a process proves without recording
//! (Curio runs each proof in a process of its own). Little-endian:
//!
//! ```text
//! "CUZKR1CS" | u32 version | u32 n, n bytes: the name of the proving key's
//! file | u64 inputs, aux, rows, terms of A, B, C, coefficients
//! A, B, C: (rows + 1) x u32 row starts, terms x (u32 column, u32 code)
//! coefficients x 32 bytes (canonical) | densities A aux, B inputs, B aux
//! as u64 words | 32-byte digest
//! ```
//!
//! The digest is SHA-256 over the header and the SHA-256 digests of each
//! section's 64 MiB chunks (hashed in parallel). A file is read only when
//! its length is the one its header implies, its digest matches, it names
//! the expected key and its indices pass `Matrices::check`: a truncated,
//! damaged or foreign file is an error, never matrices.

use std::{
    fs::File,
    io::{BufWriter, Read, Write},
    path::Path,
};

use anyhow::{bail, ensure, Context, Result};
use blstrs::Scalar as Fr;
use ff::PrimeField;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::{Csr, Density, Matrices, Term};

const MAGIC: &[u8; 8] = b"CUZKR1CS";
const VERSION: u32 = 1;
const CHUNK: usize = 64 << 20;

/// The bytes of a slice of plain words.
fn bytes_of<T: Plain>(v: &[T]) -> &[u8] {
    // SAFETY: `T` is a plain integer or a struct of them (`Plain`): every
    // byte is initialised and any alignment suits u8.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}

fn bytes_of_mut<T: Plain>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as in bytes_of; every bit pattern is a valid `T`.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), std::mem::size_of_val(v)) }
}

/// Types whose bytes are their little-endian words, every pattern valid.
trait Plain: Copy {}
impl Plain for u32 {}
impl Plain for u64 {}
impl Plain for Term {}
impl Plain for [u8; 32] {}

#[cfg(not(target_endian = "little"))]
compile_error!("the matrices file is written from memory as little-endian words");

fn section_digest(bytes: &[u8]) -> [u8; 32] {
    let chunks: Vec<[u8; 32]> = bytes.par_chunks(CHUNK).map(|c| Sha256::digest(c).into()).collect();
    Sha256::digest(chunks.concat()).into()
}

struct Header {
    key_name: String,
    num_inputs: u64,
    num_aux: u64,
    rows: u64,
    terms: [u64; 3],
    coeffs: u64,
}

impl Header {
    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.key_name.len() as u32).to_le_bytes());
        out.extend_from_slice(self.key_name.as_bytes());
        for n in [self.num_inputs, self.num_aux, self.rows, self.terms[0], self.terms[1], self.terms[2], self.coeffs] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out
    }

    /// Bytes of the sections after the header, by the header's counts.
    fn body_len(&self) -> Option<u64> {
        let starts = 3 * self.rows.checked_add(1)?.checked_mul(4)?;
        let terms = self.terms.iter().try_fold(0u64, |acc, &n| acc.checked_add(n.checked_mul(8)?))?;
        let densities = 8 * (2 * self.num_aux.div_ceil(64) + self.num_inputs.div_ceil(64));
        starts.checked_add(terms)?.checked_add(self.coeffs.checked_mul(32)?)?.checked_add(densities)
    }
}

/// The sections in file order, as bytes: the matrices, the coefficients'
/// canonical bytes, the densities' words.
fn sections<'a>(csr: [&'a Csr; 3], coeffs: &'a [[u8; 32]], densities: [&'a [u64]; 3]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    for m in csr {
        out.push(bytes_of(&m.row_starts));
        out.push(bytes_of(&m.terms));
    }
    out.push(bytes_of(coeffs));
    out.extend(densities.map(bytes_of));
    out
}

fn digest(header: &[u8], sections: &[&[u8]]) -> [u8; 32] {
    let digests: Vec<[u8; 32]> = sections.par_iter().map(|s| section_digest(s)).collect();
    let mut h = Sha256::new();
    h.update(header);
    for d in digests {
        h.update(d);
    }
    h.finalize().into()
}

/// Writes `m`, the matrices of the circuit whose proving key's file is named
/// `key_name`, to `path` (through a temporary file renamed into place, so
/// that a reader never sees a partial file).
pub fn write(m: &Matrices, key_name: &str, path: &Path) -> Result<()> {
    let coeffs: Vec<[u8; 32]> = m.coeffs.iter().map(|c| c.to_repr()).collect();
    let header = Header {
        key_name: key_name.to_owned(),
        num_inputs: m.num_inputs as u64,
        num_aux: m.num_aux as u64,
        rows: m.num_constraints() as u64,
        terms: [m.a.terms.len() as u64, m.b.terms.len() as u64, m.c.terms.len() as u64],
        coeffs: m.coeffs.len() as u64,
    }
    .bytes();
    let densities = [m.a_aux_density.words(), m.b_input_density.words(), m.b_aux_density.words()];
    let sections = sections([&m.a, &m.b, &m.c], &coeffs, densities);
    let digest = digest(&header, &sections);
    let partial = path.with_extension(format!("partial-{}", std::process::id()));
    let written = (|| -> Result<()> {
        let mut out = BufWriter::with_capacity(CHUNK, File::create(&partial)?);
        out.write_all(&header)?;
        for s in &sections {
            out.write_all(s)?;
        }
        out.write_all(&digest)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&partial, path)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.with_context(|| format!("writing matrices to {}", path.display()))
}

/// Reads the matrices at `path`, which must name the proving key file
/// `key_name` and have `num_inputs` inputs and `num_aux` aux variables (the
/// key's: this bounds every allocation before the file is trusted).
pub fn read(path: &Path, key_name: &str, num_inputs: usize, num_aux: usize) -> Result<Matrices> {
    read_checked(path, key_name, num_inputs, num_aux).with_context(|| format!("matrices file {}", path.display()))
}

fn read_checked(path: &Path, key_name: &str, num_inputs: usize, num_aux: usize) -> Result<Matrices> {
    let mut file = File::open(path)?;
    let file_len = file.metadata()?.len();
    let mut fixed = [0u8; 16];
    file.read_exact(&mut fixed).context("truncated header")?;
    ensure!(&fixed[..8] == MAGIC, "not a cuzk matrices file");
    let version = u32::from_le_bytes(fixed[8..12].try_into().expect("4 bytes"));
    ensure!(version == VERSION, "version {version}, this cuzk reads version {VERSION}");
    let name_len = u32::from_le_bytes(fixed[12..16].try_into().expect("4 bytes")) as usize;
    ensure!(name_len <= 4096, "a key name of {name_len} bytes");
    let mut name = vec![0u8; name_len];
    file.read_exact(&mut name).context("truncated header")?;
    ensure!(name == key_name.as_bytes(), "recorded for {:?}, not for {key_name:?}", String::from_utf8_lossy(&name));
    let mut counts = [0u8; 56];
    file.read_exact(&mut counts).context("truncated header")?;
    let n: Vec<u64> = counts.chunks(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
    let header = Header { key_name: key_name.to_owned(), num_inputs: n[0], num_aux: n[1], rows: n[2], terms: [n[3], n[4], n[5]], coeffs: n[6] };
    ensure!(
        header.num_inputs == num_inputs as u64 && header.num_aux == num_aux as u64,
        "{} inputs and {} aux variables, the key's circuit has {num_inputs} and {num_aux}",
        header.num_inputs,
        header.num_aux
    );
    let header_bytes = header.bytes();
    let expected = header.body_len().and_then(|b| b.checked_add(header_bytes.len() as u64 + 32));
    ensure!(
        expected == Some(file_len),
        "{file_len} bytes where its header implies {} (truncated or damaged)",
        expected.map_or("an impossible size".into(), |e| e.to_string())
    );
    ensure!(header.terms.iter().all(|&t| t <= u32::MAX as u64) && header.rows < u32::MAX as u64, "counts beyond 32-bit indices");

    let rows = header.rows as usize;
    let mut csr: Vec<Csr> = Vec::new();
    for &terms in &header.terms {
        let mut m = Csr { row_starts: vec![0; rows + 1], terms: vec![Term::default(); terms as usize] };
        file.read_exact(bytes_of_mut(&mut m.row_starts))?;
        file.read_exact(bytes_of_mut(&mut m.terms))?;
        csr.push(m);
    }
    let mut coeffs = vec![[0u8; 32]; header.coeffs as usize];
    file.read_exact(bytes_of_mut(&mut coeffs))?;
    let mut words = [num_aux, num_inputs, num_aux].map(|len| vec![0u64; len.div_ceil(64)]);
    for w in &mut words {
        file.read_exact(bytes_of_mut(w))?;
    }
    let mut stored = [0u8; 32];
    file.read_exact(&mut stored)?;

    let read = sections([&csr[0], &csr[1], &csr[2]], &coeffs, [&words[0], &words[1], &words[2]]);
    ensure!(digest(&header_bytes, &read) == stored, "its digest does not match its contents (damaged)");

    let coeffs = coeffs
        .iter()
        .map(|bytes| Option::<Fr>::from(Fr::from_repr(*bytes)))
        .collect::<Option<Vec<Fr>>>()
        .context("a coefficient is not a field element")?;
    let [a_aux, b_input, b_aux] = words;
    let density = |w, len, what| Density::from_words(w, len).with_context(|| format!("{what} density has stray bits"));
    let [a, b, c]: [Csr; 3] = match csr.try_into() {
        Ok(abc) => abc,
        Err(_) => bail!("three matrices expected"),
    };
    let m = Matrices {
        a,
        b,
        c,
        coeffs,
        num_inputs,
        num_aux,
        a_aux_density: density(a_aux, num_aux, "A aux")?,
        b_input_density: density(b_input, num_inputs, "B input")?,
        b_aux_density: density(b_aux, num_aux, "B aux")?,
    };
    m.check()?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::{record, MulChain};

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("cuzk-matrices-{}-{name}", std::process::id()))
    }

    fn error(path: &Path, key: &str, inputs: usize, aux: usize) -> String {
        format!("{:#}", read(path, key, inputs, aux).expect_err("refused"))
    }

    #[test]
    fn matrices_round_trip_and_damaged_or_foreign_files_are_refused() {
        let (m, _) = record(MulChain { start: Fr::from(3u64), links: 5000 }).unwrap();
        let (ni, na) = (m.num_inputs, m.num_aux);
        let path = temp("good");
        write(&m, "v28-key.params", &path).unwrap();
        assert!(read(&path, "v28-key.params", ni, na).unwrap() == m);
        let bytes = std::fs::read(&path).unwrap();

        let e = error(&path, "v28-other.params", ni, na);
        assert!(e.contains("recorded for \"v28-key.params\", not for \"v28-other.params\""), "{e}");
        let e = error(&path, "v28-key.params", ni, na + 1);
        assert!(e.contains("the key's circuit has"), "{e}");

        let damaged = temp("damaged");
        let cases: [(&str, Vec<u8>, &str); 5] = [
            ("truncated", bytes[..bytes.len() - 1].to_vec(), "truncated or damaged"),
            ("empty", Vec::new(), "truncated header"),
            ("a flipped bit", { let mut b = bytes.clone(); let at = b.len() / 2; b[at] ^= 4; b }, "digest does not match"),
            ("not ours", { let mut b = bytes.clone(); b[0] = b'X'; b }, "not a cuzk matrices file"),
            ("longer", [&bytes[..], &[0u8; 8]].concat(), "truncated or damaged"),
        ];
        for (what, contents, says) in cases {
            std::fs::write(&damaged, contents).unwrap();
            let e = error(&damaged, "v28-key.params", ni, na);
            assert!(e.contains(says) && e.contains(&damaged.display().to_string()), "{what}: {e}");
        }
        let e = error(&temp("missing"), "v28-key.params", ni, na);
        assert!(e.contains("No such file"), "{e}");
        for p in [path, damaged] {
            let _ = std::fs::remove_file(p);
        }
    }
}
