//! What each fuzz target runs on one input: the work cuzk does on untrusted
//! bytes before a proving key is needed. Each returns cuzk's verdict; the
//! fuzzer only asks that none panics, hangs or aborts, and the regression
//! tests that every recorded finding is an error.

use std::sync::{Once, OnceLock};

use anyhow::{ensure, Result};
use bellperson::groth16::{prepare_verifying_key, VerifyingKey};
use blstrs::Bls12;
use cuzk::{
    api::{
        params, porep,
        post::{self, Scope},
        snap::{self, UpdateCommitments},
    },
    circuit::synthesize_witness,
    engine::Config,
    groth16::ProvingKey,
};
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};

use crate::Cut;

/// A C1 output (`seal_commit_phase2`'s JSON): parsed, checked, built into a
/// 2 KiB sector's partition circuits and their witnesses synthesized. Other
/// sizes build the same way but take too long per input.
pub fn c1_output(data: &[u8]) -> Result<()> {
    let partitions = porep::partition_pieces::<SectorShape2KiB>(porep::parse_c1(data)?)?;
    for piece in partitions.pieces.into_iter().flatten() {
        synthesize_witness(piece)?;
    }
    Ok(())
}

/// Winning and Window PoSt vanilla proofs of 2 KiB sectors (bincode):
/// checked, built into circuits and their witnesses synthesized.
/// Input: kind byte | randomness | prover id | list of vanilla proofs.
pub fn post_vanilla(data: &[u8]) -> Result<()> {
    let mut cut = Cut::new(data);
    let [kind] = cut.array();
    let (randomness, prover_id) = (cut.array(), cut.array());
    let vanilla = cut.list();
    let (rp, scope) = match kind % 3 {
        0 => (RegisteredPoStProof::StackedDrgWinning2KiBV1, Scope::All),
        1 => (RegisteredPoStProof::StackedDrgWindow2KiBV1_2, Scope::All),
        _ => (RegisteredPoStProof::StackedDrgWindow2KiBV1_2, Scope::Partition(usize::from(kind / 3))),
    };
    let built = post::partition_circuits::<SectorShape2KiB>(rp, randomness, prover_id, &vanilla, scope)?;
    for circuit in built.circuits {
        synthesize_witness(circuit)?;
    }
    Ok(())
}

/// SnapDeals partition vanilla proofs of a 2 KiB sector (bincode): checked
/// against the commitments, built into circuits and their witnesses
/// synthesized. Input: comm_r_old | comm_r_new | comm_d_new | list of proofs.
pub fn snap_vanilla(data: &[u8]) -> Result<()> {
    let mut cut = Cut::new(data);
    let comms = UpdateCommitments { comm_r_old: cut.array(), comm_r_new: cut.array(), comm_d_new: cut.array() };
    let vanilla = cut.list();
    let built = snap::partition_circuits::<SectorShape2KiB>(RegisteredUpdateProof::StackedDrg2KiBV1, &vanilla, comms)?;
    for circuit in built.circuits {
        synthesize_witness(circuit)?;
    }
    Ok(())
}

/// Proof bytes and public inputs given to `verify_seal` for a 2 KiB sector,
/// checked against the locally generated key. Input: comm_r | comm_d |
/// prover id | ticket | seed | sector id (u64 LE) | proof.
pub fn verify_seal(data: &[u8]) -> Result<()> {
    static PARAMS: Once = Once::new();
    PARAMS.call_once(|| {
        params::use_local_cache_unless_set();
    });
    let mut cut = Cut::new(data);
    let (comm_r, comm_d, prover_id, ticket, seed) = (cut.array(), cut.array(), cut.array(), cut.array(), cut.array());
    let sector_id = cut.u64();
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let valid = porep::verify_seal(rp, comm_r, comm_d, prover_id, ticket, seed, sector_id, cut.rest())?;
    ensure!(valid, "the proof does not verify");
    Ok(())
}

/// A `.params` file's bytes, read as a Groth16 proving key.
pub fn params(data: &[u8]) -> Result<()> {
    let key = ProvingKey::read_bytes(data)?;
    // A key accepted is one the prover can index: B's two halves agree.
    assert_eq!(key.b_g1.len(), key.b_g2.len());
    key.prepared_vk();
    Ok(())
}

/// A `.vk` file's bytes, as the stock verifier reads them from the
/// parameter cache (bellperson's reader), then prepared for pairings.
pub fn vk(data: &[u8]) -> Result<()> {
    let vk = VerifyingKey::<Bls12>::read(data)?;
    prepare_verifying_key(&vk);
    Ok(())
}

/// `cuzk_config_set`'s JSON, merged into the default configuration.
pub fn config(data: &[u8]) -> Result<()> {
    static BASE: OnceLock<Config> = OnceLock::new();
    let base = BASE.get_or_init(|| Config::from_lookup(|_| None).expect("the defaults are a configuration"));
    let config = base.updated(data)?;
    // What was accepted holds what `check` demands.
    assert!(config.synthesis_threads >= 1 && config.prover_workers >= 1 && config.ready_queue_depth >= 1);
    assert!(config.host_memory_budget > 0 && config.gpu_memory_budget != Some(0));
    Ok(())
}

/// A target: one input in, cuzk's verdict out.
pub type Target = fn(&[u8]) -> Result<()>;

/// Every target by name (the name of its seed and regression folders).
pub const ALL: [(&str, Target); 7] = [
    ("c1_output", c1_output),
    ("post_vanilla", post_vanilla),
    ("snap_vanilla", snap_vanilla),
    ("verify_seal", verify_seal),
    ("params", params),
    ("vk", vk),
    ("config", config),
];
