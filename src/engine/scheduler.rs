//! The engine: partitions of every submitted job wait in one priority-ordered
//! queue; synthesis workers take the most urgent one the host-memory budget
//! admits and put the synthesized circuit into a bounded, priority-ordered
//! ready queue; prover workers (one per GPU, or one on the CPU) take the most
//! urgent ready partition, prove it, verify it, and complete the job when its
//! last partition is in. So synthesis of partition N+1 (of this or another job)
//! overlaps proving of partition N, and more urgent work overtakes less urgent
//! work at the next partition boundary.
//!
//! Queue order is (priority, submission, partition index): FIFO within a
//! priority, partitions of one job in order. Only the head of the queue may
//! start synthesis: a large partition waiting for memory is not starved by
//! smaller ones behind it.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Condvar, Mutex, MutexGuard},
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, ensure, Result};
use bellperson::groth16::{prepare_verifying_key, verify_proofs_batch, PreparedVerifyingKey};
use blstrs::{Bls12, Scalar as Fr};
use rand::rngs::OsRng;
use serde::Serialize;

use super::{
    config::Config,
    estimate,
    job::{Cancelled, JobId, JobSpec, JobState, PartitionWork, Priority, ProofKind},
    prover, srs_cache,
    timeline::{Event, Stage, Timeline},
};
use crate::{
    circuit::Synthesized,
    groth16::{random_rs, Proof, ProvingKey},
};

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
    /// No GPU: partitions need the CPU prover's working memory too.
    cpu_prover: bool,
}

/// Position in the queues: most urgent first, then FIFO.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct QueueKey {
    rank: u8,
    job: JobId,
    partition: usize,
}

struct Ready {
    cs: Synthesized,
    public_inputs: Vec<Fr>,
    bytes: u64,
    since: Instant,
}

struct Job {
    kind: ProofKind,
    priority: Priority,
    label: String,
    key: Arc<ProvingKey>,
    pvk: Arc<PreparedVerifyingKey<Bls12>>,
    partition_bytes: u64,
    proofs: Vec<Option<Proof>>,
    remaining: usize,
    state: JobState,
    outcome: Option<Result<Vec<Proof>>>,
    submitted: Instant,
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

struct State {
    config: Config,
    paused: bool,
    shutdown: bool,
    next_job: u64,
    jobs: HashMap<JobId, Job>,
    pending: BTreeMap<QueueKey, PartitionWork>,
    ready: BTreeMap<QueueKey, Ready>,
    synthesizing: usize,
    /// Partitions being synthesized, by priority rank.
    synthesizing_by_rank: [usize; 3],
    proving: usize,
    /// Estimated bytes of the partitions between synthesis start and proof end.
    in_flight_bytes: u64,
    peak_in_flight_bytes: u64,
    synthesis_workers: usize,
    prover_workers: usize,
    next_worker: usize,
    counters: Counters,
    timeline: Timeline,
}

/// What `Engine::wait` found.
pub enum WaitOutcome {
    /// The job's proofs in partition order (each verified), or why it failed.
    /// The job is forgotten.
    Finished(Result<Vec<Proof>>),
    /// Not finished within the timeout.
    Pending,
    /// No such job (never submitted, or already waited for).
    Unknown,
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

#[derive(Clone, Debug, Serialize)]
pub struct MemoryStatus {
    pub host_budget_bytes: u64,
    /// Proving keys in memory (the SRS cache and the keys of live jobs).
    pub keys_bytes: u64,
    pub partitions_in_flight_bytes: u64,
    pub peak_partitions_in_flight_bytes: u64,
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
            cpu_prover: super::devices::gpu_count() == 0,
        });
        let engine = Engine { shared };
        engine.spawn_missing_workers(&mut lock(&engine.shared.state));
        engine
    }

    /// Replaces the configuration. Budgets and queue depth apply to the next
    /// admission; worker counts grow at once and shrink as workers finish
    /// their current partition.
    pub fn configure(&self, config: Config) {
        let mut st = lock(&self.shared.state);
        st.config = config;
        self.spawn_missing_workers(&mut st);
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
        self.shared.synthesis_cv.notify_all();
        self.shared.prover_cv.notify_all();
        self.shared.done_cv.notify_all();
    }

    fn spawn_missing_workers(&self, st: &mut State) {
        while st.synthesis_workers < st.config.synthesis_threads {
            let (shared, id) = (self.shared.clone(), st.next_worker);
            if let Err(e) = std::thread::Builder::new()
                .name(format!("cuzk-synthesis-{id}"))
                .spawn(move || synthesis_worker(&shared, id))
            {
                log::error!("cuzk: cannot start a synthesis worker: {e}");
                break;
            }
            st.synthesis_workers += 1;
            st.next_worker += 1;
        }
        while st.prover_workers < st.config.prover_workers {
            let (shared, id) = (self.shared.clone(), st.next_worker);
            if let Err(e) =
                std::thread::Builder::new().name(format!("cuzk-prover-{id}")).spawn(move || prover_worker(&shared, id))
            {
                log::error!("cuzk: cannot start a prover worker: {e}");
                break;
            }
            st.prover_workers += 1;
            st.next_worker += 1;
        }
    }

    /// Estimated host bytes one partition under `pk` holds in this engine.
    pub fn partition_bytes(&self, pk: &ProvingKey) -> u64 {
        estimate::partition_bytes(pk, self.shared.cpu_prover)
    }

    /// Queues `spec`'s partitions; the proofs come from `wait`.
    pub fn submit(&self, spec: JobSpec) -> Result<JobId> {
        ensure!(!spec.partitions.is_empty(), "{}: no partitions to prove", spec.label);
        let pvk = Arc::new(prepare_verifying_key(&spec.key.vk));
        let partition_bytes = self.partition_bytes(&spec.key);
        let mut st = lock(&self.shared.state);
        if st.shutdown {
            bail!("the engine is shut down");
        }
        let id = st.add_job(spec, pvk, partition_bytes);
        drop(st);
        self.shared.synthesis_cv.notify_all();
        Ok(id)
    }

    /// Waits up to `timeout` (`None`: without limit) for job `id` to finish.
    pub fn wait(&self, id: JobId, timeout: Option<Duration>) -> WaitOutcome {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut st = lock(&self.shared.state);
        loop {
            match st.jobs.get(&id) {
                None => return WaitOutcome::Unknown,
                Some(job) if job.outcome.is_some() => {
                    let mut job = st.jobs.remove(&id).expect("present");
                    return WaitOutcome::Finished(job.outcome.take().expect("checked"));
                }
                Some(_) => {}
            }
            st = match deadline {
                None => self.shared.done_cv.wait(st).unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return WaitOutcome::Pending;
                    }
                    self.shared.done_cv.wait_timeout(st, left).unwrap_or_else(|e| e.into_inner()).0
                }
            };
        }
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
            synthesis_workers: st.synthesis_workers,
            prover_workers: st.prover_workers,
            prover: if self.shared.cpu_prover { "cpu" } else { "gpu" },
            pending_partitions: st.pending.len(),
            synthesizing: st.synthesizing,
            ready_partitions: st.ready.len(),
            proving: st.proving,
            memory: MemoryStatus {
                host_budget_bytes: st.config.host_memory_budget,
                keys_bytes: st.keys_bytes(),
                partitions_in_flight_bytes: st.in_flight_bytes,
                peak_partitions_in_flight_bytes: st.peak_in_flight_bytes,
            },
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

impl State {
    fn new(config: Config, paused: bool) -> Self {
        State {
            config,
            paused,
            shutdown: false,
            next_job: 1,
            jobs: HashMap::new(),
            pending: BTreeMap::new(),
            ready: BTreeMap::new(),
            synthesizing: 0,
            synthesizing_by_rank: [0; 3],
            proving: 0,
            in_flight_bytes: 0,
            peak_in_flight_bytes: 0,
            synthesis_workers: 0,
            prover_workers: 0,
            next_worker: 0,
            counters: Counters::default(),
            timeline: Timeline::default(),
        }
    }

    /// Queues `spec`'s partitions under the next job id.
    fn add_job(&mut self, spec: JobSpec, pvk: Arc<PreparedVerifyingKey<Bls12>>, partition_bytes: u64) -> JobId {
        let id = JobId(self.next_job);
        self.next_job += 1;
        let count = spec.partitions.len();
        for (partition, work) in spec.partitions.into_iter().enumerate() {
            self.pending.insert(QueueKey { rank: spec.priority.rank(), job: id, partition }, work);
        }
        self.jobs.insert(
            id,
            Job {
                kind: spec.kind,
                priority: spec.priority,
                label: spec.label,
                key: spec.key,
                pvk,
                partition_bytes,
                proofs: (0..count).map(|_| None).collect(),
                remaining: count,
                state: JobState::Queued,
                outcome: None,
                submitted: Instant::now(),
            },
        );
        self.counters.jobs_submitted += 1;
        id
    }

    fn live(&self, id: JobId) -> Option<&Job> {
        self.jobs.get(&id).filter(|j| !j.state.is_finished())
    }

    /// Bytes of the distinct proving keys in memory: the SRS cache's and those
    /// of live jobs (a test's or benchmark's own keys).
    fn keys_bytes(&self) -> u64 {
        let cached = srs_cache::resident_keys();
        let mut seen = HashSet::new();
        cached
            .iter()
            .chain(self.jobs.values().filter(|j| !j.state.is_finished()).map(|j| &j.key))
            .filter(|k| seen.insert(Arc::as_ptr(k)))
            .map(|k| k.size_bytes() as u64)
            .sum()
    }

    fn record(&mut self, started: Instant, key: QueueKey, stage: Stage, worker: usize) {
        let priority = self.jobs.get(&key.job).map_or(Priority::Low, |j| j.priority);
        let event = Event { at: started.elapsed(), job: key.job, priority, partition: key.partition, stage, worker };
        self.timeline.record(event);
    }

    /// Partitions of priority rank `rank` or more urgent that are ready or
    /// being synthesized: what a new partition of that rank queues behind.
    fn ahead_of(&self, rank: u8) -> usize {
        let synthesizing: usize = self.synthesizing_by_rank[..=rank as usize].iter().sum();
        synthesizing + self.ready.keys().filter(|k| k.rank <= rank).count()
    }

    /// The head of the queue, if a synthesis may start now: not paused, a slot
    /// in the ready queue, and memory for it in the budget. The ready-queue
    /// bound counts only partitions at least as urgent as the head, so less
    /// urgent ones waiting there never delay a more urgent synthesis (the
    /// memory budget still bounds them all). A partition larger than all the
    /// budget left starts alone, when nothing else is in flight, rather than never.
    fn take_synthesis(&mut self) -> Option<(QueueKey, PartitionWork, u64)> {
        if self.paused {
            return None;
        }
        let key = *self.pending.keys().next()?;
        if self.ahead_of(key.rank) >= self.config.ready_queue_depth {
            return None;
        }
        let bytes = self.jobs.get(&key.job).map_or(0, |j| j.partition_bytes);
        let available = self.config.host_memory_budget.saturating_sub(self.keys_bytes() + self.in_flight_bytes);
        if bytes > available {
            if self.in_flight_bytes > 0 {
                return None;
            }
            log::warn!(
                "cuzk: a partition needs ~{} MiB, {} MiB of the host memory budget are left after the keys: proving it alone",
                bytes >> 20,
                available >> 20
            );
        }
        let work = self.pending.remove(&key).expect("present");
        self.in_flight_bytes += bytes;
        self.peak_in_flight_bytes = self.peak_in_flight_bytes.max(self.in_flight_bytes);
        self.synthesizing += 1;
        self.synthesizing_by_rank[key.rank as usize] += 1;
        if let Some(job) = self.jobs.get_mut(&key.job) {
            if job.state == JobState::Queued {
                job.state = JobState::Running;
            }
        }
        Some((key, work, bytes))
    }

    fn release(&mut self, bytes: u64) {
        self.in_flight_bytes -= bytes;
    }

    /// Ends job `id` with `error` unless it is already finished; its queued
    /// and ready partitions are dropped.
    fn finish_with_error(&mut self, id: JobId, state: JobState, error: anyhow::Error) -> bool {
        if self.live(id).is_none() {
            return false;
        }
        self.pending.retain(|k, _| k.job != id);
        let dropped: Vec<QueueKey> = self.ready.keys().filter(|k| k.job == id).copied().collect();
        for k in dropped {
            let r = self.ready.remove(&k).expect("present");
            self.release(r.bytes);
        }
        let job = self.jobs.get_mut(&id).expect("live");
        job.state = state;
        job.outcome = Some(Err(error));
        match state {
            JobState::Cancelled => self.counters.jobs_cancelled += 1,
            _ => self.counters.jobs_failed += 1,
        }
        true
    }

    /// Stores a verified partition proof; true when it completed its job.
    fn complete_partition(&mut self, key: QueueKey, proof: Proof) -> bool {
        let Some(job) = self.jobs.get_mut(&key.job).filter(|j| !j.state.is_finished()) else { return false };
        job.proofs[key.partition] = Some(proof);
        job.remaining -= 1;
        if job.remaining > 0 {
            return false;
        }
        job.state = JobState::Done;
        job.outcome = Some(Ok(job.proofs.iter_mut().map(|p| p.take().expect("every partition proved")).collect()));
        self.counters.jobs_done += 1;
        true
    }

    /// Whether worker counts above the configuration ask this one to stop.
    fn synthesis_worker_retires(&mut self) -> bool {
        let retire = self.shutdown || self.synthesis_workers > self.config.synthesis_threads;
        if retire {
            self.synthesis_workers -= 1;
        }
        retire
    }

    fn prover_worker_retires(&mut self) -> bool {
        let retire = self.shutdown || self.prover_workers > self.config.prover_workers;
        if retire {
            self.prover_workers -= 1;
        }
        retire
    }
}

fn panic_error(payload: Box<dyn std::any::Any + Send>) -> anyhow::Error {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    anyhow!("panic: {text}")
}

fn synthesis_worker(shared: &Shared, worker: usize) {
    loop {
        let (key, work, bytes) = {
            let mut st = lock(&shared.state);
            loop {
                if st.synthesis_worker_retires() {
                    return;
                }
                if let Some(taken) = st.take_synthesis() {
                    st.record(shared.started, taken.0, Stage::SynthesisStart, worker);
                    break taken;
                }
                st = shared.synthesis_cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        let start = Instant::now();
        let PartitionWork { synthesize, public_inputs } = work;
        let result = catch_unwind(AssertUnwindSafe(synthesize)).unwrap_or_else(|p| Err(panic_error(p)));
        let result = result.and_then(|cs| {
            ensure!(
                cs.inputs.get(1..) == Some(&public_inputs[..]),
                "circuit inputs differ from the public inputs the verifier derives"
            );
            Ok(cs)
        });
        let mut st = lock(&shared.state);
        st.synthesizing -= 1;
        st.synthesizing_by_rank[key.rank as usize] -= 1;
        st.counters.synthesis_seconds += start.elapsed().as_secs_f64();
        match result {
            Ok(cs) if st.live(key.job).is_some() => {
                st.counters.partitions_synthesized += 1;
                st.record(shared.started, key, Stage::SynthesisEnd, worker);
                st.ready.insert(key, Ready { cs, public_inputs, bytes, since: Instant::now() });
                shared.prover_cv.notify_one();
            }
            Ok(_) => st.release(bytes),
            Err(e) => {
                st.release(bytes);
                let label = st.jobs.get(&key.job).map(|j| j.label.clone()).unwrap_or_default();
                let e = e.context(format!("{label}: synthesizing partition {}", key.partition));
                if st.finish_with_error(key.job, JobState::Failed, e) {
                    shared.done_cv.notify_all();
                }
            }
        }
        drop(st);
        shared.synthesis_cv.notify_all();
    }
}

struct ProverWork {
    key: QueueKey,
    ready: Ready,
    pk: Arc<ProvingKey>,
    pvk: Arc<PreparedVerifyingKey<Bls12>>,
    label: String,
}

fn prover_worker(shared: &Shared, worker: usize) {
    loop {
        let Some(work) = next_to_prove(shared, worker) else { return };
        let start = Instant::now();
        let ProverWork { key, ready, pk, pvk, label } = work;
        let Ready { cs, public_inputs, bytes, .. } = ready;
        let outcome = catch_unwind(AssertUnwindSafe(|| prove_and_verify(&pk, &pvk, cs, public_inputs)))
            .unwrap_or_else(|p| Err(panic_error(p)));
        let mut st = lock(&shared.state);
        st.proving -= 1;
        st.release(bytes);
        st.counters.proving_seconds += start.elapsed().as_secs_f64();
        let finished = match outcome {
            Ok(proof) => {
                st.counters.partitions_proved += 1;
                st.record(shared.started, key, Stage::ProveEnd, worker);
                st.complete_partition(key, proof)
            }
            Err(e) => {
                let e = e.context(format!("{label}: proving partition {}", key.partition));
                st.finish_with_error(key.job, JobState::Failed, e)
            }
        };
        drop(st);
        if finished {
            shared.done_cv.notify_all();
        }
        shared.synthesis_cv.notify_all();
    }
}

/// The most urgent ready partition of a live job; `None` when this worker retires.
fn next_to_prove(shared: &Shared, worker: usize) -> Option<ProverWork> {
    let mut st = lock(&shared.state);
    loop {
        if st.prover_worker_retires() {
            return None;
        }
        if !st.paused {
            if let Some((key, ready)) = st.ready.pop_first() {
                // A ready slot is free: another synthesis may start.
                shared.synthesis_cv.notify_all();
                let Some(job) = st.live(key.job) else {
                    st.release(ready.bytes);
                    continue;
                };
                let (pk, pvk, label) = (job.key.clone(), job.pvk.clone(), job.label.clone());
                st.proving += 1;
                st.counters.ready_wait_seconds += ready.since.elapsed().as_secs_f64();
                st.record(shared.started, key, Stage::ProveStart, worker);
                return Some(ProverWork { key, ready, pk, pvk, label });
            }
        }
        st = shared.prover_cv.wait(st).unwrap_or_else(|e| e.into_inner());
    }
}

/// Proves `cs` (fresh r, s) and verifies the proof against `public_inputs`: no
/// proof leaves the engine unverified.
fn prove_and_verify(
    pk: &Arc<ProvingKey>,
    pvk: &PreparedVerifyingKey<Bls12>,
    cs: Synthesized,
    public_inputs: Vec<Fr>,
) -> Result<Proof> {
    let (r, s) = random_rs(&mut OsRng);
    let proof = prover::prove(pk, cs, r, s)?;
    if !verify_proofs_batch(pvk, &mut OsRng, &[&proof.to_bellperson()], &[public_inputs])? {
        bail!("the proof does not verify (inconsistent inputs); it was not returned");
    }
    Ok(proof)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        circuit::{synthesize, MulChain},
        groth16::synthetic_srs,
    };

    fn add(st: &mut State, priority: Priority, partitions: usize) -> JobId {
        let cs = synthesize(MulChain { start: Fr::from(3u64), links: 8 }).unwrap();
        let key = Arc::new(synthetic_srs::key_for(&cs, 1));
        let pvk = Arc::new(prepare_verifying_key(&key.vk));
        let spec = JobSpec {
            kind: ProofKind::PorepC2,
            priority,
            label: format!("{priority:?}"),
            key,
            partitions: (0..partitions)
                .map(|_| PartitionWork { synthesize: Box::new(|| unreachable!()), public_inputs: Vec::new() })
                .collect(),
        };
        st.add_job(spec, pvk, 1000)
    }

    /// Moves a taken partition from synthesis to the ready queue, as a worker does.
    fn make_ready(st: &mut State, key: QueueKey, bytes: u64) {
        st.synthesizing -= 1;
        st.synthesizing_by_rank[key.rank as usize] -= 1;
        st.ready.insert(key, Ready { cs: Synthesized::default(), public_inputs: Vec::new(), bytes, since: Instant::now() });
    }

    #[test]
    fn less_urgent_ready_partitions_do_not_hold_back_a_more_urgent_synthesis() {
        let config = Config {
            param_cache: std::env::temp_dir(),
            host_memory_budget: 1 << 40,
            synthesis_threads: 1,
            prover_workers: 1,
            ready_queue_depth: 1,
        };
        let mut st = State::new(config, false);
        let low = add(&mut st, Priority::Low, 3);
        let (key, _, bytes) = st.take_synthesis().unwrap();
        assert_eq!((key.job, key.partition), (low, 0));
        assert!(st.take_synthesis().is_none(), "a second low partition while one is synthesizing (depth 1)");
        make_ready(&mut st, key, bytes);
        assert!(st.take_synthesis().is_none(), "a second low partition while one is ready (depth 1)");
        let high = add(&mut st, Priority::High, 1);
        let (key, _, _) = st.take_synthesis().expect("the high partition starts at once");
        assert_eq!(key.job, high);
        assert_eq!(st.ready.keys().next().unwrap().job, low);
        assert!(st.take_synthesis().is_none());
        assert_eq!(st.in_flight_bytes, 2000);
    }
}
