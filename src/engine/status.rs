//! The status report of `cuzk_status_json`: the engine (queues, jobs,
//! memory, counters, per-stage times), the asynchronous requests, the
//! resident proving keys and the devices.

use anyhow::Result;
use serde::Serialize;

use super::{
    config::Config,
    devices,
    job::{JobId, JobState, Priority, ProofKind},
    requests, srs_cache,
};

#[derive(Serialize)]
struct ResidentKey {
    circuit_id: String,
    bytes: usize,
}

#[derive(Serialize)]
struct Report {
    engine: EngineStatus,
    requests: Vec<requests::RequestStatus>,
    resident_parameters: Vec<ResidentKey>,
    gpus: Vec<devices::GpuStatus>,
}

/// The report as JSON.
pub fn json() -> Result<String> {
    let report = Report {
        engine: super::global()?.status(),
        requests: requests::status(),
        resident_parameters: srs_cache::resident()
            .into_iter()
            .map(|(circuit_id, bytes)| ResidentKey { circuit_id, bytes })
            .collect(),
        gpus: devices::gpu_status(),
    };
    Ok(serde_json::to_string_pretty(&report)?)
}

/// A snapshot of the engine (`cuzk_status_json` reports it).
#[derive(Clone, Debug, Serialize)]
pub struct EngineStatus {
    pub config: Config,
    pub paused: bool,
    pub synthesis_workers: usize,
    pub prover_workers: usize,
    pub prover: &'static str,
    pub pending_partitions: usize,
    pub synthesizing: usize,
    pub ready_partitions: usize,
    pub proving: usize,
    pub memory: MemoryStatus,
    pub jobs: Vec<JobStatus>,
    pub counters: Counters,
}

/// One job in `EngineStatus`.
#[derive(Clone, Debug, Serialize)]
pub struct JobStatus {
    pub id: JobId,
    pub kind: ProofKind,
    pub priority: Priority,
    pub label: String,
    pub state: JobState,
    pub partitions: usize,
    pub proved: usize,
    pub age_seconds: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MemoryStatus {
    pub host_budget_bytes: u64,
    /// Proving keys in memory (the SRS cache and the keys of live jobs).
    pub keys_bytes: u64,
    pub partitions_in_flight_bytes: u64,
    pub peak_partitions_in_flight_bytes: u64,
}

/// Totals since the engine started.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counters {
    pub jobs_submitted: u64,
    pub jobs_done: u64,
    pub jobs_failed: u64,
    pub jobs_cancelled: u64,
    pub partitions_synthesized: u64,
    pub partitions_proved: u64,
    /// Summed over partitions: synthesis, time in the ready queue, proving
    /// (with verification).
    pub synthesis_seconds: f64,
    pub ready_wait_seconds: f64,
    pub proving_seconds: f64,
}
