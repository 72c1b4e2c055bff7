//! The status report of `cuzk_status_json`: the engine (queues, jobs,
//! memory, counters, per-stage times), the asynchronous requests, the
//! resident proving keys and the devices.

use anyhow::Result;
use serde::Serialize;

pub use super::scheduler::{Counters, EngineStatus, JobStatus, MemoryStatus};
use super::{devices, requests, srs_cache};

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
