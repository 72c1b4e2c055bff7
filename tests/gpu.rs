//! The GPU backend computes what the CPU computes: MSMs in G1 and G2 (zero
//! scalars, points at infinity, sizes that are not powers of two; split by
//! scalar or not, for every mix of zeros, units and other values; H's
//! windowed Pippenger for every window width), the H
//! polynomial through NTTs, a, b and c from a circuit's recorded matrices,
//! and — for fixed r and s — the same proof bytes, on synthetic circuits and
//! on the real 2 KiB PoRep, WinningPoSt, WindowPoSt and SnapDeals circuits,
//! synthesized in full or proved from a witness.
//!
//! These need a CUDA device and fail without one; run them on the GPU machine
//! (docs/GPU.md). CI builds them and runs the CPU tests of the `cuda` build.
#![cfg(feature = "cuda")]

mod common;

use std::sync::{Arc, Mutex, MutexGuard};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar as Fr};
use cuzk::{
    api::{porep, post, random_vanilla, sample, snap},
    circuit::{record, synthesize, synthesize_witness, Assignment, MulChain, PackedWitness, Synthesized},
    engine::{
        self,
        prover::{prove_timed, prove_under, GpuFailure, Placement},
    },
    gpu::{self, Device, DeviceMatrices, DevicePoints, DeviceScalars, GpuProver, HPlan, KeyShape, MsmHow, MsmSplit, Part, Residency, SplitMode, WindowedMsm},
    groth16::{self, cpu, msm, prove, prove_with, synthetic_srs, ProvingKey},
};
use ff::Field;
use filecoin_proofs::SectorShape2KiB;
use filecoin_proofs_api::{
    update as stock_update, RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof,
};
use group::{prime::PrimeCurveAffine, Group};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// One test at a time on the device: the memory tests take most of it.
fn exclusive() -> MutexGuard<'static, ()> {
    static GPU: Mutex<()> = Mutex::new(());
    GPU.lock().unwrap_or_else(|e| e.into_inner())
}

fn device() -> &'static Device {
    gpu::devices().first().expect("no usable CUDA device: the GPU tests need one")
}

/// Random scalars with zeros, ones and -1 mixed in.
fn scalars(n: usize, seed: u64) -> Vec<Fr> {
    (0..n)
        .into_par_iter()
        .map(|i| match i % 7 {
            0 => Fr::ZERO,
            3 => Fr::ONE,
            5 => -Fr::ONE,
            _ => Fr::random(ChaCha8Rng::seed_from_u64(seed ^ (i as u64) << 8)),
        })
        .collect()
}

fn g1_points(n: usize, seed: u64) -> Vec<G1Affine> {
    let mut points = synthetic_srs::g1s(n, &mut ChaCha8Rng::seed_from_u64(seed));
    points.iter_mut().skip(4).step_by(97).for_each(|p| *p = G1Affine::identity());
    points
}

fn g2_points(n: usize, seed: u64) -> Vec<G2Affine> {
    let mut points = synthetic_srs::g2s(n, &mut ChaCha8Rng::seed_from_u64(seed));
    points.iter_mut().skip(2).step_by(89).for_each(|p| *p = G2Affine::identity());
    points
}

#[test]
fn msm_g1_equals_cpu() {
    let _gpu = exclusive();
    let max = 300_001;
    let points = g1_points(max, 1);
    let all = scalars(max, 2);
    let on_device = DevicePoints::upload_g1(device(), &points).unwrap();
    for n in [1usize, 2, 31, 32, 33, 1000, 4097, 65_537, max] {
        let gpu = on_device.msm_g1(&all[..n]).unwrap();
        assert_eq!(gpu, msm::msm_g1(&points[..n], &all[..n]), "G1 MSM of {n} points (large upload)");
    }
    for n in [1usize, 3, 100, 777] {
        let small = DevicePoints::upload_g1(device(), &points[..n]).unwrap();
        assert_eq!(small.msm_g1(&all[..n]).unwrap(), msm::msm_g1(&points[..n], &all[..n]), "G1 MSM of {n} points");
    }
    // As H's MSM runs: scalars on the device, in pieces (points offset with them).
    let on_device_scalars = DeviceScalars::upload(device(), &all).unwrap();
    for (n, piece) in [(max, 1 << 16), (max, 100_000), (max, max), (65_537, 4096), (1000, 7), (0, 5)] {
        let sum = on_device.msm_g1_in_pieces(&on_device_scalars, n, piece).unwrap();
        assert_eq!(sum, msm::msm_g1(&points[..n], &all[..n]), "G1 MSM of {n} points in pieces of {piece}");
    }
    assert!(on_device.msm_g1_in_pieces(&on_device_scalars, max + 1, 1 << 16).is_err(), "beyond the scalars must be an error");
    let zeros = vec![Fr::ZERO; 1000];
    assert_eq!(on_device.msm_g1(&zeros).unwrap(), G1Projective::identity());
    assert!(on_device.msm_g1(&vec![Fr::ONE; max + 1]).is_err(), "more scalars than points must be an error");
}

#[test]
fn msm_g2_equals_cpu() {
    let _gpu = exclusive();
    let max = 20_001;
    let points = g2_points(max, 3);
    let all = scalars(max, 4);
    let on_device = DevicePoints::upload_g2(device(), &points).unwrap();
    for n in [1usize, 33, 1000, max] {
        let gpu = on_device.msm_g2(&all[..n]).unwrap();
        assert_eq!(gpu, msm::msm_g2(&points[..n], &all[..n]), "G2 MSM of {n} points");
    }
    assert_eq!(on_device.msm_g2(&vec![Fr::ZERO; 64]).unwrap(), G2Projective::identity());
}

/// The zeros, units (one, minus one) and others among `scalars`.
fn kinds(scalars: &[Fr]) -> MsmSplit {
    let zero = scalars.iter().filter(|s| s.is_zero_vartime()).count();
    let unit = scalars.iter().filter(|&&s| s == Fr::ONE || s == -Fr::ONE).count();
    MsmSplit { zero, unit, other: scalars.len() - zero - unit, split: 0 }
}

/// An MSM run every way (`on_gpu(how)`) equals `cpu`, and says what it found
/// and did: Auto splits where an eighth or more of the scalars are zero or
/// units and the room allows.
fn every_way<P: PartialEq + std::fmt::Debug>(
    what: &str,
    scalars: &[Fr],
    cpu: P,
    on_gpu: impl Fn(MsmHow) -> anyhow::Result<(P, MsmSplit)>,
) {
    let n = scalars.len();
    let found = kinds(scalars);
    let room = device().free_bytes().unwrap();
    let pays = (found.zero + found.unit) * 8 >= n && n > 0;
    let ways = [
        (SplitMode::Never, room, MsmSplit { zero: 0, unit: 0, other: n, split: 0 }),
        (SplitMode::Always, room, MsmSplit { split: u32::from(n > 0), ..found }),
        (SplitMode::Always, 0, MsmSplit { split: u32::from(n > 0), ..found }),
        (SplitMode::Auto, room, MsmSplit { split: u32::from(pays), ..found }),
        // Without room only scalars all zero split (nothing to allocate).
        (SplitMode::Auto, 0, MsmSplit { split: u32::from(pays && found.unit + found.other == 0), ..found }),
    ];
    for (mode, room, expected) in ways {
        let (gpu, did) = on_gpu(MsmHow { mode, room }).unwrap();
        assert_eq!(gpu, cpu, "{what}, {n} scalars, {mode:?} in {room} bytes");
        let expected = if n == 0 { MsmSplit { zero: 0, unit: 0, other: 0, split: 0 } } else { expected };
        assert_eq!(did, expected, "{what}, {n} scalars, {mode:?} in {room} bytes: what the device found");
    }
}

const MIXES: [(&str, [u32; 3]); 7] = [
    ("all zero", [1000, 0, 0]),
    ("all one", [0, 1000, 0]),
    ("all minus one", [0, 0, 1000]),
    ("bits", [500, 500, 0]),
    ("mostly bits", [550, 300, 20]),
    ("a tenth each", [100, 100, 100]),
    ("random", [0, 0, 0]),
];

#[test]
fn split_msms_equal_the_cpus_for_every_mix_of_scalars() {
    let _gpu = exclusive();
    let max = 300_001;
    let points = g1_points(max, 11);
    let on_device = DevicePoints::upload_g1(device(), &points).unwrap();
    for (k, (what, kinds)) in MIXES.into_iter().enumerate() {
        let all = synthetic_srs::scalars_of_kinds(max, 20 + k as u64, kinds);
        for n in [0usize, 1, 31, 33, 1000, 65_537, max] {
            let s = &all[..n];
            every_way(&format!("G1, {what}"), s, msm::msm_g1(&points[..n], s), |how| on_device.msm_g1_with(s, how));
        }
    }
    // Around Auto's threshold: an eighth of the scalars zero, or one fewer.
    let n = 80_000;
    for trivial in [n / 8 - 1, n / 8] {
        let mut s = synthetic_srs::scalars_of_kinds(n, 40, [0, 0, 0]);
        s[..trivial].iter_mut().for_each(|x| *x = Fr::ZERO);
        every_way(&format!("G1, {trivial} zeros"), &s, msm::msm_g1(&points[..n], &s), |how| on_device.msm_g1_with(&s, how));
    }

    let max = 20_001;
    let points = g2_points(max, 12);
    let on_device = DevicePoints::upload_g2(device(), &points).unwrap();
    for (k, (what, kinds)) in MIXES.into_iter().enumerate() {
        let all = synthetic_srs::scalars_of_kinds(max, 30 + k as u64, kinds);
        for n in [1usize, 33, 1000, max] {
            let s = &all[..n];
            every_way(&format!("G2, {what}"), s, msm::msm_g2(&points[..n], s), |how| on_device.msm_g2_with(s, how));
        }
    }
}

#[test]
fn a_split_msm_beyond_its_room_runs_in_chunks_with_the_same_sum() {
    let _gpu = exclusive();
    // More than 2^20 scalars that are neither zero nor units: with no room,
    // their Pippenger runs over chunks of 2^20.
    let n = (1 << 21) + 5;
    let points = g1_points(n, 13);
    let s = synthetic_srs::scalars_of_kinds(n, 50, [400, 0, 0]);
    assert!(kinds(&s).other > 1 << 20);
    let on_device = DevicePoints::upload_g1(device(), &points).unwrap();
    let cpu = msm::msm_g1(&points, &s);
    let (gpu, did) = on_device.msm_g1_with(&s, MsmHow { mode: SplitMode::Always, room: 0 }).unwrap();
    assert_eq!((gpu, did.split), (cpu, 1));
    assert_eq!(on_device.msm_g1(&s).unwrap(), cpu, "the default way");
}

/// The windowed Pippenger (H's MSM) equals the CPU's MSM for windows of
/// 10 to 26 bits (10: 26 windows in 9 calls), every mix of scalars, all
/// scalars equal (one bucket's run spans every thread's share) and sizes
/// around a share; with too little room for all terms at once, or a cap
/// on the chunk, it runs in chunks, and with no room it says how much it
/// needs.
#[test]
fn windowed_msms_equal_the_cpus_for_every_window_and_mix_of_scalars() {
    let _gpu = exclusive();
    let max = 300_001;
    let points = g1_points(max, 14);
    let on_device = DevicePoints::upload_g1(device(), &points).unwrap();
    let room = device().free_bytes().unwrap();
    let way = |bits| WindowedMsm { bits, room, max_chunk: 0 };
    let equal = vec![Fr::random(ChaCha8Rng::seed_from_u64(15)); max];
    let mixes = MIXES.into_iter().map(|(what, kinds)| (what, synthetic_srs::scalars_of_kinds(max, 60, kinds)));
    for (what, all) in mixes.chain([("all equal", equal)]) {
        let on_device_scalars = DeviceScalars::upload(device(), &all).unwrap();
        for n in [0usize, 1, 1000, max] {
            let cpu = msm::msm_g1(&points[..n], &all[..n]);
            let gpu = on_device.msm_g1_windowed(&on_device_scalars, n, way(22)).unwrap();
            assert_eq!(gpu, cpu, "windowed G1 MSM, {what}, {n} scalars");
        }
    }
    let all = scalars(max, 16);
    let on_device_scalars = DeviceScalars::upload(device(), &all).unwrap();
    for n in [33, 65_537, max] {
        let cpu = msm::msm_g1(&points[..n], &all[..n]);
        for bits in [10, 16, 26] {
            let gpu = on_device.msm_g1_windowed(&on_device_scalars, n, way(bits)).unwrap();
            assert_eq!(gpu, cpu, "windowed G1 MSM, {n} scalars, windows of {bits} bits");
        }
    }
    let cpu = msm::msm_g1(&points, &all);
    let capped = WindowedMsm { max_chunk: 100_000, ..way(16) };
    assert_eq!(on_device.msm_g1_windowed(&on_device_scalars, max, capped).unwrap(), cpu, "chunks of 100000 terms");
    assert!(on_device.msm_g1_windowed(&on_device_scalars, max, way(9)).is_err(), "windows of 9 bits are refused");
    assert!(on_device.msm_g1_windowed(&on_device_scalars, max + 1, way(16)).is_err(), "beyond the scalars must be an error");

    // All terms at once need ~66 MB here (the run parts alone ~20 MB).
    let n = (1 << 21) + 5;
    let points = g1_points(n, 17);
    let s = scalars(n, 18);
    let on_device = DevicePoints::upload_g1(device(), &points).unwrap();
    let on_device_scalars = DeviceScalars::upload(device(), &s).unwrap();
    let cpu = msm::msm_g1(&points, &s);
    let in_room = |room| WindowedMsm { bits: 16, room, max_chunk: 0 };
    assert_eq!(on_device.msm_g1_windowed(&on_device_scalars, n, in_room(48 << 20)).unwrap(), cpu, "in chunks");
    let e = on_device.msm_g1_windowed(&on_device_scalars, n, in_room(1 << 20)).unwrap_err().to_string();
    assert!(e.contains("MiB of device memory needed"), "{e}");
}

#[test]
fn h_polynomial_equals_cpu() {
    let _gpu = exclusive();
    for n in [1usize, 2, 5, 1000, 1024, 1025, 1 << 16, (1 << 18) + 3, (1 << 21) + 1] {
        let (a, b, c) = (scalars(n, 5), scalars(n, 6), scalars(n, 7));
        let on_cpu = cpu::h_coefficients(&a, &b, &c).unwrap();
        for plan in [HPlan::TwoVectors, HPlan::OneVector] {
            let on_gpu = gpu::h_coefficients(device(), &a, &b, &c, plan).unwrap();
            assert_eq!(on_gpu, on_cpu, "H over {n} evaluations ({plan:?})");
        }
    }
}

fn assert_same_proofs(cs: Synthesized, pk: ProvingKey, what: &str) {
    let pk = Arc::new(pk);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (r, s) in [(Fr::random(&mut rng), Fr::random(&mut rng)), (Fr::ZERO, Fr::ZERO)] {
        let gpu = GpuProver::acquire(&pk).expect("a device").unwrap();
        let on_gpu = prove_with(&gpu, &pk, &cs, r, s).unwrap();
        drop(gpu);
        let on_cpu = prove(&pk, cs.clone(), r, s).unwrap();
        assert_eq!(on_gpu.to_bytes(), on_cpu.to_bytes(), "{what}: GPU and CPU proofs differ");
    }
}

#[test]
fn proofs_equal_cpu_bytes_on_synthetic_circuits() {
    let _gpu = exclusive();
    for links in [1000usize, (1 << 14) - 7, (1 << 22) - 10] {
        let cs = synthesize(MulChain { start: Fr::from(3u64), links }).unwrap();
        let pk = synthetic_srs::key_for(&cs, links as u64);
        assert_same_proofs(cs, pk, &format!("MulChain of {links} links"));
    }
}

#[test]
fn proofs_equal_cpu_bytes_on_the_2kib_porep_circuit() {
    let _gpu = exclusive();
    let sector = sample::seal_sector_in_temp(RegisteredSealProof::StackedDrg2KiBV1_1, 21).unwrap();
    let c1 = porep::parse_c1(&sector.c1_json).unwrap();
    let parts = porep::partition_circuits::<SectorShape2KiB>(c1).unwrap();
    let cs = synthesize(parts.circuits.into_iter().next().unwrap()).unwrap();
    let pk = synthetic_srs::key_for(&cs, 2048);
    assert_same_proofs(cs, pk, "2 KiB PoRep partition");
}

#[test]
fn abc_from_recorded_matrices_on_the_device_equal_the_cpus() {
    let _gpu = exclusive();
    // Matrices of one 2 KiB PoRep partition (1500-odd distinct coefficients),
    // a witness of another sector; and a chain of every size of row.
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let circuit = |seed| porep::partition_circuits::<SectorShape2KiB>(random_vanilla::porep_c1(rp, seed).unwrap()).unwrap().circuits.remove(0);
    let chain = |start: u64| MulChain { start: Fr::from(start), links: (1 << 16) + 3 };
    let cases = [(record(circuit(3)).unwrap().0, synthesize_witness(circuit(4)).unwrap(), "2 KiB PoRep"),
        (record(chain(3)).unwrap().0, synthesize_witness(chain(9)).unwrap(), "chain")];
    for (matrices, witness, what) in cases {
        let on_device = DeviceMatrices::upload(device(), &matrices).unwrap();
        let abc = on_device.evaluate(&witness).unwrap();
        let mut short = witness.clone();
        short.aux.pop();
        let e = on_device.evaluate(&short).err().expect("a witness of another shape is an error");
        assert!(format!("{e:#}").contains("does not fit"), "{e:#}");
        let cpu = matrices.evaluate(witness).unwrap();
        assert!(abc.a == cpu.a && abc.b == cpu.b && abc.c == cpu.c, "{what}: a, b, c differ from the CPU's");
        assert!(abc.kernel_seconds > 0.0, "{what}");
    }
}

#[test]
fn witnesses_prove_with_abc_evaluated_on_the_device_and_cpu_bytes() {
    let _gpu = exclusive();
    gpu::drop_unused_keys(); // earlier tests' keys
    let (r, s) = (Fr::from(29u64), Fr::from(31u64));
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let porep = |seed| porep::partition_circuits::<SectorShape2KiB>(random_vanilla::porep_c1(rp, seed).unwrap()).unwrap().circuits.remove(0);
    let chain = |start: u64| MulChain { start: Fr::from(start), links: (1 << 20) - 10 };
    // The key's matrices recorded from one instance, the proof of another's witness.
    let keyed = |matrices, cs: &Synthesized, seed| {
        let pk = synthetic_srs::key_for(cs, seed);
        assert!(pk.matrices.set(matrices).is_ok());
        Arc::new(pk)
    };
    let cases = [
        (record(porep(5)).unwrap().0, synthesize(porep(6)).unwrap(), synthesize_witness(porep(6)).unwrap(), "2 KiB PoRep"),
        (record(chain(3)).unwrap().0, synthesize(chain(8)).unwrap(), synthesize_witness(chain(8)).unwrap(), "2^20 chain"),
    ];
    for (matrices, cs, witness, what) in cases {
        let pk = keyed(matrices.clone(), &cs, 2051);
        let on_cpu = prove(&pk, cs.clone(), r, s).unwrap().to_bytes().to_vec();
        let witness_on_cpu = prove(&pk, witness.clone(), r, s).unwrap().to_bytes().to_vec();
        assert_eq!(witness_on_cpu, on_cpu, "{what}: the CPU's proof of the witness");
        // Proved with a prover of its own: whether the matrices and the
        // witness (the MSMs' scalars) were on the device.
        let proof = |what: &str, pk: &Arc<ProvingKey>, budget: Option<u64>| {
            let gpu = GpuProver::acquire_among(pk, None, 0, budget).expect("a device").unwrap();
            let (proof, t) = groth16::prove_timed(&gpu, pk, witness.clone(), r, s).unwrap_or_else(|e| panic!("{what}: {e:#}"));
            assert_eq!(proof.to_bytes().to_vec(), on_cpu, "{what}: the GPU's proof of the witness differs from the CPU's");
            assert!(t.h_abc > 0.0 && t.h_abc + t.h_copies + t.h_ntt + t.h_msm <= t.h + 1e-3, "{what}: {t:?}");
            (gpu.matrices_on_device(), gpu.holds_witness())
        };
        assert!(!holds_matrices(&pk), "{what}: matrices on the device before any proof");
        assert_eq!(proof(what, &pk, None), (true, true), "{what}: the matrices and the witness were not kept on the device");
        assert!(holds_matrices(&pk), "{what}: the engine does not see the matrices on the device");
        assert_eq!(proof(&format!("{what}, matrices already there"), &pk, None), (true, true));
        // Packed as the engine's synthesis packs a witness for a GPU: a
        // PoRep witness is bits, a chain's is not.
        let packed = PackedWitness::pack(&witness);
        assert_eq!(packed.is_some(), what == "2 KiB PoRep", "{what}: packed or not");
        if let Some(packed) = packed {
            let gpu = GpuProver::acquire_among(&pk, None, 0, None).expect("a device").unwrap();
            let (proof, _) = groth16::prove_timed(&gpu, &pk, Assignment::Witness(witness.clone(), Some(packed)), r, s).unwrap();
            assert_eq!(proof.to_bytes().to_vec(), on_cpu, "{what}: the GPU's proof of the packed witness differs from the CPU's");
        }
        let engine = prove_timed(GpuFailure::Error, Placement::ANY, &pk, witness.clone(), r, s).unwrap();
        assert_eq!((engine.gpu, engine.proof.to_bytes().to_vec()), (Some(0), on_cpu.clone()), "{what}: through the engine's prover");
        // Room for the key's working memory and one NTT vector, not for the
        // matrices: a, b and c come from the CPU, the bytes are the same.
        let small = keyed(matrices, &cs, 2051);
        let n = cs.num_constraints().next_power_of_two();
        let budget = Some(HPlan::OneVector.device_bytes(n) as u64 + (8 << 20));
        assert_eq!(proof(&format!("{what} under a small budget"), &small, budget), (false, false), "{what}: the matrices went beyond the budget");
        assert!(!holds_matrices(&small), "{what}: matrices seen on the device beyond the budget");
    }
    // With the matrices there and room for one NTT vector beside the
    // witness, H takes the one-vector plan.
    let (matrices, cs, witness) = (record(chain(4)).unwrap().0, synthesize(chain(9)).unwrap(), synthesize_witness(chain(9)).unwrap());
    let pk = keyed(matrices, &cs, 2052);
    let on_cpu = prove(&pk, cs.clone(), r, s).unwrap().to_bytes().to_vec();
    let first = prove_timed(GpuFailure::Error, Placement::ANY, &pk, witness.clone(), r, s).unwrap();
    assert_eq!(first.proof.to_bytes().to_vec(), on_cpu);
    let z = 32 * (witness.inputs.len() + witness.aux.len());
    let hog = Hog::leaving(z + HPlan::TwoVectors.device_bytes(cs.num_constraints().next_power_of_two()) - (16 << 20));
    let tight = prove_timed(GpuFailure::Error, Placement::ANY, &pk, witness, r, s).unwrap();
    drop(hog);
    assert_eq!(tight.gpu, Some(0));
    assert_eq!(tight.proof.to_bytes().to_vec(), on_cpu, "one-vector plan of a witness");
}

/// The engine's own C2 of a sealed 2 KiB sector on the device: its synthesis
/// packs each partition's witness, the GPU unpacks it and proves, and the
/// proof (verified by the engine before it returns) verifies with stock.
#[test]
fn a_2kib_c2_through_the_engine_crosses_packed_and_verifies_with_stock() {
    let _gpu = exclusive();
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let s = common::sealed_2kib(27);
    let engine = engine::global().unwrap();
    let (before, busy) = (engine.status().counters, engine::devices::gpu_status()[0].busy_seconds);
    let proof = porep::seal_commit_phase2(&engine::CallContext::blocking(), &s.c1_json, s.sector_id, s.prover_id).unwrap();
    assert!(porep::verify_seal(rp, s.comm_r, s.comm_d, s.prover_id, s.ticket, s.seed, s.sector_id, &proof).unwrap());
    let after = engine.status().counters;
    let partitions = after.partitions_proved - before.partitions_proved;
    assert!(partitions > 0, "no partition proved");
    assert_eq!(after.witnesses_packed - before.witnesses_packed, partitions, "a witness went whole");
    assert!(engine::devices::gpu_status()[0].busy_seconds > busy, "the device did not prove");
}

/// Whether the engine counts a witness under `pk` alone: device 0 holds the
/// key's matrices.
fn holds_matrices(pk: &Arc<ProvingKey>) -> bool {
    cuzk::engine::devices::hold_matrices(pk, &[0])
}

/// Two witnesses proved at once on one device (the engine's two prover
/// workers per GPU): one's upload runs beside the other's steps, and both
/// proofs are the CPU's bytes.
#[test]
fn two_witness_proofs_at_once_on_one_device_give_cpu_bytes() {
    let _gpu = exclusive();
    gpu::drop_unused_keys();
    let chain = |start: u64| MulChain { start: Fr::from(start), links: (1 << 20) - 10 };
    let (matrices, _) = record(chain(3)).unwrap();
    let cs = synthesize(chain(8)).unwrap();
    let pk = synthetic_srs::key_for(&cs, 2053);
    assert!(pk.matrices.set(matrices).is_ok());
    let pk = Arc::new(pk);
    let witnesses: Vec<_> = [8u64, 12].into_iter().map(|start| synthesize_witness(chain(start)).unwrap()).collect();
    let rs = |i: u64| (Fr::from(43 + i), Fr::from(47 + i));
    let on_cpu: Vec<_> = witnesses.iter().zip(0..).map(|(w, i)| prove(&pk, w.clone(), rs(i).0, rs(i).1).unwrap().to_bytes().to_vec()).collect();
    for round in 0..3 {
        let proofs: Vec<_> = std::thread::scope(|scope| {
            let running: Vec<_> = witnesses
                .iter()
                .zip(0..)
                .map(|(w, i)| {
                    let pk = &pk;
                    scope.spawn(move || prove_timed(GpuFailure::Error, Placement::ANY, pk, w.clone(), rs(i).0, rs(i).1).unwrap())
                })
                .collect();
            running.into_iter().map(|t| t.join().unwrap()).collect()
        });
        for ((p, expected), i) in proofs.iter().zip(&on_cpu).zip(0..) {
            assert_eq!((p.gpu, &p.proof.to_bytes().to_vec()), (Some(0), expected), "round {round}, witness {i}");
        }
    }
}

/// A key for `circuit`'s shape holding the matrices recorded from instance
/// 1, and the CPU's proof of instance 2 synthesized in full under it.
fn key_and_cpu_proof<C: bellperson::Circuit<Fr>>(circuit: &impl Fn(u64) -> C, seed: u64, r: Fr, s: Fr) -> (Arc<ProvingKey>, Vec<u8>) {
    let cs = synthesize(circuit(2)).unwrap();
    let pk = synthetic_srs::key_for(&cs, seed);
    assert!(pk.matrices.set(record(circuit(1)).unwrap().0).is_ok());
    let pk = Arc::new(pk);
    let on_cpu = prove(&pk, cs, r, s).unwrap().to_bytes().to_vec();
    (pk, on_cpu)
}

/// The proof of instance 2's witness on the device, under a key holding the
/// matrices recorded from instance 1, against the CPU's proof of instance 2
/// synthesized in full.
fn witness_proof_on_device_is_the_cpus<C: bellperson::Circuit<Fr>>(circuit: impl Fn(u64) -> C, seed: u64, what: &str) {
    let (r, s) = (Fr::from(37u64), Fr::from(41u64));
    let (pk, on_cpu) = key_and_cpu_proof(&circuit, seed, r, s);
    let gpu = GpuProver::acquire_among(&pk, None, 0, None).expect("a device").unwrap();
    let (proof, _) = groth16::prove_timed(&gpu, &pk, synthesize_witness(circuit(2)).unwrap(), r, s).unwrap();
    assert!(gpu.holds_witness(), "{what}: the witness was not proved from the device");
    assert_eq!(proof.to_bytes().to_vec(), on_cpu, "{what}: the GPU's proof of the witness differs from the CPU's");
}

#[test]
fn witnesses_of_the_2kib_post_and_snapdeals_circuits_prove_on_the_device_with_cpu_bytes() {
    let _gpu = exclusive();
    for rp in [RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2] {
        witness_proof_on_device_is_the_cpus(|seed| random_vanilla::post_circuit::<SectorShape2KiB>(rp, seed).unwrap(), 2061, &format!("{rp:?}"));
    }
    let rp = RegisteredUpdateProof::StackedDrg2KiBV1;
    witness_proof_on_device_is_the_cpus(|seed| random_vanilla::update_circuit::<SectorShape2KiB>(rp, seed).unwrap(), 2062, "SnapDeals");
}

/// A folder of its own for a sealed sector, removed afterwards.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn proofs_equal_cpu_bytes_on_the_2kib_post_and_snapdeals_circuits() {
    let _gpu = exclusive();
    let dir = TempDir(std::env::temp_dir().join(format!("cuzk-gpu-sector-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let sector = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir.0, 23).unwrap();

    let mut randomness = [5u8; 32];
    randomness[31] &= 0x3f;
    for rp in [RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2] {
        let vanilla = sector.post_vanilla_proof(rp, randomness, &dir.0).unwrap();
        let parts =
            post::partition_circuits::<SectorShape2KiB>(rp, randomness, sector.prover_id, &[vanilla], post::Scope::All)
                .unwrap();
        let cs = synthesize(parts.circuits.into_iter().next().unwrap()).unwrap();
        let pk = synthetic_srs::key_for(&cs, 2049);
        assert_same_proofs(cs, pk, &format!("{rp:?}"));
    }

    let u = sample::update_sector(&sector, &dir.0, 24).unwrap();
    let vanilla: Vec<Vec<u8>> = stock_update::generate_partition_proofs(
        u.registered_proof,
        u.comm_r_old,
        u.comm_r_new,
        u.comm_d_new,
        dir.0.join("sealed"),
        dir.0.join("cache"),
        dir.0.join("update"),
        dir.0.join("update-cache"),
    )
    .unwrap()
    .into_iter()
    .map(|p| p.0)
    .collect();
    let comms = snap::UpdateCommitments { comm_r_old: u.comm_r_old, comm_r_new: u.comm_r_new, comm_d_new: u.comm_d_new };
    let parts = snap::partition_circuits::<SectorShape2KiB>(u.registered_proof, &vanilla, comms).unwrap();
    let cs = synthesize(parts.circuits.into_iter().next().unwrap()).unwrap();
    let pk = synthetic_srs::key_for(&cs, 2050);
    assert_same_proofs(cs, pk, "2 KiB SnapDeals partition");
}

#[test]
fn get_gpu_devices_lists_the_device() {
    let _gpu = exclusive();
    let names = cuzk::engine::devices::gpu_names();
    assert_eq!(names.first(), Some(&device().name));
}

/// Device memory taken away from cuzk, as another process on the GPU would.
/// Every proof type's witness proves with the CPU's bytes under each
/// placement of its key: nothing resident, H, H and the matrices, all but
/// L and A, all (placed by hand), and as budgets of those sizes place it.
#[test]
fn every_placement_of_a_key_proves_with_cpu_bytes() {
    let _gpu = exclusive();
    gpu::drop_unused_keys(); // earlier tests' keys
    let rp = RegisteredSealProof::StackedDrg2KiBV1_1;
    let porep = |seed| porep::partition_circuits::<SectorShape2KiB>(random_vanilla::porep_c1(rp, seed).unwrap()).unwrap().circuits.remove(0);
    placements_prove_cpu_bytes(porep, 2071, "2 KiB PoRep");
    for rp in [RegisteredPoStProof::StackedDrgWinning2KiBV1, RegisteredPoStProof::StackedDrgWindow2KiBV1_2] {
        placements_prove_cpu_bytes(|seed| random_vanilla::post_circuit::<SectorShape2KiB>(rp, seed).unwrap(), 2072, &format!("{rp:?}"));
    }
    let rp = RegisteredUpdateProof::StackedDrg2KiBV1;
    placements_prove_cpu_bytes(|seed| random_vanilla::update_circuit::<SectorShape2KiB>(rp, seed).unwrap(), 2073, "SnapDeals");
}

fn placements_prove_cpu_bytes<C: bellperson::Circuit<Fr>>(circuit: impl Fn(u64) -> C, seed: u64, what: &str) {
    use Part::*;
    let (r, s) = (Fr::from(53u64), Fr::from(59u64));
    let (pk, on_cpu) = key_and_cpu_proof(&circuit, seed, r, s);
    let witness = synthesize_witness(circuit(2)).unwrap();
    let shape = KeyShape::of(&pk);
    let placements = [Residency::default(), Residency::of(&[H]), Residency::of(&[H, Matrices]), Residency::of(&[H, BG1, BG2, Matrices]), shape.whole()];
    let proved = |gpu: GpuProver, how: &str| {
        let (proof, _) = groth16::prove_timed(&gpu, &pk, witness.clone(), r, s).unwrap_or_else(|e| panic!("{what}, {how}: {e:#}"));
        assert_eq!(proof.to_bytes().to_vec(), on_cpu, "{what}, {how}: the GPU's proof differs from the CPU's");
        assert_eq!(gpu.matrices_on_device(), gpu.residency().holds(Matrices), "{what}, {how}");
        assert_eq!(gpu.holds_witness(), gpu.residency().holds(Matrices), "{what}, {how}: the witness on the device");
        gpu.residency()
    };
    for kept in placements {
        let gpu = GpuProver::acquire_placed(&pk, kept).expect("a device").unwrap();
        assert_eq!(proved(gpu, &format!("{kept:?} placed")), kept);
    }
    let mut seen = Vec::new();
    for kept in placements {
        let budget = shape.room_for(kept);
        let gpu = GpuProver::acquire_among(&pk, None, 0, Some(budget as u64)).expect("a device").unwrap();
        let placed = proved(gpu, &format!("a budget of {budget} bytes"));
        assert_eq!(placed, shape.plan(budget), "{what}: placed otherwise than planned under a budget of {budget} bytes");
        seen.push(placed);
    }
    assert!(seen.contains(&Residency::default()) && seen.contains(&shape.whole()), "{what}: {seen:?}");
}

struct Hog(*mut std::ffi::c_void);

extern "C" {
    // The CUDA runtime cuzk links statically.
    fn cudaSetDevice(device: i32) -> i32;
    fn cudaDeviceSynchronize() -> i32;
    fn cudaMalloc(ptr: *mut *mut std::ffi::c_void, bytes: usize) -> i32;
    fn cudaFree(ptr: *mut std::ffi::c_void) -> i32;
}

/// Free device memory once freed blocks went back from sppark's stream-ordered
/// pool (which returns them at a synchronisation).
fn free_now() -> usize {
    // SAFETY: runtime calls on a valid ordinal, no pointers involved.
    assert_eq!(unsafe { cudaSetDevice(device().cuda_ordinal) }, 0);
    // SAFETY: as above.
    assert_eq!(unsafe { cudaDeviceSynchronize() }, 0);
    device().free_bytes().unwrap()
}

impl Hog {
    /// Takes all free device memory but about `leave` bytes.
    fn leaving(leave: usize) -> Self {
        let mut ptr = std::ptr::null_mut();
        let mut take = free_now().saturating_sub(leave);
        // The allocator may not hand out the last bytes in one piece.
        // SAFETY: `ptr` is a valid out-pointer, written on success and freed
        // once in Drop.
        while unsafe { cudaMalloc(&mut ptr, take) } != 0 {
            take -= 8 << 20;
        }
        // Allocations are rounded up to 2 MiB pages.
        let free = free_now();
        assert!(free + (4 << 20) >= leave && free < leave + (96 << 20), "{free} bytes left free, wanted {leave}");
        Self(ptr)
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        // SAFETY: allocated by cudaMalloc in `leaving`, freed once.
        assert_eq!(unsafe { cudaFree(self.0) }, 0);
    }
}

/// A 2^20-point MulChain, its key, and its CPU proof for fixed r, s.
fn chain_of_2_20() -> (Synthesized, Arc<ProvingKey>, Fr, Fr, Vec<u8>) {
    let links = (1 << 20) - 10;
    let cs = synthesize(MulChain { start: Fr::from(5u64), links }).unwrap();
    let pk = Arc::new(synthetic_srs::key_for(&cs, 31));
    let (r, s) = (Fr::from(17u64), Fr::from(19u64));
    let on_cpu = prove(&pk, cs.clone(), r, s).unwrap().to_bytes().to_vec();
    (cs, pk, r, s, on_cpu)
}

#[test]
fn proofs_fit_a_nearly_full_device_with_identical_bytes() {
    let _gpu = exclusive();
    let (cs, pk, r, s, on_cpu) = chain_of_2_20();
    // Each plan's proof, and its H step's parts: copies to the device only
    // when H runs there, and the parts within the step's time.
    let gpu_proof = |what: &str, h_on_gpu: bool| {
        let timed = prove_timed(GpuFailure::Error, Placement::ANY, &pk, cs.clone(), r, s).unwrap_or_else(|e| panic!("{what}: {e:#}"));
        assert_eq!(timed.gpu, Some(0), "{what}: the proof did not run on the GPU");
        assert_eq!(timed.proof.to_bytes().to_vec(), on_cpu, "{what}: GPU proof differs from the CPU's");
        let t = timed.stages;
        assert_eq!(t.h_copies > 0.0, h_on_gpu, "{what}: H copies took {} s", t.h_copies);
        assert!(t.h_ntt > 0.0 && t.h_msm > 0.0, "{what}: {t:?}");
        assert!(t.h_copies + t.h_ntt + t.h_msm <= t.h + 1e-3, "{what}: H's parts exceed the step: {t:?}");
    };
    gpu_proof("the key uploaded", true);
    let n = 1usize << 20;
    // Room for one NTT vector only, then for none: H moves to the host
    // vector, then to the CPU; the MSMs still run on the device.
    let short = 16 << 20;
    for (leave, plan) in [
        (HPlan::TwoVectors.device_bytes(n) - short, Some(HPlan::OneVector)),
        (HPlan::OneVector.device_bytes(n) - short, None),
    ] {
        let hog = Hog::leaving(leave);
        assert_eq!(HPlan::fitting(free_now(), n), plan);
        gpu_proof(&format!("{plan:?} with {} MiB free", free_now() >> 20), plan.is_some());
        drop(hog);
    }
}

#[test]
fn under_a_gpu_memory_budget_too_small_for_the_key_it_streams_with_identical_bytes() {
    let _gpu = exclusive();
    gpu::drop_unused_keys(); // earlier tests' keys
    let (cs, pk, r, s, on_cpu) = chain_of_2_20();
    let before = free_now();
    // Room for a proof step's working memory, not for the key beside it.
    let budget = gpu::streamed_key_room(&pk) as u64;
    let on = Placement { gpu_memory_budget: Some(budget), ..Placement::ANY };
    let timed = prove_timed(GpuFailure::Error, on, &pk, cs.clone(), r, s).unwrap();
    assert_eq!(timed.gpu, Some(0), "the proof did not run on the GPU");
    assert_eq!(timed.proof.to_bytes().to_vec(), on_cpu, "GPU proof under a budget differs from the CPU's");
    let gpu = GpuProver::acquire_among(&pk, None, 0, Some(budget)).expect("a device").unwrap();
    assert_eq!(gpu.residency(), Residency::default(), "a part of the key was kept on the device beyond the budget");
    drop(gpu);
    let kept = before.saturating_sub(free_now());
    assert!(kept as u64 <= budget, "cuzk keeps {kept} bytes of device memory between proofs, above its budget of {budget}");
}

#[test]
fn out_of_device_memory_is_an_error_or_a_cpu_retry_and_frees_what_it_took() {
    let _gpu = exclusive();
    // Earlier tests' keys, which the hog could not take and the proof would
    // evict to find room.
    gpu::drop_unused_keys();
    let (cs, pk, r, s, on_cpu) = chain_of_2_20();
    for stage in ["uploading the key", "proving with the key resident"] {
        let hog = Hog::leaving(12 << 20);
        let before = free_now();
        let kept = || before.saturating_sub(free_now());
        let failed = prove_under(GpuFailure::Error, &pk, cs.clone(), r, s).expect_err(stage);
        assert!(format!("{failed:#}").contains("out of memory"), "{stage}: {failed:#}");
        assert!(kept() <= 2 << 20, "{stage}: a failed GPU proof kept {} bytes of device memory", kept());
        let retried = prove_under(GpuFailure::RetryOnCpu, &pk, cs.clone(), r, s).expect("retried on the CPU");
        assert_eq!(retried.to_bytes().to_vec(), on_cpu, "{stage}");
        assert!(kept() <= 2 << 20, "{stage}: a failed GPU proof kept {} bytes of device memory", kept());
        drop(hog);
        let after = prove_under(GpuFailure::Error, &pk, cs.clone(), r, s).expect("the device works again");
        assert_eq!(after.to_bytes().to_vec(), on_cpu, "{stage}");
    }
}

#[test]
fn a_device_held_past_the_step_limit_sends_proofs_to_the_cpu_until_it_returns() {
    use groth16::{Backend, G1Query};
    let _gpu = exclusive();
    let (cs, pk, r, s, on_cpu) = chain_of_2_20();
    let timed = prove_timed(GpuFailure::Error, Placement::ANY, &pk, cs.clone(), r, s).unwrap();
    assert_eq!((timed.gpu, timed.proof.to_bytes().to_vec()), (Some(0), on_cpu.clone()));
    let limit = std::time::Duration::from_secs(1);
    gpu::set_step_limit(Some(limit));
    let waiting = GpuProver::acquire(&pk).expect("a device").unwrap();
    // A step that never returns, as a hung kernel's.
    let hung = device().hold(2).unwrap();
    let start = std::time::Instant::now();
    let e = format!("{:#}", waiting.msm_g1(G1Query::L, &scalars(1000, 3)).unwrap_err());
    assert!(start.elapsed() >= limit && e.contains("GPU 0") && e.contains("taken as hung"), "{e}");
    drop(waiting);
    assert!(device().overrunning().is_some());
    assert!(GpuProver::acquire(&pk).is_none(), "a hung device takes no new proof");
    let timed = prove_timed(GpuFailure::Error, Placement::ANY, &pk, cs.clone(), r, s).unwrap();
    assert_eq!((timed.gpu, timed.proof.to_bytes().to_vec()), (None, on_cpu.clone()), "proved on the CPU meanwhile");
    drop(hung);
    gpu::set_step_limit(None);
    assert!(device().overrunning().is_none());
    let timed = prove_timed(GpuFailure::Error, Placement::ANY, &pk, cs, r, s).unwrap();
    assert_eq!((timed.gpu, timed.proof.to_bytes().to_vec()), (Some(0), on_cpu), "the device serves again once the step returned");
}

#[test]
fn proofs_sharing_the_device_step_by_step_give_cpu_bytes_and_unused_keys_free_it() {
    let _gpu = exclusive();
    gpu::drop_unused_keys(); // earlier tests' keys
    let before = free_now();
    let (cs, pk, r, s, on_cpu) = chain_of_2_20();
    let small = synthesize(MulChain { start: Fr::from(7u64), links: 5000 }).unwrap();
    let small_pk = Arc::new(synthetic_srs::key_for(&small, 32));
    let small_cpu = prove(&small_pk, small.clone(), r, s).unwrap().to_bytes().to_vec();
    // Two C2-like proofs (rank 2) and three urgent small ones (rank 0) at
    // once: their steps interleave on the one device, over shared queries.
    std::thread::scope(|scope| {
        let mut proofs = Vec::new();
        for i in 0..5 {
            let (cs, pk, expected, rank) =
                if i < 2 { (&cs, &pk, &on_cpu, 2) } else { (&small, &small_pk, &small_cpu, 0) };
            proofs.push(scope.spawn(move || {
                let on = Placement { rank, ..Placement::ANY };
                let timed = prove_timed(GpuFailure::Error, on, pk, cs.clone(), r, s).unwrap();
                assert_eq!(timed.gpu, Some(0), "proof {i} did not run on the GPU");
                assert_eq!(&timed.proof.to_bytes().to_vec(), expected, "proof {i} (rank {rank}) differs from the CPU's");
            }));
        }
        for p in proofs {
            p.join().unwrap();
        }
    });
    // The CUDA runtime keeps some memory for the threads that ran proofs, so
    // the check is on what the keys took, not on the free memory at the start.
    let keys_host = (pk.size_bytes() + small_pk.size_bytes()) as i64;
    let held = free_now() as i64;
    assert!((before as i64) - held > keys_host / 2, "the keys stay on the device while their owners hold them");
    drop((pk, small_pk));
    gpu::drop_unused_keys();
    let freed = free_now() as i64 - held;
    assert!(freed > keys_host / 2, "dropping the keys freed {freed} bytes; they take about {keys_host} on the host");
}
