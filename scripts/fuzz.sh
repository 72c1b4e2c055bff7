#!/usr/bin/env bash
# Fuzzes every parser of untrusted bytes (cuzk_fuzz::targets) with libFuzzer:
# first the committed findings of earlier runs (fuzz/regressions/<target>/),
# each once, then each target for the seconds given (default 20), from real
# 2 KiB seeds written once into target/fuzz/seeds (needs `cuzk params 2KiB`).
# Fails on any crash, panic, hang (30 s per input) or use of over 4 GiB,
# leaving the input in target/fuzz/artifacts/<target>/.
#
# Usage: scripts/fuzz.sh [seconds] [target...]
# The targets are built with coverage by scripts/fuzz-rustc.sh into the release
# folder: the next plain build recompiles the cuzk crate once.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
targets=("$@")
seeds=target/fuzz/seeds
if [ ! -d "$seeds" ]; then
  rm -rf "$seeds.partial"
  cargo run --release --locked -p cuzk-fuzz --bin fuzz-seeds -- "$seeds.partial"
  mv "$seeds.partial" "$seeds"
fi
# One folder of seeds per target (cuzk_fuzz::targets::ALL).
[ ${#targets[@]} -gt 0 ] || targets=($(ls "$seeds"))
RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/fuzz-rustc.sh" cargo build --release --locked -p cuzk-fuzz --bin cuzk-fuzz

# Runs the fuzzer on target $1 with the arguments after it; on failure shows
# the end of its log and stops.
run() {
  local t=$1 log=target/fuzz/$1.log
  shift
  if ! CUZK_FUZZ_TARGET=$t target/release/cuzk-fuzz -timeout=30 -rss_limit_mb=4096 \
      -artifact_prefix="target/fuzz/artifacts/$t/" "$@" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz target $t failed; its input is in target/fuzz/artifacts/$t/" >&2
    exit 1
  fi
}

for t in "${targets[@]}"; do
  mkdir -p "target/fuzz/corpus/$t" "target/fuzz/artifacts/$t"
  if compgen -G "fuzz/regressions/$t/*" >/dev/null; then
    run "$t" fuzz/regressions/"$t"/*
    echo "$t: $(ls fuzz/regressions/"$t" | wc -l) recorded findings pass"
  fi
  run "$t" -max_total_time="$secs" -print_final_stats=1 "target/fuzz/corpus/$t" "$seeds/$t"
  echo "$t: fuzzed for $secs s: $(grep -E '^stat::(number_of_executed_units|new_units_added)' "target/fuzz/$t.log" | tr -s ' ' | tr '\n' ' ')"
done
