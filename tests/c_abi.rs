//! Builds tests/c/c2_flow.c against include/cuzk.h with strict warnings and
//! AddressSanitizer + UBSan, links it to libcuzk.so, and runs it on a real
//! sealed 2 KiB sector.

mod common;

use std::path::{Path, PathBuf};

use common::c_program;

/// The fixture c2_flow.c and engine_flow.c read: sector_id (u64 LE),
/// prover_id, ticket, seed, comm_r, comm_d, then the C1 output, of a freshly
/// sealed 2 KiB sector.
fn c2_fixture(seed: u64, name: &str) -> PathBuf {
    let s = common::sealed_2kib(seed);
    let mut fixture = s.sector_id.to_le_bytes().to_vec();
    for part in [&s.prover_id, &s.ticket, &s.seed, &s.comm_r, &s.comm_d] {
        fixture.extend_from_slice(part);
    }
    fixture.extend_from_slice(&s.c1_json);
    let path = std::env::temp_dir().join(format!("cuzk-{name}-fixture-{}.bin", std::process::id()));
    std::fs::write(&path, &fixture).unwrap();
    path
}

#[test]
fn c_program_drives_c2_and_bad_inputs_under_asan() {
    let fixture = c2_fixture(21, "c2");
    let stdout = run_c_program("c2_flow", &[&fixture]);
    let _ = std::fs::remove_file(&fixture);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn c_program_drives_the_async_engine_api_under_asan() {
    let fixture = c2_fixture(22, "engine");
    let stdout = run_c_program("engine_flow", &[&fixture]);
    let _ = std::fs::remove_file(&fixture);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

/// Builds and runs `tests/c/<name>.c` with `args`; its stdout (it must succeed).
fn run_c_program(name: &str, args: &[&Path]) -> String {
    let work = std::env::temp_dir().join(format!("cuzk-c-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let exe = c_program::build(name, &work);
    let out = c_program::run(&exe, |cmd| cmd.args(args));
    let _ = std::fs::remove_dir_all(&work);
    c_program::succeeded(&out)
}

#[test]
fn c_program_drives_bls_and_post_challenges_under_asan() {
    let stdout = run_c_program("bls_post_flow", &[]);
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
