//! `cuzk bench params`: cuzk's parameter generator against stock's, on the
//! same machine in the same run. Each (family, generator) pair runs as
//! `cuzk params <size> --only <family> [--stock]` in a child process with
//! an empty parameter folder of its own, as on a fresh machine (stock's
//! settings are read once per process, so one process cannot switch
//! folders). Prints JSON: each run's wall and CPU seconds (the child's user
//! and system time) and the files it wrote, and per family the ratios
//! stock / cuzk.
//!
//! env: CUZK_BENCH_SECTOR (default 2KiB), CUZK_BENCH_FAMILIES (default
//! porep,winning-post,window-post,snapdeals).

use std::{path::Path, process::Command, time::Instant};

use anyhow::{ensure, Context, Result};
use cuzk::api::params::Family;
use serde_json::{json, Value};

use super::children_usage;

pub fn run() -> Result<()> {
    let sector = std::env::var("CUZK_BENCH_SECTOR").unwrap_or_else(|_| "2KiB".into());
    let families = std::env::var("CUZK_BENCH_FAMILIES").unwrap_or_else(|_| "porep,winning-post,window-post,snapdeals".into());
    let scratch = std::env::temp_dir().join(format!("cuzk-bench-params-{}", std::process::id()));
    let mut rows = Vec::new();
    for family in families.split(',').map(str::trim) {
        Family::parse(family)?;
        let cuzk = generate(&scratch, &sector, family, false)?;
        let stock = generate(&scratch, &sector, family, true)?;
        let ratio = |key: &str| Some(stock[key].as_f64()? / cuzk[key].as_f64()?);
        let wall = |run: &Value| run["wall_s"].as_f64().unwrap_or(f64::NAN);
        eprintln!("params: {family}: cuzk {:.1} s, stock {:.1} s", wall(&cuzk), wall(&stock));
        rows.push(json!({
            "family": family,
            "cuzk": cuzk,
            "stock": stock,
            "stock_over_cuzk_wall": ratio("wall_s"),
            "stock_over_cuzk_cpu": ratio("cpu_s"),
        }));
    }
    std::fs::remove_dir_all(&scratch).with_context(|| format!("removing {}", scratch.display()))?;
    let report = json!({
        "bench": "params",
        "sector": sector,
        "machine": { "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) },
        "families": rows,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// One family's parameters generated from scratch by one generator, in a
/// child process: its wall and CPU seconds and the files it wrote.
fn generate(scratch: &Path, sector: &str, family: &str, stock: bool) -> Result<Value> {
    let generator = if stock { "stock" } else { "cuzk" };
    let folder = scratch.join(format!("{generator}-{family}"));
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let mut command = Command::new(std::env::current_exe()?);
    // The child's report goes to stderr: stdout is this command's JSON.
    command.args(["params", sector, "--only", family]).env("FIL_PROOFS_PARAMETER_CACHE", &folder).stdout(std::io::stderr());
    if stock {
        command.arg("--stock");
    }
    let (before, start) = (children_usage(), Instant::now());
    let status = command.status().with_context(|| format!("running cuzk params for {family} ({generator})"))?;
    let wall_s = start.elapsed().as_secs_f64();
    let after = children_usage();
    ensure!(status.success(), "cuzk params {sector} --only {family} ({generator}) failed: {status}");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&folder)? {
        let entry = entry?;
        files.push(json!({ "name": entry.file_name().to_string_lossy(), "bytes": entry.metadata()?.len() }));
    }
    ensure!(!files.is_empty(), "cuzk params {sector} --only {family} ({generator}) wrote no file");
    let (user_s, system_s) = (after.user_s - before.user_s, after.system_s - before.system_s);
    Ok(json!({ "wall_s": wall_s, "user_s": user_s, "system_s": system_s, "cpu_s": user_s + system_s, "files": files }))
}
