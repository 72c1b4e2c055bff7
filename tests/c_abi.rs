//! Builds tests/c/c2_flow.c against include/cuzk.h with strict warnings and
//! AddressSanitizer + UBSan, links it to libcuzk.so, and runs it on a real
//! sealed 2 KiB sector.

mod common;

use std::{path::PathBuf, process::Command};

/// The target profile folder of this test binary (`target/release`), where
/// cargo puts libcuzk.so.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

fn ensure_cdylib(dir: &PathBuf) {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--lib"]).current_dir(env!("CARGO_MANIFEST_DIR"));
    if dir.ends_with("release") {
        cmd.arg("--release");
    }
    assert!(cmd.status().expect("running cargo").success(), "building libcuzk.so");
    assert!(dir.join("libcuzk.so").exists());
}

#[test]
fn c_program_drives_c2_and_bad_inputs_under_asan() {
    let s = common::sealed_2kib(21);
    let mut fixture = s.sector_id.to_le_bytes().to_vec();
    for part in [&s.prover_id, &s.ticket, &s.seed, &s.comm_r, &s.comm_d] {
        fixture.extend_from_slice(part);
    }
    fixture.extend_from_slice(&s.c1_json);
    let fixture_path = std::env::temp_dir().join(format!("cuzk-c2-fixture-{}.bin", std::process::id()));
    std::fs::write(&fixture_path, &fixture).unwrap();
    let stdout = run_c_program("c2_flow", &[&fixture_path]);
    let _ = std::fs::remove_file(&fixture_path);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn c_program_drives_the_async_engine_api_under_asan() {
    let s = common::sealed_2kib(22);
    let mut fixture = s.sector_id.to_le_bytes().to_vec();
    for part in [&s.prover_id, &s.ticket, &s.seed, &s.comm_r, &s.comm_d] {
        fixture.extend_from_slice(part);
    }
    fixture.extend_from_slice(&s.c1_json);
    let fixture_path = std::env::temp_dir().join(format!("cuzk-engine-fixture-{}.bin", std::process::id()));
    std::fs::write(&fixture_path, &fixture).unwrap();
    let stdout = run_c_program("engine_flow", &[&fixture_path]);
    let _ = std::fs::remove_file(&fixture_path);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

fn tail(s: &str) -> &str {
    &s[s.len().saturating_sub(6000)..]
}

/// Builds `tests/c/<name>.c` against include/cuzk.h with strict warnings and
/// ASAN/UBSan, links it to libcuzk.so, runs it with `args`, and returns its
/// stdout (it must succeed).
fn run_c_program(name: &str, args: &[&std::path::Path]) -> String {
    let dir = profile_dir();
    ensure_cdylib(&dir);
    let work = std::env::temp_dir().join(format!("cuzk-c-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = work.join(name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(root.join(format!("tests/c/{name}.c")))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", dir.display()))
        .arg("-lcuzk")
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .status()
        .expect("running the C compiler");
    assert!(status.success(), "compiling tests/c/{name}.c");
    let out = Command::new(&exe)
        .args(args)
        .env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        .env("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
        .output()
        .expect("running the C program");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let _ = std::fs::remove_dir_all(&work);
    assert!(out.status.success(), "C program failed\nstdout:\n{stdout}\nstderr (tail):\n{}", tail(&stderr));
    stdout
}

#[test]
fn c_program_drives_bls_and_post_challenges_under_asan() {
    let stdout = run_c_program("bls_post_flow", &[]);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
