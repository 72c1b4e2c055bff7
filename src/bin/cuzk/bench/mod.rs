//! `cuzk bench <name>`: every benchmark of cuzk, each printing one JSON object
//! (the supraseal peer alone lives in benches/supraseal: it links stock's
//! CUDA prover). Settings come from the environment, so one command runs on a
//! laptop or a GPU host.

mod engine;
#[cfg(feature = "cuda")]
mod gpu;
#[cfg(feature = "cuda")]
mod h_msm;
mod params;
mod pieces;
mod prover;
mod stream;
mod timeline;

use std::{fmt::Display, str::FromStr};

use anyhow::{anyhow, bail, Result};
use cuzk::engine::{Engine, JobId, WaitOutcome};

const NAMES: &str = "engine|stream|pieces|params|prover|gpu|h-msm";

/// `cuzk bench <name>`.
pub fn run(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("engine") => engine::run(),
        Some("stream") => stream::run(),
        Some("pieces") => pieces::run(),
        Some("params") => params::run(),
        Some("prover") => prover::run(),
        #[cfg(feature = "cuda")]
        Some("gpu") => gpu::run(),
        #[cfg(feature = "cuda")]
        Some("h-msm") => h_msm::run(),
        #[cfg(not(feature = "cuda"))]
        Some(name @ ("gpu" | "h-msm")) => bail!("cuzk bench {name} needs a build with --features cuda"),
        _ => bail!("usage: cuzk bench {NAMES}"),
    }
}

/// The value of environment variable `name`, or `default` when it is unset.
pub fn env_or<T: FromStr>(name: &str, default: T) -> Result<T>
where
    T::Err: Display,
{
    match std::env::var(name) {
        Ok(v) => v.parse().map_err(|e| anyhow!("{name}={v:?}: {e}")),
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

/// Waits for job `id`; its error, if it failed.
pub fn finish(engine: &Engine, id: JobId) -> Result<()> {
    match engine.wait(id, None) {
        WaitOutcome::Finished(r) => r.map(drop),
        _ => bail!("job {id:?} lost"),
    }
}

/// One warm-up, then the median of `runs` timings of `f`, in seconds (the
/// GPU benchmarks' timer).
#[cfg(feature = "cuda")]
pub fn time<T>(runs: usize, mut f: impl FnMut() -> Result<T>) -> Result<(f64, T)> {
    let mut out = f()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = std::time::Instant::now();
        out = f()?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok((median(&times).ok_or_else(|| anyhow!("no timed run"))?, out))
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
