//! The engine on the CPU with real Groth16 keys of a synthetic circuit
//! (MulChain; keys from bellperson's generator, so every proof really
//! verifies): priority order, preemption at partition boundaries, pipelining,
//! cancellation, failures, memory budgets, 64 concurrent callers, status, and
//! the asynchronous requests behind the `cuzk_*` C API.

mod common;

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Condvar, Mutex,
    },
    time::Duration,
};

use anyhow::anyhow;
use bellperson::groth16::{generate_random_parameters, prepare_verifying_key, verify_proofs_batch};
use blstrs::{Bls12, Scalar as Fr};
use cuzk::{
    api::prove::prove_circuits,
    circuit::{synthesize, MulChain, Whole},
    engine::{
        is_cancelled, requests, synthesis_of, CallContext,
        timeline::{Event, Stage},
        Config, Engine, GpuFailure, JobId, JobSpec, JobState, PartitionWork, Priority, ProofKind, Verification, WaitOutcome,
    },
    groth16::{synthetic_srs, Proof, ProvingKey},
};
use once_cell::sync::Lazy;
use rand::SeedableRng;
use rayon::prelude::*;

/// Constraints of the partitions in the ordering tests: long enough (a CPU
/// proof of ~0.1 s) that work queues up behind a running partition.
const LINKS: usize = 4000;
const SMALL_LINKS: usize = 64;

fn real_key(links: usize) -> Arc<ProvingKey> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(links as u64);
    let params = generate_random_parameters::<Bls12, _, _>(chain(1, links), &mut rng).unwrap();
    let mut bytes = Vec::new();
    params.write(&mut bytes).unwrap();
    Arc::new(ProvingKey::read_bytes(&bytes).unwrap())
}

static KEY: Lazy<Arc<ProvingKey>> = Lazy::new(|| real_key(LINKS));
static SMALL_KEY: Lazy<Arc<ProvingKey>> = Lazy::new(|| real_key(SMALL_LINKS));

fn chain(start: u64, links: usize) -> MulChain {
    MulChain { start: Fr::from(start), links }
}

fn partition(start: u64, links: usize) -> PartitionWork {
    let circuit = chain(start, links);
    let public_inputs = vec![circuit.output()];
    PartitionWork { synthesize: synthesis_of(Whole(circuit)), public_inputs }
}

/// `partition(start, links)` whose synthesis runs `first` before the circuit.
fn partition_after(start: u64, links: usize, first: impl FnOnce() + Send + 'static) -> PartitionWork {
    let PartitionWork { synthesize, public_inputs } = partition(start, links);
    PartitionWork {
        synthesize: Box::new(move |kind| {
            first();
            synthesize(kind)
        }),
        public_inputs,
    }
}

fn job(priority: Priority, partitions: usize, seed: u64) -> JobSpec {
    JobSpec {
        kind: ProofKind::PorepC2,
        priority,
        label: format!("test job {seed} ({priority:?})"),
        key: KEY.clone(),
        partitions: (0..partitions).map(|k| partition(seed * 1000 + k as u64, LINKS)).collect(),
        verification: Verification::Required,
    }
}

fn config(synthesis_threads: usize, ready_queue_depth: usize) -> Config {
    Config {
        param_cache: std::env::temp_dir(),
        host_memory_budget: 16 << 30,
        synthesis_threads,
        prover_workers: 1,
        ready_queue_depth,
        post_memory_reserve: 0,
        gpus: None,
        gpu_memory_budget: None,
        matrices_files: false,
        gpu_fallback: GpuFailure::RetryOnCpu,
        gpu_step_timeout_seconds: 120,
        worker_timeout_seconds: 3600,
    }
}

fn finished(engine: &Engine, id: JobId) -> anyhow::Result<Vec<Proof>> {
    match engine.wait(id, Some(Duration::from_secs(300))) {
        WaitOutcome::Finished(r) => r,
        WaitOutcome::Pending => panic!("job {id:?} did not finish in 300 s"),
        WaitOutcome::Unknown => panic!("job {id:?} unknown"),
    }
}

fn starts(events: &[Event], stage: Stage) -> Vec<(JobId, usize)> {
    events.iter().filter(|e| e.stage == stage).map(|e| (e.job, e.partition)).collect()
}

/// A one-partition Winning-PoSt-like job of `work` (a SMALL_LINKS circuit).
fn submit_winning(engine: &Engine, work: PartitionWork, seed: u64) -> JobId {
    engine.submit(JobSpec { key: SMALL_KEY.clone(), partitions: vec![work], ..job(Priority::High, 1, seed) }).unwrap()
}

/// Waits for every job of `jobs`, each of which must succeed; the timeline.
fn all_proved(engine: &Engine, jobs: &[JobId]) -> Vec<Event> {
    for &id in jobs {
        finished(engine, id).unwrap();
    }
    engine.timeline()
}

/// When partition 0 of `job` reached `stage`.
fn at(events: &[Event], job: JobId, stage: Stage) -> Duration {
    events.iter().find(|e| e.job == job && e.partition == 0 && e.stage == stage).unwrap().at
}

/// Holds C2 work until the test has seen what must not wait for it, so the
/// timing tests do not depend on the machine's speed: work that does wait for
/// it finishes only after `GATE_TIMEOUT`, after the gated work, and fails the
/// test's order check.
#[derive(Clone, Default)]
struct Gate(Arc<(Mutex<bool>, Condvar)>);

const GATE_TIMEOUT: Duration = Duration::from_secs(60);

impl Gate {
    fn pass(&self) {
        let (open, opened) = &*self.0;
        let guard = open.lock().unwrap();
        drop(opened.wait_timeout_while(guard, GATE_TIMEOUT, |open| !*open).unwrap());
    }

    fn open(&self) {
        let (open, opened) = &*self.0;
        *open.lock().unwrap() = true;
        opened.notify_all();
    }
}

/// How long a test waits for the engine to reach a state.
const WAIT: Duration = Duration::from_secs(120);

fn proves(engine: &Engine, job: JobId) -> usize {
    engine.timeline().iter().filter(|e| e.job == job && e.stage == Stage::ProveEnd).count()
}

#[test]
fn queued_work_runs_by_priority_then_submission_order() {
    let engine = Engine::paused(config(1, 1));
    let low = engine.submit(job(Priority::Low, 2, 1)).unwrap();
    let medium = engine.submit(job(Priority::Medium, 2, 2)).unwrap();
    let high = engine.submit(job(Priority::High, 2, 3)).unwrap();
    let low_later = engine.submit(job(Priority::Low, 1, 4)).unwrap();
    assert_eq!(engine.poll(low), Some(JobState::Queued));
    engine.resume();
    for id in [low, medium, high, low_later] {
        assert_eq!(finished(&engine, id).unwrap().len(), engine_partitions(id, low, medium, high));
    }
    let order = starts(&engine.timeline(), Stage::ProveStart);
    assert_eq!(
        order,
        vec![(high, 0), (high, 1), (medium, 0), (medium, 1), (low, 0), (low, 1), (low_later, 0)],
        "proving order"
    );
}

fn engine_partitions(id: JobId, low: JobId, medium: JobId, high: JobId) -> usize {
    if id == low || id == medium || id == high {
        2
    } else {
        1
    }
}

#[test]
fn higher_priority_work_overtakes_lower_at_the_next_partition_boundary() {
    let engine = Engine::new(config(1, 1));
    let low = engine.submit(job(Priority::Low, 8, 5)).unwrap();
    common::wait_until("the first low partition", WAIT, || proves(&engine, low) >= 1);
    let low_started_before = starts(&engine.timeline(), Stage::ProveStart).len();
    let high = engine.submit(job(Priority::High, 2, 6)).unwrap();
    assert_eq!(finished(&engine, high).unwrap().len(), 2);
    assert_eq!(finished(&engine, low).unwrap().len(), 8);

    let order = starts(&engine.timeline(), Stage::ProveStart);
    let last_high = order.iter().rposition(|&(j, _)| j == high).unwrap();
    // Between the submission and the high job's last partition, at most one low
    // partition started proving: the one already synthesized (queue depth 1).
    let low_in_between = order[low_started_before..last_high].iter().filter(|&&(j, _)| j == low).count();
    assert!(low_in_between <= 1, "{low_in_between} low partitions went first: {order:?}");
    let low_after = order[last_high..].iter().filter(|&&(j, _)| j == low).count();
    assert!(low_after >= 4, "the high job did not overtake: {order:?}");
    // The low partitions still ran in their own order.
    let low_order: Vec<usize> = order.iter().filter(|&&(j, _)| j == low).map(|&(_, k)| k).collect();
    assert_eq!(low_order, (0..8).collect::<Vec<_>>());
}

#[test]
fn synthesis_of_the_next_partition_overlaps_the_proof_of_the_current_one() {
    let engine = Engine::new(config(2, 2));
    let id = engine.submit(job(Priority::Low, 4, 7)).unwrap();
    finished(&engine, id).unwrap();
    let events = engine.timeline();
    let partition_at = |stage, k| events.iter().find(|e| e.job == id && e.stage == stage && e.partition == k).unwrap().at;
    let overlapping = (0..3).filter(|&k| partition_at(Stage::SynthesisStart, k + 1) < partition_at(Stage::ProveEnd, k)).count();
    assert!(overlapping >= 2, "synthesis did not overlap proving: {events:#?}");
}

#[test]
fn a_post_synthesizes_at_once_while_c2_syntheses_hold_every_thread() {
    // One synthesis thread, taken by a C2 partition whose synthesis lasts until
    // the PoSts are done (as a 32 GiB one takes tens of seconds); a Winning and
    // a Window PoSt each run on the workers kept for PoSt meanwhile.
    let engine = Engine::new(config(1, 8));
    let gate = Gate::default();
    let held = gate.clone();
    let c2_work = partition_after(500, LINKS, move || held.pass());
    let c2 = engine.submit(JobSpec { partitions: vec![c2_work], ..job(Priority::Low, 1, 50) }).unwrap();
    common::wait_until("the C2 synthesis to start", WAIT, || engine.status().synthesizing == 1);
    let window = engine.submit(job(Priority::Medium, 1, 51)).unwrap();
    let winning = engine.submit(job(Priority::High, 1, 52)).unwrap();
    all_proved(&engine, &[winning, window]);
    gate.open();
    let events = all_proved(&engine, &[c2]);
    for post in [window, winning] {
        let waited = at(&events, post, Stage::ProveEnd) > at(&events, c2, Stage::SynthesisEnd);
        assert!(!waited, "{post:?} waited for the C2 synthesis: {events:#?}");
    }
}

#[test]
fn a_post_proof_starts_at_once_while_a_c2_proof_holds_every_prover_worker() {
    // One prover worker, taken by a C2 partition of 2^16 constraints (a CPU
    // proof of a second or more here; timed only: its key is synthetic). A
    // Winning PoSt synthesized meanwhile starts proving on a worker kept for
    // PoSt before that proof ends (it waited for it before), and verifies.
    let engine = Engine::new(config(1, 8));
    let big = synthesize(chain(9, 1 << 16)).unwrap();
    let key = Arc::new(synthetic_srs::key_for(&big, 16));
    let c2 = engine
        .submit(JobSpec {
            key,
            partitions: vec![partition(600, 1 << 16)],
            verification: Verification::TimingOnly,
            ..job(Priority::Low, 1, 60)
        })
        .unwrap();
    common::wait_until("the C2 proof to start", WAIT, || engine.status().proving == 1);
    let winning = submit_winning(&engine, partition(61, SMALL_LINKS), 61);
    let events = all_proved(&engine, &[winning, c2]);
    let waited = at(&events, winning, Stage::ProveStart) > at(&events, c2, Stage::ProveEnd);
    assert!(!waited, "the Winning PoSt waited for the C2 proof: {events:#?}");
}

#[test]
fn a_c2_synthesis_holding_every_rayon_thread_does_not_delay_a_post() {
    // A C2 partition whose synthesis keeps every rayon thread busy until the
    // PoSt is done, as the pieces of a 32 GiB partition do for tens of
    // seconds; a Winning PoSt whose synthesis and submission (preparing its
    // verifying key) are parallel too is proved meanwhile.
    let engine = Engine::new(config(1, 8));
    let started = Arc::new(AtomicUsize::new(0));
    let holding = started.clone();
    let gate = Gate::default();
    let held = gate.clone();
    let c2_work = partition_after(700, LINKS, move || {
        (0..rayon::current_num_threads()).into_par_iter().for_each(|_| {
            holding.fetch_add(1, Ordering::SeqCst);
            held.pass();
        })
    });
    let c2 = engine.submit(JobSpec { partitions: vec![c2_work], ..job(Priority::Low, 1, 70) }).unwrap();
    common::wait_until("the C2 synthesis to hold every thread", WAIT, || started.load(Ordering::SeqCst) == rayon::current_num_threads());
    let parallel = partition_after(71, SMALL_LINKS, || assert_eq!((0..64u64).into_par_iter().sum::<u64>(), 2016));
    let winning = submit_winning(&engine, parallel, 71);
    all_proved(&engine, &[winning]);
    gate.open();
    let events = all_proved(&engine, &[c2]);
    let waited = at(&events, winning, Stage::ProveEnd) > at(&events, c2, Stage::SynthesisEnd);
    assert!(!waited, "the Winning PoSt waited for the C2 synthesis's threads: {events:#?}");
}

#[test]
fn cancelling_drops_queued_partitions_and_the_engine_carries_on() {
    let engine = Engine::new(config(1, 1));
    let id = engine.submit(job(Priority::Low, 10, 8)).unwrap();
    common::wait_until("the first partition", WAIT, || proves(&engine, id) >= 1);
    assert!(engine.cancel(id));
    assert!(!engine.cancel(id), "a second cancel of a finished job");
    assert_eq!(engine.poll(id), Some(JobState::Cancelled));
    let err = finished(&engine, id).unwrap_err();
    assert!(is_cancelled(&err), "{err:#}");
    assert_eq!(engine.poll(id), None, "waiting forgets the job");
    assert!(matches!(engine.wait(id, Some(Duration::ZERO)), WaitOutcome::Unknown));
    assert_eq!(engine.status().pending_partitions, 0);
    assert!(proves(&engine, id) <= 3, "partitions kept being proved after cancel");
    let next = engine.submit(job(Priority::Low, 1, 9)).unwrap();
    assert_eq!(finished(&engine, next).unwrap().len(), 1);
    assert!(!engine.cancel(JobId(9999)));
    assert_eq!(engine.status().counters.jobs_cancelled, 1);
}

#[test]
fn a_failing_partition_fails_its_job_only() {
    let engine = Engine::new(config(2, 2));
    let mut wrong = job(Priority::Low, 2, 10);
    wrong.partitions[1].public_inputs = vec![Fr::from(12345u64)];
    let mut failing = job(Priority::Low, 2, 11);
    failing.partitions[0].synthesize = Box::new(|_| Err(anyhow!("synthesis exploded")));
    let mut panicking = job(Priority::Low, 1, 12);
    panicking.partitions[0].synthesize = Box::new(|_| panic!("a circuit bug"));
    let ids = [engine.submit(wrong).unwrap(), engine.submit(failing).unwrap(), engine.submit(panicking).unwrap()];
    let good = engine.submit(job(Priority::Low, 1, 13)).unwrap();
    let messages: Vec<String> = ids.iter().map(|&id| format!("{:#}", finished(&engine, id).unwrap_err())).collect();
    assert!(messages[0].contains("partition 1") && messages[0].contains("differ from the public inputs"), "{}", messages[0]);
    assert!(messages[1].contains("synthesis exploded"), "{}", messages[1]);
    assert!(messages[2].contains("panic: a circuit bug"), "{}", messages[2]);
    assert_eq!(finished(&engine, good).unwrap().len(), 1);
    assert_eq!(engine.status().counters.jobs_failed, 3);
    assert_eq!(engine.status().memory.partitions_in_flight_bytes, 0, "failed partitions released their memory");
}

#[test]
fn a_synthesis_that_never_returns_fails_its_job_and_a_new_worker_serves_the_rest() {
    let engine = Engine::new(Config { worker_timeout_seconds: 1, ..config(1, 1) });
    let workers = engine.status().synthesis_workers;
    let (release, stuck_until) = std::sync::mpsc::channel::<()>();
    let mut stuck = job(Priority::Low, 2, 14);
    stuck.partitions[0] = partition_after(14_000, LINKS, move || {
        let _ = stuck_until.recv();
    });
    let stuck = engine.submit(stuck).unwrap();
    let next = engine.submit(job(Priority::Low, 1, 15)).unwrap();
    let e = format!("{:#}", finished(&engine, stuck).unwrap_err());
    assert!(e.contains("synthesizing partition 0") && e.contains("no result in 1 s") && e.contains("abandoned"), "{e}");
    // The stuck synthesis held the one C2 synthesis slot: a new worker took it.
    assert_eq!(finished(&engine, next).unwrap().len(), 1);
    let s = engine.status();
    assert_eq!((s.counters.workers_abandoned, s.abandoned_workers, s.synthesis_workers), (1, 1, workers));
    release.send(()).unwrap();
    common::wait_until("the abandoned worker to return", WAIT, || engine.status().abandoned_workers == 0);
    let s = engine.status();
    assert_eq!((s.synthesis_workers, s.memory.partitions_in_flight_bytes), (workers, 0), "its memory went back, its place stayed taken");
    let after = engine.submit(job(Priority::Low, 2, 16)).unwrap();
    assert_eq!(finished(&engine, after).unwrap().len(), 2);
}

#[test]
fn in_witness_mode_the_first_partition_records_the_circuit_and_every_proof_verifies() {
    const WITNESS_LINKS: usize = 600;
    let key = real_key(WITNESS_LINKS);
    let engine = Engine::new(config(3, 4));
    let spec = |seed: u64, links: usize, partitions: u64| JobSpec {
        key: key.clone(),
        partitions: (0..partitions).map(|k| partition(seed * 100 + k, links)).collect(),
        ..job(Priority::Low, 0, seed)
    };
    // Several partitions start at once: one records, the others wait for it.
    let ids: Vec<JobId> = (1..4).map(|seed| engine.submit(spec(seed, WITNESS_LINKS, 3)).unwrap()).collect();
    for id in ids {
        assert_eq!(finished(&engine, id).unwrap().len(), 3, "every proof verified by the engine");
    }
    let matrices = key.matrices.get().expect("the key's circuit recorded");
    assert_eq!(matrices.num_constraints(), synthesize(chain(1, WITNESS_LINKS)).unwrap().num_constraints());
    // A circuit of another shape under the key: its witness does not fit.
    let e = finished(&engine, engine.submit(spec(9, WITNESS_LINKS + 5, 1)).unwrap()).unwrap_err();
    assert!(format!("{e:#}").contains("the circuit's recorded matrices"), "{e:#}");
}

/// The most partitions between synthesis start and proof end at any time.
fn most_in_flight(events: &[Event]) -> usize {
    let (mut now, mut most) = (0i64, 0i64);
    for e in events {
        match e.stage {
            Stage::SynthesisStart => now += 1,
            Stage::ProveEnd => now -= 1,
            _ => {}
        }
        most = most.max(now);
    }
    most as usize
}

#[test]
fn the_host_memory_budget_bounds_the_partitions_in_flight() {
    let probe = Engine::paused(config(1, 1));
    let each = probe.partition_bytes(&KEY);
    let keys = KEY.size_bytes() as u64;
    drop(probe);

    // Room for two and a half partitions next to the key: two in flight, with
    // four synthesis threads and a queue of four that would allow more.
    let mut c = config(4, 4);
    c.host_memory_budget = keys + 2 * each + each / 2;
    let engine = Engine::new(c);
    let ids: Vec<JobId> = (0..3).map(|i| engine.submit(job(Priority::Low, 4, 20 + i)).unwrap()).collect();
    for id in ids {
        finished(&engine, id).unwrap();
    }
    let status = engine.status();
    assert_eq!(status.memory.peak_partitions_in_flight_bytes, 2 * each, "peak in flight");
    assert_eq!(most_in_flight(&engine.timeline()), 2);
    assert_eq!(status.memory.partitions_in_flight_bytes, 0);

    // A budget below one partition: partitions run one at a time, not never.
    let mut c = config(4, 4);
    c.host_memory_budget = keys + each / 2;
    let engine = Engine::new(c);
    let id = engine.submit(job(Priority::Low, 3, 30)).unwrap();
    assert_eq!(finished(&engine, id).unwrap().len(), 3);
    assert_eq!(engine.status().memory.peak_partitions_in_flight_bytes, each);
    assert_eq!(most_in_flight(&engine.timeline()), 1);
}

#[test]
fn sixty_four_concurrent_callers_get_their_own_verified_proofs() {
    let pvk = prepare_verifying_key(&SMALL_KEY.vk);
    let threads: Vec<_> = (0..64u64)
        .map(|i| {
            std::thread::spawn(move || {
                let circuits = vec![chain(100 + i, SMALL_LINKS), chain(200 + i, SMALL_LINKS)];
                let inputs: Vec<Vec<Fr>> = circuits.iter().map(|c| vec![c.output()]).collect();
                let kind = if i % 8 == 0 { ProofKind::WinningPost } else { ProofKind::PorepC2 };
                let proofs = prove_circuits(&CallContext::blocking(), kind, &SMALL_KEY, circuits, inputs.clone(), &format!("caller {i}")).unwrap();
                (proofs, inputs)
            })
        })
        .collect();
    for t in threads {
        let (proofs, inputs) = t.join().unwrap();
        assert_eq!(proofs.len(), 2);
        for (proof, input) in proofs.iter().zip(&inputs) {
            let ok = verify_proofs_batch(&pvk, &mut rand::rngs::OsRng, &[&proof.to_bellperson()], &[input.clone()]);
            assert!(ok.unwrap(), "a proof does not verify against its caller's inputs");
        }
    }
}

#[test]
fn status_reports_queues_jobs_memory_and_counters() {
    let engine = Engine::paused(config(1, 1));
    let a = engine.submit(job(Priority::Low, 2, 40)).unwrap();
    let mut winning = job(Priority::High, 1, 41);
    winning.kind = ProofKind::WinningPost;
    let b = engine.submit(winning).unwrap();
    let s = engine.status();
    assert!(s.paused);
    assert_eq!((s.pending_partitions, s.ready_partitions, s.synthesizing, s.proving), (3, 0, 0, 0));
    // One pool of synthesis (one PoRep partition, or as many SnapDeals
    // partitions as fill it: 1, 2 or 4 by the host's threads) and one prover
    // worker for C2, plus two of each kept for PoSt.
    assert!([1, 2, 4].map(|n| n + 2).contains(&s.synthesis_workers), "{}", s.synthesis_workers);
    assert_eq!((s.prover_workers, s.prover), (1 + 2, "cpu"));
    assert_eq!(s.jobs.iter().map(|j| (j.id, j.state, j.partitions)).collect::<Vec<_>>(), vec![(a, JobState::Queued, 2), (b, JobState::Queued, 1)]);
    assert_eq!(s.jobs[1].kind, ProofKind::WinningPost);
    assert_eq!(s.memory.keys_bytes, KEY.size_bytes() as u64);
    let json: serde_json::Value = serde_json::to_value(&s).unwrap();
    assert_eq!(json["jobs"][1]["priority"], "High");
    assert_eq!(json["config"]["synthesis_threads"], 1);
    engine.resume();
    finished(&engine, a).unwrap();
    finished(&engine, b).unwrap();
    let s = engine.status();
    assert!(s.jobs.is_empty());
    assert_eq!((s.counters.jobs_submitted, s.counters.jobs_done, s.counters.partitions_proved), (2, 2, 3));
    assert!(s.counters.synthesis_seconds > 0.0 && s.counters.proving_seconds > 0.0);

    // The process-wide report: engine, requests, resident keys, devices.
    let report: serde_json::Value = serde_json::from_str(&cuzk::engine::status::json().unwrap()).unwrap();
    for field in ["engine", "requests", "resident_parameters", "gpus"] {
        assert!(report.get(field).is_some(), "status lacks {field}: {report}");
    }
    assert!(report["engine"]["memory"]["host_budget_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn a_finished_job_not_yet_collected_holds_no_proving_key() {
    // The job's own key: only the job and this test hold it, so once the job
    // is done its proofs wait to be collected without keeping the key (an
    // evicted SRS of tens of GB) in memory.
    let engine = Engine::new(config(1, 1));
    let key = real_key(SMALL_LINKS + 1);
    let id = engine.submit(JobSpec { key: key.clone(), partitions: vec![partition(80, SMALL_LINKS + 1)], ..job(Priority::Low, 1, 80) }).unwrap();
    common::wait_until("the job to finish", WAIT, || engine.poll(id) == Some(JobState::Done));
    common::wait_until("the prover to drop its reference", WAIT, || Arc::strong_count(&key) == 1);
    assert_eq!(engine.status().memory.keys_bytes, 0);
    assert_eq!(finished(&engine, id).unwrap().len(), 1);
}

#[test]
fn a_running_engine_takes_a_new_configuration() {
    let engine = Engine::new(config(1, 1));
    let mut c = engine.config().updated(br#"{"synthesis_threads": 3, "ready_queue_depth": 3}"#).unwrap();
    engine.configure(c.clone());
    // Workers per pool of synthesis, and two kept for PoSt.
    let three_pools = engine.status().synthesis_workers - 2;
    assert!(three_pools >= 3 && three_pools.is_multiple_of(3), "{three_pools}");
    c.synthesis_threads = 1;
    engine.configure(c);
    common::wait_until("workers to retire", WAIT, || engine.status().synthesis_workers == three_pools / 3 + 2);
    let id = engine.submit(job(Priority::Low, 2, 50)).unwrap();
    assert_eq!(finished(&engine, id).unwrap().len(), 2);
}

fn proof_bytes(proofs: Vec<Proof>) -> Vec<u8> {
    proofs.iter().flat_map(|p| p.to_bytes()).collect()
}

#[test]
fn asynchronous_requests_wait_poll_cancel_and_release() {
    // A quick request: wait with a zero timeout, poll, then the bytes.
    let circuit = chain(7, SMALL_LINKS);
    let inputs = vec![vec![circuit.output()]];
    let id = requests::submit(ProofKind::WinningPost, Priority::High, move |context| {
        Ok(proof_bytes(prove_circuits(context, ProofKind::WinningPost, &SMALL_KEY, vec![circuit], inputs, "async")?))
    })
    .unwrap();
    assert!(id.0 > 0);
    match requests::wait(id, None) {
        requests::Waited::Finished(r) => assert_eq!(r.unwrap().len(), 192),
        _ => panic!("no outcome"),
    }
    assert!(requests::poll(id).is_none() && !requests::cancel(id));

    // A long one: cancelled while running; waiters learn at once, its engine
    // job stops.
    let long = requests::submit(ProofKind::PorepC2, Priority::Low, |context| {
        let circuits: Vec<MulChain> = (0..40).map(|k| chain(500 + k, LINKS)).collect();
        let inputs = circuits.iter().map(|c| vec![c.output()]).collect();
        Ok(proof_bytes(prove_circuits(context, ProofKind::PorepC2, &KEY, circuits, inputs, "long")?))
    })
    .unwrap();
    assert!(matches!(requests::wait(long, Some(Duration::from_millis(50))), requests::Waited::Pending));
    assert_eq!(requests::poll(long), Some(requests::RequestState::Running));
    common::wait_until("the long request's job to run", WAIT, || {
        let s = cuzk::engine::global().unwrap().status();
        s.jobs.iter().any(|j| j.label == "long" && j.proved > 0)
    });
    // One id space: the request's id is its engine job's.
    let status = cuzk::engine::global().unwrap().status();
    assert_eq!(status.jobs.iter().find(|j| j.label == "long").map(|j| j.id), Some(long));
    assert!(requests::cancel(long));
    assert_eq!(requests::poll(long), Some(requests::RequestState::Cancelled));
    match requests::wait(long, Some(Duration::ZERO)) {
        requests::Waited::Finished(r) => assert!(is_cancelled(&r.unwrap_err())),
        _ => panic!("a cancelled request has its outcome at once"),
    }
    common::wait_until("the cancelled job's partitions to leave", WAIT, || {
        let s = cuzk::engine::global().unwrap().status();
        !s.jobs.iter().any(|j| j.label == "long")
    });

    // Release forgets a request without waiting.
    let released = requests::submit(ProofKind::PorepC2, Priority::Low, |_| Ok(vec![1, 2, 3])).unwrap();
    assert!(requests::release(released));
    assert!(requests::poll(released).is_none() && !requests::release(released));
    let failing = requests::submit(ProofKind::SnapDeals, Priority::Low, |_| Err(anyhow!("bad input"))).unwrap();
    match requests::wait(failing, None) {
        requests::Waited::Finished(r) => assert_eq!(r.unwrap_err().to_string(), "bad input"),
        _ => panic!("no outcome"),
    }
}

#[test]
fn a_request_is_one_engine_job_from_submission_to_collection() {
    use std::sync::mpsc::channel;
    let engine = cuzk::engine::global().unwrap();
    let state_of = |id: JobId| engine.status().jobs.into_iter().find(|j| j.id == id).map(|j| j.state);
    let winning = |start: u64| {
        let circuit = chain(start, SMALL_LINKS);
        let inputs = vec![vec![circuit.output()]];
        (circuit, inputs)
    };

    // In its setup the request is already the engine's job, `Preparing`.
    let (go, setup) = channel::<()>();
    let (circuit, inputs) = winning(31);
    let id = requests::submit(ProofKind::WinningPost, Priority::High, move |context| {
        setup.recv()?;
        Ok(proof_bytes(prove_circuits(context, ProofKind::WinningPost, &SMALL_KEY, vec![circuit], inputs, "one job")?))
    })
    .unwrap();
    assert_eq!(state_of(id), Some(JobState::Preparing));
    assert_eq!(requests::poll(id), Some(requests::RequestState::Running));
    assert!(requests::status().iter().any(|r| r.id == id && r.state == JobState::Preparing));
    go.send(()).unwrap();
    let (waited, times) = requests::wait_timed(id, None);
    let requests::Waited::Finished(Ok(bytes)) = waited else { panic!("no proof") };
    assert_eq!(bytes.len(), 192);
    let times = times.expect("a finished request's times");
    assert!(times.setup > Duration::ZERO && times.proving > Duration::ZERO, "{times:?}");
    assert_eq!(state_of(id), None, "collected, forgotten");

    // Cancelled in its setup: it ends at once, and its call's proof never
    // queues a partition.
    let (go, setup) = channel::<()>();
    let (told, call_saw) = channel::<bool>();
    let (circuit, inputs) = winning(32);
    let id = requests::submit(ProofKind::WinningPost, Priority::High, move |context| {
        setup.recv()?;
        let proved = prove_circuits(context, ProofKind::WinningPost, &SMALL_KEY, vec![circuit], inputs, "cancelled in setup");
        told.send(proved.as_ref().is_err_and(is_cancelled))?;
        Ok(proof_bytes(proved?))
    })
    .unwrap();
    assert!(requests::cancel(id));
    assert_eq!(state_of(id), Some(JobState::Cancelled));
    go.send(()).unwrap();
    assert!(call_saw.recv().unwrap(), "the call's proof was not refused as cancelled");
    match requests::wait(id, Some(Duration::ZERO)) {
        requests::Waited::Finished(r) => assert!(is_cancelled(&r.unwrap_err())),
        _ => panic!("a cancelled request has its outcome at once"),
    }
    assert_eq!(engine.timeline().iter().filter(|e| e.job == id).count(), 0, "a partition of it ran");

    // The C API reaches no other job: a blocking call's job, held in its
    // synthesis here, is not a request to wait for, cancel or release.
    let (go, held) = channel::<()>();
    let mut blocking = job(Priority::Low, 1, 34);
    blocking.partitions[0] = partition_after(34_000, LINKS, move || {
        let _ = held.recv();
    });
    let blocking = engine.submit(blocking).unwrap();
    assert!(requests::poll(blocking).is_none() && !requests::cancel(blocking) && !requests::release(blocking));
    assert!(matches!(requests::wait(blocking, Some(Duration::ZERO)), requests::Waited::Unknown));
    go.send(()).unwrap();
    assert_eq!(finished(engine, blocking).unwrap().len(), 1);

    // A partition that fails hands its error to the call, which ends the
    // request with it (in its own words).
    let circuit = chain(33, SMALL_LINKS);
    let id = requests::submit(ProofKind::WinningPost, Priority::High, move |context| {
        let wrong_inputs = vec![vec![Fr::from(12345u64)]];
        let proved = prove_circuits(context, ProofKind::WinningPost, &SMALL_KEY, vec![circuit], wrong_inputs, "wrong inputs");
        Ok(proof_bytes(proved.map_err(|e| e.context("the call's own words"))?))
    })
    .unwrap();
    match requests::wait(id, None) {
        requests::Waited::Finished(r) => {
            let e = format!("{:#}", r.unwrap_err());
            assert!(e.contains("the call's own words") && e.contains("differ from the public inputs"), "{e}");
        }
        _ => panic!("no outcome"),
    }
}

#[test]
fn a_request_runs_at_its_own_priority() {
    // Two requests of the same kind: the one submitted High is proved before the
    // Low one queued ahead of it.
    let engine = cuzk::engine::global().unwrap();
    engine.pause();
    let labels: HashMap<&str, Priority> = [("prio-low", Priority::Low), ("prio-high", Priority::High)].into();
    let mut ids = Vec::new();
    for (label, priority) in [("prio-low", Priority::Low), ("prio-high", Priority::High)] {
        let circuit = chain(900, SMALL_LINKS);
        let inputs = vec![vec![circuit.output()]];
        ids.push(
            requests::submit(ProofKind::PorepC2, priority, move |context| {
                Ok(proof_bytes(prove_circuits(context, ProofKind::PorepC2, &SMALL_KEY, vec![circuit], inputs, label)?))
            })
            .unwrap(),
        );
        common::wait_until("the request's job", WAIT, || engine.status().jobs.iter().any(|j| j.label == label));
    }
    let s = engine.status();
    for j in s.jobs.iter().filter(|j| labels.contains_key(j.label.as_str())) {
        assert_eq!(j.priority, labels[j.label.as_str()], "{}", j.label);
    }
    engine.resume();
    for id in ids {
        assert!(matches!(requests::wait(id, None), requests::Waited::Finished(Ok(_))));
    }
}
