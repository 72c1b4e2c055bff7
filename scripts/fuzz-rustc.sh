#!/usr/bin/env bash
# RUSTC_WORKSPACE_WRAPPER of scripts/fuzz.sh: the workspace's crates (cuzk and
# the fuzz targets) compiled with libFuzzer's coverage instrumentation, debug
# assertions and overflow checks; dependencies stay as the release build made
# them, so the fuzz build reuses them. Generic code (serde's and bincode's
# decoding of cuzk's types) is instantiated in cuzk and so instrumented too.
rustc=$1
shift
# Build scripts run at build time, outside libFuzzer: left as they are.
case " $* " in *" --crate-name build_script_"*) exec "$rustc" "$@" ;; esac
exec "$rustc" "$@" \
  -Cpasses=sancov-module \
  -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
  -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares \
  --cfg fuzzing -Cdebug-assertions -Coverflow-checks
