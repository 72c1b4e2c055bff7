//! The engine's state under its one lock: the jobs, the pending and ready
//! queues, the memory in flight, the worker counts, counters and timeline.
//!
//! Queue order is (priority, submission, partition index): FIFO within a
//! priority, partitions of one job in order. Only the head of the queue may
//! start synthesis: a large partition waiting for memory is not starved by
//! smaller ones behind it.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::Arc,
    time::Instant,
};

use anyhow::Result;
use blstrs::Scalar as Fr;

use super::{calls::Call, in_flight::InFlight, snapshot::Counters, watchdog::Busy};
use crate::{
    circuit::{segment_pieces_on, Assignment},
    engine::{
        bulk_pool,
        config::Config,
        estimate,
        job::{JobId, JobSpec, JobState, PartitionWork, Priority, ProofKind, Verification},
        srs_cache,
        timeline::{Event, ProofStages, Stage, Timeline},
    },
    groth16::{Proof, ProvingKey},
};

/// Position in the queues: most urgent first, then FIFO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct QueueKey {
    pub(super) priority: Priority,
    pub(super) job: JobId,
    pub(super) partition: usize,
}

impl Ord for QueueKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let order = |k: &Self| (std::cmp::Reverse(k.priority), k.job, k.partition);
        order(self).cmp(&order(other))
    }
}

impl PartialOrd for QueueKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A partition `take_synthesis` handed to a synthesis worker: its work, the
/// host bytes it was admitted with and its shares of a synthesis pool (both
/// given back with `synthesized` and later `proved` or `release`).
pub(super) struct Taken {
    pub(super) key: QueueKey,
    pub(super) work: PartitionWork,
    pub(super) bytes: u64,
    pub(super) shares: usize,
}

pub(super) struct Ready {
    pub(super) cs: Assignment,
    pub(super) public_inputs: Vec<Fr>,
    pub(super) bytes: u64,
    /// Its `synthesis_shares`, counted against `ready_queue_depth`.
    pub(super) shares: usize,
    pub(super) since: Instant,
}

pub(super) struct Job {
    pub(super) kind: ProofKind,
    pub(super) priority: Priority,
    pub(super) label: String,
    /// `None` once the job finished: a result not yet collected does not
    /// keep its parameters in memory (an evicted SRS is freed at once).
    pub(super) key: Option<Arc<ProvingKey>>,
    pub(super) verification: Verification,
    shares: usize,
    pub(super) proofs: Vec<Option<Proof>>,
    remaining: usize,
    pub(super) state: JobState,
    pub(super) outcome: Option<Result<Output>>,
    pub(super) submitted: Instant,
    /// A proof call's part (`None`: a job of partitions alone).
    pub(super) call: Option<Call>,
}

/// What a finished job gives its waiter.
pub(super) enum Output {
    /// A job of partitions: their proofs in order.
    Proofs(Vec<Proof>),
    /// A proof call's output bytes.
    Bytes(Vec<u8>),
}

impl Job {
    pub(super) fn new(kind: ProofKind, priority: Priority, label: String, call: Option<Call>) -> Self {
        Job {
            kind,
            priority,
            label,
            key: None,
            verification: Verification::Required,
            shares: synthesis_shares(kind, bulk_pool::threads()),
            proofs: Vec::new(),
            remaining: 0,
            state: if call.is_some() { JobState::Preparing } else { JobState::Queued },
            outcome: None,
            submitted: Instant::now(),
            call,
        }
    }

    pub(super) fn finish(&mut self, state: JobState, outcome: Result<Output>) {
        self.state = state;
        self.outcome = Some(outcome);
        self.key = None;
    }

    /// Whether its partitions are being synthesized and proved: a partition
    /// of a job that is not takes no further step.
    fn accepting(&self) -> bool {
        matches!(self.state, JobState::Queued | JobState::Running)
    }
}

/// Worker threads running, and the id of the next one.
#[derive(Default)]
pub(super) struct WorkerCounts {
    pub(super) synthesis: usize,
    pub(super) prover: usize,
    pub(super) next: usize,
}

pub(super) struct State {
    pub(super) config: Config,
    pub(super) paused: bool,
    pub(super) shutdown: bool,
    next_job: u64,
    pub(super) jobs: HashMap<JobId, Job>,
    pub(super) pending: BTreeMap<QueueKey, PartitionWork>,
    pub(super) ready: BTreeMap<QueueKey, Ready>,
    /// Partitions being synthesized, in `synthesis_shares`.
    pub(super) synthesizing: ByPriority,
    pub(super) synthesizing_partitions: usize,
    /// Partitions being proved.
    pub(super) proving: ByPriority,
    pub(super) in_flight: InFlight,
    pub(super) workers: WorkerCounts,
    pub(super) counters: Counters,
    pub(super) timeline: Timeline,
    /// What each worker is doing, for the watchdog.
    pub(super) busy: Busy,
}

impl State {
    pub(super) fn new(config: Config, paused: bool) -> Self {
        State {
            config,
            paused,
            shutdown: false,
            next_job: 1,
            jobs: HashMap::new(),
            pending: BTreeMap::new(),
            ready: BTreeMap::new(),
            synthesizing: ByPriority::default(),
            synthesizing_partitions: 0,
            proving: ByPriority::default(),
            in_flight: InFlight::new(estimate::partition_bytes_now),
            workers: WorkerCounts::default(),
            counters: Counters::default(),
            timeline: Timeline::default(),
            busy: Busy::default(),
        }
    }

    /// A job id never handed out before.
    fn new_id(&mut self) -> JobId {
        let id = JobId(self.next_job);
        self.next_job += 1;
        id
    }

    /// Adds `job` under a new id.
    pub(super) fn add(&mut self, job: Job) -> JobId {
        let id = self.new_id();
        self.jobs.insert(id, job);
        self.counters.jobs_submitted += 1;
        id
    }

    /// Adds the job of `spec`'s partitions under a new id.
    pub(super) fn add_job(&mut self, spec: JobSpec) -> JobId {
        let id = self.add(Job::new(spec.kind, spec.priority, String::new(), None));
        self.queue_partitions(id, spec);
        id
    }

    /// Queues `spec`'s partitions as those of job `id`, at the job's
    /// priority.
    pub(super) fn queue_partitions(&mut self, id: JobId, spec: JobSpec) {
        let job = self.jobs.get_mut(&id).expect("queued for a known job");
        let count = spec.partitions.len();
        for (partition, work) in spec.partitions.into_iter().enumerate() {
            self.pending.insert(QueueKey { priority: job.priority, job: id, partition }, work);
        }
        job.label = spec.label;
        job.key = Some(spec.key);
        job.verification = spec.verification;
        job.proofs = (0..count).map(|_| None).collect();
        job.remaining = count;
        job.state = JobState::Queued;
    }

    pub(super) fn live(&self, id: JobId) -> Option<&Job> {
        self.jobs.get(&id).filter(|j| !j.state.is_finished())
    }

    /// Job `id` if its partitions are being synthesized and proved.
    pub(super) fn accepting(&self, id: JobId) -> Option<&Job> {
        self.jobs.get(&id).filter(|j| j.accepting())
    }

    /// Bytes of the distinct proving keys in memory: the SRS cache's and those
    /// of live jobs (a test's or benchmark's own keys).
    pub(super) fn keys_bytes(&self) -> u64 {
        let cached = srs_cache::resident_keys();
        let mut seen = HashSet::new();
        cached
            .iter()
            .chain(self.jobs.values().filter_map(|j| j.key.as_ref()))
            .filter(|k| seen.insert(Arc::as_ptr(k)))
            .map(|k| k.size_bytes() as u64)
            .sum()
    }

    pub(super) fn record(&mut self, started: Instant, key: QueueKey, stage: Stage, worker: usize) {
        self.record_proof(started, key, stage, worker, None);
    }

    /// `record`, with how the proof's time split (at its end).
    pub(super) fn record_proof(&mut self, started: Instant, key: QueueKey, stage: Stage, worker: usize, proof: Option<ProofStages>) {
        let priority = self.jobs.get(&key.job).map_or(Priority::Low, |j| j.priority);
        let event = Event { at: started.elapsed(), job: key.job, priority, partition: key.partition, stage, worker, proof };
        self.timeline.record(event);
    }

    /// Shares of the partitions of `priority` or more urgent that are ready
    /// or being synthesized: what a new partition of that priority queues
    /// behind.
    fn ahead_of(&self, priority: Priority) -> usize {
        let ready: usize = self.ready.iter().filter(|(k, _)| k.priority >= priority).map(|(_, r)| r.shares).sum();
        self.synthesizing.as_or_more_urgent(priority) + ready
    }

    /// The head of the queue, if a synthesis may start now: not paused, a slot
    /// in the ready queue, and memory for it in the budget. The ready-queue
    /// bound counts only partitions at least as urgent as the head, so less
    /// urgent ones waiting there never delay a more urgent synthesis (the
    /// memory budget still bounds them all). A partition larger than all the
    /// budget left starts alone, when nothing else is in flight, rather than never.
    pub(super) fn take_synthesis(&mut self) -> Option<Taken> {
        if self.paused {
            return None;
        }
        let key = *self.pending.keys().next()?;
        let job = self.jobs.get(&key.job);
        let shares = job.map_or(POOL_SHARES, |j| j.shares);
        if self.ahead_of(key.priority) + shares > self.config.ready_queue_depth * POOL_SHARES {
            return None;
        }
        // Workers and memory kept for PoSt: C2 and SnapDeals never take them.
        if !self.synthesizing.has_room_for(key.priority, shares, self.config.synthesis_threads, POOL_SHARES) {
            return None;
        }
        // Estimated only for a partition that may start: it asks the GPUs.
        let bytes = job.and_then(|j| j.key.as_ref()).map_or(0, |pk| (self.in_flight.estimate)(&self.config, pk));
        let reserve = if key.priority == Priority::Low { self.config.post_memory_reserve } else { 0 };
        let available = self.free_host_bytes().saturating_sub(reserve);
        if bytes > available {
            if self.in_flight.bytes() > 0 {
                return None;
            }
            log::warn!(
                "cuzk: a partition needs ~{} MiB, {} MiB of the host memory budget are left after the keys: proving it alone",
                bytes >> 20,
                available >> 20
            );
        }
        let work = self.pending.remove(&key).expect("present");
        self.in_flight.admit(bytes);
        self.synthesizing.add(key.priority, shares);
        self.synthesizing_partitions += 1;
        if let Some(job) = self.jobs.get_mut(&key.job) {
            if job.state == JobState::Queued {
                job.state = JobState::Running;
            }
        }
        Some(Taken { key, work, bytes, shares })
    }

    /// The host budget left after the keys and the partitions in flight.
    fn free_host_bytes(&self) -> u64 {
        self.config.host_memory_budget.saturating_sub(self.keys_bytes() + self.in_flight.bytes())
    }

    /// Counts `bytes` more in flight if the host budget has them free now
    /// (a step that needs memory its partition was not admitted with);
    /// `release` gives them back.
    pub(super) fn take_host_bytes(&mut self, bytes: u64) -> Result<()> {
        let free = self.free_host_bytes();
        anyhow::ensure!(
            bytes <= free,
            "the host memory budget has {free} bytes free, not the {bytes} the step needs on the CPU"
        );
        self.in_flight.admit(bytes);
        Ok(())
    }

    /// A synthesis taken by `take_synthesis` ended.
    pub(super) fn synthesized(&mut self, key: QueueKey, shares: usize) {
        self.synthesizing.remove(key.priority, shares);
        self.synthesizing_partitions -= 1;
    }

    /// The most urgent ready partition a prover worker may take now: C2 and
    /// SnapDeals never take the prover workers kept for PoSt, so a PoSt proof
    /// starts while C2 proofs occupy every other worker (on a GPU, its steps
    /// then go between theirs, first). Counted as proving.
    pub(super) fn take_ready(&mut self) -> Option<(QueueKey, Ready)> {
        if self.paused || self.proving.total() >= prover_workers(&self.config) {
            return None;
        }
        let workers = self.config.prover_workers;
        let key = *self.ready.keys().find(|k| self.proving.has_room_for(k.priority, 1, workers, 1))?;
        let ready = self.ready.remove(&key).expect("present");
        self.proving.add(key.priority, 1);
        Some((key, ready))
    }

    /// A proof taken by `take_ready` ended.
    pub(super) fn proved(&mut self, key: QueueKey, bytes: u64) {
        self.proving.remove(key.priority, 1);
        self.release(bytes);
    }

    pub(super) fn release(&mut self, bytes: u64) {
        self.in_flight.release(bytes);
    }

    /// Ends job `id` with `error` unless it is already finished (`state`
    /// Failed or Cancelled); its queued and ready partitions are dropped. A
    /// proof call's job that fails is handed the error, and ends with what
    /// the call makes of it; cancelled, it ends at once. True if it changed.
    pub(super) fn finish_with_error(&mut self, id: JobId, state: JobState, error: anyhow::Error) -> bool {
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
        if let (Some(call), JobState::Failed) = (&mut job.call, state) {
            call.proved = Some(Err(error));
            job.state = JobState::Assembling;
            job.key = None;
            return true;
        }
        job.finish(state, Err(error));
        self.counters.count_end(state);
        true
    }

    /// Stores a verified partition proof; true when it completed its job.
    pub(super) fn complete_partition(&mut self, key: QueueKey, proof: Proof) -> bool {
        let Some(job) = self.jobs.get_mut(&key.job).filter(|j| j.accepting()) else { return false };
        job.proofs[key.partition] = Some(proof);
        job.remaining -= 1;
        if job.remaining > 0 {
            return false;
        }
        let proofs = job.proofs.iter_mut().map(|p| p.take().expect("every partition proved")).collect();
        if let Some(call) = &mut job.call {
            call.proved = Some(Ok(proofs));
            job.state = JobState::Assembling;
            job.key = None;
            return true;
        }
        job.finish(JobState::Done, Ok(Output::Proofs(proofs)));
        self.counters.count_end(JobState::Done);
        true
    }

    /// Whether worker counts above the configuration ask this one to stop.
    pub(super) fn synthesis_worker_retires(&mut self) -> bool {
        let retire = self.shutdown || self.workers.synthesis > synthesis_workers(&self.config);
        if retire {
            self.workers.synthesis -= 1;
        }
        retire
    }

    pub(super) fn prover_worker_retires(&mut self) -> bool {
        let retire = self.shutdown || self.workers.prover > prover_workers(&self.config);
        if retire {
            self.workers.prover -= 1;
        }
        retire
    }
}

/// Workers beyond the configured counts (synthesis and prover alike) that
/// only partitions of `priority` or more urgent may use: one for Window
/// PoSt and Winning PoSt, one more for Winning PoSt. A PoSt arriving while
/// C2 partitions occupy every thread (a minute each at 32 GiB) starts at
/// once.
fn reserved_workers(priority: Priority) -> usize {
    match priority {
        Priority::High => 2,
        Priority::Medium => 1,
        Priority::Low => 0,
    }
}

/// A whole synthesis pool's worth of work, in `synthesis_shares`.
const POOL_SHARES: usize = 4;

/// How much of the synthesis pool a partition of `kind` keeps busy, in
/// quarters of the pool. A SnapDeals partition synthesizes only
/// `circuit::segment_pieces` pieces at once (4 of 16 threads): counted as a
/// whole pool, two at a time kept 6.8 of an H200 host's 16 cores busy (11.7
/// with four). A PoRep partition's challenges fill the pool; a PoSt
/// partition takes a worker kept for PoSt. So `synthesis_threads` and
/// `ready_queue_depth` count pools of work.
fn synthesis_shares(kind: ProofKind, threads: usize) -> usize {
    match kind {
        ProofKind::SnapDeals => {
            let threads = threads.max(1);
            (segment_pieces_on(threads, usize::MAX) * POOL_SHARES).div_ceil(threads).clamp(1, POOL_SHARES)
        }
        ProofKind::PorepC2 | ProofKind::WindowPost | ProofKind::WinningPost => POOL_SHARES,
    }
}

/// Partitions at some stage by priority, in units: one per partition
/// proved, its shares per partition synthesized.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ByPriority {
    low: usize,
    medium: usize,
    high: usize,
}

impl ByPriority {
    fn of(&mut self, priority: Priority) -> &mut usize {
        match priority {
            Priority::Low => &mut self.low,
            Priority::Medium => &mut self.medium,
            Priority::High => &mut self.high,
        }
    }

    fn add(&mut self, priority: Priority, units: usize) {
        *self.of(priority) += units;
    }

    pub(super) fn remove(&mut self, priority: Priority, units: usize) {
        *self.of(priority) -= units;
    }

    /// Units of the priorities `which` picks.
    fn sum(&self, which: impl Fn(Priority) -> bool) -> usize {
        [(Priority::Low, self.low), (Priority::Medium, self.medium), (Priority::High, self.high)]
            .into_iter()
            .filter(|&(p, _)| which(p))
            .map(|(_, units)| units)
            .sum()
    }

    pub(super) fn total(&self) -> usize {
        self.sum(|_| true)
    }

    fn as_or_more_urgent(&self, priority: Priority) -> usize {
        self.sum(|p| p >= priority)
    }

    /// Whether a partition of `priority` taking `units` fits: those of its
    /// priority and less urgent ones share `configured` workers and the ones
    /// kept for `priority`, of `per_worker` units each.
    fn has_room_for(&self, priority: Priority, units: usize, configured: usize, per_worker: usize) -> bool {
        self.sum(|p| p <= priority) + units <= (configured + reserved_workers(priority)) * per_worker
    }
}

/// All synthesis workers of the engine: one per partition the shares admit
/// at once (of the kind with the smallest share), and those kept for PoSt.
pub(super) fn synthesis_workers(config: &Config) -> usize {
    let per_pool = POOL_SHARES / synthesis_shares(ProofKind::SnapDeals, bulk_pool::threads());
    config.synthesis_threads * per_pool + reserved_workers(Priority::High)
}

/// All prover workers of the engine.
pub(super) fn prover_workers(config: &Config) -> usize {
    config.prover_workers + reserved_workers(Priority::High)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        circuit::{synthesize, MulChain, Witness},
        groth16::synthetic_srs,
    };

    fn add(st: &mut State, priority: Priority, partitions: usize) -> JobId {
        add_kind(st, ProofKind::PorepC2, priority, partitions)
    }

    fn add_kind(st: &mut State, kind: ProofKind, priority: Priority, partitions: usize) -> JobId {
        let cs = synthesize(MulChain { start: Fr::from(3u64), links: 8 }).unwrap();
        let key = Arc::new(synthetic_srs::key_for(&cs, 1));
        let spec = JobSpec {
            kind,
            priority,
            label: format!("{priority:?}"),
            key,
            partitions: (0..partitions)
                .map(|_| PartitionWork { synthesize: Box::new(|_| unreachable!()), public_inputs: Vec::new() })
                .collect(),
            verification: Verification::Required,
        };
        st.in_flight.estimate = |_, _| 1000;
        st.add_job(spec)
    }

    /// Moves a taken partition from synthesis to the ready queue, as a worker does.
    fn make_ready(st: &mut State, key: QueueKey, bytes: u64, shares: usize) {
        st.synthesized(key, shares);
        st.ready.insert(key, Ready { cs: Witness::default().into(), public_inputs: Vec::new(), bytes, shares, since: Instant::now() });
    }

    #[test]
    fn less_urgent_ready_partitions_do_not_hold_back_a_more_urgent_synthesis() {
        let mut st = State::new(Config { ready_queue_depth: 1, ..config(1, 0) }, false);
        let low = add(&mut st, Priority::Low, 3);
        let Taken { key, bytes, shares, .. } = st.take_synthesis().unwrap();
        assert_eq!((key.job, key.partition), (low, 0));
        assert!(st.take_synthesis().is_none(), "a second low partition while one is synthesizing (depth 1)");
        make_ready(&mut st, key, bytes, shares);
        assert!(st.take_synthesis().is_none(), "a second low partition while one is ready (depth 1)");
        let high = add(&mut st, Priority::High, 1);
        let Taken { key, .. } = st.take_synthesis().expect("the high partition starts at once");
        assert_eq!(key.job, high);
        assert_eq!(st.ready.keys().next().unwrap().job, low);
        assert!(st.take_synthesis().is_none());
        assert_eq!(st.in_flight.bytes(), 2000);
    }

    #[test]
    fn a_step_takes_host_bytes_only_while_the_budget_has_them_free() {
        let mut st = State::new(config(1, 0), false);
        add(&mut st, Priority::Low, 1);
        // The job's key, a partition of 1000 bytes and 4000 free.
        st.config.host_memory_budget = st.keys_bytes() + 5000;
        st.take_synthesis().unwrap();
        assert_eq!(st.in_flight.bytes(), 1000);
        let free = 4000;
        let e = st.take_host_bytes(free + 1).unwrap_err().to_string();
        assert!(e.contains(&format!("{free} bytes free")), "{e}");
        assert_eq!(st.in_flight.bytes(), 1000, "a refused step takes nothing");
        st.take_host_bytes(free).unwrap();
        assert_eq!(st.in_flight.bytes(), 1000 + free);
        st.release(free);
        assert_eq!(st.in_flight.bytes(), 1000);
    }

    fn config(synthesis_threads: usize, post_memory_reserve: u64) -> Config {
        Config {
            param_cache: std::env::temp_dir(),
            host_memory_budget: 1 << 40,
            synthesis_threads,
            prover_workers: 1,
            ready_queue_depth: 100,
            post_memory_reserve,
            gpus: None,
            gpu_memory_budget: None,
            matrices_files: false,
            gpu_fallback: crate::engine::GpuFailure::RetryOnCpu,
            gpu_step_timeout_seconds: 120,
            worker_timeout_seconds: 3600,
        }
    }

    #[test]
    fn post_partitions_have_synthesis_workers_that_c2_cannot_take() {
        let mut st = State::new(config(2, 0), false);
        let low = add(&mut st, Priority::Low, 5);
        assert_eq!(st.take_synthesis().unwrap().key.job, low);
        assert_eq!(st.take_synthesis().unwrap().key.job, low);
        assert!(st.take_synthesis().is_none(), "C2 uses synthesis_threads (2) workers at most");
        let window = add(&mut st, Priority::Medium, 3);
        assert_eq!(st.take_synthesis().unwrap().key.job, window, "Window PoSt has one more");
        assert!(st.take_synthesis().is_none());
        let winning = add(&mut st, Priority::High, 3);
        assert_eq!(st.take_synthesis().unwrap().key.job, winning, "Winning PoSt one more again");
        assert!(st.take_synthesis().is_none());
        let per_pool = POOL_SHARES / synthesis_shares(ProofKind::SnapDeals, bulk_pool::threads());
        assert_eq!(synthesis_workers(&st.config), 2 * per_pool + 2, "enough for 2 pools of the smallest share");
    }

    #[test]
    fn a_snapdeals_partition_counts_as_the_share_of_the_pool_it_synthesizes_on() {
        // 4 ranges at once on 16 threads, 2 on 8; 2 on 2 threads fill the pool.
        let share_on = |threads| synthesis_shares(ProofKind::SnapDeals, threads);
        assert_eq!([share_on(16), share_on(8), share_on(6), share_on(2), share_on(1)], [1, 1, 2, 4, 4]);
        assert_eq!(synthesis_shares(ProofKind::PorepC2, 16), POOL_SHARES);

        let mut st = State::new(Config { ready_queue_depth: 1, ..config(1, 0) }, false);
        let snap = add_kind(&mut st, ProofKind::SnapDeals, Priority::Low, 9);
        assert_eq!(st.jobs[&snap].shares, share_on(bulk_pool::threads()));
        // As on a 16-thread host, whatever this one has.
        let share = share_on(16);
        st.jobs.get_mut(&snap).unwrap().shares = share;
        let mut taken = Vec::new();
        while let Some(Taken { key, bytes, shares, .. }) = st.take_synthesis() {
            assert_eq!((key.job, shares), (snap, share));
            taken.push((key, bytes));
        }
        assert_eq!(taken.len(), POOL_SHARES / share, "one pool of SnapDeals partitions at once");
        assert_eq!(st.synthesizing_partitions, taken.len());
        // Ready ones count against the depth (one pool) in the same shares.
        let (key, bytes) = taken[0];
        make_ready(&mut st, key, bytes, share);
        assert!(st.take_synthesis().is_none(), "the ready partition still holds its share of the depth");
        let winning = add(&mut st, Priority::High, 1);
        assert_eq!(st.take_synthesis().unwrap().key.job, winning, "PoSt keeps its worker");
    }

    /// Makes every taken partition ready, as the synthesis workers do.
    fn all_ready(st: &mut State) {
        while let Some(Taken { key, bytes, shares, .. }) = st.take_synthesis() {
            make_ready(st, key, bytes, shares);
        }
    }

    #[test]
    fn post_proofs_have_prover_workers_that_c2_cannot_take() {
        let mut st = State::new(config(10, 0), false);
        let low = add(&mut st, Priority::Low, 3);
        all_ready(&mut st);
        let (c2, _) = st.take_ready().unwrap();
        assert_eq!(c2.job, low);
        assert!(st.take_ready().is_none(), "C2 uses prover_workers (1) workers at most");
        let window = add(&mut st, Priority::Medium, 2);
        let winning = add(&mut st, Priority::High, 3);
        all_ready(&mut st);
        assert_eq!(st.take_ready().unwrap().0.job, winning, "the most urgent first, on a worker kept for PoSt");
        assert_eq!(st.take_ready().unwrap().0.job, winning, "Winning PoSt may use both kept workers");
        assert!(st.take_ready().is_none(), "every worker is busy");
        assert_eq!(prover_workers(&st.config), 3);
        // A Winning proof ends: its worker goes to the next Winning partition,
        // then the Window PoSt (one kept worker), never to C2.
        st.proved(QueueKey { priority: Priority::High, job: winning, partition: 0 }, 1000);
        assert_eq!(st.take_ready().unwrap().0.job, winning);
        st.proved(QueueKey { priority: Priority::High, job: winning, partition: 1 }, 1000);
        st.proved(QueueKey { priority: Priority::High, job: winning, partition: 2 }, 1000);
        assert_eq!(st.take_ready().unwrap().0.job, window);
        assert!(st.take_ready().is_none(), "the second Window partition waits: one worker is kept for Winning");
        st.proved(c2, 1000);
        assert_eq!(st.take_ready().unwrap().0.job, window, "a Window PoSt may take C2's worker too");
        assert_eq!(st.take_ready().unwrap().0.job, low);
        assert_eq!(st.proving.total(), 3);
    }

    #[test]
    fn post_partitions_have_memory_that_c2_cannot_take() {
        let mut st = State::new(config(10, 1000), false);
        let low = add(&mut st, Priority::Low, 5);
        // Room for three partitions of 1000 bytes besides the keys.
        st.config.host_memory_budget = st.keys_bytes() + 3000;
        assert_eq!(st.take_synthesis().unwrap().key.job, low);
        assert_eq!(st.take_synthesis().unwrap().key.job, low);
        assert!(st.take_synthesis().is_none(), "the last 1000 bytes are kept for PoSt");
        let window = add(&mut st, Priority::Medium, 2);
        st.config.host_memory_budget = st.keys_bytes() + 3000;
        assert_eq!(st.take_synthesis().unwrap().key.job, window);
        assert!(st.take_synthesis().is_none(), "the budget is spent");
        assert_eq!(st.in_flight.bytes(), 3000);
    }

    /// A proof whose thread holds a hung GPU fails its job at the next look
    /// and gives its prover place back; the worker's late return only
    /// releases its bytes.
    #[test]
    fn a_proof_on_a_hung_gpu_is_abandoned_and_its_place_freed() {
        use super::super::watchdog::{abandon_stuck, Doing};
        use crate::engine::devices::HungStep;
        let mut st = State::new(config(10, 0), false);
        let low = add(&mut st, Priority::Low, 2);
        all_ready(&mut st);
        let (key, ready) = st.take_ready().unwrap();
        assert!(st.take_ready().is_none(), "C2's one prover worker is busy");
        st.busy.start(7, key, Doing::Proof);
        assert!(!abandon_stuck(&mut st, &[]), "neither hung nor past the worker limit");
        let other_thread = std::thread::spawn(|| std::thread::current().id()).join().unwrap();
        assert!(!abandon_stuck(&mut st, &[HungStep { thread: other_thread, what: "GPU 0 elsewhere".into() }]));
        let hung = [HungStep { thread: std::thread::current().id(), what: "GPU 0 (test) has been held by one proof step for 130 s".into() }];
        st.workers.prover = 3;
        assert!(abandon_stuck(&mut st, &hung));
        assert_eq!((st.workers.prover, st.counters.workers_abandoned, st.busy.abandoned()), (2, 1, 1));
        let Some(Err(e)) = &st.jobs[&low].outcome else { panic!("the job did not fail") };
        let e = format!("{e:#}");
        assert!(e.contains("proving partition 0") && e.contains("130 s") && e.contains("abandoned"), "{e}");
        assert_eq!(st.proving.total(), 0, "its prover place is free");
        assert_eq!(st.in_flight.bytes(), 2 * 1000 - 1000, "the other partition's ready bytes were dropped with the job");
        assert!(!st.busy.end(7), "the worker learns on return that it was abandoned");
        st.release(ready.bytes);
        assert_eq!((st.in_flight.bytes(), st.busy.abandoned()), (0, 0));
    }
}
