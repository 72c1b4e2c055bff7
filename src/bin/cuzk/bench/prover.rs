//! cuzk's CPU Groth16 prover against stock bellperson's CPU prover, on the same
//! circuit, parameters and randomisers: the real 2 KiB PoRep partition circuit
//! and a synthetic circuit of 2^20 constraints. Prints one JSON object.
//!
//! `cuzk bench prover` (env: CUZK_BENCH_RUNS, default 5; CUZK_BENCH_LOG, the
//! synthetic circuit's log2 size, default 20).

use std::{fs::File, io::BufReader, time::Instant};

use anyhow::{bail, ensure, Result};
use bellperson::{
    groth16::{create_proof_batch_in_priority, Parameters},
    Circuit,
};
use blstrs::{Bls12, Scalar as Fr};
use cuzk::{
    api::{params, porep, sample},
    circuit::{synthesize, MulChain},
    groth16::{prove, synthetic_srs, ProvingKey},
};
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::RegisteredSealProof;
use serde_json::json;

use super::{env_or, median};

/// Times both provers (one warm-up each, then `runs`), checking on the way that
/// they produce the same bytes for the same r and s.
fn compare<C: Circuit<Fr> + Clone + Send>(
    name: &str,
    circuit: C,
    pk: &ProvingKey,
    bp: &Parameters<Bls12>,
    runs: usize,
) -> Result<serde_json::Value> {
    let (r, s) = (Fr::from(0x1234u64), Fr::from(0x5678u64));
    let (mut ours, mut stock) = (Vec::new(), Vec::new());
    let mut constraints = 0;
    for i in 0..=runs {
        let t = Instant::now();
        let cs = synthesize(circuit.clone())?;
        constraints = cs.num_constraints();
        let proof = prove(pk, cs, r, s)?;
        let cuzk_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let theirs = create_proof_batch_in_priority(vec![circuit.clone()], bp, vec![r], vec![s])?;
        let stock_s = t.elapsed().as_secs_f64();
        let mut bytes = Vec::new();
        theirs[0].write(&mut bytes)?;
        ensure!(bytes == proof.to_bytes().to_vec(), "{name}: proofs differ");
        eprintln!("{name} run {i}: cuzk {cuzk_s:.2} s, bellperson {stock_s:.2} s");
        if i > 0 {
            ours.push(cuzk_s);
            stock.push(stock_s);
        }
    }
    let (Some(m_ours), Some(m_stock)) = (median(&ours), median(&stock)) else { bail!("{name}: no timed run") };
    Ok(json!({
        "workload": name,
        "constraints": constraints,
        "runs": runs,
        "cuzk_cpu_median_s": m_ours,
        "bellperson_cpu_median_s": m_stock,
        "speedup_vs_bellperson": m_stock / m_ours,
        "cuzk_cpu_runs_s": ours,
        "bellperson_cpu_runs_s": stock,
        "identical_proofs": true,
    }))
}

pub fn run() -> Result<()> {
    let runs = env_or("CUZK_BENCH_RUNS", 5usize)?;
    let log = env_or("CUZK_BENCH_LOG", 20u32)?;
    params::generate(2048, &[params::Family::PoRep])?;

    let proof_type = RegisteredSealProof::StackedDrg2KiBV1_1;
    let sector = sample::seal_sector_in_temp(proof_type, 7)?;
    let c1 = porep::parse_c1(&sector.c1_json)?;
    let circuit = porep::partition_circuits::<SectorShape2KiB>(c1)?.circuits.remove(0);
    let path = proof_type.cache_params_path()?;
    let pk = ProvingKey::read_file(&path)?;
    let bp = Parameters::<Bls12>::read(BufReader::new(File::open(&path)?), false)?;
    let porep = compare("porep_c2_2kib_partition", circuit, &pk, &bp, runs)?;
    drop((pk, bp));

    let chain = MulChain { start: Fr::from(3u64), links: (1usize << log) - 2 };
    let pk = synthetic_srs::key_for(&synthesize(chain.clone())?, 1);
    let bp = pk.to_bellperson();
    let synthetic = compare(&format!("synthetic_2^{log}"), chain, &pk, &bp, runs)?;

    let report = json!({
        "bench": "cpu_groth16_prover",
        "machine": { "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0) },
        "results": [porep, synthetic],
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
