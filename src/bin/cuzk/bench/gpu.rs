//! The CUDA backend on its own and against cuzk's CPU path, on the same inputs:
//! MSM G1 (2^20..2^27) and G2 (2^20..2^26) over device-resident points (random
//! scalars, and witness-like ones with Pippenger over all against the split
//! by scalar; H's MSM is `cuzk bench h-msm`), the H polynomial (three iNTTs,
//! three coset NTTs, one inverse coset NTT, with the host transfers) at
//! 2^20..2^27, and whole Groth16 proofs of synthetic circuits. Prints one
//! JSON object. Needs a CUDA device.
//!
//! `cuzk bench gpu`, in a build with `--features cuda` (env: CUZK_BENCH_RUNS, default 5;
//! CUZK_BENCH_MAX_LOG caps every size, default 27; CUZK_BENCH_CPU_MAX_LOG caps
//! the CPU peer, default 22; CUZK_BENCH_PROOF_LOGS, default "22,24";
//! CUZK_BENCH_MIX, the witness-like scalars' zeros, ones and minus ones per
//! mille, default DEFAULT_MIX).

use std::{sync::Arc, time::Instant};

use anyhow::{ensure, Context, Result};
use blstrs::Scalar as Fr;
use cuzk::{
    circuit::{synthesize, MulChain},
    gpu::{self, DevicePoints, GpuProver, HPlan, MsmHow, MsmSplit, SplitMode},
    groth16::{cpu, msm, prove, prove_with, synthetic_srs},
};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Value};

use super::{env_or, time};

/// The scalars of a 32 GiB PoRep partition's L MSM (its aux assignment), per
/// mille zero, one and minus one, as `cuzk bench pieces` measures them.
const DEFAULT_MIX: &str = "514,473,0";

fn scalars(n: usize, seed: u64) -> Vec<Fr> {
    (0..n).into_par_iter().map(|i| Fr::random(ChaCha8Rng::seed_from_u64(seed ^ ((i as u64) << 8)))).collect()
}

#[derive(Clone, Copy)]
struct Limits {
    runs: usize,
    cpu_max: u32,
    /// Per mille of zeros, ones and minus ones in the witness-like scalars.
    mix: [u32; 3],
}

/// One group's MSM rows: the points of the largest size generated and
/// uploaded once, then every size on the GPU and, up to `cpu_max`, on the CPU
/// (the results must be equal), over random scalars; then over witness-like
/// scalars, Pippenger over all of them against the split by scalar.
fn msm_rows<A, P: PartialEq>(
    kind: &str,
    logs: &[u32],
    limits: Limits,
    points: &[A],
    upload: impl Fn(&[A]) -> Result<DevicePoints>,
    on_gpu: impl Fn(&DevicePoints, &[Fr], MsmHow) -> Result<(P, MsmSplit)>,
    on_cpu: impl Fn(&[A], &[Fr]) -> P,
) -> Result<Vec<Value>> {
    let Some(&top) = logs.last() else { return Ok(Vec::new()) };
    let (random, witness) = (scalars(1 << top, 2), synthetic_srs::scalars_of_kinds(1 << top, 4, limits.mix));
    let t = Instant::now();
    let on_device = upload(&points[..1 << top])?;
    eprintln!("{kind}: uploaded 2^{top} points in {:?}", t.elapsed());
    let room = gpu::devices().first().context("no usable CUDA device")?.free_bytes()?;
    let (plain, split) = (MsmHow::PLAIN, MsmHow { mode: SplitMode::Auto, room });
    let mut rows = Vec::new();
    for &log in logs {
        let s = &random[..1 << log];
        let (gpu_s, (g, _)) = time(limits.runs, || on_gpu(&on_device, s, split))?;
        let cpu = if log <= limits.cpu_max {
            let (cpu_s, c) = time(limits.runs, || Ok(on_cpu(&points[..1 << log], s)))?;
            ensure!(c == g, "{kind} 2^{log}: GPU and CPU differ");
            Some(cpu_s)
        } else {
            None
        };
        let mut r = row(kind, log, gpu_s, cpu);
        let w = &witness[..1 << log];
        let (plain_s, (p, _)) = time(limits.runs, || on_gpu(&on_device, w, plain))?;
        let (split_s, (q, did)) = time(limits.runs, || on_gpu(&on_device, w, split))?;
        ensure!(p == q, "{kind} 2^{log}: the split MSM differs from Pippenger over all scalars");
        eprintln!("{kind} 2^{log} witness-like: plain {plain_s:.4} s, split {split_s:.4} s ({did:?})");
        r["witness_like"] = json!({
            "plain_median_s": plain_s, "split_median_s": split_s, "split_speedup": plain_s / split_s,
            "zero": did.zero, "unit": did.unit, "other": did.other, "split": did.split == 1,
        });
        rows.push(r);
    }
    Ok(rows)
}

fn row(kind: &str, log: u32, gpu_s: f64, cpu_s: Option<f64>) -> Value {
    eprintln!("{kind} 2^{log}: gpu {gpu_s:.4} s, cpu {cpu_s:?}");
    json!({
        "kind": kind, "log2_size": log, "gpu_median_s": gpu_s, "cpu_median_s": cpu_s,
        "speedup_vs_cpu": cpu_s.map(|c| c / gpu_s),
    })
}

pub fn run() -> Result<()> {
    let runs = env_or("CUZK_BENCH_RUNS", 5usize)?;
    let max_log = env_or("CUZK_BENCH_MAX_LOG", 27u32)?;
    let cpu_max = env_or("CUZK_BENCH_CPU_MAX_LOG", 22u32)?;
    let proof_logs: Vec<u32> = std::env::var("CUZK_BENCH_PROOF_LOGS")
        .unwrap_or_else(|_| "22,24".into())
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .filter(|&l| l <= max_log)
        .collect();
    let device = gpu::devices().first().context("no usable CUDA device")?;
    let mut results = Vec::new();

    let mix = std::env::var("CUZK_BENCH_MIX").unwrap_or_else(|_| DEFAULT_MIX.into());
    let mix: Vec<u32> = mix.split(',').map(|v| v.trim().parse()).collect::<Result<_, _>>().context("CUZK_BENCH_MIX")?;
    let mix: [u32; 3] = mix.try_into().ok().filter(|m: &[u32; 3]| m.iter().sum::<u32>() <= 1000).context("CUZK_BENCH_MIX: three per mille figures")?;
    let limits = Limits { runs, cpu_max, mix };
    let g1_logs: Vec<u32> = [20, 22, 24, 26, 27].into_iter().filter(|&l| l <= max_log).collect();
    let g2_logs: Vec<u32> = [20, 22, 24, 26].into_iter().filter(|&l| l <= max_log).collect();
    if let Some(&top) = g1_logs.last() {
        let points = synthetic_srs::g1s(1 << top, &mut ChaCha8Rng::seed_from_u64(1));
        results.extend(msm_rows("msm_g1", &g1_logs, limits, &points, |p| DevicePoints::upload_g1(device, p), DevicePoints::msm_g1_with, msm::msm_g1)?);
    }
    results.extend(msm_rows(
        "msm_g2",
        &g2_logs,
        limits,
        &synthetic_srs::g2s(1 << g2_logs.last().copied().unwrap_or(0), &mut ChaCha8Rng::seed_from_u64(3)),
        |p| DevicePoints::upload_g2(device, p),
        DevicePoints::msm_g2_with,
        msm::msm_g2,
    )?);

    for log in (20..=27).filter(|&l| l <= max_log) {
        let n = 1usize << log;
        let (a, b, c) = (scalars(n, 5), scalars(n, 6), scalars(n, 7));
        let (gpu_s, g) = time(runs, || gpu::h_coefficients(device, &a, &b, &c, HPlan::TwoVectors))?;
        let cpu = if log <= cpu_max {
            let (cpu_s, h) = time(runs, || cpu::h_coefficients(&a, &b, &c))?;
            ensure!(h == g, "H 2^{log}: GPU and CPU differ");
            Some(cpu_s)
        } else {
            None
        };
        results.push(row("h_polynomial_ntt", log, gpu_s, cpu));
        // The plan of devices with room for one NTT vector: its cost, against the above.
        let (one_s, h) = time(runs, || gpu::h_coefficients(device, &a, &b, &c, HPlan::OneVector))?;
        ensure!(h == g, "H 2^{log}: the one-vector plan differs");
        let mut r = row("h_polynomial_ntt_one_vector", log, one_s, None);
        r["vs_two_vectors"] = json!(one_s / gpu_s);
        results.push(r);
    }

    for log in proof_logs {
        let t = Instant::now();
        let cs = synthesize(MulChain { start: Fr::from(3u64), links: (1usize << log) - 2 })?;
        let pk = Arc::new(synthetic_srs::key_for(&cs, log as u64));
        eprintln!("synthetic 2^{log}: circuit and key in {:?}", t.elapsed());
        let (r, s) = (Fr::from(11u64), Fr::from(13u64));
        let t = Instant::now();
        drop(GpuProver::acquire(&pk).context("a device")??);
        let upload_s = t.elapsed().as_secs_f64();
        let (gpu_s, g) = time(runs, || {
            let gpu = GpuProver::acquire(&pk).context("a device")??;
            prove_with(&gpu, &pk, &cs, r, s)
        })?;
        let cpu = if log <= cpu_max {
            let (cpu_s, p) = time(runs.min(2), || prove(&pk, cs.clone(), r, s))?;
            ensure!(p.to_bytes() == g.to_bytes(), "proof 2^{log}: GPU and CPU bytes differ");
            Some(cpu_s)
        } else {
            None
        };
        let mut r = row("groth16_proof_synthetic", log, gpu_s, cpu);
        r["key_upload_s"] = json!(upload_s);
        results.push(r);
    }

    let report = json!({
        "bench": "gpu_groth16",
        "device": { "name": device.name, "compute_capability": device.compute_capability, "total_bytes": device.total_bytes },
        "host_cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "runs": runs,
        "results": results,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
