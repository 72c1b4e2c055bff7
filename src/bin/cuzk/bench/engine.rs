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

use anyhow::{ensure, Context, Result};
use bellperson::groth16::{generate_random_parameters, verify_proofs_batch};
use blstrs::{Bls12, Scalar as Fr};
use cuzk::{
    circuit::{synthesize, MulChain, Whole},
    engine::{
        prover::{prove_under, GpuFailure},
        synthesis_of,
        timeline::{Event, Stage},
        Config, Engine, JobId, JobSpec, PartitionWork, Priority, ProofKind, Verification,
    },
    groth16::{random_rs, ProvingKey},
};
use rand::{rngs::OsRng, SeedableRng};
use serde_json::json;

use super::{env_or, finish, median, timeline};

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
    // One Winning PoSt job, waited for: its latency.
    let probe = |seed: u64| -> Result<f64> {
        let start = Instant::now();
        finish(&engine, engine.submit(spec(ProofKind::WinningPost, post_key, post_links, 1, seed))?)?;
        Ok(start.elapsed().as_secs_f64())
    };
    let idle = (0..probes).map(|p| probe(900 + p as u64)).collect::<Result<Vec<_>>>()?;
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
        loaded.push(probe(950 + p as u64)?);
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

pub fn run() -> Result<()> {
    let c2_links = env_or("CUZK_BENCH_C2_LINKS", 1 << 14)?;
    let post_links = env_or("CUZK_BENCH_POST_LINKS", 1 << 10)?;
    let jobs = env_or("CUZK_BENCH_JOBS", 4)?;
    let partitions = env_or("CUZK_BENCH_PARTITIONS", 4)?;
    let probes = env_or("CUZK_BENCH_PROBES", 5)?;
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
