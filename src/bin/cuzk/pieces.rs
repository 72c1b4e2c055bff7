//! `cuzk bench pieces`: how the synthesis of a PoRep partition scales over
//! cores. One partition of random vanilla proofs of the sector's exact shape,
//! in pieces (one per challenge, each after the shared commitments; see
//! `circuit::synthesize_pieces`): one piece alone on one thread, then the
//! whole partition on every thread of rayon's pool, CUZK_BENCH_RUNS times
//! each. Prints JSON: each run's wall time, the process's user and system CPU
//! seconds and minor page faults during it, the process's peak RSS so far,
//! and the parallel efficiency (the pieces' one-thread time over threads x
//! wall time). A synthesis that scales has an efficiency near 1 and little
//! system time; page faults show memory the kernel had to hand out (first
//! touch).
//!
//! env: CUZK_BENCH_SECTOR (2KiB, 512MiB or 32GiB; default 32GiB),
//! CUZK_BENCH_RUNS (default 3), RAYON_NUM_THREADS.

use std::time::Instant;

use anyhow::{Context, Result};
use bellperson::Circuit;
use blstrs::Scalar as Fr;
use cuzk::{
    api::{porep, random_vanilla},
    circuit::synthesize_pieces,
};
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB, SectorShape512MiB};
use filecoin_proofs_api::RegisteredSealProof;
use serde_json::{json, Value};
use storage_proofs_core::merkle::MerkleTreeTrait;

use crate::bench::{env_usize, median};

pub fn run() -> Result<()> {
    let sector = std::env::var("CUZK_BENCH_SECTOR").unwrap_or_else(|_| "32GiB".into());
    use RegisteredSealProof as Seal;
    match sector.as_str() {
        "2KiB" => run_typed::<SectorShape2KiB>(&sector, Seal::StackedDrg2KiBV1_1),
        "512MiB" => run_typed::<SectorShape512MiB>(&sector, Seal::StackedDrg512MiBV1_1),
        "32GiB" => run_typed::<SectorShape32GiB>(&sector, Seal::StackedDrg32GiBV1_1),
        other => anyhow::bail!("CUZK_BENCH_SECTOR={other:?}: 2KiB, 512MiB or 32GiB"),
    }
}

/// The process's CPU time, page faults and peak resident memory so far.
#[derive(Clone, Copy)]
struct Usage {
    user_s: f64,
    system_s: f64,
    minor_faults: i64,
    peak_rss_bytes: i64,
}

fn usage() -> Usage {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `u` is a writable rusage; getrusage fills it (RUSAGE_SELF cannot fail).
    let u = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr());
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

/// Synthesizes `pieces` on `pool` `runs` times: one JSON row per run.
fn timed<C: Circuit<Fr> + Clone + Send>(pool: &rayon::ThreadPool, pieces: &[C], runs: usize) -> Result<Vec<Value>> {
    (0..runs)
        .map(|_| {
            let pieces = pieces.to_vec();
            let (before, start) = (usage(), Instant::now());
            let cs = pool.install(|| synthesize_pieces(pieces, porep::CHALLENGE_NAMESPACE))?;
            let wall_s = start.elapsed().as_secs_f64();
            let after = usage();
            Ok(json!({
                "constraints": cs.num_constraints(),
                "wall_s": wall_s,
                "user_s": after.user_s - before.user_s,
                "system_s": after.system_s - before.system_s,
                "minor_faults": after.minor_faults - before.minor_faults,
                "process_peak_rss_bytes": after.peak_rss_bytes,
            }))
        })
        .collect()
}

fn median_wall(rows: &[Value]) -> Option<f64> {
    median(&rows.iter().filter_map(|r| r["wall_s"].as_f64()).collect::<Vec<_>>())
}

fn run_typed<Tree: 'static + MerkleTreeTrait>(sector: &str, seal: RegisteredSealProof) -> Result<()> {
    let runs = env_usize("CUZK_BENCH_RUNS", 3)?.max(1);
    let c1 = random_vanilla::porep_c1(seal, 1)?;
    let partition = porep::partition_pieces::<Tree>(c1)?.pieces.swap_remove(0);
    // Piece 0 carries no more than the others; piece 1 is a typical one.
    let one = &partition[partition.len().min(2) - 1..][..1];
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().context("a one-thread pool")?;
    let all = rayon::ThreadPoolBuilder::new().build().context("a pool of every thread")?;
    let threads = all.current_num_threads();
    eprintln!("pieces: {sector} partition of {} pieces: one piece on one thread, then all on {threads}", partition.len());
    let one_piece = timed(&single, one, runs)?;
    let whole = timed(&all, &partition, runs)?;
    let (piece_s, whole_s) = (median_wall(&one_piece), median_wall(&whole));
    let efficiency = piece_s.zip(whole_s).map(|(p, w)| p * partition.len() as f64 / (threads as f64 * w));
    let report = json!({
        "sector": sector,
        "threads": threads,
        "pieces": partition.len(),
        "one_piece_one_thread": { "runs": one_piece, "wall_median_s": piece_s },
        "partition_all_threads": { "runs": whole, "wall_median_s": whole_s },
        "parallel_efficiency": efficiency,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
