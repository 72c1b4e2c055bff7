//! What the engine schedules: a job is one proof request's partitions, all
//! proved under the same key, with a kind that gives its priority; a job of
//! a proof call (an asynchronous request) also holds the call's output.

use std::{fmt, sync::Arc, time::Duration};

use anyhow::Result;
use blstrs::Scalar as Fr;
use serde::Serialize;

use crate::{
    circuit::{Matrices, PartitionCircuit, Recorder, Witness},
    groth16::ProvingKey,
};

/// The proof types the engine proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ProofKind {
    WinningPost,
    WindowPost,
    PorepC2,
    SnapDeals,
}

impl ProofKind {
    /// WinningPoSt > WindowPoSt > PoRep C2 / SnapDeals: a missed Winning PoSt
    /// loses a block reward now, a late Window PoSt a deadline, a late C2
    /// nothing that cannot be retried.
    pub fn default_priority(self) -> Priority {
        match self {
            ProofKind::WinningPost => Priority::High,
            ProofKind::WindowPost => Priority::Medium,
            ProofKind::PorepC2 | ProofKind::SnapDeals => Priority::Low,
        }
    }
}

/// Scheduling priority; higher runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Priority {
    Low,
    Medium,
    High,
}

impl Priority {
    /// A proof's rank for a GPU's steps (`priority_lock`): 0 is served first.
    pub(super) fn rank(self) -> u8 {
        match self {
            Priority::High => 0,
            Priority::Medium => 1,
            Priority::Low => 2,
        }
    }
}

/// A job's id, unique within its engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct JobId(pub u64);

/// What a partition's synthesis keeps of its circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthesisKind {
    Witness,
    /// The circuit's matrices, with the witness.
    Record,
}

/// A partition's circuit, synthesized as a `SynthesisKind` asks.
pub enum Synthesis {
    Witness(Witness),
    /// Boxed: a circuit's matrices are recorded once, a witness is not.
    Recorded(Box<Matrices>, Witness),
}

impl Synthesis {
    fn kind(&self) -> SynthesisKind {
        match self {
            Synthesis::Witness(_) => SynthesisKind::Witness,
            Synthesis::Recorded(..) => SynthesisKind::Record,
        }
    }

    fn unlike(&self, asked: SynthesisKind) -> anyhow::Error {
        anyhow::anyhow!("asked for {asked:?} synthesis, the partition's synthesis gave {:?}", self.kind())
    }

    pub fn into_witness(self) -> Result<Witness> {
        match self {
            Synthesis::Witness(w) => Ok(w),
            other => Err(other.unlike(SynthesisKind::Witness)),
        }
    }

    pub fn into_recorded(self) -> Result<(Matrices, Witness)> {
        match self {
            Synthesis::Recorded(m, w) => Ok((*m, w)),
            other => Err(other.unlike(SynthesisKind::Record)),
        }
    }
}

/// Synthesizes one partition's circuit as asked; runs on a synthesis worker.
pub type SynthesizeFn = Box<dyn FnOnce(SynthesisKind) -> Result<Synthesis> + Send>;

/// The synthesis of `circuit`, in whichever system the engine asks for.
pub fn synthesis_of<P: PartitionCircuit>(circuit: P) -> SynthesizeFn {
    Box::new(move |kind| {
        Ok(match kind {
            SynthesisKind::Witness => Synthesis::Witness(circuit.synthesize_into()?),
            SynthesisKind::Record => {
                let (matrices, witness) = circuit.synthesize_into::<Recorder>()?.finish()?;
                Synthesis::Recorded(Box::new(matrices), witness)
            }
        })
    })
}

/// One partition: how to synthesize it, and the public inputs (without the
/// leading one) the verifier derives for it, which its proof must verify against.
pub struct PartitionWork {
    pub synthesize: SynthesizeFn,
    pub public_inputs: Vec<Fr>,
}

/// A proof request as the engine takes it.
pub struct JobSpec {
    pub kind: ProofKind,
    pub priority: Priority,
    /// Names the proof in errors and logs ("StackedDrg32GiBV1_1").
    pub label: String,
    pub key: Arc<ProvingKey>,
    pub partitions: Vec<PartitionWork>,
    pub verification: Verification,
}

/// Whether the engine verifies each partition's proof before completing its job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Verification {
    /// Every proof is checked against its public inputs; one that fails fails
    /// its job. Every proof API of cuzk uses this.
    #[default]
    Required,
    /// Benchmarks only: full-size circuits built from random vanilla proofs
    /// cannot be satisfied, so their proofs are timed, never verified, and
    /// never leave the benchmark.
    TimingOnly,
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum JobState {
    /// A proof call's job before it hands over its partitions: the call
    /// decodes its inputs, loads the key, builds the circuits.
    Preparing,
    /// No partition has started synthesis yet.
    Queued,
    Running,
    /// A proof call's job after its partitions: the call assembles and
    /// verifies its output.
    Assembling,
    Done,
    Failed,
    Cancelled,
}

impl JobState {
    pub fn is_finished(self) -> bool {
        matches!(self, JobState::Done | JobState::Failed | JobState::Cancelled)
    }

    /// Whether work on it is under way: a partition started, or its proof
    /// call preparing or assembling (not waiting in the queue, not finished).
    pub fn is_under_way(self) -> bool {
        matches!(self, JobState::Preparing | JobState::Running | JobState::Assembling)
    }
}

/// Where a finished proof call's time went.
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

/// The error of a cancelled job (find it with `anyhow::Error::downcast_ref`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the proof was cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// Whether `e` (or an error it wraps) is a cancellation.
pub fn is_cancelled(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<Cancelled>().is_some())
}
