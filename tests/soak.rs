//! A soak of the engine's asynchronous C API (tests/c/soak.c, under ASAN and
//! UBSan): 100 mixed jobs on a real 2 KiB sector (C2, Winning and
//! Window PoSt, SnapDeals; valid inputs and garbage) from many threads at
//! random priorities, cancelled, released or waited for at random, while
//! the engine is reconfigured. Every job must be accounted for, every valid
//! proof verify with stock, no garbage yield a proof; no leak (ASAN) and no
//! file descriptor left open. The long form: `CUZK_SOAK_JOBS=5000
//! CUZK_SOAK_THREADS=32 cargo test --release --test soak -- --nocapture`.
//!
//! The same program, built plain, runs under valgrind's memcheck in its
//! garbage-only form: proofs under valgrind take hours, parsing, errors,
//! cancels, releases and reconfiguration seconds.

mod common;

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::{Mutex, OnceLock},
};

use common::{c_program, TempDir};
use cuzk::api::sample;
use filecoin_proofs_api::{post as stock_post, PrivateReplicaInfo, RegisteredPoStProof, RegisteredSealProof, SectorId};

/// The fixture soak.c reads: length-prefixed fields (u32 LE, then the
/// bytes): sector id (u64 LE), prover id, ticket, seed, comm_r, comm_d, the
/// C1 output, PoSt randomness, the Winning and the Window vanilla proof,
/// comm_r_old, comm_r_new, comm_d_new, then the SnapDeals vanilla proofs.
/// Made once per test binary.
fn fixture() -> &'static Path {
    static FIXTURE: OnceLock<PathBuf> = OnceLock::new();
    FIXTURE.get_or_init(make_fixture)
}

fn make_fixture() -> PathBuf {
    common::porep_params();
    cuzk::api::params::generate(2048, &[cuzk::api::params::Family::WinningPost, cuzk::api::params::Family::WindowPost, cuzk::api::params::Family::SnapDeals])
        .unwrap();
    let dir = std::env::temp_dir().join(format!("cuzk-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let s = sample::seal_sector(RegisteredSealProof::StackedDrg2KiBV1_1, &dir, 91).unwrap();
    let sid = SectorId::from(s.sector_id);
    let mut randomness = [5u8; 32];
    randomness[31] &= 0x3f;
    let vanilla = |rp: RegisteredPoStProof| {
        let challenges = stock_post::generate_fallback_sector_challenges(rp, &randomness, &[sid], s.prover_id).unwrap();
        let replica = PrivateReplicaInfo::new(rp, s.comm_r, dir.join("cache"), dir.join("sealed"));
        stock_post::generate_single_vanilla_proof(rp, sid, &replica, &challenges[&sid]).unwrap()
    };
    let winning = vanilla(RegisteredPoStProof::StackedDrgWinning2KiBV1);
    let window = vanilla(RegisteredPoStProof::StackedDrgWindow2KiBV1_2);
    let u = sample::update_sector(&s, &dir, 92).unwrap();
    let snap_vanilla = u.vanilla_proofs(&dir).unwrap();

    let sector_id = s.sector_id.to_le_bytes();
    let mut fields: Vec<&[u8]> = vec![&sector_id, &s.prover_id, &s.ticket, &s.seed, &s.comm_r, &s.comm_d, &s.c1_json];
    fields.extend([&randomness[..], &winning, &window, &u.comm_r_old, &u.comm_r_new, &u.comm_d_new]);
    fields.extend(snap_vanilla.iter().map(Vec::as_slice));
    let mut bytes = Vec::new();
    for f in fields {
        bytes.extend_from_slice(&u32::try_from(f.len()).unwrap().to_le_bytes());
        bytes.extend_from_slice(f);
    }
    // Under cargo's scratch folder for tests, replaced by the next run.
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("soak-fixture.bin");
    std::fs::write(&path, &bytes).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    path
}

/// One soak at a time: each wants the machine's cores.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static ONE: Mutex<()> = Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn the_async_api_survives_a_soak_of_mixed_jobs_under_asan() {
    let _one = alone();
    let jobs = std::env::var("CUZK_SOAK_JOBS").unwrap_or_else(|_| "100".into());
    let threads = std::env::var("CUZK_SOAK_THREADS").unwrap_or_else(|_| "8".into());
    let fixture = fixture();
    let work = TempDir::new("c-soak");
    let exe = c_program::build("soak", &work.0);
    let out = c_program::run(&exe, |cmd| cmd.arg(fixture).arg(&jobs).arg(&threads));
    let stdout = c_program::succeeded(&out);
    println!("{stdout}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn garbage_from_many_threads_is_clean_under_valgrind() {
    let _one = alone();
    let jobs = std::env::var("CUZK_SOAK_VALGRIND_JOBS").unwrap_or_else(|_| "200".into());
    let fixture = fixture();
    let work = TempDir::new("c-soak-valgrind");
    let exe = c_program::build_plain("soak", &work.0);
    // Memcheck errors and definitely lost blocks fail the run; the engine's
    // process-global state is still reachable at exit by design.
    let out = Command::new("valgrind")
        .args(["--error-exitcode=99", "--leak-check=full", "--show-leak-kinds=definite"])
        .args(["--errors-for-leak-kinds=definite", "--num-callers=30"])
        .arg(&exe)
        .arg(fixture)
        .arg(&jobs)
        .arg("8")
        .arg("garbage")
        .output()
        .expect("running valgrind (on Debian/Ubuntu: apt-get install valgrind)");
    let stdout = c_program::succeeded(&out);
    println!("{stdout}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ERROR SUMMARY: 0 errors"), "{stderr}");
}
