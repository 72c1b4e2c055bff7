//! `cuzk bench stream`: full-size proofs through the engine as a storage
//! provider runs them: a stream of PoRep C2 or SnapDeals proofs (every
//! partition of each) with Winning PoSt proofs submitted while it runs. The circuits are the real
//! ones, built from random vanilla proofs of the exact shape
//! (`api::random_vanilla`), under synthetic keys of valid points; such
//! witnesses cannot satisfy the circuits, so these proofs are timed and never
//! verified (`Verification::TimingOnly`). Correctness stays with the 2 KiB
//! tests and the GPU-equals-CPU tests.
//!
//! Prints JSON: every partition's synthesis, queue wait and proof steps (H
//! as its host-to-device copies, NTTs and MSM; each step's median too),
//! per-proof latency (taken as each proof completes), throughput, GPU busy
//! time, the process's CPU time over the stream, Winning PoSt latency idle
//! and under the stream, peak host RSS and device memory. CUZK_BENCH_SVG writes
//! the timeline as a picture.
//!
//! env: CUZK_BENCH_PROOF (porep or snap; default porep), CUZK_BENCH_SECTOR
//! (2KiB, 512MiB or 32GiB; default 2KiB), CUZK_BENCH_SECTORS (proofs in the
//! stream, default 2), CUZK_BENCH_PARTITIONS
//! (the first partitions of each, default all), CUZK_BENCH_PROBES
//! (Winning PoSt proofs, idle and under load, default 3), CUZK_BENCH_PROBE_GAP_S
//! (seconds between probes under load, default 5), CUZK_BENCH_SVG,
//! CUZK_BENCH_GPU_BUDGETS (comma-separated GPU memory budgets, `all` for
//! none: one stream under each, over the same keys, reported as `runs`);
//! engine settings from CUZK_* (docs/CONFIG.md; the circuit's matrices are
//! recorded before the stream, from the partition that sizes the key).

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context, Result};
use blstrs::Scalar as Fr;
use cuzk::{
    api::{porep, random_vanilla, snap},
    circuit::{synthesize, Matrices, Pieces, Synthesized, Whole},
    engine::{
        devices::gpu_status,
        prover, synthesis_of,
        timeline::{Event, Stage},
        Config, Engine, JobId, JobSpec, PartitionWork, ProofKind, SynthesisKind, SynthesizeFn, Verification,
    },
    groth16::{synthetic_srs, ProvingKey},
};
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use serde_json::{json, Value};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_post::fallback::FallbackPoStCircuit;
use storage_proofs_update::constants::TreeRHasher;

use super::{env_or, finish, median, median_at, timeline, usage, Usage};

pub fn run() -> Result<()> {
    let sector = std::env::var("CUZK_BENCH_SECTOR").unwrap_or_else(|_| "2KiB".into());
    use {RegisteredPoStProof as Post, RegisteredSealProof as Seal, RegisteredUpdateProof as Update};
    match sector.as_str() {
        "2KiB" => {
            run_shape::<SectorShape2KiB>(&sector, Seal::StackedDrg2KiBV1_1, Update::StackedDrg2KiBV1, Post::StackedDrgWinning2KiBV1)
        }
        "512MiB" => {
            run_shape::<SectorShape512MiB>(&sector, Seal::StackedDrg512MiBV1_1, Update::StackedDrg512MiBV1, Post::StackedDrgWinning512MiBV1)
        }
        "32GiB" => {
            run_shape::<SectorShape32GiB>(&sector, Seal::StackedDrg32GiBV1_1, Update::StackedDrg32GiBV1, Post::StackedDrgWinning32GiBV1)
        }
        other => bail!("CUZK_BENCH_SECTOR={other:?}: 2KiB, 512MiB or 32GiB"),
    }
}

/// The stream CUZK_BENCH_PROOF names, of sectors of one shape.
fn run_shape<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    sector: &str,
    seal: RegisteredSealProof,
    update: RegisteredUpdateProof,
    winning: RegisteredPoStProof,
) -> Result<()> {
    let proof = std::env::var("CUZK_BENCH_PROOF").unwrap_or_else(|_| "porep".into());
    let sectors = env_or("CUZK_BENCH_SECTORS", 2)?;
    let cap = env_or("CUZK_BENCH_PARTITIONS", usize::MAX)?;
    // Built anew for each run: a partition's synthesis is consumed by it.
    let inputs = || match proof.as_str() {
        "porep" => porep_inputs::<Tree>(seal, sectors, cap),
        "snap" => snap_inputs::<Tree>(update, sectors, cap),
        other => bail!("CUZK_BENCH_PROOF={other:?}: porep or snap"),
    };
    run_typed::<Tree>(sector, inputs, winning)
}

/// The proofs of a stream: each one's label and partitions.
struct StreamInputs {
    kind: ProofKind,
    what: String,
    built_s: f64,
    /// A partition like every other, synthesized once for the key's shape.
    first: SynthesizeFn,
    proofs: Vec<(String, Vec<PartitionWork>)>,
}

/// `sectors` C2 proofs of random C1 outputs, each partition's circuit in pieces.
fn porep_inputs<Tree: 'static + MerkleTreeTrait>(seal: RegisteredSealProof, sectors: usize, cap: usize) -> Result<StreamInputs> {
    let t = Instant::now();
    let mut c2 = Vec::new();
    for i in 0..sectors {
        c2.push(porep::partition_pieces::<Tree>(random_vanilla::porep_c1(seal, i as u64 + 1)?)?);
    }
    let first = c2[0].pieces[0].clone();
    let proofs = c2
        .into_iter()
        .enumerate()
        .map(|(i, porep::PartitionPieces { pieces, public_inputs, .. })| {
            let partitions = pieces
                .into_iter()
                .zip(public_inputs)
                .take(cap)
                .map(|(pieces, public_inputs)| PartitionWork {
                    synthesize: synthesis_of(Pieces { pieces, namespace: porep::CHALLENGE_NAMESPACE }),
                    public_inputs,
                })
                .collect();
            (format!("{seal:?} sector {i}"), partitions)
        })
        .collect();
    Ok(StreamInputs {
        kind: ProofKind::PorepC2,
        what: "PoRep C2".into(),
        built_s: secs(t),
        first: synthesis_of(Pieces { pieces: first, namespace: porep::CHALLENGE_NAMESPACE }),
        proofs,
    })
}

/// `sectors` SnapDeals proofs, every partition a random update circuit of
/// the sector's shape, synthesized in pieces of its challenges, with the
/// public inputs stock's verifier would take for it.
fn snap_inputs<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    update: RegisteredUpdateProof,
    sectors: usize,
    cap: usize,
) -> Result<StreamInputs> {
    let t = Instant::now();
    let partitions = usize::from(filecoin_proofs::SectorUpdateConfig::from_porep_config(&update.as_v1_config()).update_partitions);
    let circuit = |seed: u64| random_vanilla::update_circuit::<Tree>(update, seed);
    let first = circuit(1)?;
    let challenges = first.pub_params.challenge_count;
    let mut proofs = Vec::new();
    for i in 0..sectors {
        let mut work = Vec::new();
        for k in 0..partitions.min(cap) {
            let c = circuit((i * partitions + k) as u64 + 1)?;
            let public_inputs = c.pub_inputs.to_vec();
            let synthesize = synthesis_of(snap::Partition { circuit: c, challenges });
            work.push(PartitionWork { synthesize, public_inputs });
        }
        proofs.push((format!("{update:?} sector {i}"), work));
    }
    Ok(StreamInputs {
        kind: ProofKind::SnapDeals,
        what: "SnapDeals".into(),
        built_s: secs(t),
        first: synthesis_of(snap::Partition { circuit: first, challenges }),
        proofs,
    })
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// The first partition synthesized, for the key's shape, with the circuit's
/// matrices recorded from it, for the key, so that the stream shows the
/// steady state (a process records once per circuit).
fn first_partition(first: SynthesizeFn) -> Result<(Synthesized, Matrices)> {
    let (matrices, witness) = first(SynthesisKind::Record)?.into_recorded()?;
    Ok((matrices.evaluate(witness)?, matrices))
}

/// A key of valid points for `cs`'s shape.
fn key_for(cs: &cuzk::circuit::Synthesized) -> Arc<ProvingKey> {
    let log = cs.num_constraints().next_power_of_two().trailing_zeros();
    Arc::new(synthetic_srs::key_for(cs, u64::from(log)))
}

/// The engine configurations to run the stream under: the environment's,
/// once for each GPU memory budget CUZK_BENCH_GPU_BUDGETS lists (comma
/// separated sizes, or `all` for none), else once as it is.
fn configurations() -> Result<(Vec<Config>, bool)> {
    let config = Config::from_env()?;
    let Ok(list) = std::env::var("CUZK_BENCH_GPU_BUDGETS") else { return Ok((vec![config], false)) };
    let configs = list
        .split(',')
        .map(|b| config.updated(json!({ "gpu_memory_budget": b.trim() }).to_string().as_bytes()).with_context(|| format!("CUZK_BENCH_GPU_BUDGETS: {b:?}")))
        .collect::<Result<Vec<_>>>()?;
    Ok((configs, true))
}

/// What every run of a stream shares: the keys, the Winning PoSt probe's
/// circuit, and what making them took.
struct Setup<Tree: 'static + MerkleTreeTrait> {
    sector: String,
    what: String,
    kind: ProofKind,
    constraints: usize,
    key: Arc<ProvingKey>,
    winning: RegisteredPoStProof,
    post: FallbackPoStCircuit<Tree>,
    post_inputs: Vec<Fr>,
    post_constraints: usize,
    post_key: Arc<ProvingKey>,
    seconds: Value,
}

fn run_typed<Tree: 'static + MerkleTreeTrait>(
    sector: &str,
    inputs: impl Fn() -> Result<StreamInputs>,
    winning: RegisteredPoStProof,
) -> Result<()> {
    let (configs, several) = configurations()?;
    let started = Instant::now();
    let StreamInputs { kind, what, built_s, first, proofs } = inputs()?;
    let mut unused = Some(proofs);
    let t = Instant::now();
    let (cs, matrices) = first_partition(first)?;
    let first_synthesis_s = secs(t);
    let constraints = cs.num_constraints();
    let t = Instant::now();
    let key = key_for(&cs);
    drop(cs);
    let _ = key.matrices.set(matrices);
    let key_s = secs(t);
    eprintln!("stream: {sector} {what} partition of {constraints} constraints synthesized in {first_synthesis_s:.1} s; key ({} bytes) in {key_s:.1} s", key.size_bytes());

    let post = random_vanilla::post_circuit::<Tree>(winning, 1)?;
    let post_cs = synthesize(post.clone())?;
    let post_inputs = post_cs.inputs[1..].to_vec();
    let post_constraints = post_cs.num_constraints();
    let post_key = key_for(&post_cs);
    drop(post_cs);
    let seconds = json!({
        "build_circuits": built_s, "first_synthesis": first_synthesis_s, "key_generation": key_s,
        "total_before_streams": secs(started),
    });
    let setup = Setup { sector: sector.into(), what, kind, constraints, key, winning, post, post_inputs, post_constraints, post_key, seconds };

    let mut runs = Vec::new();
    for config in configs {
        let proofs = match unused.take() {
            Some(proofs) => proofs,
            None => inputs()?.proofs,
        };
        let run = stream_once(&setup, config, proofs)?;
        // Each run's figures as it ends, in case a later one does not.
        eprintln!("stream: done: {}", json!({ "budget": run["engine_config"]["gpu_memory_budget"], "stream": run["stream"]["stream_seconds"], "median": run["stream"]["median_seconds"] }));
        runs.push(run);
    }
    let report = match runs.pop() {
        Some(only) if !several => only,
        last => json!({ "bench": "stream", "runs": runs.into_iter().chain(last).collect::<Vec<_>>() }),
    };
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// One stream of `proofs` through an engine configured as `config`, the
/// keys placed on the device as its proofs will find them first.
fn stream_once<Tree: 'static + MerkleTreeTrait>(s: &Setup<Tree>, config: Config, proofs: Vec<(String, Vec<PartitionWork>)>) -> Result<Value> {
    let probes = env_or("CUZK_BENCH_PROBES", 3)?;
    let gap = Duration::from_secs(env_or("CUZK_BENCH_PROBE_GAP_S", 5)? as u64);
    let sampler = Sampler::start();
    let (sector, what, kind, constraints, winning) = (&s.sector, &s.what, s.kind, s.constraints, s.winning);
    let sectors = proofs.len();
    eprintln!("stream: {sectors} x {sector} {what}, GPU memory budget {:?}", config.gpu_memory_budget);

    // Keys on the device before anything is timed, as a running miner has them.
    let t = Instant::now();
    let gpus = config.selected_gpus();
    let placed = prover::Placement { gpus: Some(&gpus), rank: 0, gpu_memory_budget: config.gpu_memory_budget, host_room: None };
    prover::warm(&s.key, placed)?;
    prover::warm(&s.post_key, placed)?;
    let upload_s = secs(t);
    let key_on_device = key_on_device(&s.key, placed)?;

    let engine = Engine::new(config.clone());
    let winning_job = |seed: u64| -> Result<JobId> {
        let circuit = s.post.clone();
        engine.submit(JobSpec {
            kind: ProofKind::WinningPost,
            priority: ProofKind::WinningPost.default_priority(),
            label: format!("{winning:?} probe {seed}"),
            key: s.post_key.clone(),
            partitions: vec![PartitionWork { synthesize: synthesis_of(Whole(circuit)), public_inputs: s.post_inputs.clone() }],
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

    // The stream: every proof submitted at once.
    let (stream_start, cpu_before) = (Instant::now(), usage());
    let mut jobs = Vec::new();
    for (label, partitions) in proofs {
        jobs.push(engine.submit(JobSpec {
            kind,
            priority: kind.default_priority(),
            label,
            key: s.key.clone(),
            partitions,
            verification: Verification::TimingOnly,
        })?);
    }
    // Probes start once the first partition is on the prover.
    while engine.status().proving == 0 {
        if let Some(&failed) = jobs.iter().find(|&&id| engine.poll(id).is_some_and(|s| s.is_finished())) {
            latency(failed, stream_start)?;
            bail!("{what} job {failed:?} ended before its first proof");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Each proof's latency is taken as it completes, on a thread of its own,
    // while the probes run: the stream may end during a probe's gap.
    let (proof_latency, stream_s, cpu, loaded, stream_busy) = std::thread::scope(|scope| -> Result<_> {
        let waiter = scope.spawn(|| -> Result<(Vec<f64>, f64, Usage)> {
            let latencies = jobs.iter().map(|&id| latency(id, stream_start)).collect::<Result<Vec<f64>>>()?;
            Ok((latencies, secs(stream_start), usage()))
        });
        let mut loaded = Vec::new();
        let mut stream_busy = Vec::new();
        for p in 0..probes {
            let t = Instant::now();
            let l = latency(winning_job(100 + p as u64)?, t)?;
            eprintln!("stream: Winning PoSt probe {p} under load: {l:.3} s");
            loaded.push(l);
            stream_busy.push(!waiter.is_finished());
            std::thread::sleep(gap);
        }
        let (latencies, stream_s, cpu) = waiter.join().map_err(|_| anyhow::anyhow!("the stream's waiter panicked"))??;
        Ok((latencies, stream_s, cpu, loaded, stream_busy))
    })?;
    if stream_busy.contains(&false) {
        eprintln!("stream: the {what} stream ended before the last Winning PoSt probe: raise CUZK_BENCH_SECTORS");
    }
    let (user_s, system_s) = (cpu.user_s - cpu_before.user_s, cpu.system_s - cpu_before.system_s);
    let memory = sampler.stop();
    let events = engine.timeline();

    let spans = timeline::spans(&events);
    if let Ok(path) = std::env::var("CUZK_BENCH_SVG") {
        let title = format!("cuzk engine: {sectors} x {sector} {what} ({constraints} constraints per partition) + Winning PoSt probes");
        std::fs::write(&path, timeline::svg(&spans, &title)).with_context(|| format!("writing {path}"))?;
        eprintln!("timeline picture: {path}");
    }
    let streamed = partitions(&events, kind.default_priority());
    let proved = streamed.len();
    let gpu_busy: f64 = streamed.iter().map(|p| p["prove_s"].as_f64().unwrap_or(0.0)).sum();
    let report = json!({
        "bench": "stream",
        "machine": {
            "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "gpus": gpu_status(),
        },
        "engine_config": config,
        "sector": sector,
        "stream": {
            "proof": what,
            "proofs": sectors, "partitions": proved, "constraints_per_partition": constraints,
            "key_bytes": s.key.size_bytes(),
            "estimated_partition_bytes": engine.partition_bytes(&s.key),
            "stream_seconds": stream_s,
            "partitions_per_minute": proved as f64 / stream_s * 60.0,
            "proof_latency_seconds": proof_latency,
            "prover_busy_fraction": gpu_busy / stream_s,
            // The whole process (synthesis, the proofs' CPU steps, probes).
            "cpu": { "user_s": user_s, "system_s": system_s, "busy_cores": (user_s + system_s) / stream_s },
            "median_seconds": {
                "synthesis": median_at(&streamed, "/synthesis_s"),
                "ready_wait": median_at(&streamed, "/ready_wait_s"),
                "prove": median_at(&streamed, "/prove_s"),
                "prove_steps": step_medians(&streamed),
            },
            "partitions_detail": streamed,
        },
        "winning_post": {
            "constraints": s.post_constraints,
            "idle_seconds": idle, "idle_median": median(&idle),
            "under_stream_seconds": loaded, "under_stream_median": median(&loaded),
            "stream_still_running_after_each": stream_busy,
            "partitions_detail": partitions(&events, ProofKind::WinningPost.default_priority()),
        },
        "setup_seconds": s.seconds,
        "key_upload_seconds": upload_s,
        "key_parts_on_device": key_on_device,
        "memory": memory,
    });
    Ok(report)
}

/// The parts of `pk` a proof placed `on` finds on its GPU (`null` without one).
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
fn key_on_device(pk: &Arc<ProvingKey>, on: prover::Placement) -> Result<Value> {
    #[cfg(feature = "cuda")]
    if let Some(gpu) = cuzk::gpu::GpuProver::acquire_among(pk, on.gpus, 0, on.gpu_memory_budget) {
        return Ok(json!(format!("{:?}", gpu?.residency())));
    }
    Ok(Value::Null)
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

/// The median of each Groth16 step over the partitions (`partitions` rows).
fn step_medians(rows: &[Value]) -> Value {
    let Some(Value::Object(steps)) = rows.first().map(|r| &r["steps"]["groth16"]) else { return Value::Null };
    steps
        .keys()
        .map(|step| (step.clone(), json!(median_at(rows, &format!("/steps/groth16/{step}")))))
        .collect::<serde_json::Map<_, _>>()
        .into()
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
