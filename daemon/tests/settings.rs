//! The daemon checks the engine's settings before it listens: a bad one
//! exits non-zero with a message naming it, and no socket is made.

use std::{
    process::{Command, Stdio},
    time::{Duration, Instant},
};

fn daemon_with(env: &[(&str, &str)], toml: Option<&str>, what: &str) -> (bool, String, bool) {
    let dir = std::env::temp_dir().join(format!("cuzk-daemon-settings-{}-{what}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let socket = dir.join("cuzk.sock");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuzk-daemon"));
    cmd.args(["--listen", &format!("unix://{}", socket.display())]);
    if let Some(toml) = toml {
        let file = dir.join("cuzk.toml");
        std::fs::write(&file, toml).unwrap();
        cmd.args(["--config", file.to_str().unwrap()]);
    }
    let mut child = cmd.envs(env.iter().copied()).stderr(Stdio::piped()).spawn().unwrap();
    // A daemon that took the setting serves until stopped: killed after a while.
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let listened = socket.exists();
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned(), listened)
}

#[test]
fn a_bad_engine_setting_stops_the_daemon_before_it_listens() {
    let (ok, err, listened) = daemon_with(&[("CUZK_PROVER_WORKERS", "100000")], None, "env");
    assert!(!ok && !listened, "{err}");
    assert!(err.contains("prover_workers = 100000") && err.contains("bound"), "{err}");

    let (ok, err, listened) = daemon_with(&[], Some("[engine]\nready_queue_depth = 4611686018427387904\n"), "toml");
    assert!(!ok && !listened, "{err}");
    assert!(err.contains("[engine]") && err.contains("ready_queue_depth"), "{err}");

    let (ok, err, listened) = daemon_with(&[("CUZK_HOST_MEMORY_BUDGET", "lots")], None, "size");
    assert!(!ok && !listened, "{err}");
    assert!(err.contains("CUZK_HOST_MEMORY_BUDGET"), "{err}");
}
