//! Workers that never come back. A synthesis or proof that runs past
//! `worker_timeout_seconds`, or a proof whose thread holds a GPU past
//! `gpu_step_timeout_seconds` (a hung kernel or copy), fails its job; its
//! worker is abandoned and a new one takes its place, so the engine keeps
//! serving the other jobs. A thread cannot be stopped from outside: an
//! abandoned worker keeps its thread, and the host memory its partition was
//! admitted with, until its call returns, then it leaves without a trace.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
    thread::{self, ThreadId},
    time::{Duration, Instant},
};

use anyhow::anyhow;

use super::{lock, spawn_missing_workers, state::QueueKey, state::State, Shared};
use crate::engine::{devices, job::JobState};

/// How often the watchdog looks.
const TICK: Duration = Duration::from_millis(250);

/// What a busy worker is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Doing {
    /// Synthesizing, with its shares of a synthesis pool.
    Synthesis { shares: usize },
    Proof,
}

struct BusyWorker {
    key: QueueKey,
    doing: Doing,
    since: Instant,
    thread: ThreadId,
}

/// The workers busy with a partition, and those abandoned.
#[derive(Default)]
pub(super) struct Busy {
    now: HashMap<usize, BusyWorker>,
    abandoned: HashSet<usize>,
}

impl Busy {
    /// Worker `worker` (this thread) starts `doing` partition `key`.
    pub(super) fn start(&mut self, worker: usize, key: QueueKey, doing: Doing) {
        self.now.insert(worker, BusyWorker { key, doing, since: Instant::now(), thread: thread::current().id() });
    }

    /// Worker `worker`'s call returned; false if the worker was abandoned
    /// meanwhile (its partition and its place are no longer its own).
    pub(super) fn end(&mut self, worker: usize) -> bool {
        self.now.remove(&worker);
        !self.abandoned.remove(&worker)
    }

    /// Abandoned workers whose call has not returned yet.
    pub(super) fn abandoned(&self) -> usize {
        self.abandoned.len()
    }
}

/// Looks for stuck workers until the engine shuts down.
pub(super) fn watchdog(shared: &Arc<Shared>) {
    loop {
        thread::sleep(TICK);
        // Asked before the engine's lock: each device has a lock of its own.
        let hung = devices::hung_steps();
        let mut st = lock(&shared.state);
        if st.shutdown {
            return;
        }
        if abandon_stuck(&mut st, &hung) {
            spawn_missing_workers(shared, &mut st);
            drop(st);
            shared.notify_all();
        }
    }
}

/// Abandons every stuck worker and fails its job; true if there was one.
pub(super) fn abandon_stuck(st: &mut State, hung: &[devices::HungStep]) -> bool {
    let limit = Duration::from_secs(st.config.worker_timeout_seconds);
    let stuck: Vec<(usize, String)> = st
        .busy
        .now
        .iter()
        .filter_map(|(&worker, b)| {
            let on_hung_gpu = hung.iter().find(|h| b.doing == Doing::Proof && h.thread == b.thread);
            match on_hung_gpu {
                Some(h) => Some((worker, format!("{}, past the {} s limit", h.what, st.config.gpu_step_timeout_seconds))),
                None => (b.since.elapsed() > limit).then(|| (worker, format!("no result in {} s", limit.as_secs()))),
            }
        })
        .collect();
    for (worker, why) in &stuck {
        let b = st.busy.now.remove(worker).expect("listed above");
        st.busy.abandoned.insert(*worker);
        let step = match b.doing {
            Doing::Synthesis { shares } => {
                st.synthesized(b.key, shares);
                st.workers.synthesis -= 1;
                "synthesizing"
            }
            Doing::Proof => {
                st.proving.remove(b.key.priority, 1);
                st.workers.prover -= 1;
                "proving"
            }
        };
        st.counters.workers_abandoned += 1;
        let label = st.jobs.get(&b.key.job).map(|j| j.label.clone()).unwrap_or_default();
        let e = anyhow!("{label}: {step} partition {}: {why}; its worker was abandoned and replaced", b.key.partition);
        log::error!("cuzk: {e}");
        st.finish_with_error(b.key.job, JobState::Failed, e);
    }
    !stuck.is_empty()
}
