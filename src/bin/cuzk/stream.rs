//! `cuzk bench stream`: full-size proofs through the engine as a storage
//! provider runs them: a stream of PoRep C2 proofs (every partition of each)
//! with Winning PoSt proofs submitted while it runs. The circuits are the real
//! ones, built from random vanilla proofs of the exact shape
//! (`api::random_vanilla`), under synthetic keys of valid points; such
//! witnesses cannot satisfy the circuits, so these proofs are timed and never
//! verified (`Verification::TimingOnly`). Correctness stays with the 2 KiB
//! tests and the GPU-equals-CPU tests.
//!
//! Prints JSON: every partition's synthesis, queue wait and proof steps,
//! per-proof latency, throughput, GPU busy time, Winning PoSt latency idle and
//! under the stream, peak host RSS and device memory. CUZK_BENCH_SVG writes
//! the timeline as a picture.
//!
//! env: CUZK_BENCH_SECTOR (2KiB, 512MiB or 32GiB; default 2KiB),
//! CUZK_BENCH_SECTORS (C2 proofs in the stream, default 2), CUZK_BENCH_PARTITIONS
//! (the first partitions of each, default all), CUZK_BENCH_PROBES
//! (Winning PoSt proofs, idle and under load, default 3), CUZK_BENCH_PROBE_GAP_S
//! (seconds between probes under load, default 5), CUZK_BENCH_SVG; engine
//! settings from CUZK_* (docs/CONFIG.md).

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context, Result};
use cuzk::{
    api::{porep, random_vanilla},
    circuit::{synthesize, synthesize_pieces},
    engine::{
        devices::gpu_status,
        prover,
        timeline::{Event, Stage},
        Config, Engine, JobId, JobSpec, PartitionWork, ProofKind, Verification,
    },
    groth16::{synthetic_srs, ProvingKey},
};
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};
use serde_json::{json, Value};
use storage_proofs_core::merkle::MerkleTreeTrait;

use crate::{
    bench::{env_usize, finish, median},
    timeline,
};

pub fn run() -> Result<()> {
    let sector = std::env::var("CUZK_BENCH_SECTOR").unwrap_or_else(|_| "2KiB".into());
    use {RegisteredPoStProof as Post, RegisteredSealProof as Seal};
    match sector.as_str() {
        "2KiB" => run_typed::<SectorShape2KiB>(&sector, Seal::StackedDrg2KiBV1_1, Post::StackedDrgWinning2KiBV1),
        "512MiB" => run_typed::<SectorShape512MiB>(&sector, Seal::StackedDrg512MiBV1_1, Post::StackedDrgWinning512MiBV1),
        "32GiB" => run_typed::<SectorShape32GiB>(&sector, Seal::StackedDrg32GiBV1_1, Post::StackedDrgWinning32GiBV1),
        other => bail!("CUZK_BENCH_SECTOR={other:?}: 2KiB, 512MiB or 32GiB"),
    }
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// A key of valid points for `cs`'s shape.
fn key_for(cs: &cuzk::circuit::Synthesized) -> Arc<ProvingKey> {
    let log = cs.num_constraints().next_power_of_two().trailing_zeros();
    Arc::new(synthetic_srs::key_for(cs, u64::from(log)))
}

fn run_typed<Tree: 'static + MerkleTreeTrait>(sector: &str, seal: RegisteredSealProof, winning: RegisteredPoStProof) -> Result<()> {
    let sectors = env_usize("CUZK_BENCH_SECTORS", 2)?;
    let partitions_cap = env_usize("CUZK_BENCH_PARTITIONS", usize::MAX)?;
    let probes = env_usize("CUZK_BENCH_PROBES", 3)?;
    let gap = Duration::from_secs(env_usize("CUZK_BENCH_PROBE_GAP_S", 5)? as u64);
    let sampler = Sampler::start();
    let started = Instant::now();

    // The C2 inputs: one random C1 output per sector, each partition's circuit in pieces.
    let t = Instant::now();
    let mut c2 = Vec::new();
    for i in 0..sectors {
        c2.push(porep::partition_pieces::<Tree>(random_vanilla::porep_c1(seal, i as u64 + 1)?)?);
    }
    let build_s = secs(t);
    let t = Instant::now();
    let first = c2[0].pieces[0].clone();
    let cs = synthesize_pieces(first, porep::CHALLENGE_NAMESPACE)?;
    let first_synthesis_s = secs(t);
    let constraints = cs.num_constraints();
    let t = Instant::now();
    let c2_key = key_for(&cs);
    drop(cs);
    let key_s = secs(t);
    eprintln!("stream: {sector} C2 partition of {constraints} constraints synthesized in {first_synthesis_s:.1} s; key ({} bytes) in {key_s:.1} s", c2_key.size_bytes());

    let post = random_vanilla::post_circuit::<Tree>(winning, 1)?;
    let post_cs = synthesize(post.clone())?;
    let post_inputs = post_cs.inputs[1..].to_vec();
    let post_constraints = post_cs.num_constraints();
    let post_key = key_for(&post_cs);
    drop(post_cs);

    // Keys on the device before anything is timed, as a running miner has them.
    let t = Instant::now();
    prover::warm(&c2_key)?;
    prover::warm(&post_key)?;
    let upload_s = secs(t);

    let config = Config::from_env()?;
    let engine = Engine::new(config.clone());
    let winning_job = |seed: u64| -> Result<JobId> {
        let circuit = post.clone();
        engine.submit(JobSpec {
            kind: ProofKind::WinningPost,
            priority: ProofKind::WinningPost.default_priority(),
            label: format!("{winning:?} probe {seed}"),
            key: post_key.clone(),
            partitions: vec![PartitionWork { synthesize: Box::new(move || Ok(synthesize(circuit)?)), public_inputs: post_inputs.clone() }],
            verification: Verification::TimingOnly,
        })
    };
    let latency = |id: JobId, since: Instant| -> Result<f64> { finish(&engine, id).map(|()| secs(since)) };
    let mut idle = Vec::new();
    for p in 0..probes + 1 {
        let t = Instant::now();
        let l = latency(winning_job(p as u64)?, t)?;
        if p > 0 {
            idle.push(l); // the first pays thread and allocator warm-up
        }
    }

    // The stream: every C2 proof submitted at once.
    let stream_start = Instant::now();
    let mut jobs = Vec::new();
    for (i, sector_inputs) in c2.into_iter().enumerate() {
        let porep::PartitionPieces { pieces, public_inputs, .. } = sector_inputs;
        let partitions = pieces
            .into_iter()
            .zip(public_inputs)
            .take(partitions_cap)
            .map(|(p, public_inputs)| PartitionWork {
                synthesize: Box::new(move || synthesize_pieces(p, porep::CHALLENGE_NAMESPACE)),
                public_inputs,
            })
            .collect();
        jobs.push(engine.submit(JobSpec {
            kind: ProofKind::PorepC2,
            priority: ProofKind::PorepC2.default_priority(),
            label: format!("{seal:?} sector {i}"),
            key: c2_key.clone(),
            partitions,
            verification: Verification::TimingOnly,
        })?);
    }
    // Probes start once the first C2 partition is on the prover.
    while engine.status().proving == 0 {
        if let Some(&failed) = jobs.iter().find(|&&id| engine.poll(id).is_some_and(|s| s.is_finished())) {
            latency(failed, stream_start)?;
            bail!("C2 job {failed:?} ended before its first proof");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut loaded = Vec::new();
    let mut stream_busy = Vec::new();
    for p in 0..probes {
        let t = Instant::now();
        let l = latency(winning_job(100 + p as u64)?, t)?;
        eprintln!("stream: Winning PoSt probe {p} under load: {l:.3} s");
        loaded.push(l);
        let status = engine.status();
        stream_busy.push(status.pending_partitions + status.synthesizing + status.proving > 0);
        std::thread::sleep(gap);
    }
    if stream_busy.contains(&false) {
        eprintln!("stream: the C2 stream ended before the last Winning PoSt probe: raise CUZK_BENCH_SECTORS");
    }
    let mut c2_latency = Vec::new();
    for id in jobs {
        c2_latency.push(latency(id, stream_start)?);
    }
    let stream_s = secs(stream_start);
    let memory = sampler.stop();
    let events = engine.timeline();

    let spans = timeline::spans(&events);
    if let Ok(path) = std::env::var("CUZK_BENCH_SVG") {
        let title = format!("cuzk engine: {sectors} x {sector} PoRep C2 ({constraints} constraints per partition) + Winning PoSt probes");
        std::fs::write(&path, timeline::svg(&spans, &title)).with_context(|| format!("writing {path}"))?;
        eprintln!("timeline picture: {path}");
    }
    let c2_partitions = partitions(&events, ProofKind::PorepC2.default_priority());
    let proved = c2_partitions.len();
    let gpu_busy: f64 = c2_partitions.iter().map(|p| p["prove_s"].as_f64().unwrap_or(0.0)).sum();
    let report = json!({
        "bench": "stream",
        "machine": {
            "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "gpus": gpu_status(),
        },
        "engine_config": config,
        "sector": sector,
        "c2": {
            "proofs": sectors, "partitions": proved, "constraints_per_partition": constraints,
            "key_bytes": c2_key.size_bytes(),
            "estimated_partition_bytes": engine.partition_bytes(&c2_key),
            "stream_seconds": stream_s,
            "partitions_per_minute": proved as f64 / stream_s * 60.0,
            "proof_latency_seconds": c2_latency,
            "prover_busy_fraction": gpu_busy / stream_s,
            "median_seconds": {
                "synthesis": median_of(&c2_partitions, "synthesis_s"),
                "ready_wait": median_of(&c2_partitions, "ready_wait_s"),
                "prove": median_of(&c2_partitions, "prove_s"),
            },
            "partitions_detail": c2_partitions,
        },
        "winning_post": {
            "constraints": post_constraints,
            "idle_seconds": idle, "idle_median": median(&idle),
            "under_stream_seconds": loaded, "under_stream_median": median(&loaded),
            "stream_still_running_after_each": stream_busy,
            "partitions_detail": partitions(&events, ProofKind::WinningPost.default_priority()),
        },
        "setup_seconds": {
            "build_circuits": build_s, "first_synthesis": first_synthesis_s, "key_generation": key_s,
            "key_upload": upload_s, "total_before_stream": stream_start.duration_since(started).as_secs_f64(),
        },
        "memory": memory,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// Every partition of the given priority: its times (synthesis, wait for a
/// prover, proof and its steps), from the engine's timeline.
fn partitions(events: &[Event], priority: cuzk::engine::Priority) -> Vec<Value> {
    let at = |job: JobId, partition: usize, stage: Stage| {
        events.iter().find(|e| e.job == job && e.partition == partition && e.stage == stage)
    };
    events
        .iter()
        .filter(|e| e.stage == Stage::ProveEnd && e.priority == priority)
        .filter_map(|end| {
            let synth_start = at(end.job, end.partition, Stage::SynthesisStart)?;
            let synth_end = at(end.job, end.partition, Stage::SynthesisEnd)?;
            let prove_start = at(end.job, end.partition, Stage::ProveStart)?;
            let d = |a: &Event, b: &Event| (b.at - a.at).as_secs_f64();
            Some(json!({
                "job": end.job.0, "partition": end.partition,
                "synthesis_start_s": synth_start.at.as_secs_f64(),
                "synthesis_s": d(synth_start, synth_end),
                "ready_wait_s": d(synth_end, prove_start),
                "prove_s": d(prove_start, end),
                "steps": end.proof,
            }))
        })
        .collect()
}

fn median_of(rows: &[Value], field: &str) -> Option<f64> {
    median(&rows.iter().filter_map(|r| r[field].as_f64()).collect::<Vec<_>>())
}

/// Host RSS and device memory in use, sampled every 250 ms on a thread.
struct Sampler {
    stop: Arc<AtomicBool>,
    samples: Arc<Mutex<Vec<(f64, u64, u64)>>>,
    thread: std::thread::JoinHandle<()>,
}

impl Sampler {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let samples = Arc::new(Mutex::new(Vec::new()));
        let (s, out) = (stop.clone(), samples.clone());
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while !s.load(Ordering::Relaxed) {
                let vram: u64 = gpu_status().iter().map(|g| g.total_bytes - g.free_bytes.unwrap_or(g.total_bytes)).sum();
                let rss = status_kib("VmRSS:").unwrap_or(0) * 1024;
                out.lock().unwrap_or_else(|e| e.into_inner()).push((secs(start), rss, vram));
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        Sampler { stop, samples, thread }
    }

    /// Peaks, and one sample per second for plotting.
    fn stop(self) -> Value {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        let samples = std::mem::take(&mut *self.samples.lock().unwrap_or_else(|e| e.into_inner()));
        let peak_rss = samples.iter().map(|s| s.1).max();
        let peak_vram = samples.iter().map(|s| s.2).max();
        let mut last = -1.0;
        let per_second: Vec<Value> = samples
            .iter()
            .filter(|s| {
                let keep = s.0 - last >= 1.0;
                if keep {
                    last = s.0;
                }
                keep
            })
            .map(|s| json!([s.0, s.1, s.2]))
            .collect();
        json!({
            "peak_rss_bytes": peak_rss, "vm_hwm_bytes": status_kib("VmHWM:").map(|k| k * 1024),
            "peak_device_used_bytes": peak_vram,
            "samples_seconds_rss_device": per_second,
        })
    }
}

/// A `/proc/self/status` field in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
