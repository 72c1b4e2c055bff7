//! The `cuzk` command: parameter generation, the 2 KiB end-to-end demo and
//! every benchmark.

mod bench;
mod demo;

use std::process::ExitCode;

use anyhow::{bail, Result};
use cuzk::api::params::{self, Family};

const USAGE: &str = "usage:
  cuzk params <sector-size>... [--only <family>,...] [--stock]
      generate missing Groth16 parameters and verifying keys (2KiB, 8MiB, 512MiB, 32GiB, 64GiB;
      families: porep, ni-porep, winning-post, window-post, snapdeals; default all), for test
      sectors: with cuzk's generator, or with stock's (--stock)
  cuzk demo
      seal a 2 KiB sector with the stock crates, prove C2 through cuzk's C ABI, verify, print timings
  cuzk bench engine
      engine vs sequential throughput and Winning PoSt latency under a C2-like stream (docs/BENCHMARKS.md)
  cuzk bench stream
      full-size C2 stream (real circuit shapes, random witnesses, timed not verified) with Winning PoSt
      probes: per-stage JSON, memory peaks, timeline SVG (CUZK_BENCH_SECTOR=32GiB on a GPU host)
  cuzk bench pieces
      how partition synthesis scales over cores: one PoRep piece (or a SnapDeals partition) on one
      thread, then whole partitions on all, CUZK_BENCH_AT_ONCE at a time, with CPU time and page
      faults (CUZK_BENCH_PROOF porep|snap, CUZK_BENCH_SECTOR, default 32GiB)
  cuzk bench params
      cuzk's parameter generator against stock's, each family from scratch in its own process:
      wall and CPU seconds as JSON (CUZK_BENCH_SECTOR, default 2KiB; CUZK_BENCH_FAMILIES, default
      porep,winning-post,window-post,snapdeals)
  cuzk bench prover
      cuzk's CPU prover against stock bellperson's on the real 2 KiB PoRep partition and a synthetic
      circuit, proofs compared byte for byte (CUZK_BENCH_RUNS, CUZK_BENCH_LOG)
  cuzk bench gpu
      the CUDA backend alone and against the CPU: MSMs, H's MSM and polynomial, whole proofs
      (a build with --features cuda; CUZK_BENCH_RUNS, CUZK_BENCH_MAX_LOG, ...)

Parameters live in FIL_PROOFS_PARAMETER_CACHE, default $CUZK_PARAMS_DIR or ~/.cache/cuzk/params.";

fn main() -> ExitCode {
    let cache = params::use_local_cache_unless_set();
    if std::env::var_os("RUST_LOG").is_none() {
        std::env::set_var("RUST_LOG", "info");
    }
    let _ = fil_logger::maybe_init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("params") => run_params(&args[1..]),
        Some("demo") => demo::run(),
        Some("bench") => bench::run(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(anyhow::anyhow!("{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cuzk: {e:#}\n(parameter cache: {})", cache.display());
            ExitCode::FAILURE
        }
    }
}

fn run_params(args: &[String]) -> Result<()> {
    let mut sizes = Vec::new();
    let mut families = Family::ALL.to_vec();
    let mut generator = params::Generator::Cuzk;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--stock" {
            generator = params::Generator::Stock;
        } else if arg == "--only" {
            let Some(list) = it.next() else { bail!("--only needs a list of families") };
            families = list.split(',').map(Family::parse).collect::<Result<_>>()?;
        } else {
            sizes.push(params::parse_sector_size(arg)?);
        }
    }
    if sizes.is_empty() {
        bail!("cuzk params: name at least one sector size\n{USAGE}");
    }
    for size in sizes {
        for o in params::generate_with(generator, size, &families)? {
            println!(
                "{} {} ({:.1} s) {}",
                if o.generated { "generated" } else { "present  " },
                o.circuit,
                o.seconds,
                o.path.display()
            );
        }
    }
    Ok(())
}
