//! The daemon's jobs: each a request of cuzk's engine (`engine::requests`),
//! with its outcome kept after it finishes so that every waiter, and a
//! resubmission under the same `request_id`, gets the same answer.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex, MutexGuard},
    time::{Duration, Instant},
};

use cuzk::engine::{
    is_cancelled, JobId,
    requests::{self, RequestTimes},
    ProofKind,
};
use tokio::sync::watch;

use crate::request::Work;

/// How a job ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    Proof(Vec<u8>),
    Failed(String),
    Cancelled,
}

/// A finished job's outcome, how long it took from submission, and where
/// the engine's part of that went (`None` for a job cancelled before it
/// ended).
#[derive(Clone, Debug)]
pub struct Finished {
    pub outcome: Outcome,
    pub total: Duration,
    pub times: Option<RequestTimes>,
}

struct Job {
    engine_request: JobId,
    kind: ProofKind,
    finished: watch::Receiver<Option<Finished>>,
}

/// Finished jobs kept for late waiters and resubmissions, oldest dropped first.
const KEEP_FINISHED: usize = 4096;

#[derive(Default)]
struct Table {
    jobs: HashMap<String, Job>,
    by_request_id: HashMap<String, String>,
    finished_order: VecDeque<String>,
    next: u64,
    /// Requests being decoded, by kind: admitted, not yet jobs.
    admitting: HashMap<&'static str, usize>,
}

/// Unfinished jobs of one kind the daemon takes by default: each holds its
/// decoded inputs (a 32 GiB C1 output is tens of MB) and two threads until
/// it ends, and the engine proves a few at a time.
pub const DEFAULT_MAX_UNFINISHED: usize = 32;

/// A request refused because `limit` jobs of its kind are unfinished
/// (gRPC RESOURCE_EXHAUSTED): refused before it is decoded.
#[derive(Debug)]
pub struct Busy {
    pub kind: &'static str,
    pub limit: usize,
}

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} jobs are unfinished, the most the daemon takes (max_unfinished_jobs): submit again once some end", self.limit, self.kind)
    }
}

impl std::error::Error for Busy {}

/// Totals since the daemon started, by kind.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    pub completed: u64,
    pub failed: u64,
    pub cancelled: u64,
    pub seconds: f64,
}

pub struct Jobs {
    /// Random for each start of the daemon, so that an id a client kept
    /// across a restart names no other job.
    prefix: String,
    /// Unfinished jobs (and requests being decoded) of one kind, at most.
    max_unfinished: usize,
    table: Mutex<Table>,
    totals: Mutex<HashMap<&'static str, Totals>>,
}

impl Jobs {
    pub fn new(max_unfinished: usize) -> Self {
        Self { prefix: format!("{:08x}", rand::random::<u32>()), max_unfinished, table: Default::default(), totals: Default::default() }
    }
}

/// A request's place among those of its kind being decoded: given back
/// under the table's lock once it is a job or refused, or, if its decoding
/// panicked, when dropped.
struct Admitted<'a> {
    jobs: &'a Jobs,
    kind: &'static str,
}

impl Admitted<'_> {
    fn release(self, table: &mut Table) {
        Self::give_back(table, self.kind);
        std::mem::forget(self);
    }

    fn give_back(table: &mut Table, kind: &'static str) {
        if let Some(n) = table.admitting.get_mut(kind) {
            *n -= 1;
        }
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        Self::give_back(&mut lock(&self.jobs.table), self.kind);
    }
}

/// What `Jobs::submit` did.
pub struct Submitted {
    pub job_id: String,
    /// Unfinished jobs submitted before this one.
    pub ahead: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The name a kind goes by in status and metrics.
pub fn kind_name(kind: ProofKind) -> &'static str {
    match kind {
        ProofKind::PorepC2 => "porep_seal_commit",
        ProofKind::SnapDeals => "snap_deals_update",
        ProofKind::WindowPost => "window_post_partition",
        ProofKind::WinningPost => "winning_post",
    }
}

impl Jobs {
    /// Starts `work` (a request for a proof of `kind`) as a job, or returns
    /// the job already submitted under `request_id` (when not empty); `Busy`
    /// when `max_unfinished` jobs of the kind are unfinished or being
    /// decoded, before `work` decodes anything.
    pub fn submit(self: &Arc<Self>, request_id: &str, kind: ProofKind, work: impl FnOnce() -> anyhow::Result<Work>) -> anyhow::Result<Submitted> {
        let existing = |table: &Table| (!request_id.is_empty()).then(|| table.by_request_id.get(request_id).cloned()).flatten();
        let name = kind_name(kind);
        {
            let mut table = lock(&self.table);
            if let Some(job_id) = existing(&table) {
                return Ok(Submitted { job_id, ahead: 0 });
            }
            let unfinished = table.jobs.values().filter(|j| j.kind == kind && j.finished.borrow().is_none()).count();
            let admitting = table.admitting.entry(name).or_default();
            if unfinished + *admitting >= self.max_unfinished {
                return Err(Busy { kind: name, limit: self.max_unfinished }.into());
            }
            *admitting += 1;
        }
        let admitted = Admitted { jobs: self, kind: name };
        // Decoded without the lock: a large C1 output takes a while to parse.
        let decoded = work();
        let mut table = lock(&self.table);
        admitted.release(&mut table);
        let Work { kind, priority, call } = decoded?;
        if let Some(job_id) = existing(&table) {
            return Ok(Submitted { job_id, ahead: 0 });
        }
        let ahead = table.jobs.values().filter(|j| j.finished.borrow().is_none()).count();
        let engine_request = requests::submit(kind, priority, call)?;
        table.next += 1;
        let job_id = format!("job-{}-{}", self.prefix, table.next);
        let (tx, rx) = watch::channel(None);
        table.jobs.insert(job_id.clone(), Job { engine_request, kind, finished: rx });
        if !request_id.is_empty() {
            table.by_request_id.insert(request_id.to_string(), job_id.clone());
        }
        drop(table);

        let (jobs, id, submitted) = (self.clone(), job_id.clone(), Instant::now());
        std::thread::Builder::new().name(format!("cuzk-daemon-{job_id}")).spawn(move || {
            let (waited, times) = requests::wait_timed(engine_request, None);
            let outcome = match waited {
                requests::Waited::Finished(Ok(proof)) => Outcome::Proof(proof),
                requests::Waited::Finished(Err(e)) if is_cancelled(&e) => Outcome::Cancelled,
                requests::Waited::Finished(Err(e)) => Outcome::Failed(format!("{e:#}")),
                requests::Waited::Pending | requests::Waited::Unknown => Outcome::Failed("the engine lost the request".into()),
            };
            jobs.finish(&id, kind, Finished { outcome, total: submitted.elapsed(), times }, tx);
        })?;
        Ok(Submitted { job_id, ahead })
    }

    fn finish(&self, job_id: &str, kind: ProofKind, finished: Finished, tx: watch::Sender<Option<Finished>>) {
        {
            let mut totals = lock(&self.totals);
            let t = totals.entry(kind_name(kind)).or_default();
            match finished.outcome {
                Outcome::Proof(_) => t.completed += 1,
                Outcome::Failed(_) => t.failed += 1,
                Outcome::Cancelled => t.cancelled += 1,
            }
            t.seconds += finished.total.as_secs_f64();
        }
        tx.send_replace(Some(finished));
        let mut table = lock(&self.table);
        table.finished_order.push_back(job_id.to_string());
        while table.finished_order.len() > KEEP_FINISHED {
            let Some(old) = table.finished_order.pop_front() else { break };
            table.jobs.remove(&old);
            table.by_request_id.retain(|_, job| *job != old);
        }
    }

    /// Waits up to `timeout` (`None`: without limit) for `job_id`; `None`
    /// if no such job, `Some(None)` if it is still running at the timeout.
    pub async fn wait(&self, job_id: &str, timeout: Option<Duration>) -> Option<Option<Finished>> {
        let mut rx = lock(&self.table).jobs.get(job_id)?.finished.clone();
        let done = rx.wait_for(Option::is_some);
        let finished = match timeout {
            None => done.await.ok().map(|f| f.clone()),
            Some(t) => match tokio::time::timeout(t, done).await {
                Ok(f) => f.ok().map(|f| f.clone()),
                Err(_) => return Some(None),
            },
        };
        Some(finished.flatten())
    }

    /// Cancels `job_id`; true if it was running.
    pub fn cancel(&self, job_id: &str) -> bool {
        let table = lock(&self.table);
        match table.jobs.get(job_id) {
            Some(job) if job.finished.borrow().is_none() => requests::cancel(job.engine_request),
            _ => false,
        }
    }

    /// Unfinished jobs by kind.
    pub fn unfinished(&self) -> HashMap<&'static str, u32> {
        let mut out = HashMap::new();
        for job in lock(&self.table).jobs.values().filter(|j| j.finished.borrow().is_none()) {
            *out.entry(kind_name(job.kind)).or_default() += 1;
        }
        out
    }

    pub fn totals(&self) -> HashMap<&'static str, Totals> {
        lock(&self.totals).clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use cuzk::engine::Priority;

    use super::*;

    /// A job of `kind` whose proof call waits for `release`, then gives `[1]`.
    fn held(kind: ProofKind, release: mpsc::Receiver<()>) -> impl FnOnce() -> anyhow::Result<Work> {
        move || {
            let call = Box::new(move |_: &cuzk::engine::CallContext| {
                let _ = release.recv();
                Ok(vec![1])
            });
            Ok(Work { kind, priority: Priority::High, call })
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_kind_beyond_its_unfinished_jobs_is_refused_before_decoding() {
        let jobs = Arc::new(Jobs::new(2));
        let (kind, other) = (ProofKind::WinningPost, ProofKind::WindowPost);
        let (a_go, a) = mpsc::channel();
        let (b_go, b) = mpsc::channel();
        let first = jobs.submit("", kind, held(kind, a)).unwrap();
        jobs.submit("", kind, held(kind, b)).unwrap();
        assert!(first.job_id.starts_with(&format!("job-{}-", jobs.prefix)), "{}", first.job_id);

        let decoded = std::cell::Cell::new(false);
        let refused = jobs.submit("", kind, || {
            decoded.set(true);
            anyhow::bail!("never decoded")
        });
        let busy = refused.err().and_then(|e| e.downcast::<Busy>().ok()).expect("refused as busy");
        assert_eq!((busy.kind, busy.limit), ("winning_post", 2));
        assert!(!decoded.get(), "a refused request was decoded");
        // Another kind has limits of its own; a request that fails to decode
        // gives its place back.
        let (c_go, c) = mpsc::channel();
        jobs.submit("", other, held(other, c)).unwrap();
        let bad = jobs.submit("", other, || anyhow::bail!("bad bytes")).err().expect("a decoding error");
        assert!(bad.downcast_ref::<Busy>().is_none(), "{bad:#}");
        let jobs_again = jobs.clone();
        let panicked = std::thread::spawn(move || jobs_again.submit("", other, || panic!("a decoder bug"))).join();
        assert!(panicked.is_err());
        let (d_go, d) = mpsc::channel();
        jobs.submit("", other, held(other, d)).unwrap();

        // Once a job ends, its kind takes one more.
        a_go.send(()).unwrap();
        assert!(jobs.wait(&first.job_id, Some(Duration::from_secs(60))).await.unwrap().is_some(), "the first job did not end");
        let (e_go, e) = mpsc::channel();
        jobs.submit("", kind, held(kind, e)).unwrap();
        for go in [b_go, c_go, d_go, e_go] {
            go.send(()).unwrap();
        }
    }
}
