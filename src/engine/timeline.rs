//! What happened to each partition and when: the engine records the start and
//! end of every synthesis and proof, so tests can check the order partitions
//! ran in and `cuzk bench` can show synthesis overlapping proving.

use std::{
    collections::{HashMap, VecDeque},
    time::Duration,
};

use serde::Serialize;

use super::job::{JobId, Priority};
use crate::groth16::StageTimes;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Stage {
    SynthesisStart,
    SynthesisEnd,
    ProveStart,
    /// Proved and verified.
    ProveEnd,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Event {
    /// Since the engine started.
    pub at: Duration,
    pub job: JobId,
    pub priority: Priority,
    pub partition: usize,
    pub stage: Stage,
    /// The synthesis or prover worker's number.
    pub worker: usize,
    /// At `ProveEnd`: how the proof's time split.
    pub proof: Option<ProofStages>,
}

/// Where a partition was proved and how long each step took.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ProofStages {
    /// The GPU's index; `None` on the CPU.
    pub gpu: Option<usize>,
    pub groth16: StageTimes,
    /// Checking the proof against its public inputs (0 when not verified).
    pub verify: f64,
}

/// The latest events, oldest first; old ones are dropped past `CAPACITY`, so a
/// long-running process holds a bounded amount.
#[derive(Default)]
pub struct Timeline {
    events: VecDeque<Event>,
}

const CAPACITY: usize = 100_000;

impl Timeline {
    pub fn record(&mut self, event: Event) {
        if self.events.len() == CAPACITY {
            self.events.pop_front();
        }
        self.events.push_back(event);
    }

    pub fn events(&self) -> Vec<Event> {
        self.events.iter().copied().collect()
    }

    /// The events of `jobs`, oldest first.
    pub fn events_of(&self, jobs: &[JobId]) -> Vec<Event> {
        self.events.iter().filter(|e| jobs.contains(&e.job)).copied().collect()
    }
}

/// Where the partitions of some jobs spent their time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spans {
    /// When the first synthesis started (since the engine started).
    pub first_synthesis: Option<Duration>,
    /// The partitions' syntheses, summed.
    pub synthesis: Duration,
    /// The partitions' proofs, verification included, summed.
    pub proving: Duration,
}

impl Spans {
    /// From `events`; a start without its end (a partition still running, or
    /// its end dropped past the capacity) counts nothing.
    pub fn of(events: &[Event]) -> Self {
        let mut out = Spans::default();
        let mut started: HashMap<(JobId, usize, bool), Duration> = HashMap::new();
        for e in events {
            let (proof, start) = match e.stage {
                Stage::SynthesisStart => (false, true),
                Stage::SynthesisEnd => (false, false),
                Stage::ProveStart => (true, true),
                Stage::ProveEnd => (true, false),
            };
            let key = (e.job, e.partition, proof);
            if start {
                if !proof {
                    out.first_synthesis = Some(out.first_synthesis.map_or(e.at, |f| f.min(e.at)));
                }
                started.insert(key, e.at);
            } else if let Some(from) = started.remove(&key) {
                let spent = e.at.saturating_sub(from);
                if proof {
                    out.proving += spent;
                } else {
                    out.synthesis += spent;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(at_ms: u64, job: u64, partition: usize, stage: Stage) -> Event {
        let at = Duration::from_millis(at_ms);
        Event { at, job: JobId(job), priority: Priority::Medium, partition, stage, worker: 0, proof: None }
    }

    #[test]
    fn spans_sum_each_partitions_synthesis_and_proof() {
        use Stage::*;
        let events = [
            event(10, 1, 0, SynthesisStart),
            event(12, 1, 1, SynthesisStart),
            event(30, 1, 0, SynthesisEnd),
            event(31, 1, 0, ProveStart),
            event(40, 1, 1, SynthesisEnd),
            event(45, 1, 0, ProveEnd),
            event(46, 1, 1, ProveStart),
            event(50, 2, 0, SynthesisStart),
            event(60, 1, 1, ProveEnd),
        ];
        let spans = Spans::of(&events);
        assert_eq!(spans.first_synthesis, Some(Duration::from_millis(10)));
        assert_eq!(spans.synthesis, Duration::from_millis(20 + 28), "job 2's unfinished synthesis counts nothing");
        assert_eq!(spans.proving, Duration::from_millis(14 + 14));
        assert_eq!(Spans::of(&[]), Spans::default());
    }
}
