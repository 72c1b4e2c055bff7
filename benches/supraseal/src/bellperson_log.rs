//! bellperson logs how a supraseal proof's time splits ("synthesis time:
//! 1.2s", "prover time: 3.4s"); this logger keeps those lines, so the
//! benchmark can report supraseal's synthesis apart from its GPU work, beside
//! cuzk's. Every other log line goes to stderr at info level and above.

use std::sync::Mutex;

use log::{Level, LevelFilter, Log, Metadata, Record};

static SPLIT: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());

struct SplitLogger;

impl Log for SplitLogger {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= Level::Info
    }

    fn log(&self, record: &Record) {
        let text = record.args().to_string();
        for stage in ["synthesis time", "prover time"] {
            if let Some(seconds) = text.strip_prefix(stage).and_then(|t| t.strip_prefix(": ")).and_then(parse_duration) {
                SPLIT.lock().unwrap_or_else(|e| e.into_inner()).push((stage.replace(' ', "_"), seconds));
                return;
            }
        }
        if record.level() <= Level::Warn {
            eprintln!("{} {}: {text}", record.level(), record.target());
        }
    }

    fn flush(&self) {}
}

/// A `Duration`'s `Debug` text ("1.5s", "850.2ms", "12µs", "7ns") in seconds.
fn parse_duration(text: &str) -> Option<f64> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = t.split_at(split);
    let n: f64 = number.parse().ok()?;
    let scale = match unit {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" | "us" => 1e-6,
        "ns" => 1e-9,
        _ => return None,
    };
    Some(n * scale)
}

pub fn install() {
    if log::set_logger(&SplitLogger).is_ok() {
        log::set_max_level(LevelFilter::Info);
    }
}

/// The stage times logged since the last call.
pub fn take() -> Vec<(String, f64)> {
    std::mem::take(&mut *SPLIT.lock().unwrap_or_else(|e| e.into_inner()))
}
