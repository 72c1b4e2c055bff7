//! Asynchronous proof requests, the jobs of the `cuzk_*` C API: a request runs
//! a whole proof call (parse the inputs, build the circuits, prove through the
//! engine, assemble and self-verify, exactly as the blocking entry point does)
//! on a thread of its own, under a `CallContext` that gives its partitions the
//! request's priority and cancellation. A request's id is the id of the
//! engine job its partitions become (reserved when it is submitted), so the
//! status report and the C API speak of one job. Waiting for a finished
//! request hands its output over and forgets the request.

use std::{
    collections::HashMap,
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Condvar, Mutex, MutexGuard},
    time::{Duration, Instant},
};

use anyhow::{anyhow, Result};
use once_cell::sync::Lazy;
use serde::Serialize;

use super::{
    job::{Cancelled, JobId, JobSpec, ProofKind},
    scheduler::{Engine, WaitOutcome},
    wait, Priority,
};
use crate::groth16::Proof;

/// Where a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RequestState {
    Running,
    Done,
    Failed,
    Cancelled,
}

struct Request {
    id: JobId,
    kind: ProofKind,
    priority: Priority,
    submitted: Instant,
    inner: Mutex<Inner>,
    finished: Condvar,
}

#[derive(Default)]
struct Inner {
    outcome: Option<Result<Vec<u8>>>,
    cancelled: bool,
    /// When its partitions were handed to the engine.
    handed_over: Option<Instant>,
    /// Where its time went, once finished.
    times: Option<RequestTimes>,
}

/// Where a finished request's time went.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestTimes {
    /// From submission until its partitions were handed to the engine:
    /// decoding the inputs, loading the proving key (or finding it
    /// resident), building the circuits.
    pub setup: Duration,
    /// From then until the first partition's synthesis started.
    pub queue_wait: Duration,
    /// The partitions' syntheses, summed.
    pub synthesis: Duration,
    /// The partitions' proofs (on a GPU, or the CPU where none took them),
    /// their verification included, summed.
    pub proving: Duration,
}

impl Request {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state(&self) -> RequestState {
        let inner = self.lock();
        match &inner.outcome {
            None => RequestState::Running,
            Some(Ok(_)) => RequestState::Done,
            Some(Err(_)) if inner.cancelled => RequestState::Cancelled,
            Some(Err(_)) => RequestState::Failed,
        }
    }
}

static REQUESTS: Lazy<Mutex<HashMap<JobId, Arc<Request>>>> = Lazy::new(Default::default);

fn table() -> MutexGuard<'static, HashMap<JobId, Arc<Request>>> {
    REQUESTS.lock().unwrap_or_else(|e| e.into_inner())
}

fn find(id: JobId) -> Option<Arc<Request>> {
    table().get(&id).cloned()
}

/// What a proof call runs under: a request's call proves at the request's
/// priority, as the engine job of the request's id, and stops when the
/// request is cancelled; a blocking call (`CallContext::blocking`) proves at
/// the priority its job asks for and runs to the end.
#[derive(Clone, Default)]
pub struct CallContext {
    request: Option<Arc<Request>>,
}

impl CallContext {
    pub fn blocking() -> Self {
        CallContext::default()
    }

    /// Submits `spec` to `engine` and waits for its proofs.
    pub fn prove(&self, engine: &Engine, mut spec: JobSpec) -> Result<Vec<Proof>> {
        let Some(request) = &self.request else { return proofs_of(engine, engine.submit(spec)?) };
        spec.priority = request.priority;
        if request.lock().cancelled {
            return Err(anyhow!(Cancelled));
        }
        let handed_over = Instant::now();
        let job = engine.submit_as(request.id, spec)?;
        let cancelled = {
            let mut inner = request.lock();
            inner.handed_over.get_or_insert(handed_over);
            inner.cancelled
        };
        // A cancel that came before the job existed could not reach it.
        if cancelled {
            engine.cancel(job);
        }
        proofs_of(engine, job)
    }
}

fn proofs_of(engine: &Engine, job: JobId) -> Result<Vec<Proof>> {
    match engine.wait(job, None) {
        WaitOutcome::Finished(result) => result,
        WaitOutcome::Pending | WaitOutcome::Unknown => Err(anyhow!("the engine lost job {}", job.0)),
    }
}

/// Starts `work` (a whole proof call returning its output bytes) as request
/// of `kind` at `priority`; returns its id, an engine job id.
pub fn submit(
    kind: ProofKind,
    priority: Priority,
    work: impl FnOnce(&CallContext) -> Result<Vec<u8>> + Send + 'static,
) -> Result<JobId> {
    let id = super::global()?.reserve();
    let request = Arc::new(Request {
        id,
        kind,
        priority,
        submitted: Instant::now(),
        inner: Mutex::new(Inner::default()),
        finished: Condvar::new(),
    });
    table().insert(id, request.clone());
    let spawned = std::thread::Builder::new().name(format!("cuzk-request-{}", id.0)).spawn(move || {
        let context = CallContext { request: Some(request.clone()) };
        let outcome = catch_unwind(AssertUnwindSafe(|| work(&context)))
            .unwrap_or_else(|_| Err(anyhow!("the proof call panicked")));
        drop(context);
        let mut inner = request.lock();
        // A cancelled request already holds its `Cancelled` outcome.
        if inner.outcome.is_none() {
            inner.outcome = Some(outcome);
        }
        inner.times = Some(times(&request, &inner));
        drop(inner);
        request.finished.notify_all();
    });
    if let Err(e) = spawned {
        table().remove(&id);
        return Err(anyhow!("cannot start a thread for the request: {e}"));
    }
    Ok(id)
}

/// Where `request` (finished, `inner` its state) spent its time, from the
/// engine's timeline of its jobs.
fn times(request: &Request, inner: &Inner) -> RequestTimes {
    let Some(handed_over) = inner.handed_over else {
        return RequestTimes { setup: request.submitted.elapsed(), ..Default::default() };
    };
    let setup = handed_over.saturating_duration_since(request.submitted);
    let Ok(engine) = super::global() else { return RequestTimes { setup, ..Default::default() } };
    let (spans, origin) = engine.spans_of(&[request.id]);
    let queue_wait = spans.first_synthesis.map_or(Duration::ZERO, |at| (origin + at).saturating_duration_since(handed_over));
    RequestTimes { setup, queue_wait, synthesis: spans.synthesis, proving: spans.proving }
}

/// What `wait` found.
pub enum Waited {
    /// The output bytes or the error; the request is forgotten.
    Finished(Result<Vec<u8>>),
    Pending,
    Unknown,
}

/// Waits up to `timeout` (`None`: without limit) for request `id`.
pub fn wait(id: JobId, timeout: Option<Duration>) -> Waited {
    wait_timed(id, timeout).0
}

/// As `wait`, with where a finished request's time went.
pub fn wait_timed(id: JobId, timeout: Option<Duration>) -> (Waited, Option<RequestTimes>) {
    let Some(request) = find(id) else { return (Waited::Unknown, None) };
    let finished = wait::until(&request.finished, request.lock(), timeout, |inner| {
        inner.outcome.is_some().then(|| {
            // Only the waiter that removes the request takes its outcome.
            match table().remove(&id) {
                Some(_) => (Waited::Finished(inner.outcome.take().expect("checked")), inner.times),
                None => (Waited::Unknown, None),
            }
        })
    });
    finished.unwrap_or((Waited::Pending, None))
}

pub fn poll(id: JobId) -> Option<RequestState> {
    find(id).map(|r| r.state())
}

/// Cancels request `id`: waiters get a `Cancelled` error at once, its engine
/// jobs stop at their next partition boundary. False if unknown or finished.
pub fn cancel(id: JobId) -> bool {
    let Some(request) = find(id) else { return false };
    let mut inner = request.lock();
    if inner.outcome.is_some() {
        return false;
    }
    inner.cancelled = true;
    inner.outcome = Some(Err(anyhow!(Cancelled)));
    drop(inner);
    if let Ok(engine) = super::global() {
        engine.cancel(id);
    }
    request.finished.notify_all();
    true
}

/// Forgets request `id` without waiting (cancelling it if running). False if unknown.
pub fn release(id: JobId) -> bool {
    cancel(id);
    table().remove(&id).is_some()
}

/// A request in the status report.
#[derive(Clone, Debug, Serialize)]
pub struct RequestStatus {
    pub id: JobId,
    pub kind: ProofKind,
    pub priority: Priority,
    pub state: RequestState,
    pub age_seconds: f64,
}

pub fn status() -> Vec<RequestStatus> {
    let requests: Vec<(JobId, Arc<Request>)> = table().iter().map(|(&id, r)| (id, r.clone())).collect();
    let mut out: Vec<RequestStatus> = requests
        .into_iter()
        .map(|(id, r)| RequestStatus {
            id,
            kind: r.kind,
            priority: r.priority,
            state: r.state(),
            age_seconds: r.submitted.elapsed().as_secs_f64(),
        })
        .collect();
    out.sort_by_key(|r| r.id);
    out
}
