//! A proof call's job (an asynchronous request of the C API): it exists from
//! submission on, `Preparing` while the call decodes its inputs and builds
//! its circuits, then holds the partitions the call hands over (once), then
//! `Assembling` while the call turns their proofs into its output, and ends
//! with that output. Cancelling it ends it at once; a partition that fails
//! hands its error to the call, which ends the job with it.

use std::time::{Duration, Instant};

use anyhow::{anyhow, ensure, Result};
use serde::Serialize;

use super::{
    lock,
    state::{Job, Output, State},
    Engine, WaitOutcome,
};
use crate::{
    engine::{
        job::{Cancelled, JobId, JobSpec, JobState, Priority, ProofKind, RequestTimes},
        timeline::Spans,
        wait,
    },
    groth16::Proof,
};

/// A proof call's job in the status report.
#[derive(Clone, Debug, Serialize)]
pub struct RequestStatus {
    pub id: JobId,
    pub kind: ProofKind,
    pub priority: Priority,
    pub state: JobState,
    pub age_seconds: f64,
}

impl Engine {
    /// A job for a proof call of `kind` at `priority`, `Preparing`: its id
    /// is the one the C API returns.
    pub fn open_call(&self, kind: ProofKind, priority: Priority) -> Result<JobId> {
        Ok(self.open()?.open_call(kind, priority))
    }

    /// Proves `spec`'s partitions as those of call `id`, at the call's
    /// priority, and waits for their verified proofs; `Cancelled` if the
    /// call is cancelled or released meanwhile.
    pub fn prove_for_call(&self, id: JobId, spec: JobSpec) -> Result<Vec<Proof>> {
        spec.key.prepared_vk();
        let mut st = lock(&self.shared.state);
        st.hand_over(id, spec)?;
        self.shared.synthesis_cv.notify_all();
        let proved = wait::until(&self.shared.done_cv, st, None, |st| match st.proved_partitions(id) {
            Partitions::Proved(proved) => Some(proved),
            Partitions::Waiting => None,
        });
        proved.expect("waits without a deadline")
    }

    /// Ends call `id` with `outcome`; nothing if it was cancelled or released.
    pub fn finish_call(&self, id: JobId, outcome: Result<Vec<u8>>) {
        if lock(&self.shared.state).finish_call(id, outcome, self.shared.started) {
            self.shared.done_cv.notify_all();
        }
    }

    /// Waits up to `timeout` (`None`: without limit) for call `id` to end:
    /// its output bytes or error, and where its time went.
    pub fn wait_output(&self, id: JobId, timeout: Option<Duration>) -> (WaitOutcome<Vec<u8>>, Option<RequestTimes>) {
        if lock(&self.shared.state).call_job(id).is_none() {
            return (WaitOutcome::Unknown, None);
        }
        let mut times = None;
        let waited = self.collect(id, timeout, |job| {
            times = job.call.as_ref().and_then(|c| c.times);
            match job.outcome.take().expect("finished") {
                Ok(Output::Bytes(bytes)) => Ok(bytes),
                Ok(Output::Proofs(_)) => Err(anyhow!("job {} is not a proof call's", id.0)),
                Err(e) => Err(e),
            }
        });
        (waited, times)
    }

    /// Where call `id` is; `None` if unknown.
    pub fn poll_call(&self, id: JobId) -> Option<JobState> {
        lock(&self.shared.state).call_job(id).map(|j| j.state)
    }

    /// Cancels call `id` (see `cancel`); false if unknown or finished.
    pub fn cancel_call(&self, id: JobId) -> bool {
        lock(&self.shared.state).call_job(id).is_some() && self.cancel(id)
    }

    /// Forgets call `id` without waiting, cancelling it if it runs; false
    /// if unknown.
    pub fn release_call(&self, id: JobId) -> bool {
        self.cancel_call(id);
        let mut st = lock(&self.shared.state);
        st.call_job(id).is_some() && st.jobs.remove(&id).is_some()
    }

    /// The proof calls' jobs, oldest first.
    pub fn calls(&self) -> Vec<RequestStatus> {
        let st = lock(&self.shared.state);
        let mut out: Vec<RequestStatus> = st
            .jobs
            .iter()
            .filter(|(_, j)| j.call.is_some())
            .map(|(&id, j)| RequestStatus {
                id,
                kind: j.kind,
                priority: j.priority,
                state: j.state,
                age_seconds: j.submitted.elapsed().as_secs_f64(),
            })
            .collect();
        out.sort_by_key(|r| r.id);
        out
    }
}

/// A proof call's part of its job.
#[derive(Default)]
pub(super) struct Call {
    /// When the call handed over its partitions.
    handed_over: Option<Instant>,
    /// Its partitions' proofs, or why they failed, until the call takes them.
    pub(super) proved: Option<Result<Vec<Proof>>>,
    /// Where its time went, once finished.
    pub(super) times: Option<RequestTimes>,
}

/// What the call waiting for its partitions finds in its job.
pub(super) enum Partitions {
    Proved(Result<Vec<Proof>>),
    Waiting,
}

impl State {
    /// Job `id` if it is a proof call's: the C API reaches no other job (a
    /// blocking call's job is its caller's alone).
    fn call_job(&self, id: JobId) -> Option<&Job> {
        self.jobs.get(&id).filter(|j| j.call.is_some())
    }

    /// A new proof call's job, `Preparing`.
    pub(super) fn open_call(&mut self, kind: ProofKind, priority: Priority) -> JobId {
        self.add(Job::new(kind, priority, format!("{kind:?} request"), Some(Call::default())))
    }

    /// Queues the partitions of call `id` (at the call's priority).
    pub(super) fn hand_over(&mut self, id: JobId, spec: JobSpec) -> Result<()> {
        let job = self.jobs.get(&id).ok_or_else(|| anyhow!(Cancelled))?;
        ensure!(!job.state.is_finished(), Cancelled);
        let call = job.call.as_ref().ok_or_else(|| anyhow!("job {} is not a proof call's", id.0))?;
        ensure!(call.handed_over.is_none(), "a proof call hands over its partitions once");
        ensure!(!spec.partitions.is_empty(), "{}: no partitions to prove", spec.label);
        self.queue_partitions(id, spec);
        let call = self.jobs.get_mut(&id).and_then(|j| j.call.as_mut()).expect("checked above");
        call.handed_over = Some(Instant::now());
        Ok(())
    }

    /// The proofs of call `id`'s partitions once they are in, taken; the
    /// call's job cancelled or released is a `Cancelled` error.
    pub(super) fn proved_partitions(&mut self, id: JobId) -> Partitions {
        let Some(job) = self.jobs.get_mut(&id).filter(|j| !j.state.is_finished()) else {
            return Partitions::Proved(Err(anyhow!(Cancelled)));
        };
        match job.call.as_mut().and_then(|c| c.proved.take()) {
            Some(proved) => Partitions::Proved(proved),
            None => Partitions::Waiting,
        }
    }

    /// Ends call `id` with its `outcome`, unless it ended already
    /// (cancelled or released); true if it ended now. `started` is the
    /// origin of the timeline.
    pub(super) fn finish_call(&mut self, id: JobId, outcome: Result<Vec<u8>>, started: Instant) -> bool {
        let spans = Spans::of(&self.timeline.events_of(&[id]));
        let Some(job) = self.jobs.get_mut(&id).filter(|j| !j.state.is_finished()) else { return false };
        let Some(call) = job.call.as_mut() else { return false };
        let setup_end = call.handed_over.unwrap_or_else(Instant::now);
        let first_synthesis = spans.first_synthesis.map_or(setup_end, |at| started + at);
        call.times = Some(RequestTimes {
            setup: setup_end.saturating_duration_since(job.submitted),
            queue_wait: call.handed_over.map_or(Duration::ZERO, |h| first_synthesis.saturating_duration_since(h)),
            synthesis: spans.synthesis,
            proving: spans.proving,
        });
        let state = if outcome.is_ok() { JobState::Done } else { JobState::Failed };
        job.finish(state, outcome.map(Output::Bytes));
        self.counters.count_end(state);
        true
    }
}
