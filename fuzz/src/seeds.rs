//! Each fuzz target's seeds (one folder per target): the inputs of a real
//! 2 KiB sector sealed, proved and updated here with the stock crates, and a
//! small proving key. Needs the 2 KiB parameters (`cuzk params 2KiB`).

use std::{fs, path::Path};

use anyhow::{Context, Result};
use cuzk::{
    api::{params, porep, sample},
    circuit::{synthesize, MulChain},
    engine::CallContext,
    groth16::synthetic_srs,
};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};

use crate::join;

/// Writes the seeds under `out`, using `work` (an empty folder) for the sector.
pub fn write(out: &Path, work: &Path) -> Result<()> {
    params::use_local_cache_unless_set();
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, work, 31)?;
    let seed = |target: &str, name: &str, bytes: &[u8]| -> Result<()> {
        fs::create_dir_all(out.join(target))?;
        fs::write(out.join(target).join(name), bytes).with_context(|| format!("writing the {target} seed {name}"))
    };

    seed("c1_output", "sealed-2kib", &sector.c1_json)?;

    let proof = porep::seal_commit_phase2(&CallContext::blocking(), &sector.c1_json, sector.sector_id, sector.prover_id)?;
    let s = &sector;
    let fields: [&[u8]; 6] = [&s.comm_r, &s.comm_d, &s.prover_id, &s.ticket, &s.seed, &s.sector_id.to_le_bytes()];
    seed("verify_seal", "valid", &[join(&fields, &[]), proof].concat())?;

    let randomness = {
        let mut r = [7u8; 32];
        r[31] &= 0x3f;
        r
    };
    for (kind, rp) in [(0u8, RegisteredPoStProof::StackedDrgWinning2KiBV1), (1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2)] {
        let vanilla = sector.post_vanilla_proof(rp, randomness, work)?;
        seed("post_vanilla", &format!("{rp:?}"), &join(&[&[kind], &randomness, &sector.prover_id], &[vanilla]))?;
    }

    let update = sample::update_sector(&sector, work, 32)?;
    let comms = update.commitments();
    let vanilla = update.vanilla_proofs(work)?;
    seed("snap_vanilla", "updated-2kib", &join(&[&comms.comm_r_old, &comms.comm_r_new, &comms.comm_d_new], &vanilla))?;

    let cs = synthesize(MulChain { start: 3u64.into(), links: 20 })?;
    let key = synthetic_srs::key_for(&cs, 1);
    let mut bytes = Vec::new();
    key.to_bellperson().write(&mut bytes)?;
    seed("params", "mul-chain-20", &bytes)?;
    let mut bytes = Vec::new();
    key.vk.write(&mut bytes)?;
    seed("vk", "mul-chain-20", &bytes)?;

    seed("config", "sizes", br#"{"host_memory_budget":"64GiB","gpu_memory_budget":"all","synthesis_threads":3}"#)?;
    seed("config", "modes", br#"{"matrices_files":false,"gpu_fallback":"error","prover_workers":2,"gpus":null}"#)?;

    Ok(())
}
