//! A throwaway sealed sector, made with the stock crates (add piece, PC1, PC2,
//! C1), and its SnapDeals update: real inputs for the demo, the tests and the
//! benchmarks.

use std::{
    fs::{File, OpenOptions},
    path::Path,
    time::{Duration, Instant},
};

use anyhow::{Context, Result};
use filecoin_proofs_api::{
    post,
    seal::{self, SealCommitPhase1Output},
    update, PieceInfo, PrivateReplicaInfo, RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof, SectorId,
    UnpaddedBytesAmount,
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::snap;

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

impl SealedSector {
    /// Stock's PoSt vanilla proof of this sector for `rp` and `randomness`
    /// (challenges as `generate_fallback_sector_challenges`), from the files
    /// `seal_sector` wrote in `dir`.
    pub fn post_vanilla_proof(&self, rp: RegisteredPoStProof, randomness: [u8; 32], dir: &Path) -> Result<Vec<u8>> {
        let sid = SectorId::from(self.sector_id);
        let challenges = post::generate_fallback_sector_challenges(rp, &randomness, &[sid], self.prover_id)?;
        let replica = PrivateReplicaInfo::new(rp, self.comm_r, dir.join("cache"), dir.join("sealed"));
        post::generate_single_vanilla_proof(rp, sid, &replica, &challenges[&sid])
    }
}

/// Seals one sector of `registered_proof` filled with seeded random data under
/// `dir` (which must exist and be empty).
pub fn seal_sector(registered_proof: RegisteredSealProof, dir: &Path, seed: u64) -> Result<SealedSector> {
    seal_sector_for(registered_proof, dir, seed, None)
}

/// `seal_sector` for the given prover (several sectors of one miner, as an
/// aggregate needs); `None` derives it from `seed`.
pub fn seal_sector_for(
    registered_proof: RegisteredSealProof,
    dir: &Path,
    seed: u64,
    prover: Option<[u8; 32]>,
) -> Result<SealedSector> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut fill = |b: &mut [u8; 32]| rng.fill_bytes(b);
    let (mut prover_id, mut ticket, mut porep_seed) = ([0u8; 32], [0u8; 32], [0u8; 32]);
    fill(&mut prover_id);
    fill(&mut ticket);
    fill(&mut porep_seed);
    if let Some(p) = prover {
        prover_id = p;
    }
    // Field elements are < 2^255: clear the top bits as the chain does for tickets.
    for b in [&mut prover_id, &mut ticket, &mut porep_seed] {
        b[31] &= 0x3f;
    }
    let sector_id = 1 + (seed % 1000);
    let (staged, sealed, cache) = (dir.join("staged"), dir.join("sealed"), dir.join("cache"));
    std::fs::create_dir_all(&cache)?;
    File::create(&sealed)?;
    let mut stages = Vec::new();
    let mut timed = |name: &'static str, start: Instant| stages.push((name, start.elapsed()));

    let t = Instant::now();
    let pieces = vec![random_piece(registered_proof, &staged, seed ^ 0x5eed)?];
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

/// Writes one piece of seeded random data filling a sector into `staged`.
fn random_piece(registered_proof: RegisteredSealProof, staged: &Path, seed: u64) -> Result<PieceInfo> {
    let size = u64::from(registered_proof.sector_size());
    let piece_len = UnpaddedBytesAmount::from(filecoin_proofs::PaddedBytesAmount(size));
    let mut data = vec![0u8; u64::from(piece_len) as usize];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut data);
    let staged_file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(staged)?;
    let (piece, _) = seal::add_piece(registered_proof, &data[..], &staged_file, piece_len, &[]).context("add_piece")?;
    Ok(piece)
}

/// A sealed sector's SnapDeals update: new data encoded into a new replica.
pub struct UpdatedSector {
    pub registered_proof: RegisteredUpdateProof,
    pub comm_r_old: [u8; 32],
    pub comm_r_new: [u8; 32],
    pub comm_d_new: [u8; 32],
}

impl UpdatedSector {
    /// Its commitments, as the SnapDeals prover takes them.
    pub fn commitments(&self) -> snap::UpdateCommitments {
        snap::UpdateCommitments { comm_r_old: self.comm_r_old, comm_r_new: self.comm_r_new, comm_d_new: self.comm_d_new }
    }

    /// Stock's vanilla proof of every partition, from the files that
    /// `seal_sector` and `update_sector` wrote in `dir`.
    pub fn vanilla_proofs(&self, dir: &Path) -> Result<Vec<Vec<u8>>> {
        let files = snap::UpdateFiles {
            sector_key: dir.join("sealed"),
            sector_key_cache: dir.join("cache"),
            replica: dir.join("update"),
            replica_cache: dir.join("update-cache"),
        };
        snap::partition_vanilla_proofs(self.registered_proof, self.commitments(), &files)
    }
}

/// Encodes fresh seeded random data into the sector `seal_sector` left in `dir`
/// (its `sealed` file is the sector key), writing `dir/update` and `dir/update-cache`.
pub fn update_sector(sector: &SealedSector, dir: &Path, seed: u64) -> Result<UpdatedSector> {
    let registered_proof = snap::update_proof_for(u64::from(sector.registered_proof.sector_size()))?;
    let (staged, replica, cache) = (dir.join("staged-update"), dir.join("update"), dir.join("update-cache"));
    std::fs::create_dir_all(&cache)?;
    File::create(&replica)?.set_len(u64::from(sector.registered_proof.sector_size()))?;
    let piece = random_piece(sector.registered_proof, &staged, seed)?;
    let encoded = update::empty_sector_update_encode_into(
        registered_proof,
        &replica,
        &cache,
        dir.join("sealed"),
        dir.join("cache"),
        &staged,
        &[piece],
    )
    .context("empty_sector_update_encode_into")?;
    Ok(UpdatedSector {
        registered_proof,
        comm_r_old: sector.comm_r,
        comm_r_new: encoded.comm_r_new,
        comm_d_new: encoded.comm_d_new,
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
