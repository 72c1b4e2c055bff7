//! Sealing, pieces and unsealing, delegated to filecoin-proofs-api as stock's
//! FFI does: only the conversions stock makes between its arguments and the api.

use std::{
    fs::File,
    io::{BufReader, Read},
    path::Path,
};

use anyhow::{anyhow, ensure, Context, Result};
use filecoin_proofs_api::{
    seal::{self, SealPreCommitPhase1Output, SealPreCommitPhase2Output},
    Commitment, PieceInfo, RegisteredSealProof, SectorId, UnpaddedByteIndex, UnpaddedBytesAmount,
};
use filecoin_hashers::Domain;

/// What `write_with_alignment` reports.
pub struct Aligned {
    pub comm_p: Commitment,
    pub left_alignment_unpadded: u64,
    pub total_write_unpadded: u64,
}

/// Appends `src_size` bytes of `src` to `dst` (a staged sector holding pieces of
/// `existing` unpadded sizes), with the zero alignment it needs before it.
pub fn write_with_alignment(
    rp: RegisteredSealProof,
    src: &File,
    src_size: u64,
    dst: &File,
    existing: &[u64],
) -> Result<Aligned> {
    let existing: Vec<UnpaddedBytesAmount> = existing.iter().copied().map(UnpaddedBytesAmount).collect();
    let source = BufReader::new(src.take(src_size));
    let (info, written) = seal::add_piece(rp, source, dst, UnpaddedBytesAmount(src_size), &existing)?;
    let total = u64::from(written);
    Ok(Aligned {
        comm_p: info.commitment,
        // As stock: everything written besides the piece itself.
        left_alignment_unpadded: total.saturating_sub(src_size),
        total_write_unpadded: total,
    })
}

/// Writes `src_size` bytes of `src` to `dst` with no alignment; (comm_p, bytes written).
pub fn write_without_alignment(rp: RegisteredSealProof, src: &File, src_size: u64, dst: &File) -> Result<(Commitment, u64)> {
    let source = BufReader::new(src.take(src_size));
    let (info, written) = seal::write_and_preprocess(rp, source, dst, UnpaddedBytesAmount(src_size))?;
    Ok((info.commitment, u64::from(written)))
}

/// PC1; its output as stock hands it to C: `serde_json` of `SealPreCommitPhase1Output`.
#[allow(clippy::too_many_arguments)]
pub fn pre_commit_phase1(
    rp: RegisteredSealProof,
    cache: &Path,
    staged: &Path,
    sealed: &Path,
    sector_id: u64,
    prover_id: [u8; 32],
    ticket: [u8; 32],
    pieces: &[PieceInfo],
) -> Result<Vec<u8>> {
    let out = seal::seal_pre_commit_phase1(rp, cache, staged, sealed, prover_id, SectorId::from(sector_id), ticket, pieces)?;
    Ok(serde_json::to_vec(&out)?)
}

/// PC2 from the JSON that `pre_commit_phase1` returned.
pub fn pre_commit_phase2(pc1: &[u8], cache: &Path, sealed: &Path) -> Result<SealPreCommitPhase2Output> {
    ensure!(!pc1.is_empty(), "seal_pre_commit_phase1_output is empty");
    let pc1: SealPreCommitPhase1Output = serde_json::from_slice(pc1).map_err(|e| {
        anyhow!("seal_pre_commit_phase1_output is not a valid PC1 output (JSON of SealPreCommitPhase1Output): {e}")
    })?;
    seal::seal_pre_commit_phase2(pc1, cache, sealed)
}

/// The public values of a sealed sector that C1 and the synthetic proofs take.
pub struct Sealed<'a> {
    pub rp: RegisteredSealProof,
    pub comm_r: [u8; 32],
    pub comm_d: [u8; 32],
    pub cache: &'a Path,
    pub replica: &'a Path,
    pub sector_id: u64,
    pub prover_id: [u8; 32],
    pub ticket: [u8; 32],
}

impl Sealed<'_> {
    fn pre_commit(&self) -> SealPreCommitPhase2Output {
        SealPreCommitPhase2Output { registered_proof: self.rp, comm_r: self.comm_r, comm_d: self.comm_d }
    }
}

/// C1; `serde_json` of `SealCommitPhase1Output`, the input of `seal_commit_phase2`.
pub fn commit_phase1(s: &Sealed, seed: [u8; 32], pieces: &[PieceInfo]) -> Result<Vec<u8>> {
    let out = seal::seal_commit_phase1(
        s.cache,
        s.replica,
        s.prover_id,
        SectorId::from(s.sector_id),
        s.ticket,
        seed,
        s.pre_commit(),
        pieces,
    )?;
    Ok(serde_json::to_vec(&out)?)
}

/// Synthetic PoRep: the vanilla proofs of every possible challenge, kept in the cache.
pub fn generate_synth_proofs(s: &Sealed, pieces: &[PieceInfo]) -> Result<()> {
    seal::generate_synth_proofs(s.cache, s.replica, s.prover_id, SectorId::from(s.sector_id), s.ticket, s.pre_commit(), pieces)
}

/// Unseals `amount` unpadded bytes from `offset` of the sealed sector into `out`.
#[allow(clippy::too_many_arguments)]
pub fn unseal_range(
    rp: RegisteredSealProof,
    cache: &Path,
    sealed: &File,
    out: &File,
    sector_id: u64,
    prover_id: [u8; 32],
    ticket: [u8; 32],
    comm_d: [u8; 32],
    offset: u64,
    amount: u64,
) -> Result<()> {
    // Stock panics (slicing out of bounds) on a short sector or a range past its end.
    let user = max_user_bytes(rp);
    ensure!(
        offset.checked_add(amount).is_some_and(|end| end <= user),
        "unseal range {offset}+{amount} ends past the sector's {user} unpadded bytes"
    );
    let meta = sealed.metadata().context("sealed sector descriptor")?;
    let size = u64::from(rp.sector_size());
    ensure!(!meta.is_file() || meta.len() >= size, "the sealed sector is {} bytes, not {size}", meta.len());
    seal::unseal_range(
        rp,
        cache,
        sealed,
        out,
        prover_id,
        SectorId::from(sector_id),
        comm_d,
        ticket,
        UnpaddedByteIndex(offset),
        UnpaddedBytesAmount(amount),
    )
    .map(|_| ())
}

/// SDR labels of `replica_id` into `output_dir`.
pub fn generate_sdr(rp: RegisteredSealProof, output_dir: &Path, replica_id: [u8; 32]) -> Result<()> {
    let replica_id = filecoin_proofs::DefaultTreeDomain::try_from_bytes(&replica_id).context("replica_id")?;
    seal::sdr(rp, output_dir, replica_id)
}

/// The bytes a sector of `rp` holds for its user (stock's
/// `get_max_user_bytes_per_staged_sector`).
pub fn max_user_bytes(rp: RegisteredSealProof) -> u64 {
    u64::from(UnpaddedBytesAmount::from(rp.sector_size()))
}
