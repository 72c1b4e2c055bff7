//! `cuzk bench engine`: the engine against the sequential path on the same
//! work, and Winning PoSt latency while a stream of C2-like jobs runs. The
//! circuits are synthetic (MulChain) with real Groth16 keys from bellperson's
//! generator, so every proof is verified as in production; sizes are set by
//! environment so the same command runs on a laptop or a GPU host.
//!
//! Env: CUZK_BENCH_C2_LINKS (constraints of a C2-like partition, default
//! 2^14), CUZK_BENCH_POST_LINKS (Winning-like, default 2^10), CUZK_BENCH_JOBS
//! (C2-like jobs, default 4), CUZK_BENCH_PARTITIONS (per job, default 4),
//! CUZK_BENCH_PROBES (Winning PoSt submissions under load, default 5),
//! CUZK_BENCH_SVG (a path: the pipelined run's timeline as an SVG picture).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{bail, ensure, Context, Result};
use bellperson::groth16::{generate_random_parameters, verify_proofs_batch};
use blstrs::{Bls12, Scalar as Fr};
use cuzk::{
    circuit::{synthesize, MulChain, Whole},
    engine::{
        prover::{prove_under, GpuFailure},
        synthesis_of,
        timeline::{Event, Stage},
        Config, Engine, JobId, JobSpec, PartitionWork, Priority, ProofKind, Verification, WaitOutcome,
    },
    groth16::{random_rs, ProvingKey},
};
use rand::{rngs::OsRng, SeedableRng};

use crate::timeline;
use serde_json::json;

pub fn env_usize(name: &str, default: usize) -> Result<usize> {
    match std::env::var(name) {
        Ok(v) => v.parse().with_context(|| format!("{name}={v:?}")),
        Err(_) => Ok(default),
    }
}

/// The process's CPU time, page faults and peak resident memory so far.
#[derive(Clone, Copy)]
pub struct Usage {
    pub user_s: f64,
    pub system_s: f64,
    pub minor_faults: i64,
    pub peak_rss_bytes: i64,
}

/// This process's `Usage` now.
pub fn usage() -> Usage {
    usage_of(libc::RUSAGE_SELF)
}

/// The `Usage` of this process's children that have ended and been waited for.
pub fn children_usage() -> Usage {
    usage_of(libc::RUSAGE_CHILDREN)
}

fn usage_of(who: libc::c_int) -> Usage {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `u` is a writable rusage; getrusage fills it (it fails only for
    // an invalid `who`, and both callers pass a valid one).
    let u = unsafe {
        libc::getrusage(who, u.as_mut_ptr());
        u.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Usage {
        user_s: secs(u.ru_utime),
        system_s: secs(u.ru_stime),
        minor_faults: u.ru_minflt,
        peak_rss_bytes: u.ru_maxrss * 1024,
    }
}

fn key(links: usize) -> Result<Arc<ProvingKey>> {
    let start = Instant::now();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(links as u64);
    let params = generate_random_parameters::<Bls12, _, _>(chain(1, links), &mut rng)?;
    let mut bytes = Vec::new();
    params.write(&mut bytes)?;
    eprintln!("bench: key of {links} constraints generated in {:.1} s", start.elapsed().as_secs_f64());
    Ok(Arc::new(ProvingKey::read_bytes(&bytes)?))
}

fn chain(start: u64, links: usize) -> MulChain {
    MulChain { start: Fr::from(start), links }
}

fn spec(kind: ProofKind, key: &Arc<ProvingKey>, links: usize, partitions: usize, seed: u64) -> JobSpec {
    JobSpec {
        kind,
        priority: kind.default_priority(),
        label: format!("bench {kind:?} {seed}"),
        key: key.clone(),
        partitions: (0..partitions)
            .map(|k| {
                let c = chain(seed * 1000 + k as u64, links);
                let public_inputs = vec![c.output()];
                PartitionWork { synthesize: synthesis_of(Whole(c)), public_inputs }
            })
            .collect(),
        verification: Verification::Required,
    }
}

/// Waits for job `id`; its error, if it failed.
pub fn finish(engine: &Engine, id: JobId) -> Result<()> {
    match engine.wait(id, None) {
        WaitOutcome::Finished(r) => r.map(drop),
        _ => bail!("job {id:?} lost"),
    }
}

/// The old path: each partition synthesized, proved and verified in turn on
/// the caller's thread.
fn sequential(key: &Arc<ProvingKey>, links: usize, jobs: usize, partitions: usize) -> Result<f64> {
    let start = Instant::now();
    for j in 0..jobs {
        for k in 0..partitions {
            let c = chain((j as u64 + 1) * 1000 + k as u64, links);
            let inputs = vec![c.output()];
            let cs = synthesize(c)?;
            let (r, s) = random_rs(&mut OsRng);
            let proof = prove_under(GpuFailure::RetryOnCpu, key, cs, r, s)?;
            ensure!(verify_proofs_batch(key.prepared_vk(), &mut OsRng, &[&proof.to_bellperson()], &[inputs])?, "proof invalid");
        }
    }
    Ok(start.elapsed().as_secs_f64())
}

fn engine_config() -> Result<Config> {
    Config::from_env()
}

/// The same jobs through the engine, all submitted at once.
fn pipelined(key: &Arc<ProvingKey>, links: usize, jobs: usize, partitions: usize) -> Result<(f64, Vec<Event>)> {
    let engine = Engine::new(engine_config()?);
    let start = Instant::now();
    let ids: Vec<JobId> = (0..jobs)
        .map(|j| engine.submit(spec(ProofKind::PorepC2, key, links, partitions, j as u64 + 1)))
        .collect::<Result<_>>()?;
    for id in ids {
        finish(&engine, id)?;
    }
    Ok((start.elapsed().as_secs_f64(), engine.timeline()))
}

/// Winning PoSt latency (submit to verified proof), idle and while C2-like
/// jobs keep the engine busy.
fn post_latency(
    c2_key: &Arc<ProvingKey>,
    post_key: &Arc<ProvingKey>,
    c2_links: usize,
    post_links: usize,
    probes: usize,
) -> Result<(Vec<f64>, Vec<f64>, Option<f64>)> {
    let engine = Engine::new(engine_config()?);
    let mut idle = Vec::new();
    for p in 0..probes {
        let start = Instant::now();
        let id = engine.submit(spec(ProofKind::WinningPost, post_key, post_links, 1, 900 + p as u64))?;
        finish(&engine, id)?;
        idle.push(start.elapsed().as_secs_f64());
    }
    // A stream: more C2-like work queued than the probes take to run.
    let stream: Vec<JobId> = (0..probes + 2)
        .map(|j| engine.submit(spec(ProofKind::PorepC2, c2_key, c2_links, 4, 500 + j as u64)))
        .collect::<Result<_>>()?;
    // The stream is running: its first partition is being proved.
    while engine.status().proving == 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut loaded = Vec::new();
    for p in 0..probes {
        let start = Instant::now();
        let id = engine.submit(spec(ProofKind::WinningPost, post_key, post_links, 1, 950 + p as u64))?;
        finish(&engine, id)?;
        loaded.push(start.elapsed().as_secs_f64());
        std::thread::sleep(Duration::from_millis(200));
    }
    let status = engine.status();
    for id in stream {
        engine.cancel(id);
    }
    ensure!(status.pending_partitions > 0, "the C2 stream ran dry before the last probe");
    // Median proving time of a C2-like partition, to compare the latency with.
    let events = engine.timeline();
    let proving: Vec<f64> = events
        .iter()
        .filter(|e| e.stage == Stage::ProveStart && e.priority == Priority::Low)
        .filter_map(|s| {
            let end = events.iter().find(|e| e.stage == Stage::ProveEnd && e.job == s.job && e.partition == s.partition)?;
            Some((end.at - s.at).as_secs_f64())
        })
        .collect();
    Ok((idle, loaded, median(&proving)))
}

/// The middle value (the upper one of an even count); `None` for no values.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied()
}

/// The `median` of the number at JSON `pointer` (e.g. `/wall_s`) in each of
/// `rows`; rows without one are left out.
pub fn median_at(rows: &[serde_json::Value], pointer: &str) -> Option<f64> {
    median(&rows.iter().filter_map(|r| r.pointer(pointer)?.as_f64()).collect::<Vec<_>>())
}

/// `cuzk bench engine|stream|pieces|params`.
pub fn run(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("engine") => {}
        Some("stream") => return crate::stream::run(),
        Some("pieces") => return crate::pieces::run(),
        Some("params") => return crate::params_bench::run(),
        _ => bail!("usage: cuzk bench engine|stream|pieces|params"),
    }
    let c2_links = env_usize("CUZK_BENCH_C2_LINKS", 1 << 14)?;
    let post_links = env_usize("CUZK_BENCH_POST_LINKS", 1 << 10)?;
    let jobs = env_usize("CUZK_BENCH_JOBS", 4)?;
    let partitions = env_usize("CUZK_BENCH_PARTITIONS", 4)?;
    let probes = env_usize("CUZK_BENCH_PROBES", 5)?;
    let c2_key = key(c2_links)?;
    let post_key = key(post_links)?;

    // Device initialisation and the key upload are paid before either is timed.
    let (r, s) = random_rs(&mut OsRng);
    prove_under(GpuFailure::RetryOnCpu, &c2_key, synthesize(chain(1, c2_links))?, r, s)?;
    let seq = sequential(&c2_key, c2_links, jobs, partitions)?;
    let (pipe, events) = pipelined(&c2_key, c2_links, jobs, partitions)?;
    let total = (jobs * partitions) as f64;
    let spans = timeline::spans(&events);
    eprintln!("timeline of the pipelined run (s: synthesis, P: proving and verification):\n{}", timeline::text(&spans, 8));
    if let Ok(path) = std::env::var("CUZK_BENCH_SVG") {
        let title = format!("cuzk engine: {jobs} jobs x {partitions} partitions of {c2_links} constraints");
        std::fs::write(&path, timeline::svg(&spans, &title)).with_context(|| format!("writing {path}"))?;
        eprintln!("timeline picture: {path}");
    }
    let (idle, loaded, partition_prove) = post_latency(&c2_key, &post_key, c2_links, post_links, probes)?;
    let config = engine_config()?;
    let report = json!({
        "machine": { "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) },
        "engine_config": config,
        "throughput": {
            "partition_constraints": c2_links,
            "jobs": jobs, "partitions_per_job": partitions,
            "sequential_seconds": seq, "engine_seconds": pipe,
            "sequential_partitions_per_minute": total / seq * 60.0,
            "engine_partitions_per_minute": total / pipe * 60.0,
            "speedup": seq / pipe,
        },
        "winning_post_latency": {
            "post_constraints": post_links,
            "idle_seconds": idle, "idle_median": median(&idle),
            "under_c2_stream_seconds": loaded, "under_c2_stream_median": median(&loaded),
            "c2_partition_proving_median_seconds": partition_prove,
        },
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
