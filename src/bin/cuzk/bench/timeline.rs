//! The engine's timeline as spans (one synthesis and one proof per partition)
//! and as pictures: a text chart for the terminal, an SVG with one lane per
//! synthesis and prover worker, so overlap and idle gaps can be seen.

use std::{fmt::Write, time::Duration};

use cuzk::engine::{
    timeline::{Event, ProofStages, Stage},
    JobId, Priority,
};

/// One stage of one partition on one worker.
pub struct Span {
    pub job: JobId,
    pub partition: usize,
    pub priority: Priority,
    pub proving: bool,
    pub worker: usize,
    pub start: f64,
    pub end: f64,
    /// A proof's steps.
    pub steps: Option<ProofStages>,
}

/// Start events paired with their ends; stages still running are left out.
pub fn spans(events: &[Event]) -> Vec<Span> {
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let (proving, end_stage) = match e.stage {
            Stage::SynthesisStart => (false, Stage::SynthesisEnd),
            Stage::ProveStart => (true, Stage::ProveEnd),
            _ => continue,
        };
        let end = events[i..].iter().find(|x| x.job == e.job && x.partition == e.partition && x.stage == end_stage);
        if let Some(end) = end {
            let (job, partition, priority, worker) = (e.job, e.partition, e.priority, e.worker);
            let steps = end.proof;
            out.push(Span { job, partition, priority, proving, worker, start: secs(e.at), end: secs(end.at), steps });
        }
    }
    out
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// One line per partition (the first `rows`): `s` while synthesized, `P`
/// while proved and verified.
pub fn text(spans: &[Span], rows: usize) -> String {
    const WIDTH: usize = 100;
    let end = spans.iter().map(|s| s.end).fold(1e-9, f64::max);
    let col = |t: f64| ((t / end) * WIDTH as f64) as usize;
    let mut keys: Vec<(JobId, usize)> = spans.iter().map(|s| (s.job, s.partition)).collect();
    keys.sort();
    keys.dedup();
    let mut out = String::new();
    for (job, partition) in keys.into_iter().take(rows) {
        let mut line = vec![b' '; WIDTH + 1];
        for s in spans.iter().filter(|s| s.job == job && s.partition == partition) {
            let mark = if s.proving { b'P' } else { b's' };
            line[col(s.start)..=col(s.end).min(WIDTH)].fill(mark);
        }
        let _ = writeln!(out, "job {:>2} part {:>2} |{}|", job.0, partition, String::from_utf8_lossy(&line));
    }
    out
}

/// An SVG: a lane per worker (synthesis workers above, prover workers
/// below), a box per span labelled job.partition, coloured by job, outlined
/// by priority; a time axis in seconds.
pub fn svg(spans: &[Span], title: &str) -> String {
    const LEFT: f64 = 120.0;
    const WIDTH: f64 = 1000.0;
    const LANE: f64 = 28.0;
    const TOP: f64 = 40.0;
    let end = spans.iter().map(|s| s.end).fold(1e-9, f64::max);
    let x = |t: f64| LEFT + t / end * WIDTH;
    // One lane per worker seen, synthesis workers first.
    let mut lanes: Vec<(bool, usize)> = spans.iter().map(|s| (s.proving, s.worker)).collect();
    lanes.sort();
    lanes.dedup();
    let lane_of = |s: &Span| lanes.iter().position(|&l| l == (s.proving, s.worker)).unwrap_or(0);
    let lane_y = |s: &Span| TOP + LANE * lane_of(s) as f64;
    let height = TOP + LANE * lanes.len() as f64 + 60.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="monospace" font-size="11">"#,
        LEFT + WIDTH + 20.0
    );
    let _ = writeln!(out, r#"<text x="{LEFT}" y="20" font-size="14">{}</text>"#, escape(title));
    for (row, &(proving, worker)) in lanes.iter().enumerate() {
        let y = TOP + LANE * row as f64;
        let name = if proving { "prover" } else { "synthesis" };
        let _ = writeln!(out, r#"<text x="4" y="{}">{name} {worker}</text>"#, y + LANE * 0.6);
        let _ = writeln!(out, r##"<line x1="{LEFT}" x2="{}" y1="{y}" y2="{y}" stroke="#ddd"/>"##, LEFT + WIDTH);
    }
    for s in spans {
        let (x0, y) = (x(s.start), lane_y(s));
        let w = (x(s.end) - x0).max(1.0);
        let hue = (s.job.0 * 67) % 360;
        let stroke = match s.priority {
            Priority::High => "#c00",
            Priority::Medium => "#c80",
            Priority::Low => "#333",
        };
        let _ = writeln!(
            out,
            r#"<rect x="{x0:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" fill="hsl({hue},60%,70%)" stroke="{stroke}"><title>job {} partition {} {:?} {}: {:.3}–{:.3} s</title></rect>"#,
            y + 3.0,
            LANE - 6.0,
            s.job.0,
            s.partition,
            s.priority,
            if s.proving { "prove+verify" } else { "synthesis" },
            s.start,
            s.end
        );
        if let Some(steps) = s.steps {
            // The proof's steps, in order, as a strip along the box's foot.
            let mut t = s.start;
            for (i, (name, secs)) in step_list(&steps).into_iter().enumerate() {
                let (sx, sw) = (x(t), (x(t + secs) - x(t)).max(0.0));
                let _ = writeln!(
                    out,
                    r#"<rect x="{sx:.2}" y="{:.1}" width="{sw:.2}" height="6" fill="{}"><title>{name}: {secs:.3} s</title></rect>"#,
                    y + LANE - 10.0,
                    STEP_COLOURS[i]
                );
                t += secs;
            }
        }
        if w > 30.0 {
            let _ = writeln!(out, r#"<text x="{:.1}" y="{:.1}">{}.{}</text>"#, x0 + 3.0, y + LANE * 0.6, s.job.0, s.partition);
        }
    }
    let axis_y = TOP + LANE * lanes.len() as f64 + 15.0;
    for tick in 0..=10 {
        let t = end * tick as f64 / 10.0;
        let _ = writeln!(out, r#"<text x="{:.1}" y="{axis_y}">{t:.2}s</text>"#, x(t) - 10.0);
    }
    if spans.iter().any(|s| s.steps.is_some()) {
        let mut lx = LEFT;
        for (i, name) in STEP_NAMES.iter().enumerate() {
            let _ = writeln!(out, r#"<rect x="{lx}" y="{}" width="10" height="8" fill="{}"/>"#, axis_y + 10.0, STEP_COLOURS[i]);
            let _ = writeln!(out, r#"<text x="{}" y="{}">{name}</text>"#, lx + 13.0, axis_y + 18.0);
            lx += 13.0 + 7.0 * name.len() as f64 + 14.0;
        }
    }
    out.push_str("</svg>\n");
    out
}

const STEP_NAMES: [&str; 10] = ["H copies in", "a, b, c", "H NTTs", "MSM H", "MSM L", "select", "MSM A", "MSM B G1", "MSM B G2", "verify"];
const STEP_COLOURS: [&str; 10] =
    ["#17becf", "#bcbd22", "#1f77b4", "#aec7e8", "#2ca02c", "#999", "#d62728", "#9467bd", "#8c564b", "#ff7f0e"];

/// The steps in order; the H NTTs' strip also takes the rest of the H step
/// (a wait for the device, allocations), so that later steps stay in place.
fn step_list(p: &ProofStages) -> [(&'static str, f64); 10] {
    let g = &p.groth16;
    let h_rest = (g.h - g.h_copies - g.h_abc - g.h_msm).max(0.0);
    let secs = [g.h_copies, g.h_abc, h_rest, g.h_msm, g.msm_l, g.select, g.msm_a, g.msm_b_g1, g.msm_b_g2, p.verify];
    std::array::from_fn(|i| (STEP_NAMES[i], secs[i]))
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
