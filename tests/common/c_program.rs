//! The C test programs of tests/c/: each is built against include/cuzk.h with
//! strict warnings and AddressSanitizer + UBSan (or plain, for valgrind),
//! linked to libcuzk.so.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// The folder of this test binary (`target/release/deps`), where the test
/// build left the library's cdylib beside the rlib the tests link: the C
/// programs link the same build. (A `cargo build --lib` here would be another
/// build, as the test build unifies features with the workspace's other
/// crates: a whole compile, writing the shared output names mid-run.)
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().to_path_buf();
    assert!(dir.join("libcuzk.so").exists(), "no libcuzk.so beside {}", exe.display());
    dir
}

/// Builds `tests/c/<name>.c` into `work` under the sanitizers and returns the
/// executable.
pub fn build(name: &str, work: &Path) -> PathBuf {
    compile(name, work, &["-fsanitize=address,undefined"])
}

/// Builds `tests/c/<name>.c` into `work` without sanitizers, to run under
/// valgrind (which cannot run a sanitized program).
pub fn build_plain(name: &str, work: &Path) -> PathBuf {
    compile(name, work, &[])
}

fn compile(name: &str, work: &Path, sanitizers: &[&str]) -> PathBuf {
    let dir = library_dir();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = work.join(name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(cc)
        .args(["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror"])
        .args(sanitizers)
        .args(["-fno-omit-frame-pointer", "-g"])
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
    exe
}

/// Runs a built program under the sanitizers' settings; `command` adds its
/// arguments and environment.
pub fn run(exe: &Path, command: impl FnOnce(&mut Command) -> &mut Command) -> Output {
    let mut cmd = Command::new(exe);
    cmd.env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        .env("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1");
    command(&mut cmd).output().expect("running the C program")
}

/// Its stdout, after asserting that it succeeded (else both outputs).
pub fn succeeded(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "C program failed\nstdout:\n{stdout}\nstderr (tail):\n{}",
        &stderr[stderr.len().saturating_sub(6000)..]
    );
    stdout
}
