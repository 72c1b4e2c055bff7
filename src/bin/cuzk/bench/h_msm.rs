//! H's MSM (dense scalars on the device against a resident query, 2^27 terms
//! as a 32 GiB PoRep partition's) every way cuzk can run it, on the same
//! points and scalars: sppark's Pippenger whole and in the pieces a proof
//! runs it in, and cuda/window_msm.cuh's windowed Pippenger for each window
//! width and chunk cap, and over all-zero scalars (its digits, sorts and bucket
//! reductions without a term added). Every sum must equal the first. Prints
//! one JSON object. Needs a CUDA device.
//!
//! `cuzk bench h-msm`, in a build with `--features cuda` (env:
//! CUZK_BENCH_RUNS, default 3; CUZK_BENCH_LOG, the terms' log2, default 27;
//! CUZK_BENCH_WINDOWS, the window widths, default "20,22";
//! CUZK_BENCH_CHUNK_LOGS, chunk caps tried with the prover's width, default
//! "24,25,26"; CUZK_BENCH_DISTINCT_LOG, the log2 of the distinct points,
//! repeated up to the terms, default all of them: a key's points are
//! distinct, and fewer distinct points gather from fewer pages).

use std::time::Instant;

use anyhow::{ensure, Context, Result};
use blstrs::Scalar as Fr;
use cuzk::{
    gpu::{self, DevicePoints, DeviceScalars, WindowedMsm},
    groth16::synthetic_srs,
};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::json;

use super::{env_or, time};

/// The pieces a proof's H MSM runs in (`gpu::prover`'s H_MSM_PIECE).
const PIECE_LOG: u32 = 25;

/// The comma-separated numbers of environment variable `name`, or of `default`.
fn numbers(name: &str, default: &str) -> Result<Vec<u32>> {
    let v = std::env::var(name).unwrap_or_else(|_| default.into());
    v.split(',').filter(|x| !x.trim().is_empty()).map(|x| x.trim().parse().with_context(|| format!("{name}={v:?}: numbers"))).collect()
}

pub fn run() -> Result<()> {
    let runs = env_or("CUZK_BENCH_RUNS", 3usize)?;
    let log = env_or("CUZK_BENCH_LOG", 27u32)?;
    let widths: Vec<u32> = numbers("CUZK_BENCH_WINDOWS", "20,22")?;
    let chunk_logs: Vec<u32> = numbers("CUZK_BENCH_CHUNK_LOGS", "24,25,26")?;
    let distinct_log = env_or("CUZK_BENCH_DISTINCT_LOG", log)?.min(log);
    let device = gpu::devices().first().context("no usable CUDA device")?;
    let n = 1usize << log;

    let t = Instant::now();
    let distinct = synthetic_srs::g1s(1 << distinct_log, &mut ChaCha8Rng::seed_from_u64(1));
    let points: Vec<_> = (0..n).into_par_iter().map(|i| distinct[i % distinct.len()]).collect();
    let scalars: Vec<Fr> = (0..n).into_par_iter().map(|i| Fr::random(ChaCha8Rng::seed_from_u64(7 ^ ((i as u64) << 8)))).collect();
    let on_device = DevicePoints::upload_g1(device, &points)?;
    drop(points);
    let on_device_scalars = DeviceScalars::upload(device, &scalars)?;
    drop(scalars);
    // All zero: the windowed MSM's digits, sorts and bucket reductions
    // alone (no term is added).
    let zeros = DeviceScalars::upload(device, &vec![Fr::ZERO; n])?;
    eprintln!("h-msm: 2^{log} points (2^{distinct_log} distinct) and scalars made and uploaded in {:?}", t.elapsed());

    let (whole_s, whole) = time(runs, || on_device.msm_g1_in_pieces(&on_device_scalars, n, n))?;
    let (pieces_s, in_pieces) = time(runs, || on_device.msm_g1_in_pieces(&on_device_scalars, n, 1 << PIECE_LOG))?;
    ensure!(in_pieces == whole, "sppark's MSM in pieces differs from the whole");
    eprintln!("h-msm: sppark whole {whole_s:.4} s, in pieces of 2^{PIECE_LOG} {pieces_s:.4} s");
    let mut rows = vec![
        json!({ "way": "sppark", "median_s": whole_s }),
        json!({ "way": format!("sppark_pieces_2^{PIECE_LOG}"), "median_s": pieces_s }),
    ];
    let room = device.free_bytes()?;
    let prover = WindowedMsm::for_terms(n, room);
    let ways = widths.iter().map(|&bits| WindowedMsm { bits, ..prover });
    let capped = chunk_logs.iter().map(|&log| WindowedMsm { max_chunk: 1 << log, ..prover });
    for how in ways.chain(capped) {
        let (s, sum) = time(runs, || on_device.msm_g1_windowed(&on_device_scalars, n, how))?;
        ensure!(sum == whole, "the windowed MSM ({how:?}) differs from sppark's");
        let (zero_s, _) = time(runs, || on_device.msm_g1_windowed(&zeros, n, how))?;
        eprintln!("h-msm: windowed, {} bits, chunks of {}: {s:.4} s ({:.3} of sppark in pieces), without additions {zero_s:.4} s", how.bits, how.max_chunk, s / pieces_s);
        rows.push(json!({
            "way": "windowed", "window_bits": how.bits, "max_chunk": how.max_chunk, "prover_default": how.bits == prover.bits && how.max_chunk == 0,
            "median_s": s, "vs_sppark_pieces": s / pieces_s, "all_zero_scalars_median_s": zero_s,
        }));
    }
    let report = json!({
        "bench": "h_msm",
        "device": { "name": device.name, "compute_capability": device.compute_capability, "total_bytes": device.total_bytes },
        "log2_terms": log,
        "runs": runs,
        "results": rows,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
