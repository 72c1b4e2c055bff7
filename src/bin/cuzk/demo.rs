//! `cuzk demo`: the main job on a 2 KiB sector. Seal with the stock crates, prove
//! C2 through cuzk's C ABI (twice: cold, then with the SRS resident), verify with
//! the stock verifier, print each stage's time.

use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Result};
use cuzk::{
    api::{params, sample},
    ffi::{destroy, seal, types::*},
};
use filecoin_proofs_api::{RegisteredSealProof, SectorId};

pub fn run() -> Result<()> {
    let proof_type = RegisteredSealProof::StackedDrg2KiBV1_1;
    let mut stages: Vec<(&str, Duration)> = Vec::new();

    let t = Instant::now();
    let generated = params::generate(2048, &[params::Family::PoRep])?;
    stages.push((if generated.iter().any(|o| o.generated) { "generate_params" } else { "check_params" }, t.elapsed()));

    let sector = sample::seal_sector_in_temp(proof_type, 42)?;
    stages.extend(sector.stages.iter().copied());

    let mut proof = Vec::new();
    for label in ["commit_phase2 (cuzk C ABI, cold)", "commit_phase2 (cuzk C ABI, SRS resident)"] {
        let t = Instant::now();
        proof = c2_through_c_abi(&sector)?;
        stages.push((label, t.elapsed()));
    }

    let t = Instant::now();
    let valid = filecoin_proofs_api::seal::verify_seal(
        proof_type,
        sector.comm_r,
        sector.comm_d,
        sector.prover_id,
        SectorId::from(sector.sector_id),
        sector.ticket,
        sector.seed,
        &proof,
    )?;
    stages.push(("verify_seal (stock)", t.elapsed()));
    ensure!(valid, "the stock verifier rejected cuzk's proof");

    println!("cuzk demo: {proof_type:?}, sector {}, proof {} bytes, verified by stock verify_seal", sector.sector_id, proof.len());
    for (name, d) in &stages {
        println!("  {name:<44} {:>10.3} s", d.as_secs_f64());
    }
    Ok(())
}

fn c2_through_c_abi(sector: &sample::SealedSector) -> Result<Vec<u8>> {
    let input = slice_ref_uint8_t { ptr: sector.c1_json.as_ptr(), len: sector.c1_json.len() };
    let prover_id = uint8_32_array_t { idx: sector.prover_id };
    // SAFETY: `input` borrows `sector.c1_json` and `prover_id` lives on the stack
    // for the whole call; the response is freed below, after copying out.
    let resp = unsafe { seal::seal_commit_phase2(input, sector.sector_id, &prover_id) };
    // SAFETY: responses are never NULL; read before freeing it.
    let (status, message, proof) = unsafe {
        let r = &*resp;
        let msg = std::slice::from_raw_parts(r.error_msg.ptr, r.error_msg.len).to_vec();
        let proof = std::slice::from_raw_parts(r.value.ptr, r.value.len).to_vec();
        (r.status_code, msg, proof)
    };
    // SAFETY: `resp` came from `seal_commit_phase2` and is freed once.
    unsafe { destroy::destroy_seal_commit_phase2_response(resp) };
    if status != 0 {
        bail!("seal_commit_phase2 failed: {}", String::from_utf8_lossy(&message));
    }
    Ok(proof)
}
