//! The engine's configuration, in one place: read from `CUZK_*` environment
//! variables when the engine first starts, with detected defaults, and
//! replaceable at run time (`cuzk_config_set`, JSON). docs/CONFIG.md documents
//! every field; keep the two in step.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};

/// Every setting of the engine. JSON field names are the documented ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Where proving keys (`v28-*.params`) are read from.
    pub param_cache: PathBuf,
    /// Host RAM the engine may use: resident proving keys plus the estimated
    /// working memory of every partition in flight.
    pub host_memory_budget: u64,
    /// C2 and SnapDeals synthesis at the same time, in whole synthesis pools:
    /// a PoRep partition fills one, a SnapDeals partition the share its
    /// ranges use (PoSt has two more workers of its own).
    pub synthesis_threads: usize,
    /// C2 and SnapDeals proofs at once: one per usable GPU, else one on the
    /// CPU (the engine adds two prover workers only PoSt may use).
    pub prover_workers: usize,
    /// Partitions being synthesized or waiting for a prover worker, at most,
    /// counted as `synthesis_threads` counts them.
    pub ready_queue_depth: usize,
    /// Bytes of the host memory budget that C2 and SnapDeals partitions
    /// leave free, so that a PoSt partition can start at once.
    pub post_memory_reserve: u64,
    /// The GPUs to prove on, as indices among the usable devices (CUDA's
    /// order, after `CUDA_VISIBLE_DEVICES`); `None`: all; empty: the CPU only.
    pub gpus: Option<Vec<usize>>,
    /// Bytes of each GPU's memory cuzk may hold: keys kept resident plus a
    /// proof step's working memory; `None`: whatever is free. Leaves room for
    /// other GPU work on the same devices (sealing, another prover).
    pub gpu_memory_budget: Option<u64>,
    /// Whether a circuit's recorded matrices are read from and written to a
    /// file beside its proving key.
    pub matrices_files: bool,
    /// What a GPU failure (out of memory, a CUDA error) does to a proof.
    pub gpu_fallback: GpuFailure,
    /// Seconds one proof step may hold a GPU before it counts as hung: steps
    /// waiting for the device give up (as `gpu_fallback` says), new proofs
    /// go elsewhere, and the prover worker in the step is abandoned.
    pub gpu_step_timeout_seconds: u64,
    /// Seconds a partition's synthesis, or its proof, may take before its
    /// worker is abandoned: the job fails, a new worker takes its place.
    pub worker_timeout_seconds: u64,
}

/// What to do when the GPU fails a proof.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum GpuFailure {
    /// The failed step, and the rest of the proof, done on the CPU.
    #[default]
    #[serde(rename = "cpu")]
    RetryOnCpu,
    /// The proof fails with the GPU's error.
    #[serde(rename = "error")]
    Error,
}

/// Fits a Winning PoSt partition of any sector size (~0.1 GB at 32 GiB).
const DEFAULT_POST_MEMORY_RESERVE: u64 = 1 << 30;

/// A step of the largest proofs holds a GPU for seconds, a streamed key's
/// for tens of seconds.
const DEFAULT_GPU_STEP_TIMEOUT_SECONDS: u64 = 120;

/// Far beyond a 32 GiB partition's synthesis or CPU proof on a small host.
const DEFAULT_WORKER_TIMEOUT_SECONDS: u64 = 3600;

/// The longest time limit: a week, far beyond any proof, and far from
/// overflowing a deadline.
const MOST_SECONDS: u64 = 7 * 24 * 3600;

/// What bounds the worker counts: more threads than this machine can run
/// would only take memory, and counts beyond it would overflow the
/// scheduler's sums.
struct Machine {
    cores: usize,
    gpus: usize,
}

impl Machine {
    fn here() -> Self {
        Self { cores: std::thread::available_parallelism().map_or(1, |n| n.get()), gpus: super::devices::gpu_count() }
    }

    /// The most synthesis threads, or prover workers, a configuration may
    /// ask for: every default fits under it.
    fn most_workers(&self) -> usize {
        4 * self.cores.max(self.gpus + 1)
    }
}

/// The stock default of `FIL_PROOFS_PARAMETER_CACHE`.
const STOCK_PARAM_CACHE: &str = "/var/tmp/filecoin-proof-parameters/";

impl Config {
    /// Defaults detected on this machine, overridden by the environment.
    pub fn from_env() -> Result<Self> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// `from_env` over any variable source (tests pass a map).
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let gpus = match var("CUZK_GPUS") {
            Some(v) => parse_gpus(&v)?,
            None => None,
        };
        let prover_workers = match var("CUZK_PROVER_WORKERS") {
            Some(v) => parse_count("CUZK_PROVER_WORKERS", &v)?,
            None => selected_gpus(gpus.as_deref()).len().max(1),
        };
        let synthesis_threads = match var("CUZK_SYNTHESIS_THREADS") {
            Some(v) => parse_count("CUZK_SYNTHESIS_THREADS", &v)?,
            // Enough to keep every prover fed while one more partition synthesizes.
            None => prover_workers.saturating_add(1),
        };
        let ready_queue_depth = match var("CUZK_READY_QUEUE_DEPTH") {
            Some(v) => parse_count("CUZK_READY_QUEUE_DEPTH", &v)?,
            // Every synthesis thread busy, and one partition waiting per prover.
            None => synthesis_threads.saturating_add(prover_workers),
        };
        let host_memory_budget = match var("CUZK_HOST_MEMORY_BUDGET") {
            Some(v) => parse_bytes(&v).context("CUZK_HOST_MEMORY_BUDGET")?,
            None => default_host_budget(),
        };
        let post_memory_reserve = match var("CUZK_POST_MEMORY_RESERVE") {
            Some(v) => parse_bytes(&v).context("CUZK_POST_MEMORY_RESERVE")?,
            None => DEFAULT_POST_MEMORY_RESERVE,
        };
        let gpu_memory_budget = match var("CUZK_GPU_MEMORY_BUDGET") {
            Some(v) if v.trim() == "all" => None,
            Some(v) => Some(parse_bytes(&v).context("CUZK_GPU_MEMORY_BUDGET")?),
            None => None,
        };
        if let Some(v) = var("CUZK_SYNTHESIS") {
            bail!("CUZK_SYNTHESIS={v:?}: the setting is gone (partitions are synthesized for their witness alone, which measured faster for every proof type); unset it");
        }
        let matrices_files = match var("CUZK_MATRICES_FILES").as_deref().map(str::trim) {
            None | Some("1" | "true") => true,
            Some("0" | "false") => false,
            Some(other) => bail!("CUZK_MATRICES_FILES={other:?} is neither 1 nor 0"),
        };
        let gpu_fallback = match var("CUZK_GPU_FALLBACK").as_deref().map(str::trim) {
            None | Some("cpu") => GpuFailure::RetryOnCpu,
            Some("error") => GpuFailure::Error,
            Some(other) => bail!("CUZK_GPU_FALLBACK={other:?} is neither `cpu` nor `error`"),
        };
        let gpu_step_timeout_seconds = match var("CUZK_GPU_STEP_TIMEOUT_SECONDS") {
            Some(v) => parse_count("CUZK_GPU_STEP_TIMEOUT_SECONDS", &v)? as u64,
            None => DEFAULT_GPU_STEP_TIMEOUT_SECONDS,
        };
        let worker_timeout_seconds = match var("CUZK_WORKER_TIMEOUT_SECONDS") {
            Some(v) => parse_count("CUZK_WORKER_TIMEOUT_SECONDS", &v)? as u64,
            None => DEFAULT_WORKER_TIMEOUT_SECONDS,
        };
        let param_cache = var("FIL_PROOFS_PARAMETER_CACHE").unwrap_or_else(|| STOCK_PARAM_CACHE.into()).into();
        let config = Config {
            param_cache,
            host_memory_budget,
            synthesis_threads,
            prover_workers,
            ready_queue_depth,
            post_memory_reserve,
            gpus,
            gpu_memory_budget,
            matrices_files,
            gpu_fallback,
            gpu_step_timeout_seconds,
            worker_timeout_seconds,
        };
        config.check()?;
        Ok(config)
    }

    /// This configuration with the fields present in `json` (a JSON object,
    /// sizes as numbers of bytes or strings such as "64GiB") replaced.
    pub fn updated(&self, json: &[u8]) -> Result<Self> {
        let patch: serde_json::Value = serde_json::from_slice(json).context("the configuration is not JSON")?;
        let serde_json::Value::Object(fields) = patch else { bail!("the configuration must be a JSON object") };
        let mut merged = serde_json::to_value(self)?;
        for (name, value) in fields {
            let value = match (name.as_str(), value) {
                // As in CUZK_GPU_MEMORY_BUDGET: "all" is no limit.
                ("gpu_memory_budget", serde_json::Value::String(s)) if s.trim() == "all" => serde_json::Value::Null,
                ("host_memory_budget" | "post_memory_reserve" | "gpu_memory_budget", serde_json::Value::String(s)) => {
                    parse_bytes(&s).with_context(|| name.clone())?.into()
                }
                (_, v) => v,
            };
            merged[&name] = value;
        }
        let config: Config = serde_json::from_value(merged).map_err(|e| anyhow!("invalid configuration: {e}"))?;
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> Result<()> {
        let machine = Machine::here();
        let workers = machine.most_workers();
        let within = |name: &str, value: usize, most: usize, why: &str| {
            ensure!(value >= 1, "{name} must be at least 1");
            ensure!(value <= most, "{name} = {value} is above its bound of {most} ({why})");
            Ok(())
        };
        let why_workers = format!("4 x the larger of this machine's {} cores and its {} GPUs + 1", machine.cores, machine.gpus);
        // The settings the others' defaults derive from first.
        within("prover_workers", self.prover_workers, workers, &why_workers)?;
        within("synthesis_threads", self.synthesis_threads, workers, &why_workers)?;
        within("ready_queue_depth", self.ready_queue_depth, 2 * workers, &format!("twice the worker bound, {why_workers}"))?;
        ensure!(self.host_memory_budget > 0, "host_memory_budget must be positive");
        ensure!(self.gpu_memory_budget != Some(0), "gpu_memory_budget must be positive (null: no limit)");
        for (name, seconds) in [("gpu_step_timeout_seconds", self.gpu_step_timeout_seconds), ("worker_timeout_seconds", self.worker_timeout_seconds)] {
            ensure!(seconds >= 1, "{name} must be at least 1");
            ensure!(seconds <= MOST_SECONDS, "{name} = {seconds} is above its bound of {MOST_SECONDS} (a week)");
        }
        if let Some(gpus) = &self.gpus {
            let usable = super::devices::gpu_count();
            for (i, &g) in gpus.iter().enumerate() {
                ensure!(g < usable, "gpus: GPU {g} is not usable here ({usable} usable GPUs)");
                ensure!(!gpus[..i].contains(&g), "gpus: GPU {g} is listed twice");
            }
        }
        Ok(())
    }

    /// The GPUs this configuration proves on.
    pub fn selected_gpus(&self) -> Vec<usize> {
        selected_gpus(self.gpus.as_deref())
    }

    /// Where the proving key whose stock path is `stock_path` lives in this
    /// configuration's parameter cache (same file name).
    pub fn params_path(&self, stock_path: &Path) -> PathBuf {
        match stock_path.file_name() {
            Some(name) => self.param_cache.join(name),
            None => stock_path.to_owned(),
        }
    }
}

fn selected_gpus(gpus: Option<&[usize]>) -> Vec<usize> {
    gpus.map_or_else(|| (0..super::devices::gpu_count()).collect(), <[usize]>::to_vec)
}

/// `CUZK_GPUS`: `all`, `none`, or indices such as `0,2`.
fn parse_gpus(v: &str) -> Result<Option<Vec<usize>>> {
    match v.trim() {
        "all" => Ok(None),
        "none" | "" => Ok(Some(Vec::new())),
        list => list
            .split(',')
            .map(|g| g.trim().parse().map_err(|_| anyhow!("CUZK_GPUS={v:?}: not `all`, `none` or GPU indices such as 0,2")))
            .collect::<Result<Vec<usize>>>()
            .map(Some),
    }
}

fn parse_count(name: &str, v: &str) -> Result<usize> {
    v.trim().parse().map_err(|_| anyhow!("{name}={v:?} is not a count"))
}

/// `"137438953472"`, `"128GiB"`, `"128G"`, `"512MiB"`, `"512M"` (binary units).
pub fn parse_bytes(v: &str) -> Result<u64> {
    let t = v.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| anyhow!("{v:?} is not a size (e.g. 137438953472, 128GiB, 512MiB)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => bail!("{v:?}: unknown unit {unit:?} (B, KiB, MiB, GiB, TiB)"),
    };
    n.checked_mul(1 << shift).ok_or_else(|| anyhow!("{v:?} overflows"))
}

/// 90% of MemTotal: the rest is left to the OS and to the caller's process.
fn default_host_budget() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| mem_total(&m));
    total.map_or(16 << 30, |t| t / 10 * 9)
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn from(vars: &[(&str, &str)]) -> Result<Config> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn environment_overrides_the_detected_defaults() {
        let c = from(&[
            ("CUZK_HOST_MEMORY_BUDGET", "128GiB"),
            ("CUZK_SYNTHESIS_THREADS", "3"),
            ("CUZK_PROVER_WORKERS", "2"),
            ("CUZK_READY_QUEUE_DEPTH", "4"),
            ("FIL_PROOFS_PARAMETER_CACHE", "/params"),
            ("CUZK_POST_MEMORY_RESERVE", "24GiB"),
            ("CUZK_GPU_MEMORY_BUDGET", "40GiB"),
        ])
        .unwrap();
        assert_eq!(c.host_memory_budget, 128 << 30);
        assert_eq!(c.gpu_memory_budget, Some(40 << 30));
        assert_eq!(c.post_memory_reserve, 24 << 30);
        assert_eq!((c.synthesis_threads, c.prover_workers, c.ready_queue_depth), (3, 2, 4));
        assert_eq!(c.params_path(Path::new("/var/tmp/x/v28-abc.params")), PathBuf::from("/params/v28-abc.params"));
        let d = from(&[]).unwrap();
        assert!(d.host_memory_budget > 0 && d.prover_workers >= 1);
        assert_eq!(d.synthesis_threads, d.prover_workers + 1);
        assert_eq!(d.param_cache, PathBuf::from(STOCK_PARAM_CACHE));
        assert_eq!(d.post_memory_reserve, 1 << 30);
        assert_eq!(d.gpu_memory_budget, None);
        assert_eq!(from(&[("CUZK_GPU_MEMORY_BUDGET", "all")]).unwrap().gpu_memory_budget, None);
        assert!(d.matrices_files && !from(&[("CUZK_MATRICES_FILES", "0")]).unwrap().matrices_files);
        let gone = from(&[("CUZK_SYNTHESIS", "full")]).unwrap_err().to_string();
        assert!(gone.contains("CUZK_SYNTHESIS") && gone.contains("gone"), "{gone}");
        assert!(d.updated(br#"{"synthesis": "full"}"#).unwrap_err().to_string().contains("synthesis"));
        assert_eq!(d.gpu_fallback, GpuFailure::RetryOnCpu);
        assert_eq!(from(&[("CUZK_GPU_FALLBACK", "error")]).unwrap().gpu_fallback, GpuFailure::Error);
        assert_eq!(d.updated(br#"{"gpu_fallback": "error"}"#).unwrap().gpu_fallback, GpuFailure::Error);
        assert_eq!(serde_json::to_value(d.gpu_fallback).unwrap(), "cpu");
        assert_eq!((d.gpu_step_timeout_seconds, d.worker_timeout_seconds), (120, 3600));
        let timeouts = from(&[("CUZK_GPU_STEP_TIMEOUT_SECONDS", "30"), ("CUZK_WORKER_TIMEOUT_SECONDS", "600")]).unwrap();
        assert_eq!((timeouts.gpu_step_timeout_seconds, timeouts.worker_timeout_seconds), (30, 600));
        assert_eq!(d.updated(br#"{"worker_timeout_seconds": 5}"#).unwrap().worker_timeout_seconds, 5);
    }

    #[test]
    fn bad_values_are_errors_not_defaults() {
        assert!(from(&[("CUZK_HOST_MEMORY_BUDGET", "lots")]).is_err());
        assert!(from(&[("CUZK_SYNTHESIS_THREADS", "0")]).is_err());
        assert!(from(&[("CUZK_PROVER_WORKERS", "-1")]).is_err());
        assert!(from(&[("CUZK_POST_MEMORY_RESERVE", "some")]).is_err());
        assert!(from(&[("CUZK_GPUS", "0,x")]).is_err());
        assert!(from(&[("CUZK_GPU_MEMORY_BUDGET", "0")]).is_err());
        assert!(from(&[("CUZK_GPU_MEMORY_BUDGET", "half")]).is_err());
        assert!(from(&[("CUZK_SYNTHESIS", "fast")]).is_err());
        assert!(from(&[("CUZK_MATRICES_FILES", "maybe")]).is_err());
        assert!(from(&[("CUZK_GPU_FALLBACK", "abort")]).is_err());
        assert!(from(&[]).unwrap().updated(br#"{"gpu_fallback": "abort"}"#).is_err());
        assert!(from(&[]).unwrap().updated(br#"{"synthesis": "fast"}"#).is_err());
        assert!(from(&[("CUZK_GPU_STEP_TIMEOUT_SECONDS", "0")]).is_err());
        assert!(from(&[("CUZK_WORKER_TIMEOUT_SECONDS", "1h")]).is_err());
        assert!(from(&[]).unwrap().updated(br#"{"worker_timeout_seconds": 0}"#).is_err());
    }

    #[test]
    fn counts_and_time_limits_have_upper_bounds_named_in_the_error() {
        let most = Machine::here().most_workers();
        let base = from(&[]).unwrap();
        for name in ["synthesis_threads", "prover_workers"] {
            assert!(base.updated(format!(r#"{{"{name}": {most}}}"#).as_bytes()).is_ok(), "{name} at its bound");
            for value in [most + 1, 100_000, usize::MAX] {
                let e = format!("{:#}", base.updated(format!(r#"{{"{name}": {value}}}"#).as_bytes()).unwrap_err());
                assert!(e.contains(&format!("{name} = {value}")) && e.contains(&format!("bound of {most}")), "{e}");
            }
        }
        let e = format!("{:#}", from(&[("CUZK_PROVER_WORKERS", "100000")]).unwrap_err());
        assert!(e.contains("prover_workers = 100000") && e.contains("cores"), "{e}");
        assert!(from(&[("CUZK_SYNTHESIS_THREADS", "1000000000000")]).is_err());
        // The defaults derived from it saturate instead of wrapping.
        let e = format!("{:#}", from(&[("CUZK_PROVER_WORKERS", &usize::MAX.to_string())]).unwrap_err());
        assert!(e.contains(&format!("prover_workers = {}", usize::MAX)), "{e}");
        // A depth that would wrap the scheduler's sums to 0.
        let e = format!("{:#}", base.updated(br#"{"ready_queue_depth": 4611686018427387904}"#).unwrap_err());
        assert!(e.contains("ready_queue_depth = 4611686018427387904"), "{e}");
        assert!(base.updated(format!(r#"{{"ready_queue_depth": {}}}"#, 2 * most).as_bytes()).is_ok());
        for name in ["gpu_step_timeout_seconds", "worker_timeout_seconds"] {
            assert!(base.updated(format!(r#"{{"{name}": {MOST_SECONDS}}}"#).as_bytes()).is_ok());
            let e = format!("{:#}", base.updated(format!(r#"{{"{name}": {}}}"#, u64::MAX).as_bytes()).unwrap_err());
            assert!(e.contains(name) && e.contains("a week"), "{e}");
        }
        assert!(from(&[("CUZK_WORKER_TIMEOUT_SECONDS", "18446744073709551615")]).is_err());
    }

    #[test]
    fn the_gpu_list_selects_devices_and_sets_the_prover_count() {
        assert_eq!(parse_gpus("all").unwrap(), None);
        assert_eq!(parse_gpus("none").unwrap(), Some(vec![]));
        assert_eq!(parse_gpus(" 2, 0 ").unwrap(), Some(vec![2, 0]));
        let cpu_only = from(&[("CUZK_GPUS", "none")]).unwrap();
        assert!(cpu_only.selected_gpus().is_empty());
        assert_eq!(cpu_only.prover_workers, 1);
        let usable = crate::engine::devices::gpu_count();
        assert_eq!(from(&[]).unwrap().selected_gpus(), (0..usable).collect::<Vec<_>>());
        let beyond = format!("{usable}");
        let e = from(&[("CUZK_GPUS", beyond.as_str())]).unwrap_err();
        assert!(format!("{e:#}").contains("not usable here"), "{e:#}");
        if usable > 0 {
            assert!(from(&[("CUZK_GPUS", "0,0")]).is_err());
            assert_eq!(from(&[("CUZK_GPUS", "0")]).unwrap().selected_gpus(), vec![0]);
        }
        let base = from(&[]).unwrap();
        assert_eq!(base.updated(br#"{"gpus": []}"#).unwrap().gpus, Some(vec![]));
        assert_eq!(base.updated(br#"{"gpus": null}"#).unwrap().gpus, None);
    }

    #[test]
    fn sizes_take_binary_units() {
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("2 G").unwrap(), 2 << 30);
        assert!(parse_bytes("1PB").is_err());
        assert!(parse_bytes("99999999999999T").is_err());
        assert_eq!(mem_total("MemTotal:       24555816 kB\nMemFree: 1 kB\n"), Some(24555816 * 1024));
    }

    #[test]
    fn a_json_patch_replaces_only_its_fields_and_is_checked() {
        let base = from(&[("CUZK_SYNTHESIS_THREADS", "3")]).unwrap();
        let c = base.updated(br#"{"host_memory_budget": "1GiB", "ready_queue_depth": 7, "post_memory_reserve": "2MiB"}"#).unwrap();
        assert_eq!(c.post_memory_reserve, 2 << 20);
        assert_eq!((c.host_memory_budget, c.ready_queue_depth, c.synthesis_threads), (1 << 30, 7, 3));
        assert!(base.updated(br#"{"synthesis_threads": 0}"#).is_err());
        let capped = base.updated(br#"{"gpu_memory_budget": "24GiB"}"#).unwrap();
        assert_eq!(capped.gpu_memory_budget, Some(24 << 30));
        assert_eq!(capped.updated(br#"{"gpu_memory_budget": null}"#).unwrap().gpu_memory_budget, None);
        assert_eq!(capped.updated(br#"{"gpu_memory_budget": "all"}"#).unwrap().gpu_memory_budget, None);
        assert!(base.updated(br#"{"gpu_memory_budget": 0}"#).is_err());
        let e = base.updated(br#"{"gpu_memory_budget": "lots"}"#).unwrap_err();
        assert!(format!("{e:#}").contains("gpu_memory_budget"), "{e:#}");
        assert!(base.updated(br#"{"no_such_field": 1}"#).is_err());
        assert!(base.updated(b"[1]").is_err());
        assert!(base.updated(b"{").is_err());
    }
}
