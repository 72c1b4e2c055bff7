//! Stock supraseal C2 (bellperson 0.27 with `cuda-supraseal`: supraseal-c2 +
//! sppark) against cuzk's GPU prover and, for small circuits, cuzk's CPU
//! prover, on the same circuit (synthetic `MulChain`s of 2^k constraints, and
//! the real 2 KiB PoRep partition circuit of a freshly sealed sector), the same
//! key (written as a standard `.params` file, which is what supraseal reads)
//! and the same randomisers r, s, in one run. All must give identical proof
//! bytes. Also the real 32 GiB PoRep partition circuit (StackedDrg32GiBV1_1,
//! ~130M constraints) built from random vanilla proofs of the exact structure
//! (`api::random_vanilla`): its witness does not satisfy the circuit, so those
//! proofs are timed and compared, not verified. PoRep partitions also go
//! cuzk's production path (matrices recorded once, then witnesses alone
//! proved with a, b, c evaluated on the GPU), whose bytes must equal its
//! full path's. Prints one JSON object. Needs a CUDA device.
//!
//! env: CUZK_BENCH_PROOFS (default "porep-2KiB,22,24,26": log2 sizes of
//! synthetic circuits, porep-2KiB, porep-32GiB, winning-32GiB, window-32GiB or
//! snap-32GiB: a partition of the 32 GiB PoSt and SnapDeals circuits from
//! `random_vanilla::{post_circuit, update_circuit}`),
//! CUZK_BENCH_RUNS (default 3),
//! CUZK_BENCH_WARMUP (unmeasured runs first, default 1; the first circuit of a
//! process also pays the JIT of supraseal's kernels), CUZK_BENCH_CPU_MAX_LOG (largest circuit, as log2 of its domain, that the CPU
//! peer proves; default 22), CUZK_BENCH_TMP (folder for the .params files,
//! default the system temp dir).

use std::{
    fs::File,
    io::{BufWriter, Write},
    panic::{catch_unwind, AssertUnwindSafe},
    path::{Path, PathBuf},
    sync::Arc,
    time::Instant,
};

use anyhow::{anyhow, ensure, Context, Result};
use bellperson::{
    groth16::{create_proof_batch_in_priority, SuprasealParameters},
    Circuit,
};
use blstrs::{Bls12, G1Affine, G2Affine, Scalar as Fr};
use cuzk::{
    api::{porep, random_vanilla, sample, snap},
    circuit::{synthesize, synthesize_pieces, Assignment, Matrices, MulChain, PackedWitness, Recorder, Synthesized, Witness},
    gpu::{self, GpuProver},
    groth16::{self, prove_with, synthetic_srs, ProvingKey},
};
use filecoin_proofs::{SectorShape2KiB, SectorShape32GiB};
use filecoin_proofs_api::{seal::SealCommitPhase1Output, RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use rayon::prelude::*;
use serde_json::{json, Value};
use storage_proofs_core::merkle::MerkleTreeTrait;

mod bellperson_log;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

fn meminfo_available() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// The process's peak resident memory so far (VmHWM).
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

fn disk_available(dir: &Path) -> Option<u64> {
    let out = std::process::Command::new("df").arg("-B1").arg("--output=avail").arg(dir).output().ok()?;
    String::from_utf8(out.stdout).ok()?.lines().nth(1)?.trim().parse().ok()
}

/// The standard bellperson `.params` layout (what `Parameters::write` writes:
/// the vk, then h, l, a, b_g1, b_g2 each as a big-endian u32 count and
/// uncompressed points), serialized in parallel chunks without copying the key.
fn write_params(pk: &ProvingKey, path: &Path) -> Result<u64> {
    let mut w = BufWriter::with_capacity(1 << 24, File::create(path)?);
    pk.vk.write(&mut w)?;
    fn section<P: Sync, const N: usize>(
        w: &mut impl Write,
        points: &[P],
        enc: impl Fn(&P) -> [u8; N] + Sync,
    ) -> Result<()> {
        w.write_all(&u32::try_from(points.len())?.to_be_bytes())?;
        for chunk in points.chunks(1 << 20) {
            let bytes: Vec<u8> = chunk.par_iter().flat_map_iter(&enc).collect();
            w.write_all(&bytes)?;
        }
        Ok(())
    }
    let g1 = |p: &G1Affine| p.to_uncompressed();
    let g2 = |p: &G2Affine| p.to_uncompressed();
    section(&mut w, &pk.h, g1)?;
    section(&mut w, &pk.l, g1)?;
    section(&mut w, &pk.a, g1)?;
    section(&mut w, &pk.b_g1, g1)?;
    section(&mut w, &pk.b_g2, g2)?;
    let f = w.into_inner().map_err(|e| anyhow!("flush: {e}"))?;
    f.sync_all()?;
    Ok(f.metadata()?.len())
}

fn is_tmpfs(dir: &Path) -> bool {
    std::process::Command::new("df").arg("--output=fstype").arg(dir).output().ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .is_some_and(|s| s.lines().nth(1).is_some_and(|l| l.trim() == "tmpfs"))
}

/// How each circuit is run: `warmup` unmeasured runs, then `runs`; cuzk's
/// CPU prover up to 2^`cpu_max`; the `.params` file written in `tmp`.
struct Settings {
    warmup: usize,
    runs: usize,
    cpu_max: u32,
    tmp: PathBuf,
}

/// Proves `circuit` with cuzk (GPU, and CPU where the circuit is at most
/// 2^cpu_max) and supraseal; `name` names it in the report and file names.
fn bench_circuit<C: Circuit<Fr> + Send>(
    name: &str,
    circuit: impl Fn() -> C,
    cuzk_synthesize: &dyn Fn() -> Result<Synthesized>,
    cuzk_witness: Option<&WitnessPath>,
    settings: &Settings,
) -> Result<Value> {
    let Settings { warmup, runs, cpu_max, ref tmp } = *settings;
    let (r, s) = (Fr::from(11u64), Fr::from(13u64));

    // The key, from a first synthesis (also gives the sizes for the memory checks).
    let t = Instant::now();
    let cs = cuzk_synthesize()?;
    let first_synth_s = secs(t);
    let g1 = std::mem::size_of::<G1Affine>() as u64;
    let g2 = std::mem::size_of::<G2Affine>() as u64;
    let n = cs.num_constraints().next_power_of_two() as u64;
    let log = n.trailing_zeros();
    let b_len = (cs.b_input_density.count() + cs.b_aux_density.count()) as u64;
    let key_mem = (n + cs.aux.len() as u64 + (cs.inputs.len() + cs.a_aux_density.count()) as u64 + b_len) * g1
        + b_len * g2;
    let file_est = key_mem + (1 << 20); // uncompressed encodings: 96/192 bytes, as in memory
    if let Some(avail) = meminfo_available() {
        // cuzk's key, then (cuzk's dropped) supraseal's host copy, each beside
        // a synthesis (a, b, c, aux) and margin; and the .params file itself
        // when the temp folder is in memory.
        let synthesis = 4 * (cs.a.len() as u64) * 32 * 2;
        let need = key_mem.max(file_est) + synthesis + if is_tmpfs(tmp) { file_est } else { 0 };
        ensure!(
            avail > need,
            "not enough host memory for {name}: need about {need} bytes, {avail} available"
        );
    }
    if let Some(avail) = disk_available(tmp) {
        ensure!(avail > file_est, "not enough disk in {} for {name}: need about {file_est} bytes, {avail} available", tmp.display());
    }

    let t = Instant::now();
    let pk = Arc::new(synthetic_srs::key_for(&cs, u64::from(log)));
    let key_gen_s = secs(t);
    // What every proof's A and B must be, from the key's construction: checks
    // both provers where the witness does not satisfy the circuit.
    let (a, b) = synthetic_srs::expected_a_b(&cs, u64::from(log), r, s);
    let expected_a_b = [&a.to_compressed()[..], &b.to_compressed()[..]].concat();
    let a_b_as_expected = |proof: &[u8]| proof.get(..expected_a_b.len()) == Some(&expected_a_b[..]);
    eprintln!("{name}: synthesis {first_synth_s:.2} s, key {key_gen_s:.2} s ({} bytes)", pk.size_bytes());

    let path = tmp.join(format!("cuzk-supraseal-bench-{name}-{}.params", std::process::id()));
    let t = Instant::now();
    let file_bytes = write_params(&pk, &path).context("writing the .params file")?;
    let key_write_s = secs(t);
    eprintln!("{name}: wrote {} ({file_bytes} bytes) in {key_write_s:.2} s", path.display());
    // The first synthesis is the first measured one when there is no warm-up
    // (a 32 GiB partition takes minutes to synthesize).
    let mut first = (warmup == 0).then_some((cs, first_synth_s));

    // cuzk: synthesis, key upload, prove only, synthesis + prove.
    let t = Instant::now();
    drop(GpuProver::acquire(&pk).context("no CUDA device")??);
    let cuzk_key_upload_s = secs(t);
    let mut synth = Vec::new();
    let mut prove = Vec::new();
    let mut total = Vec::new();
    let mut cuzk_bytes = None;
    for i in 0..warmup + runs {
        let (cs, synth_s) = match first.take() {
            Some(done) => done,
            None => {
                let t = Instant::now();
                (cuzk_synthesize()?, secs(t))
            }
        };
        let t1 = Instant::now();
        let gpu = GpuProver::acquire(&pk).context("no CUDA device")??;
        let proof = prove_with(&gpu, &pk, &cs, r, s)?;
        drop(gpu);
        drop(cs);
        let p = secs(t1);
        let all = synth_s + p;
        let bytes = proof.to_bytes().to_vec();
        if let Some(prev) = &cuzk_bytes {
            ensure!(prev == &bytes, "cuzk {name}: proof bytes differ between runs");
        }
        cuzk_bytes = Some(bytes);
        if i >= warmup {
            synth.push(all - p);
            prove.push(p);
            total.push(all);
        }
        eprintln!("{name}: cuzk run {i}: synthesis {:.3} s, prove {p:.3} s", all - p);
    }
    let cuzk_bytes = cuzk_bytes.unwrap();
    let witness = cuzk_witness.map(|w| w.bench(name, &pk, &cuzk_bytes, settings, (r, s))).transpose()?;

    // cuzk's CPU prover (synthesis excluded), for circuits small enough.
    let mut cpu = Vec::new();
    if log <= cpu_max {
        let cs = cuzk_synthesize()?;
        for i in 0..runs.min(2) {
            let t = Instant::now();
            let proof = groth16::prove(&pk, cs.clone(), r, s)?;
            cpu.push(secs(t));
            ensure!(proof.to_bytes().to_vec() == cuzk_bytes, "{name}: cuzk CPU and GPU proof bytes differ");
            eprintln!("{name}: cuzk CPU run {i}: {:.3} s", cpu[i]);
        }
    }
    drop(pk);
    // The GPU key cache's copy too: its host memory is the size of the file
    // supraseal reads next.
    gpu::drop_unused_keys();

    // supraseal: load the SRS from the file, then prove (it synthesizes inside).
    let t = Instant::now();
    let params = SuprasealParameters::<Bls12>::new(path.clone()).context("supraseal could not load the .params file")?;
    let key_load_s = secs(t);
    let _ = std::fs::remove_file(&path);
    eprintln!("{name}: supraseal loaded the SRS in {key_load_s:.2} s");
    let mut sup = Vec::new();
    let mut sup_split = Vec::new();
    let mut sup_prover = Vec::new();
    let mut sup_proofs: Vec<Vec<u8>> = Vec::new();
    for i in 0..warmup + runs {
        bellperson_log::take();
        let t = Instant::now();
        let proofs = create_proof_batch_in_priority(vec![circuit()], &params, vec![r], vec![s])
            .map_err(|e| anyhow!("supraseal prover: {e}"))?;
        let el = secs(t);
        let split = bellperson_log::take();
        let mut bytes = Vec::new();
        proofs[0].write(&mut bytes)?;
        sup_proofs.push(bytes);
        if i >= warmup {
            sup.push(el);
            sup_prover.extend(split.iter().filter(|(step, _)| step == "prover_time").map(|(_, t)| *t));
            sup_split.push(json!(split));
        }
        eprintln!("{name}: supraseal run {i}: {el:.3} s {split:?}");
    }
    drop(params);
    // Every run of both provers must give the same bytes; a difference is
    // reported, not hidden (the supraseal proofs cannot be verified here: the
    // synthetic key has no trapdoor).
    let sup_matching = sup_proofs.iter().filter(|b| **b == cuzk_bytes).count();
    let mut distinct = sup_proofs.clone();
    distinct.sort();
    distinct.dedup();
    let identical = sup_matching == sup_proofs.len();
    let (sm, cp, ct, cs_) = (median(&sup), median(&prove), median(&total), median(&synth));
    let cpu_median = (!cpu.is_empty()).then(|| median(&cpu));
    let out = json!({
        "circuit": name,
        "log2_domain": log,
        "proof_bytes_identical": identical,
        "supraseal_runs_matching_cuzk": sup_matching,
        "supraseal_runs": sup_proofs.len(),
        "supraseal_distinct_proofs": distinct.len(),
        "proof_hex_cuzk": hex(&cuzk_bytes),
        "proof_hex_supraseal": sup_proofs.iter().map(|b| hex(b)).collect::<Vec<_>>(),
        "supraseal_median_s": sm,
        "cuzk_synthesis_median_s": cs_,
        "cuzk_prove_only_median_s": cp,
        "cuzk_synthesis_plus_prove_median_s": ct,
        "a_b_equal_the_keys_closed_form": {
            "cuzk": a_b_as_expected(&cuzk_bytes),
            "supraseal": sup_proofs.iter().map(|p| a_b_as_expected(p)).collect::<Vec<_>>(),
        },
        "ratio_supraseal_total_over_cuzk_prove_only": sm / cp,
        "ratio_supraseal_prover_over_cuzk_prove_only": (!sup_prover.is_empty()).then(|| median(&sup_prover) / cp),
        "ratio_supraseal_over_cuzk_synthesis_plus_prove": sm / ct,
        "ratio_supraseal_prover_over_cuzk_witness_prove_only": witness.as_ref().zip((!sup_prover.is_empty()).then(|| median(&sup_prover))).map(|(w, p)| p / w.prove_median_s),
        "cuzk_witness": witness.as_ref().map(|w| &w.report),
        "cuzk_cpu_prove_only_median_s": cpu_median,
        "ratio_cuzk_cpu_over_gpu_prove_only": cpu_median.map(|c| c / cp),
        "supraseal_split_s": sup_split,
        "runs_s": {
            "supraseal": sup, "cuzk_synthesis": synth, "cuzk_prove_only": prove,
            "cuzk_synthesis_plus_prove": total, "cuzk_cpu_prove_only": cpu,
        },
        "peak_rss_bytes_so_far": peak_rss(),
        "key": {
            "host_bytes": key_mem, "file_bytes": file_bytes, "generate_s": key_gen_s,
            "write_params_s": key_write_s, "supraseal_load_s": key_load_s, "cuzk_upload_s": cuzk_key_upload_s,
        },
    });
    // One line per circuit as soon as it is done, so a run cut short keeps it.
    eprintln!("RESULT {}", serde_json::to_string(&out)?);
    Ok(out)
}

/// cuzk's production path for a circuit: its matrices recorded once, then
/// witnesses alone, packed where that pays, a, b and c evaluated on the GPU.
struct WitnessPath<'a> {
    record: Box<dyn Fn() -> Result<(Matrices, Witness)> + 'a>,
    synthesize: Box<dyn Fn() -> Result<Witness> + 'a>,
}

struct WitnessRuns {
    prove_median_s: f64,
    report: Value,
}

impl WitnessPath<'_> {
    /// Records the matrices into `pk` and puts them on the GPU, then proves
    /// witnesses there, each proof's bytes checked against the full path's
    /// (`expected`).
    fn bench(&self, name: &str, pk: &Arc<ProvingKey>, expected: &[u8], settings: &Settings, (r, s): (Fr, Fr)) -> Result<WitnessRuns> {
        let Settings { warmup, runs, .. } = *settings;
        let t = Instant::now();
        let (matrices, _) = (self.record)()?;
        let record_s = secs(t);
        ensure!(pk.matrices.set(matrices).is_ok(), "{name}: the key had matrices already");
        // Once per key, as the engine does when it warms a key: not a proof's time.
        let t = Instant::now();
        let gpu = GpuProver::acquire(pk).context("no CUDA device")??;
        gpu.upload_matrices(pk.matrices.get().context("matrices")?)?;
        ensure!(gpu.matrices_on_device(), "{name}: the matrices do not fit on the device");
        drop(gpu);
        let upload_s = secs(t);
        let (mut synth, mut pack, mut prove, mut steps) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut packed_bytes = None;
        for i in 0..warmup + runs {
            let t = Instant::now();
            let witness = (self.synthesize)()?;
            let synth_s = secs(t);
            // As the engine's synthesis does for a GPU: part of synthesis, not of the proof.
            let t = Instant::now();
            let packed = PackedWitness::pack(&witness);
            let pack_s = secs(t);
            packed_bytes = packed.as_ref().map(PackedWitness::bytes);
            let t = Instant::now();
            let gpu = GpuProver::acquire(pk).context("no CUDA device")??;
            let (proof, times) = groth16::prove_timed(&gpu, pk, Assignment::Witness(witness, packed), r, s)?;
            let on_device = (gpu.matrices_on_device(), gpu.holds_witness());
            drop(gpu);
            let p = secs(t);
            ensure!(proof.to_bytes()[..] == *expected, "cuzk {name}: the witness path's proof differs from the full path's");
            ensure!(on_device == (true, true), "cuzk {name}: the matrices or the witness were not on the device");
            eprintln!("{name}: cuzk witness run {i}: synthesis {synth_s:.3} s, packing {pack_s:.3} s, prove {p:.3} s {times:?}");
            if i >= warmup {
                synth.push(synth_s);
                pack.push(pack_s);
                prove.push(p);
                steps.push(json!(times));
            }
        }
        let prove_median_s = median(&prove);
        let report = json!({
            "record_s": record_s,
            "matrices_upload_s": upload_s,
            "synthesis_median_s": median(&synth),
            "packing_median_s": median(&pack),
            "packed_bytes": packed_bytes,
            "prove_only_median_s": prove_median_s,
            "proof_bytes_equal_the_full_paths": true,
            "runs_s": { "synthesis": synth, "packing": pack, "prove_only": prove },
            "prove_steps_s": steps,
        });
        Ok(WitnessRuns { prove_median_s, report })
    }
}

/// `porep-2KiB`, `porep-32GiB`, or the log2 size of a synthetic circuit.
fn bench_named(which: &str, settings: &Settings) -> Result<Value> {
    match which {
        "porep-2KiB" => {
            let sector = sample::seal_sector_in_temp(RegisteredSealProof::StackedDrg2KiBV1_1, 21)?;
            return bench_porep::<SectorShape2KiB>(which, porep::parse_c1(&sector.c1_json)?, settings);
        }
        "porep-32GiB" => {
            let c1 = random_vanilla::porep_c1(RegisteredSealProof::StackedDrg32GiBV1_1, 1)?;
            return bench_porep::<SectorShape32GiB>(which, c1, settings);
        }
        "winning-32GiB" | "window-32GiB" => {
            let rp = if which == "winning-32GiB" {
                RegisteredPoStProof::StackedDrgWinning32GiBV1
            } else {
                RegisteredPoStProof::StackedDrgWindow32GiBV1_2
            };
            let circuit = random_vanilla::post_circuit::<SectorShape32GiB>(rp, 1)?;
            let synth = || Ok(synthesize(circuit.clone())?);
            return bench_circuit(which, || circuit.clone(), &synth, None, settings);
        }
        "snap-32GiB" => {
            // Not Clone: rebuilt from its seed for every synthesis.
            let rp = RegisteredUpdateProof::StackedDrg32GiBV1;
            let challenges = random_vanilla::update_circuit::<SectorShape32GiB>(rp, 1)?.pub_params.challenge_count;
            let circuit = || random_vanilla::update_circuit::<SectorShape32GiB>(rp, 1).expect("built once already");
            let synth = || snap::synthesize_partition::<Synthesized, _>(circuit(), challenges);
            return bench_circuit(which, circuit, &synth, None, settings);
        }
        _ => {}
    }
    let log: u32 = which.parse().with_context(|| format!("{which:?} is not porep-2KiB, porep-32GiB, winning-32GiB, window-32GiB, snap-32GiB or a log2 size"))?;
    let circuit = MulChain { start: Fr::from(3u64), links: (1usize << log) - 2 };
    let synth = || Ok(synthesize(circuit.clone())?);
    bench_circuit(&format!("synthetic-2^{log}"), || circuit.clone(), &synth, None, settings)
}

/// Partition 0 of the PoRep of `c1`, through both of cuzk's paths.
fn bench_porep<Tree: 'static + MerkleTreeTrait>(
    which: &str,
    c1: SealCommitPhase1Output,
    settings: &Settings,
) -> Result<Value> {
    let circuit = first(porep::partition_circuits::<Tree>(c1.clone())?.circuits)?;
    let pieces = first(porep::partition_pieces::<Tree>(c1)?.pieces)?;
    let synth = || synthesize_pieces::<Synthesized, _>(pieces.clone(), porep::CHALLENGE_NAMESPACE);
    let witness = WitnessPath {
        record: Box::new(|| synthesize_pieces::<Recorder, _>(pieces.clone(), porep::CHALLENGE_NAMESPACE)?.finish()),
        synthesize: Box::new(|| synthesize_pieces::<Witness, _>(pieces.clone(), porep::CHALLENGE_NAMESPACE)),
    };
    bench_circuit(which, || circuit.clone(), &synth, Some(&witness), settings)
}

/// Partition 0.
fn first<T>(partitions: Vec<T>) -> Result<T> {
    partitions.into_iter().next().context("a partition")
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn main() -> Result<()> {
    bellperson_log::install();
    let runs = env_or("CUZK_BENCH_RUNS", 3usize).max(1);
    let cpu_max = env_or("CUZK_BENCH_CPU_MAX_LOG", 22u32);
    let warmup = env_or("CUZK_BENCH_WARMUP", 1usize);
    let proofs: Vec<String> = std::env::var("CUZK_BENCH_PROOFS")
        .unwrap_or_else(|_| "porep-2KiB,22,24,26".into())
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    let tmp: PathBuf = std::env::var_os("CUZK_BENCH_TMP").map(Into::into).unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&tmp)?;
    let settings = Settings { warmup, runs, cpu_max, tmp: tmp.clone() };
    let device = gpu::devices().first().context("no usable CUDA device")?;
    let mut results = Vec::new();
    let mut all_ok = true;
    for which in proofs {
        let r = catch_unwind(AssertUnwindSafe(|| bench_named(&which, &settings)));
        let v = match r {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                all_ok = false;
                eprintln!("{which}: {e:#}");
                json!({ "circuit": which, "error": format!("{e:#}") })
            }
            Err(p) => {
                all_ok = false;
                let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                json!({ "circuit": which, "error": format!("panic: {}", msg.unwrap_or_default()) })
            }
        };
        results.push(v);
    }
    let report = json!({
        "bench": "supraseal_vs_cuzk",
        "device": { "name": device.name, "compute_capability": device.compute_capability, "total_bytes": device.total_bytes },
        "host_cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "host_mem_available_bytes_at_start": meminfo_available(),
        "params_dir": tmp.display().to_string(), "params_dir_is_tmpfs": is_tmpfs(&tmp),
        "runs": runs,
        "warmup_runs": warmup,
        "r": 11, "s": 13,
        "circuits": "2^k: cuzk::circuit::MulChain { start: 3, links: 2^k - 2 }; porep-2KiB: partition 0 of a sealed 2 KiB V1_1 sector; porep-32GiB: partition 0 of StackedDrg32GiBV1_1 from api::random_vanilla::porep_c1(seed 1); winning-/window-32GiB: api::random_vanilla::post_circuit(seed 1); snap-32GiB: api::random_vanilla::update_circuit(seed 1); keys synthetic_srs::key_for(cs, seed = log2 domain)",
        "all_ok": all_ok,
        "results": results,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    std::process::exit(if all_ok { 0 } else { 1 })
}
