//! Asynchronous proof requests, the jobs of the `cuzk_*` C API. A request is
//! an engine job of the global engine from submission to collection (see
//! scheduler/calls.rs): its id is the job's, its state the job's. Its proof
//! call (parse the inputs, build the circuits, prove through the engine,
//! assemble and self-verify, exactly as the blocking entry point does) runs
//! on a thread of its own under a `CallContext` that hands the call's
//! partitions to the request's job: a call's setup may load a key or read
//! replicas for minutes, and a thread each keeps a Winning PoSt's setup from
//! waiting behind it. Waiting for a finished request hands its output over
//! and forgets it.

use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    time::Duration,
};

use anyhow::{anyhow, Result};
use serde::Serialize;

pub use super::job::RequestTimes;
pub use super::scheduler::RequestStatus;
use super::{
    job::{JobId, JobSpec, JobState, ProofKind},
    scheduler::{Engine, WaitOutcome},
    Priority,
};
use crate::groth16::Proof;

/// Where a request is, as the C API reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RequestState {
    Running,
    Done,
    Failed,
    Cancelled,
}

impl RequestState {
    fn of(state: JobState) -> Self {
        match state {
            JobState::Preparing | JobState::Queued | JobState::Running | JobState::Assembling => RequestState::Running,
            JobState::Done => RequestState::Done,
            JobState::Failed => RequestState::Failed,
            JobState::Cancelled => RequestState::Cancelled,
        }
    }
}

/// What a proof call runs under: a request's call proves its partitions as
/// the request's job, at the request's priority, and stops when the request
/// is cancelled; a blocking call (`CallContext::blocking`) proves a job of
/// its own at the priority it asks for and runs to the end.
#[derive(Clone, Copy, Default)]
pub struct CallContext {
    request: Option<JobId>,
}

impl CallContext {
    pub fn blocking() -> Self {
        CallContext::default()
    }

    /// Submits `spec` to `engine` and waits for its proofs.
    pub fn prove(&self, engine: &Engine, spec: JobSpec) -> Result<Vec<Proof>> {
        match self.request {
            Some(id) => engine.prove_for_call(id, spec),
            None => match engine.wait(engine.submit(spec)?, None) {
                WaitOutcome::Finished(result) => result,
                WaitOutcome::Pending | WaitOutcome::Unknown => Err(anyhow!("the engine lost the job")),
            },
        }
    }
}

/// Starts `work` (a whole proof call returning its output bytes) as request
/// of `kind` at `priority`; returns its id, an engine job id.
pub fn submit(
    kind: ProofKind,
    priority: Priority,
    work: impl FnOnce(&CallContext) -> Result<Vec<u8>> + Send + 'static,
) -> Result<JobId> {
    let engine = super::global()?;
    let id = engine.open_call(kind, priority)?;
    let spawned = std::thread::Builder::new().name(format!("cuzk-request-{}", id.0)).spawn(move || {
        let context = CallContext { request: Some(id) };
        let outcome = catch_unwind(AssertUnwindSafe(|| work(&context)))
            .unwrap_or_else(|_| Err(anyhow!("the proof call panicked")));
        engine.finish_call(id, outcome);
    });
    if let Err(e) = spawned {
        engine.release_call(id);
        return Err(anyhow!("cannot start a thread for the request: {e}"));
    }
    Ok(id)
}

/// What `wait` found: the output bytes or the error (the request is then
/// forgotten), pending, or no such request.
pub type Waited = WaitOutcome<Vec<u8>>;

/// Waits up to `timeout` (`None`: without limit) for request `id`.
pub fn wait(id: JobId, timeout: Option<Duration>) -> Waited {
    wait_timed(id, timeout).0
}

/// As `wait`, with where a finished request's time went.
pub fn wait_timed(id: JobId, timeout: Option<Duration>) -> (Waited, Option<RequestTimes>) {
    match super::global() {
        Ok(engine) => engine.wait_output(id, timeout),
        Err(_) => (WaitOutcome::Unknown, None),
    }
}

pub fn poll(id: JobId) -> Option<RequestState> {
    super::global().ok()?.poll_call(id).map(RequestState::of)
}

/// Cancels request `id`: waiters get a `Cancelled` error at once, its
/// partitions stop at their next step boundary. False if unknown or finished.
pub fn cancel(id: JobId) -> bool {
    super::global().is_ok_and(|engine| engine.cancel_call(id))
}

/// Forgets request `id` without waiting (cancelling it if running). False if unknown.
pub fn release(id: JobId) -> bool {
    super::global().is_ok_and(|engine| engine.release_call(id))
}

/// The requests not yet collected, for the status report.
pub fn status() -> Vec<RequestStatus> {
    super::global().map(|engine| engine.calls()).unwrap_or_default()
}
