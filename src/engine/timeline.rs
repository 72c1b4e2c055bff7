//! What happened to each partition and when: the engine records the start and
//! end of every synthesis and proof, so tests can check the order partitions
//! ran in and `cuzk bench` can show synthesis overlapping proving.

use std::{collections::VecDeque, time::Duration};

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
}
