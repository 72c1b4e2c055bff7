//! `cuzk bench pieces`: how the synthesis of a partition scales over cores.
//! One partition of random vanilla proofs of the sector's exact shape: a
//! PoRep partition in pieces (one per challenge, each after the shared
//! commitments; see `circuit::synthesize_pieces`), a SnapDeals partition
//! (`api::snap::synthesize_partition`: ranges of its challenges) or a
//! Winning or Window PoSt partition (whole, as the engine takes it: the
//! stock circuit synthesizes its sectors apart on rayon's pool). The
//! one-thread baseline is one PoRep piece alone (times the piece count) or
//! the whole partition synthesized as bellperson does; then the
//! whole partition (or CUZK_BENCH_AT_ONCE of them at once) on every thread
//! of rayon's pool, CUZK_BENCH_RUNS times each. Prints JSON: each run's wall
//! time, the process's user and system CPU seconds and minor page faults
//! during it, the process's peak RSS so far, and the parallel efficiency
//! (the one-thread time of the partitions over threads x wall time). A
//! synthesis that scales has an efficiency near 1 and little system time;
//! page faults show memory the kernel had to hand out (first touch).
//!
//! With CUZK_BENCH_WITNESS=1, the same partition again as the engine's
//! witness mode synthesizes it: its matrices recorded once (timed), then
//! its witness alone on every thread, and its witness with a, b, c
//! evaluated from the matrices; each run's wall and CPU seconds beside full
//! synthesis's (for SnapDeals, the stock circuit's witness beside cuzk's);
//! the mix of zeros, ones and other values among the scalars of the L, A
//! and B MSMs; with the `cuda` feature and a GPU, a, b, c evaluated on the
//! device too (checked equal to the CPU's).
//!
//! env: CUZK_BENCH_PROOF (porep, snap, winning or window; default porep),
//! CUZK_BENCH_SECTOR (2KiB, 512MiB or 32GiB; default 32GiB), CUZK_BENCH_RUNS
//! (default 3), CUZK_BENCH_BASELINE (0 leaves out the one-thread baseline: a
//! 32 GiB Window PoSt partition takes many minutes on one thread),
//! CUZK_BENCH_AT_ONCE (partitions synthesized at once on the pool, as the
//! engine's synthesis workers do; default 1), CUZK_BENCH_WITNESS,
//! RAYON_NUM_THREADS.

use std::time::Instant;

use anyhow::{Context, Result};
use blstrs::Scalar as Fr;
use cuzk::{
    api::{porep, random_vanilla, snap},
    circuit::{
        segment_pieces, synthesize, synthesize_segments, Matrices, PartitionCircuit, Pieces, Recorder, Synthesized, Whole,
        Witness,
    },
};
use ff::Field;
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use rayon::prelude::*;
use serde_json::{json, Value};
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_update::constants::TreeRHasher;

use super::{env_or, median_at, usage};

pub fn run() -> Result<()> {
    let sector = std::env::var("CUZK_BENCH_SECTOR").unwrap_or_else(|_| "32GiB".into());
    let proof = std::env::var("CUZK_BENCH_PROOF").unwrap_or_else(|_| "porep".into());
    use RegisteredPoStProof as Post;
    use RegisteredSealProof as Seal;
    use RegisteredUpdateProof as Update;
    match (proof.as_str(), sector.as_str()) {
        ("porep", "2KiB") => porep_typed::<SectorShape2KiB>(&sector, Seal::StackedDrg2KiBV1_1),
        ("porep", "512MiB") => porep_typed::<SectorShape512MiB>(&sector, Seal::StackedDrg512MiBV1_1),
        ("porep", "32GiB") => porep_typed::<SectorShape32GiB>(&sector, Seal::StackedDrg32GiBV1_1),
        ("snap", "2KiB") => snap_typed::<SectorShape2KiB>(&sector, Update::StackedDrg2KiBV1),
        ("snap", "512MiB") => snap_typed::<SectorShape512MiB>(&sector, Update::StackedDrg512MiBV1),
        ("snap", "32GiB") => snap_typed::<SectorShape32GiB>(&sector, Update::StackedDrg32GiBV1),
        ("winning", "2KiB") => post_typed::<SectorShape2KiB>(&sector, &proof, Post::StackedDrgWinning2KiBV1),
        ("winning", "512MiB") => post_typed::<SectorShape512MiB>(&sector, &proof, Post::StackedDrgWinning512MiBV1),
        ("winning", "32GiB") => post_typed::<SectorShape32GiB>(&sector, &proof, Post::StackedDrgWinning32GiBV1),
        ("window", "2KiB") => post_typed::<SectorShape2KiB>(&sector, &proof, Post::StackedDrgWindow2KiBV1_2),
        ("window", "512MiB") => post_typed::<SectorShape512MiB>(&sector, &proof, Post::StackedDrgWindow512MiBV1_2),
        ("window", "32GiB") => post_typed::<SectorShape32GiB>(&sector, &proof, Post::StackedDrgWindow32GiBV1_2),
        _ => anyhow::bail!(
            "CUZK_BENCH_PROOF={proof:?} CUZK_BENCH_SECTOR={sector:?}: porep, snap, winning or window; 2KiB, 512MiB or 32GiB"
        ),
    }
}

/// One run of `f`: its wall and CPU seconds, minor page faults and the
/// process's peak RSS so far.
fn measured<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Value)> {
    let (before, start) = (usage(), Instant::now());
    let out = f()?;
    let wall_s = start.elapsed().as_secs_f64();
    let after = usage();
    let (user_s, system_s) = (after.user_s - before.user_s, after.system_s - before.system_s);
    let row = json!({
        "wall_s": wall_s,
        "user_s": user_s,
        "system_s": system_s,
        "cpu_s": user_s + system_s,
        "minor_faults": after.minor_faults - before.minor_faults,
        "process_peak_rss_bytes": after.peak_rss_bytes,
    });
    Ok((out, row))
}

/// Runs `synthesize` (giving the constraints synthesized) on `pool` `runs`
/// times, `at_once` partitions at a time from as many threads (as the
/// engine's synthesis workers share its pool): one JSON row per run.
fn timed(
    pool: &rayon::ThreadPool,
    runs: usize,
    at_once: usize,
    synthesize: impl Fn() -> Result<usize> + Send + Sync,
) -> Result<Vec<Value>> {
    (0..runs)
        .map(|_| {
            let (constraints, mut row) = measured(|| {
                std::thread::scope(|scope| {
                    let workers: Vec<_> = (0..at_once).map(|_| scope.spawn(|| pool.install(&synthesize))).collect();
                    let done = workers.into_iter().map(|w| w.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a synthesis panicked"))));
                    done.collect::<Result<Vec<usize>>>()
                })
            })?;
            row["partitions"] = at_once.into();
            row["constraints"] = constraints[0].into();
            row["partitions_per_minute"] = (at_once as f64 * 60.0 / row["wall_s"].as_f64().unwrap_or(f64::NAN)).into();
            Ok(row)
        })
        .collect()
}

/// `synthesize` on one thread `runs` times, unless CUZK_BENCH_BASELINE=0.
fn baseline(single: &rayon::ThreadPool, runs: usize, synthesize: impl Fn() -> Result<usize> + Send + Sync) -> Result<Vec<Value>> {
    match env_or("CUZK_BENCH_BASELINE", 1)? {
        0 => Ok(Vec::new()),
        _ => timed(single, runs, 1, synthesize),
    }
}

/// CUZK_BENCH_RUNS and CUZK_BENCH_AT_ONCE.
fn runs_at_once() -> Result<(usize, usize)> {
    Ok((env_or("CUZK_BENCH_RUNS", 3)?.max(1), env_or("CUZK_BENCH_AT_ONCE", 1)?.max(1)))
}

/// A one-thread pool and one of every thread.
fn pools() -> Result<(rayon::ThreadPool, rayon::ThreadPool)> {
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().context("a one-thread pool")?;
    let all = rayon::ThreadPoolBuilder::new().build().context("a pool of every thread")?;
    Ok((single, all))
}

/// The JSON report: `baseline` (one thread) stands for `baseline_times` of
/// its median, the one-thread cost of the whole partition.
fn report(
    sector: &str,
    proof: &str,
    pieces: usize,
    threads: usize,
    baseline: (&str, Vec<Value>, usize),
    whole: Vec<Value>,
    witness: Option<Value>,
) -> Result<()> {
    let (name, baseline, baseline_times) = baseline;
    let (one_s, whole_s) = (median_at(&baseline, "/wall_s"), median_at(&whole, "/wall_s"));
    let at_once = whole.first().and_then(|r| r["partitions"].as_u64()).unwrap_or(1) as f64;
    let efficiency = one_s.zip(whole_s).map(|(p, w)| p * baseline_times as f64 * at_once / (threads as f64 * w));
    let report = json!({
        "proof": proof,
        "sector": sector,
        "threads": threads,
        "pieces": pieces,
        name: { "runs": baseline, "wall_median_s": one_s },
        "partitions_at_once": at_once,
        "parallel_efficiency": efficiency,
        "witness_mode": witness,
        "partition_all_threads": { "wall_median_s": whole_s, "cpu_median_s": median_at(&whole, "/cpu_s"), "runs": whole },
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

fn porep_typed<Tree: 'static + MerkleTreeTrait>(sector: &str, seal: RegisteredSealProof) -> Result<()> {
    let (runs, at_once) = runs_at_once()?;
    let c1 = random_vanilla::porep_c1(seal, 1)?;
    let partition = porep::partition_pieces::<Tree>(c1)?.pieces.swap_remove(0);
    // Piece 0 carries no more than the others; piece 1 is a typical one.
    let one = &partition[partition.len().min(2) - 1..][..1];
    let (single, all) = pools()?;
    let threads = all.current_num_threads();
    eprintln!("pieces: {sector} PoRep partition of {} pieces: one piece on one thread, then all on {threads}", partition.len());
    let in_pieces = |pieces: &[_]| Pieces { pieces: pieces.to_vec(), namespace: porep::CHALLENGE_NAMESPACE };
    let full = |pieces: &[_]| Ok(in_pieces(pieces).synthesize_into::<Synthesized>()?.num_constraints());
    let one_piece = baseline(&single, runs, || full(one))?;
    let whole = timed(&all, runs, at_once, || full(&partition))?;
    let witness = witness_mode(&all, runs, at_once, || Ok(in_pieces(&partition)), None)?;
    report(sector, "porep", partition.len(), threads, ("one_piece_one_thread", one_piece, partition.len()), whole, witness)
}

/// With a GPU: the matrices uploaded, then a, b, c of `witness` evaluated
/// there `runs` times (the kernels alone, and with the witness's upload and
/// a, b, c's download), checked equal to the CPU's.
#[cfg(feature = "cuda")]
fn abc_on_gpu(matrices: &Matrices, witness: Witness, runs: usize) -> Result<Value> {
    let Some(device) = cuzk::gpu::devices().first() else { return Ok(Value::Null) };
    let (on_device, upload) = measured(|| cuzk::gpu::DeviceMatrices::upload(device, matrices))?;
    let mut rows = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let (abc, mut row) = measured(|| on_device.evaluate(&witness))?;
        row["kernel_s"] = abc.kernel_seconds.into();
        rows.push(row);
        last = Some(abc);
    }
    let abc = last.context("no run")?;
    let cpu = matrices.evaluate(witness)?;
    anyhow::ensure!(abc.a == cpu.a && abc.b == cpu.b && abc.c == cpu.c, "a, b, c on the GPU differ from the CPU's");
    Ok(json!({
        "device": device.name,
        "upload": upload,
        "kernel_median_s": median_at(&rows, "/kernel_s"),
        "with_copies_median_s": median_at(&rows, "/wall_s"),
        "runs": rows,
    }))
}

#[cfg(not(feature = "cuda"))]
fn abc_on_gpu(_: &Matrices, _: Witness, _: usize) -> Result<Value> {
    Ok(Value::Null)
}

/// The fractions of `scalars` that are zero, one, minus one and anything
/// else: what the GPU's split MSMs (over the aux part) find in a witness.
fn scalar_mix(scalars: &[Fr]) -> Value {
    let counts = scalars
        .par_iter()
        .fold(
            || [0usize; 4],
            |mut c, s| {
                c[if s.is_zero_vartime() { 0 } else if *s == Fr::ONE { 1 } else if *s == -Fr::ONE { 2 } else { 3 }] += 1;
                c
            },
        )
        .reduce(|| [0; 4], |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]);
    let of = |k: usize| counts[k] as f64 / scalars.len().max(1) as f64;
    json!({ "count": scalars.len(), "zero": of(0), "one": of(1), "minus_one": of(2), "other": of(3) })
}

/// With CUZK_BENCH_WITNESS=1, the partition as the engine's witness mode
/// synthesizes it: recorded once, then its witness alone, and its witness
/// with a, b, c evaluated from the matrices, `runs` times each; where given,
/// the witness of the stock circuit in the same pieces (`stock_witness`,
/// the peer of cuzk's written-out circuit) too.
fn witness_mode<P: PartitionCircuit>(
    pool: &rayon::ThreadPool,
    runs: usize,
    at_once: usize,
    partition: impl Fn() -> Result<P> + Send + Sync,
    stock_witness: Option<&(dyn Fn() -> Result<Witness> + Sync)>,
) -> Result<Option<Value>> {
    if env_or("CUZK_BENCH_WITNESS", 0)? == 0 {
        return Ok(None);
    }
    let (matrices, record) = measured(|| Ok(pool.install(|| partition()?.synthesize_into::<Recorder>())?.finish()?.0))?;
    let matrices: &Matrices = &matrices;
    let witness = || pool.install(|| partition()?.synthesize_into::<Witness>());
    let witness_only = timed(pool, runs, at_once, || {
        matrices.check_witness(&witness()?)?;
        Ok(matrices.num_constraints())
    })?;
    let stock_witness_only = match stock_witness {
        Some(stock) => {
            let rows = timed(pool, runs, at_once, || {
                matrices.check_witness(&pool.install(stock)?)?;
                Ok(matrices.num_constraints())
            })?;
            let (ours, stock) = (median_at(&witness_only, "/wall_s"), median_at(&rows, "/wall_s"));
            json!({
                "wall_median_s": stock,
                "cpu_median_s": median_at(&rows, "/cpu_s"),
                "stock_over_cuzk_wall": stock.zip(ours).map(|(s, o)| s / o),
                "runs": rows,
            })
        }
        None => Value::Null,
    };
    let with_abc = timed(pool, runs, at_once, || Ok(pool.install(|| matrices.evaluate(witness()?))?.num_constraints()))?;
    let w = witness()?;
    let msm_scalars = json!({
        "l": scalar_mix(&w.aux),
        "a": scalar_mix(&matrices.a_aux_density.select(&w.aux)),
        "b": scalar_mix(&matrices.b_aux_density.select(&w.aux)),
    });
    let abc_on_gpu = abc_on_gpu(matrices, w, runs)?;
    Ok(Some(json!({
        "matrices": { "bytes": matrices.size_bytes(), "terms": matrices.num_terms(), "distinct_coefficients": matrices.coeffs.len() },
        "msm_scalars": msm_scalars,
        "abc_on_gpu": abc_on_gpu,
        "record": record,
        "witness_only": { "wall_median_s": median_at(&witness_only, "/wall_s"), "cpu_median_s": median_at(&witness_only, "/cpu_s"), "runs": witness_only },
        "stock_circuit_witness_only": stock_witness_only,
        "witness_and_abc": { "wall_median_s": median_at(&with_abc, "/wall_s"), "cpu_median_s": median_at(&with_abc, "/cpu_s"), "runs": with_abc },
    })))
}

fn snap_typed<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(sector: &str, update: RegisteredUpdateProof) -> Result<()> {
    let (runs, at_once) = runs_at_once()?;
    // Deterministic from its seed: each run builds its own.
    let circuit = || random_vanilla::update_circuit::<Tree>(update, 1);
    let challenges = circuit()?.pub_params.challenge_count;
    let (single, all) = pools()?;
    let threads = all.current_num_threads();
    eprintln!("pieces: {sector} SnapDeals partition of {challenges} challenges: on one thread as bellperson does, then in pieces on {threads}");
    let one_thread = baseline(&single, runs, || Ok(synthesize(circuit()?)?.num_constraints()))?;
    let whole = timed(&all, runs, at_once, || Ok(snap::synthesize_partition::<Synthesized, _>(circuit()?, challenges)?.num_constraints()))?;
    let pieces = all.install(|| segment_pieces(challenges));
    let stock = || {
        let stock = circuit()?;
        synthesize_segments(|| snap::copy_circuit(&stock), challenges, &snap::challenge_of)
    };
    let witness = witness_mode(&all, runs, at_once, || Ok(snap::Partition { circuit: circuit()?, challenges }), Some(&stock))?;
    report(sector, "snap", pieces, threads, ("whole_one_thread", one_thread, 1), whole, witness)
}

fn post_typed<Tree: 'static + MerkleTreeTrait>(sector: &str, proof: &str, rp: RegisteredPoStProof) -> Result<()> {
    let (runs, at_once) = runs_at_once()?;
    let circuit = random_vanilla::post_circuit::<Tree>(rp, 1)?;
    let sectors = circuit.sectors.len();
    let (single, all) = pools()?;
    let threads = all.current_num_threads();
    eprintln!("pieces: {sector} {rp:?} partition of {sectors} sectors: on one thread, then on {threads}");
    let full = || Ok(Whole(circuit.clone()).synthesize_into::<Synthesized>()?.num_constraints());
    let one_thread = baseline(&single, runs, full)?;
    let whole = timed(&all, runs, at_once, full)?;
    let witness = witness_mode(&all, runs, at_once, || Ok(Whole(circuit.clone())), None)?;
    report(sector, proof, sectors, threads, ("whole_one_thread", one_thread, 1), whole, witness)
}
