//! `GetMetrics`: the daemon's and the engine's counters in Prometheus's
//! text exposition format.

use std::{fmt::Write, time::Duration};

use cuzk::engine::{devices, srs_cache, status::EngineStatus};

use crate::jobs::Jobs;

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A label value, escaped as the format requires.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

pub fn render(jobs: &Jobs, engine: &EngineStatus, uptime: Duration) -> String {
    let mut out = String::new();
    family(&mut out, "cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.");
    let _ = writeln!(out, "cuzk_uptime_seconds {}", uptime.as_secs());

    let mut totals: Vec<_> = jobs.totals().into_iter().collect();
    totals.sort_by_key(|(kind, _)| *kind);
    family(&mut out, "cuzk_proofs_total", "counter", "Proofs finished, by kind and outcome.");
    for (kind, t) in &totals {
        for (outcome, n) in [("completed", t.completed), ("failed", t.failed), ("cancelled", t.cancelled)] {
            let _ = writeln!(out, "cuzk_proofs_total{{kind=\"{kind}\",outcome=\"{outcome}\"}} {n}");
        }
    }
    family(&mut out, "cuzk_proof_seconds_total", "counter", "Seconds from submission to the end, summed over finished proofs.");
    for (kind, t) in &totals {
        let _ = writeln!(out, "cuzk_proof_seconds_total{{kind=\"{kind}\"}} {}", t.seconds);
    }
    let mut unfinished: Vec<_> = jobs.unfinished().into_iter().collect();
    unfinished.sort();
    family(&mut out, "cuzk_jobs_unfinished", "gauge", "Jobs submitted and not finished, by kind.");
    for (kind, n) in unfinished {
        let _ = writeln!(out, "cuzk_jobs_unfinished{{kind=\"{kind}\"}} {n}");
    }

    family(&mut out, "cuzk_partitions", "gauge", "Engine partitions by stage.");
    for (stage, n) in [
        ("pending", engine.pending_partitions),
        ("synthesizing", engine.synthesizing),
        ("ready", engine.ready_partitions),
        ("proving", engine.proving),
    ] {
        let _ = writeln!(out, "cuzk_partitions{{stage=\"{stage}\"}} {n}");
    }
    let c = &engine.counters;
    family(&mut out, "cuzk_stage_seconds_total", "counter", "Engine seconds summed over partitions, by stage.");
    for (stage, s) in [("synthesis", c.synthesis_seconds), ("ready_wait", c.ready_wait_seconds), ("proving", c.proving_seconds)] {
        let _ = writeln!(out, "cuzk_stage_seconds_total{{stage=\"{stage}\"}} {s}");
    }
    family(&mut out, "cuzk_partitions_proved_total", "counter", "Partitions proved by the engine.");
    let _ = writeln!(out, "cuzk_partitions_proved_total {}", c.partitions_proved);

    let m = &engine.memory;
    for (name, help, v) in [
        ("cuzk_host_memory_budget_bytes", "The engine's host memory budget.", m.host_budget_bytes),
        ("cuzk_keys_bytes", "Proving keys in host memory.", m.keys_bytes),
        ("cuzk_partitions_in_flight_bytes", "Estimated host bytes of the partitions in flight.", m.partitions_in_flight_bytes),
    ] {
        family(&mut out, name, "gauge", help);
        let _ = writeln!(out, "{name} {v}");
    }
    family(&mut out, "cuzk_resident_key_bytes", "gauge", "Resident proving keys, by circuit id.");
    for (id, bytes) in srs_cache::resident() {
        let _ = writeln!(out, "cuzk_resident_key_bytes{{circuit_id=\"{}\"}} {bytes}", label(&id));
    }
    let gpus = devices::gpu_status();
    family(&mut out, "cuzk_gpu_memory_total_bytes", "gauge", "Device memory, by GPU.");
    for g in &gpus {
        let _ = writeln!(out, "cuzk_gpu_memory_total_bytes{{gpu=\"{}\",name=\"{}\"}} {}", g.index, label(&g.name), g.total_bytes);
    }
    family(&mut out, "cuzk_gpu_memory_free_bytes", "gauge", "Free device memory, by GPU.");
    for g in gpus.iter().filter(|g| g.free_bytes.is_some()) {
        let _ = writeln!(out, "cuzk_gpu_memory_free_bytes{{gpu=\"{}\"}} {}", g.index, g.free_bytes.unwrap_or(0));
    }
    family(&mut out, "cuzk_gpu_busy_seconds_total", "counter", "Seconds each GPU was held for proof steps and uploads.");
    for g in &gpus {
        let _ = writeln!(out, "cuzk_gpu_busy_seconds_total{{gpu=\"{}\"}} {}", g.index, g.busy_seconds);
    }
    out
}
