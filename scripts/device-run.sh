#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/device.md): the GPU tests one by one
# (each with its own time limit, so one hang cannot hide the others), then the
# benchmarks (`cuzk bench <name>` for each name in CUZK_BENCHES, default gpu),
# writing logs and JSON under $OUT. Binaries come prebuilt in .device/
# (scripts/device-build.sh makes them here).
set -uo pipefail
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.device"
nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
export RUST_LOG=${RUST_LOG:-info}
pass=0 fail=0
for t in $(./gpu-tests --list 2>/dev/null | sed -n 's/: test$//p'); do
  if timeout "${CUZK_TEST_TIMEOUT:-150}" ./gpu-tests --exact "$t" >>"$OUT/tests.log" 2>&1; then
    pass=$((pass + 1)); echo "ok   $t"
  else
    fail=$((fail + 1)); echo "FAIL $t (rc $?)"
  fi
done
echo "$pass passed, $fail failed"
for b in ${CUZK_BENCHES-gpu}; do
  timeout "${CUZK_BENCH_TIMEOUT:-300}" ./cuzk bench "$b" >"$OUT/$b.json" 2>"$OUT/$b.err"
  echo "$b rc=$?"; tail -n 25 "$OUT/$b.err"
done
