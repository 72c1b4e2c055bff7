//! The worker threads: synthesis workers turn the head of the pending queue
//! into a ready circuit; prover workers prove and verify the most urgent ready
//! partition and complete its job. A panic in either fails the job, not the
//! engine.

use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, MutexGuard},
    time::Instant,
};

use anyhow::{anyhow, bail, ensure, Result};
use bellperson::groth16::verify_proofs_batch;
use blstrs::Scalar as Fr;
use rand::rngs::OsRng;

use super::{
    lock,
    state::{QueueKey, Ready, State, Taken},
    watchdog::Doing,
    Shared,
};
use crate::{
    circuit::Assignment,
    engine::{
        job::{JobState, PartitionWork, Priority, Verification},
        synthesis,
        prover::{self, GpuFailure, HostBytes, Placement, Timed},
        timeline::{ProofStages, Stage},
    },
    groth16::{random_rs, Proof, ProvingKey},
    panic_message::panic_message,
};

fn panic_error(payload: Box<dyn std::any::Any + Send>) -> anyhow::Error {
    anyhow!(panic_message(payload.as_ref()))
}

pub(super) fn synthesis_worker(shared: &Arc<Shared>, worker: usize) {
    loop {
        let (key, work, bytes, shares, pk, (files, gpu_prover)) = {
            let mut st = lock(&shared.state);
            loop {
                if st.synthesis_worker_retires() {
                    return;
                }
                if let Some(Taken { key, work, bytes, shares }) = st.take_synthesis() {
                    st.record(shared.started, key, Stage::SynthesisStart, worker);
                    st.busy.start(worker, key, Doing::Synthesis { shares });
                    let pk = st.jobs.get(&key.job).and_then(|j| j.key.clone());
                    let how = (st.config.matrices_files, !st.config.selected_gpus().is_empty());
                    break (key, work, bytes, shares, pk, how);
                }
                st = shared.synthesis_cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        let start = Instant::now();
        let PartitionWork { synthesize, public_inputs } = work;
        let bulk = key.priority == Priority::Low;
        let result = catch_unwind(AssertUnwindSafe(|| match &pk {
            Some(pk) => synthesis::synthesize(synthesize, pk, files, gpu_prover, bulk),
            None => bail!("the job finished before its partition was synthesized"),
        }))
        .unwrap_or_else(|p| Err(panic_error(p)));
        let mut st = lock(&shared.state);
        if !st.busy.end(worker) {
            abandoned_returns(shared, st, bytes);
            return;
        }
        let verified = st.jobs.get(&key.job).is_none_or(|j| j.verification == Verification::Required);
        let result = result.and_then(|cs| {
            ensure!(
                !verified || cs.inputs().get(1..) == Some(&public_inputs[..]),
                "circuit inputs differ from the public inputs the verifier derives"
            );
            Ok(cs)
        });
        st.synthesized(key, shares);
        st.counters.synthesis_seconds += start.elapsed().as_secs_f64();
        match result {
            Ok(cs) if st.accepting(key.job).is_some() => {
                st.counters.partitions_synthesized += 1;
                st.counters.witnesses_packed += u64::from(matches!(cs, Assignment::Witness(_, Some(_))));
                st.record(shared.started, key, Stage::SynthesisEnd, worker);
                st.ready.insert(key, Ready { cs, public_inputs, bytes, shares, since: Instant::now() });
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
    verification: Verification,
    label: String,
    /// The configuration's GPUs, their memory budget and the GPU failure
    /// policy when the partition was taken.
    gpus: Vec<usize>,
    gpu_memory_budget: Option<u64>,
    gpu_fallback: GpuFailure,
}

pub(super) fn prover_worker(shared: &Arc<Shared>, worker: usize) {
    loop {
        let Some(work) = next_to_prove(shared, worker) else { return };
        let start = Instant::now();
        let ProverWork { key, ready, pk, verification, label, gpus, gpu_memory_budget, gpu_fallback } = work;
        let Ready { cs, public_inputs, bytes, .. } = ready;
        let host_room = |bytes| host_bytes(shared, bytes);
        let on = Placement { gpus: Some(&gpus), rank: key.priority.rank(), gpu_memory_budget, host_room: Some(&host_room) };
        let outcome = catch_unwind(AssertUnwindSafe(|| prove_and_verify(gpu_fallback, on, &pk, verification, cs, public_inputs)))
            .unwrap_or_else(|p| Err(panic_error(p)));
        let mut st = lock(&shared.state);
        if !st.busy.end(worker) {
            abandoned_returns(shared, st, bytes);
            return;
        }
        st.proved(key, bytes);
        st.counters.proving_seconds += start.elapsed().as_secs_f64();
        let finished = match outcome {
            Ok((proof, stages)) => {
                st.counters.partitions_proved += 1;
                st.record_proof(shared.started, key, Stage::ProveEnd, worker, Some(stages));
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
        // A partition the reserved workers left may be takeable now.
        shared.prover_cv.notify_all();
    }
}

/// An abandoned worker's call returned: its partition's `bytes` go back to
/// the budget (its job already failed, its place is taken) and it leaves.
fn abandoned_returns(shared: &Shared, mut st: MutexGuard<'_, State>, bytes: u64) {
    st.release(bytes);
    log::warn!("cuzk: an abandoned worker's call returned at last; its thread ends");
    drop(st);
    shared.synthesis_cv.notify_all();
}

/// `bytes` of the host budget for a step of a proof, until it is dropped.
fn host_bytes(shared: &Shared, bytes: u64) -> Result<HostBytes<'_>> {
    lock(&shared.state).take_host_bytes(bytes)?;
    Ok(HostBytes::taken(move || {
        lock(&shared.state).release(bytes);
        shared.synthesis_cv.notify_all();
    }))
}

/// The most urgent ready partition of a live job this worker may take (see
/// `State::take_ready`); `None` when this worker retires.
fn next_to_prove(shared: &Shared, worker: usize) -> Option<ProverWork> {
    let mut st = lock(&shared.state);
    loop {
        if st.prover_worker_retires() {
            return None;
        }
        if let Some((key, ready)) = st.take_ready() {
            // A ready slot is free: another synthesis may start.
            shared.synthesis_cv.notify_all();
            let Some(job) = st.accepting(key.job) else {
                st.proved(key, ready.bytes);
                continue;
            };
            let pk = job.key.clone().expect("a live job has its key");
            let (verification, label) = (job.verification, job.label.clone());
            st.counters.ready_wait_seconds += ready.since.elapsed().as_secs_f64();
            st.record(shared.started, key, Stage::ProveStart, worker);
            st.busy.start(worker, key, Doing::Proof);
            let (gpus, gpu_memory_budget, gpu_fallback) = (st.config.selected_gpus(), st.config.gpu_memory_budget, st.config.gpu_fallback);
            return Some(ProverWork { key, ready, pk, verification, label, gpus, gpu_memory_budget, gpu_fallback });
        }
        st = shared.prover_cv.wait(st).unwrap_or_else(|e| e.into_inner());
    }
}

/// Proves `cs` (fresh r, s) and, unless the job is a timing benchmark's,
/// verifies the proof against `public_inputs`: no proof leaves the engine
/// unverified.
fn prove_and_verify(
    gpu_fallback: GpuFailure,
    on: Placement,
    pk: &Arc<ProvingKey>,
    verification: Verification,
    cs: Assignment,
    public_inputs: Vec<Fr>,
) -> Result<(Proof, ProofStages)> {
    let (r, s) = random_rs(&mut OsRng);
    let Timed { proof, gpu, stages } = prover::prove_timed(gpu_fallback, on, pk, cs, r, s)?;
    let start = Instant::now();
    if verification == Verification::Required
        && !verify_proofs_batch(pk.prepared_vk(), &mut OsRng, &[&proof.to_bellperson()], &[public_inputs])?
    {
        bail!("the proof does not verify (inconsistent inputs); it was not returned");
    }
    Ok((proof, ProofStages { gpu, groth16: stages, verify: start.elapsed().as_secs_f64() }))
}
