//! A throwaway sealed sector, made with the stock crates (add piece, PC1, PC2,
//! C1): real inputs for the demo, the tests and the benchmarks.

use std::{
    fs::{File, OpenOptions},
    path::Path,
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use filecoin_proofs_api::{
    seal::{self, SealCommitPhase1Output},
    PieceInfo, RegisteredSealProof, SectorId, UnpaddedBytesAmount,
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A sector sealed up to C1, with everything a verifier needs.
pub struct SealedSector {
    pub registered_proof: RegisteredSealProof,
    pub sector_id: u64,
    pub prover_id: [u8; 32],
    pub ticket: [u8; 32],
    pub seed: [u8; 32],
    pub comm_r: [u8; 32],
    pub comm_d: [u8; 32],
    /// `serde_json` of the C1 output, the input of C2.
    pub c1_json: Vec<u8>,
    /// Wall time of each stock stage, in order.
    pub stages: Vec<(&'static str, Duration)>,
}

/// Seals one sector of `registered_proof` filled with seeded random data under
/// `dir` (which must exist and be empty).
pub fn seal_sector(registered_proof: RegisteredSealProof, dir: &Path, seed: u64) -> Result<SealedSector> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut fill = |b: &mut [u8; 32]| rng.fill_bytes(b);
    let (mut prover_id, mut ticket, mut porep_seed) = ([0u8; 32], [0u8; 32], [0u8; 32]);
    fill(&mut prover_id);
    fill(&mut ticket);
    fill(&mut porep_seed);
    // Field elements are < 2^255: clear the top bits as the chain does for tickets.
    for b in [&mut prover_id, &mut ticket, &mut porep_seed] {
        b[31] &= 0x3f;
    }
    let sector_id = 1 + (seed % 1000);
    let size = u64::from(registered_proof.sector_size());
    let piece_len = UnpaddedBytesAmount::from(filecoin_proofs::PaddedBytesAmount(size));
    let mut data = vec![0u8; u64::from(piece_len) as usize];
    let mut drng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    drng.fill_bytes(&mut data);

    let (staged, sealed, cache) = (dir.join("staged"), dir.join("sealed"), dir.join("cache"));
    std::fs::create_dir_all(&cache)?;
    File::create(&sealed)?;
    let mut stages = Vec::new();
    let mut timed = |name: &'static str, start: Instant| stages.push((name, start.elapsed()));

    let t = Instant::now();
    let staged_file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&staged)?;
    let (piece, _) = seal::add_piece(registered_proof, &data[..], &staged_file, piece_len, &[])
        .context("add_piece")?;
    drop(staged_file);
    let pieces: Vec<PieceInfo> = vec![piece];
    timed("add_piece", t);

    let t = Instant::now();
    let pc1 = seal::seal_pre_commit_phase1(
        registered_proof,
        &cache,
        &staged,
        &sealed,
        prover_id,
        SectorId::from(sector_id),
        ticket,
        &pieces,
    )
    .context("seal_pre_commit_phase1")?;
    timed("precommit_phase1", t);

    let t = Instant::now();
    let pc2 = seal::seal_pre_commit_phase2(pc1, &cache, &sealed).context("seal_pre_commit_phase2")?;
    let (comm_r, comm_d) = (pc2.comm_r, pc2.comm_d);
    timed("precommit_phase2", t);

    let t = Instant::now();
    let c1: SealCommitPhase1Output = seal::seal_commit_phase1(
        &cache,
        &sealed,
        prover_id,
        SectorId::from(sector_id),
        ticket,
        porep_seed,
        pc2,
        &pieces,
    )
    .context("seal_commit_phase1")?;
    let c1_json = serde_json::to_vec(&c1)?;
    timed("commit_phase1", t);

    Ok(SealedSector {
        registered_proof,
        sector_id,
        prover_id,
        ticket,
        seed: porep_seed,
        comm_r,
        comm_d,
        c1_json,
        stages,
    })
}

/// `seal_sector` in a fresh folder under the system temp dir, removed afterwards.
pub fn seal_sector_in_temp(registered_proof: RegisteredSealProof, seed: u64) -> Result<SealedSector> {
    let dir = std::env::temp_dir().join(format!("cuzk-sector-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let sector = seal_sector(registered_proof, &dir, seed);
    let _ = std::fs::remove_dir_all(&dir);
    sector
}
