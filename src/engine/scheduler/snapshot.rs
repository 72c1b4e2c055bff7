//! What the engine reports of itself (`Engine::status`): its queues, jobs,
//! memory and counters, as the status report (`engine::status`) shows them.

use serde::Serialize;

use crate::engine::{
    config::Config,
    job::{JobId, JobState, Priority, ProofKind},
};

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
    /// Workers abandoned by the watchdog whose thread is still stuck.
    pub abandoned_workers: usize,
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
    /// Partitions whose witness went to a GPU packed by class (zero, one,
    /// other: a few percent of its bytes).
    pub witnesses_packed: u64,
    /// Syntheses and proofs that overran their time limit (their jobs failed).
    pub workers_abandoned: u64,
    /// Summed over partitions: synthesis, time in the ready queue, proving
    /// (with verification).
    pub synthesis_seconds: f64,
    pub ready_wait_seconds: f64,
    pub proving_seconds: f64,
}

impl Counters {
    /// A job ended as `state` (Done, Failed or Cancelled).
    pub(super) fn count_end(&mut self, state: JobState) {
        match state {
            JobState::Done => self.jobs_done += 1,
            JobState::Cancelled => self.jobs_cancelled += 1,
            _ => self.jobs_failed += 1,
        }
    }
}
