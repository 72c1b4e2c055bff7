//! The engine: partitions of every submitted job wait in one priority-ordered
//! queue; synthesis workers take the most urgent one the host-memory budget
//! admits and put the synthesized circuit into a bounded, priority-ordered
//! ready queue; prover workers (one per GPU, or one on the CPU) take the most
//! urgent ready partition, prove it, verify it, and complete the job when its
//! last partition is in. So synthesis of partition N+1 (of this or another job)
//! overlaps proving of partition N, and more urgent work overtakes less urgent
//! work at the next partition boundary.

mod calls;
mod in_flight;
mod snapshot;
mod state;
mod watchdog;
mod workers;

use std::{
    sync::{Arc, Condvar, Mutex, MutexGuard},
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, ensure, Result};

pub use self::{
    calls::RequestStatus,
    snapshot::{Counters, EngineStatus, JobStatus, MemoryStatus},
};
use self::{
    state::{Job, Output, State},
    watchdog::watchdog,
    workers::{prover_worker, synthesis_worker},
};
use super::{
    config::Config,
    job::{Cancelled, JobId, JobSpec, JobState},
    timeline::Event,
    wait,
};
use crate::groth16::{Proof, ProvingKey};

/// A scheduler with its workers. Dropping it stops the workers once their
/// current partition is done.
pub struct Engine {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when synthesis may start: work queued, memory or a ready slot freed.
    synthesis_cv: Condvar,
    /// Signalled when a partition is ready to prove.
    prover_cv: Condvar,
    /// Signalled when a job finishes.
    done_cv: Condvar,
    started: Instant,
}

/// What `Engine::wait` (or `wait_output`) found.
pub enum WaitOutcome<T = Vec<Proof>> {
    /// The job's proofs in partition order (each verified), or a proof
    /// call's output, or why it failed. The job is forgotten.
    Finished(Result<T>),
    /// Not finished within the timeout.
    Pending,
    /// No such job (never submitted, or already waited for).
    Unknown,
}

impl Shared {
    fn notify_all(&self) {
        self.synthesis_cv.notify_all();
        self.prover_cv.notify_all();
        self.done_cv.notify_all();
    }
}

/// Starts workers up to the configured counts (after some retired, were
/// abandoned or the counts grew).
fn spawn_missing_workers(shared: &Arc<Shared>, st: &mut State) {
    let (synthesis, prover) = (state::synthesis_workers(&st.config), state::prover_workers(&st.config));
    while st.workers.synthesis < synthesis && spawn(shared, st, "synthesis", synthesis_worker) {
        st.workers.synthesis += 1;
    }
    while st.workers.prover < prover && spawn(shared, st, "prover", prover_worker) {
        st.workers.prover += 1;
    }
}

/// Starts thread `cuzk-{what}-{id}` running `work`; false (logged) when
/// the OS refuses it.
fn spawn(shared: &Arc<Shared>, st: &mut State, what: &str, work: fn(&Arc<Shared>, usize)) -> bool {
    let (shared, id) = (shared.clone(), st.workers.next);
    match std::thread::Builder::new().name(format!("cuzk-{what}-{id}")).spawn(move || work(&shared, id)) {
        Ok(_) => {
            st.workers.next += 1;
            true
        }
        Err(e) => {
            log::error!("cuzk: cannot start a {what} worker: {e}");
            false
        }
    }
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    // Worker panics are caught before they can poison the state; recover anyway.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Engine {
    /// An engine with `config`'s workers running.
    pub fn new(config: Config) -> Self {
        Self::start(config, false)
    }

    /// An engine whose workers take no work until `resume` (tests and
    /// benchmarks queue a known set of jobs first).
    pub fn paused(config: Config) -> Self {
        Self::start(config, true)
    }

    fn start(config: Config, paused: bool) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::new(config, paused)),
            synthesis_cv: Condvar::new(),
            prover_cv: Condvar::new(),
            done_cv: Condvar::new(),
            started: Instant::now(),
        });
        let engine = Engine { shared };
        let mut st = lock(&engine.shared.state);
        super::devices::set_step_limit(Duration::from_secs(st.config.gpu_step_timeout_seconds));
        spawn_missing_workers(&engine.shared, &mut st);
        if !spawn(&engine.shared, &mut st, "watchdog", |shared, _| watchdog(shared)) {
            log::error!("cuzk: no watchdog: a hung synthesis or proof will not be abandoned");
        }
        drop(st);
        engine
    }

    /// Replaces the configuration. Budgets and queue depth apply to the next
    /// admission; worker counts grow at once and shrink as workers finish
    /// their current partition.
    pub fn configure(&self, config: Config) {
        let mut st = lock(&self.shared.state);
        super::devices::set_step_limit(Duration::from_secs(config.gpu_step_timeout_seconds));
        st.config = config;
        spawn_missing_workers(&self.shared, &mut st);
        drop(st);
        self.notify_all();
    }

    pub fn config(&self) -> Config {
        lock(&self.shared.state).config.clone()
    }

    pub fn pause(&self) {
        lock(&self.shared.state).paused = true;
    }

    pub fn resume(&self) {
        lock(&self.shared.state).paused = false;
        self.notify_all();
    }

    fn notify_all(&self) {
        self.shared.notify_all();
    }

    /// Estimated host bytes a partition under `pk` starting now holds in
    /// this engine.
    pub fn partition_bytes(&self, pk: &Arc<ProvingKey>) -> u64 {
        let st = lock(&self.shared.state);
        (st.in_flight.estimate)(&st.config, pk)
    }

    /// Queues `spec`'s partitions; the proofs come from `wait`.
    pub fn submit(&self, spec: JobSpec) -> Result<JobId> {
        ensure!(!spec.partitions.is_empty(), "{}: no partitions to prove", spec.label);
        // Prepared here, once per key, not on a prover worker.
        spec.key.prepared_vk();
        let mut st = self.open()?;
        let id = st.add_job(spec);
        drop(st);
        self.shared.synthesis_cv.notify_all();
        Ok(id)
    }

    /// The state, if the engine takes new jobs.
    fn open(&self) -> Result<MutexGuard<'_, State>> {
        let st = lock(&self.shared.state);
        if st.shutdown {
            bail!("the engine is shut down");
        }
        Ok(st)
    }

    /// Waits up to `timeout` (`None`: without limit) for job `id` to finish.
    pub fn wait(&self, id: JobId, timeout: Option<Duration>) -> WaitOutcome {
        self.collect(id, timeout, |job| match job.outcome.take().expect("finished") {
            Ok(Output::Proofs(proofs)) => Ok(proofs),
            Ok(Output::Bytes(_)) => Err(anyhow!("job {} is a proof call's: its output is bytes", id.0)),
            Err(e) => Err(e),
        })
    }

    /// Waits up to `timeout` for job `id` to finish; a finished job is
    /// removed and handed to `take`.
    fn collect<T>(&self, id: JobId, timeout: Option<Duration>, mut take: impl FnMut(&mut Job) -> Result<T>) -> WaitOutcome<T> {
        let st = lock(&self.shared.state);
        let found = wait::until(&self.shared.done_cv, st, timeout, |st| match st.jobs.get(&id) {
            None => Some(WaitOutcome::Unknown),
            Some(job) if job.outcome.is_some() => {
                let mut job = st.jobs.remove(&id).expect("present");
                Some(WaitOutcome::Finished(take(&mut job)))
            }
            Some(_) => None,
        });
        found.unwrap_or(WaitOutcome::Pending)
    }

    /// Where job `id` is; `None` if unknown.
    pub fn poll(&self, id: JobId) -> Option<JobState> {
        lock(&self.shared.state).jobs.get(&id).map(|j| j.state)
    }

    /// Cancels job `id`: its queued partitions are dropped, those being
    /// synthesized or proved are discarded when done, and `wait` returns a
    /// `Cancelled` error. False if the job is unknown or already finished.
    pub fn cancel(&self, id: JobId) -> bool {
        let mut st = lock(&self.shared.state);
        let cancelled = st.finish_with_error(id, JobState::Cancelled, anyhow!(Cancelled));
        drop(st);
        if cancelled {
            self.notify_all();
        }
        cancelled
    }

    /// Every partition's synthesis and proof, start and end, oldest first.
    pub fn timeline(&self) -> Vec<Event> {
        lock(&self.shared.state).timeline.events()
    }

    pub fn status(&self) -> EngineStatus {
        let st = lock(&self.shared.state);
        let mut jobs: Vec<JobStatus> = st
            .jobs
            .iter()
            .map(|(&id, j)| JobStatus {
                id,
                kind: j.kind,
                priority: j.priority,
                label: j.label.clone(),
                state: j.state,
                partitions: j.proofs.len(),
                proved: j.proofs.iter().filter(|p| p.is_some()).count(),
                age_seconds: j.submitted.elapsed().as_secs_f64(),
            })
            .collect();
        jobs.sort_by_key(|j| j.id);
        EngineStatus {
            config: st.config.clone(),
            paused: st.paused,
            synthesis_workers: st.workers.synthesis,
            prover_workers: st.workers.prover,
            prover: if st.config.selected_gpus().is_empty() { "cpu" } else { "gpu" },
            pending_partitions: st.pending.len(),
            synthesizing: st.synthesizing_partitions,
            ready_partitions: st.ready.len(),
            proving: st.proving.total(),
            memory: MemoryStatus {
                host_budget_bytes: st.config.host_memory_budget,
                keys_bytes: st.keys_bytes(),
                partitions_in_flight_bytes: st.in_flight.bytes(),
                peak_partitions_in_flight_bytes: st.in_flight.peak(),
            },
            abandoned_workers: st.busy.abandoned(),
            jobs,
            counters: st.counters.clone(),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        lock(&self.shared.state).shutdown = true;
        self.notify_all();
    }
}
