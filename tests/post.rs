//! Winning and Window PoSt from vanilla proofs of a real 2 KiB sector, proved by
//! cuzk and verified by the stock verifiers; bad input gets clear errors.

mod common;

use std::collections::BTreeMap;

use cuzk::api::{params, post, sample};
use filecoin_proofs_api::{
    post as stock, PrivateReplicaInfo, PublicReplicaInfo, RegisteredPoStProof, RegisteredSealProof, SectorId,
};

struct Fixture {
    sector: sample::SealedSector,
    dir: std::path::PathBuf,
    randomness: [u8; 32],
}

fn fixture(seed: u64) -> Fixture {
    common::porep_params();
    params::generate(2048, &[params::Family::WinningPost, params::Family::WindowPost]).unwrap();
    let dir = std::env::temp_dir().join(format!("cuzk-post-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, seed).unwrap();
    let mut randomness = [seed as u8; 32];
    randomness[31] &= 0x3f;
    Fixture { sector, dir, randomness }
}

impl Fixture {
    fn vanilla(&self, rp: RegisteredPoStProof) -> Vec<u8> {
        let sid = SectorId::from(self.sector.sector_id);
        let challenges =
            stock::generate_fallback_sector_challenges(rp, &self.randomness, &[sid], self.sector.prover_id).unwrap();
        let replica = PrivateReplicaInfo::new(rp, self.sector.comm_r, self.dir.join("cache"), self.dir.join("sealed"));
        stock::generate_single_vanilla_proof(rp, sid, &replica, &challenges[&sid]).unwrap()
    }

    fn replicas(&self, rp: RegisteredPoStProof) -> BTreeMap<SectorId, PublicReplicaInfo> {
        BTreeMap::from([(SectorId::from(self.sector.sector_id), PublicReplicaInfo::new(rp, self.sector.comm_r))])
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn winning_post_verifies_with_stock() {
    let f = fixture(31);
    let rp = RegisteredPoStProof::StackedDrgWinning2KiBV1;
    let proof = post::winning_post_with_vanilla(rp, f.randomness, f.sector.prover_id, &[f.vanilla(rp)]).unwrap();
    assert_eq!(proof.len(), 192);
    assert!(stock::verify_winning_post(&f.randomness, &proof, &f.replicas(rp), f.sector.prover_id).unwrap());
    let mut other = f.randomness;
    other[0] ^= 1;
    assert!(!stock::verify_winning_post(&other, &proof, &f.replicas(rp), f.sector.prover_id).unwrap_or(false));
}

#[test]
fn window_post_whole_and_per_partition_verify_with_stock() {
    let f = fixture(32);
    let rp = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    let vanilla = vec![f.vanilla(rp)];
    let whole = post::window_post_with_vanilla(rp, f.randomness, f.sector.prover_id, &vanilla).unwrap();
    assert_eq!(whole.len(), 192);
    assert!(stock::verify_window_post(&f.randomness, &[(rp, &whole)], &f.replicas(rp), f.sector.prover_id).unwrap());
    let part = post::single_window_post_with_vanilla(rp, f.randomness, f.sector.prover_id, &vanilla, 0).unwrap();
    assert!(stock::verify_window_post(&f.randomness, &[(rp, &part)], &f.replicas(rp), f.sector.prover_id).unwrap());
}

#[test]
fn bad_post_inputs_are_errors() {
    let f = fixture(33);
    let (win, window) = (RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2);
    let vanilla = f.vanilla(win);
    let pid = f.sector.prover_id;
    let err = |r: anyhow::Result<Vec<u8>>| format!("{:#}", r.unwrap_err());
    assert!(err(post::winning_post_with_vanilla(window, f.randomness, pid, &[vanilla.clone()])).contains("not a Winning"));
    assert!(err(post::window_post_with_vanilla(win, f.randomness, pid, &[vanilla.clone()])).contains("not a Window"));
    assert!(err(post::winning_post_with_vanilla(win, f.randomness, pid, &[])).contains("empty"));
    assert!(err(post::winning_post_with_vanilla(win, f.randomness, pid, &[vec![1, 2, 3]])).contains("not a"));
    let big = RegisteredPoStProof::StackedDrgWinning32GiBV1;
    let msg = err(post::winning_post_with_vanilla(big, f.randomness, pid, &[vanilla.clone()]));
    assert!(msg.contains("vanilla"), "{msg}");
    assert!(err(post::winning_post_with_vanilla(win, f.randomness, pid, &[vanilla.clone(), vanilla])).contains("takes 1"));
}
