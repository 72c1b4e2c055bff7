//! Asynchronous proof requests, the jobs of the `cuzk_*` C API: a request runs
//! a whole proof call (parse the inputs, build the circuits, prove through the
//! engine, assemble and self-verify, exactly as the blocking entry point does)
//! on a thread of its own, with its priority and cancellation in a
//! thread-local context that `prove_circuits` reads when it hands the
//! partitions to the engine. Waiting for a finished request hands its output
//! over and forgets the request.

use std::{
    cell::RefCell,
    collections::HashMap,
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Condvar, Mutex, MutexGuard,
    },
    time::{Duration, Instant},
};

use anyhow::{anyhow, Result};
use once_cell::sync::Lazy;
use serde::Serialize;

use super::{
    job::{Cancelled, JobId, JobSpec, ProofKind},
    scheduler::{Engine, WaitOutcome},
    Priority,
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
    /// The engine jobs this request submitted (cancelled with it).
    engine_jobs: Vec<JobId>,
    /// When its first partitions were handed to the engine.
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

static REQUESTS: Lazy<Mutex<HashMap<u64, Arc<Request>>>> = Lazy::new(Default::default);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static CURRENT: RefCell<Option<Arc<Request>>> = const { RefCell::new(None) };
}

fn table() -> MutexGuard<'static, HashMap<u64, Arc<Request>>> {
    REQUESTS.lock().unwrap_or_else(|e| e.into_inner())
}

fn find(id: u64) -> Option<Arc<Request>> {
    table().get(&id).cloned()
}

/// Starts `work` (a whole proof call returning its output bytes) as request
/// of `kind` at `priority`; returns its id (never 0).
pub fn submit(
    kind: ProofKind,
    priority: Priority,
    work: impl FnOnce() -> Result<Vec<u8>> + Send + 'static,
) -> Result<u64> {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let request = Arc::new(Request {
        kind,
        priority,
        submitted: Instant::now(),
        inner: Mutex::new(Inner::default()),
        finished: Condvar::new(),
    });
    table().insert(id, request.clone());
    let spawned = std::thread::Builder::new().name(format!("cuzk-request-{id}")).spawn(move || {
        CURRENT.with(|c| *c.borrow_mut() = Some(request.clone()));
        let outcome = catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| Err(anyhow!("the proof call panicked")));
        CURRENT.with(|c| *c.borrow_mut() = None);
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
    let (spans, origin) = engine.spans_of(&inner.engine_jobs);
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
pub fn wait(id: u64, timeout: Option<Duration>) -> Waited {
    wait_timed(id, timeout).0
}

/// As `wait`, with where a finished request's time went.
pub fn wait_timed(id: u64, timeout: Option<Duration>) -> (Waited, Option<RequestTimes>) {
    let Some(request) = find(id) else { return (Waited::Unknown, None) };
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut inner = request.lock();
    while inner.outcome.is_none() {
        inner = match deadline {
            None => request.finished.wait(inner).unwrap_or_else(|e| e.into_inner()),
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return (Waited::Pending, None);
                }
                request.finished.wait_timeout(inner, left).unwrap_or_else(|e| e.into_inner()).0
            }
        };
    }
    // Only the waiter that removes the request takes its outcome.
    if table().remove(&id).is_none() {
        return (Waited::Unknown, None);
    }
    (Waited::Finished(inner.outcome.take().expect("checked")), inner.times)
}

pub fn poll(id: u64) -> Option<RequestState> {
    find(id).map(|r| r.state())
}

/// Cancels request `id`: waiters get a `Cancelled` error at once, its engine
/// jobs stop at their next partition boundary. False if unknown or finished.
pub fn cancel(id: u64) -> bool {
    let Some(request) = find(id) else { return false };
    let mut inner = request.lock();
    if inner.outcome.is_some() {
        return false;
    }
    inner.cancelled = true;
    inner.outcome = Some(Err(anyhow!(Cancelled)));
    let jobs = inner.engine_jobs.clone();
    drop(inner);
    if let Ok(engine) = super::global() {
        for job in jobs {
            engine.cancel(job);
        }
    }
    request.finished.notify_all();
    true
}

/// Forgets request `id` without waiting (cancelling it if running). False if unknown.
pub fn release(id: u64) -> bool {
    cancel(id);
    table().remove(&id).is_some()
}

/// A request in the status report.
#[derive(Clone, Debug, Serialize)]
pub struct RequestStatus {
    pub id: u64,
    pub kind: ProofKind,
    pub priority: Priority,
    pub state: RequestState,
    pub age_seconds: f64,
}

pub fn status() -> Vec<RequestStatus> {
    let requests: Vec<(u64, Arc<Request>)> = table().iter().map(|(&id, r)| (id, r.clone())).collect();
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

/// The priority the current request asked for, if this thread runs one.
pub(super) fn current_priority() -> Option<Priority> {
    CURRENT.with(|c| c.borrow().as_ref().map(|r| r.priority))
}

/// Submits `spec` to `engine` and waits for its proofs, under the current
/// request's cancellation if this thread runs one.
pub(super) fn run_job(engine: &Engine, spec: JobSpec) -> Result<Vec<Proof>> {
    let request = CURRENT.with(|c| c.borrow().clone());
    if request.as_ref().is_some_and(|r| r.lock().cancelled) {
        return Err(anyhow!(Cancelled));
    }
    let handed_over = Instant::now();
    let job = engine.submit(spec)?;
    if let Some(request) = &request {
        let mut inner = request.lock();
        if inner.cancelled {
            drop(inner);
            engine.cancel(job);
        } else {
            inner.engine_jobs.push(job);
            inner.handed_over.get_or_insert(handed_over);
        }
    }
    match engine.wait(job, None) {
        WaitOutcome::Finished(result) => result,
        WaitOutcome::Pending | WaitOutcome::Unknown => Err(anyhow!("the engine lost job {}", job.0)),
    }
}
