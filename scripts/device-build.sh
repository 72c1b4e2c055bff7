#!/usr/bin/env bash
# Builds the `cuzk` tool and the GPU test and benchmark binaries here (sm_90
# only, for the H200 of the GPU machine) and copies them, stripped, into
# .device/ for `carry`.
# With CUZK_DEVICE_SUPRASEAL=1 it also builds the supraseal peer
# (benches/supraseal), linked against a stand-in libcuda (scripts/libcuda-stub.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/cuda-toolchain.sh)"
export CUZK_CUDA_ARCHS=${CUZK_CUDA_ARCHS:-90}
mkdir -p .device
grep -qx '/.device/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo /.device/ >> .git/info/exclude; }
# The executable of the target named $1 that `cargo ${@:2}` builds.
exe() {
  local name=$1; shift
  cargo "$@" --message-format=json | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1] and m.get("executable"):
        print(m["executable"])' "$name" | tail -1
}
cp "$(exe cuzk build --release --features cuda,fixtures --bin cuzk)" .device/cuzk
cp "$(exe gpu test --release --features cuda,fixtures --test gpu --no-run)" .device/gpu-tests
strip .device/cuzk .device/gpu-tests
if [ "${CUZK_DEVICE_SUPRASEAL:-0}" = 1 ]; then
  scripts/libcuda-stub.sh target/libcuda-stub
  export LIBRARY_PATH="$PWD/target/libcuda-stub:${LIBRARY_PATH:-}"
  # ec-gpu-gen's kernels (bellperson's cuda feature), for the H200 only.
  export EC_GPU_CUDA_NVCC_ARGS="--optimize=6 --threads=0 --fatbin --gpu-architecture=sm_90 --generate-code=arch=compute_90,code=sm_90"
  cp "$(exe supraseal-vs-cuzk build --release -p cuzk-supraseal-bench --bin supraseal-vs-cuzk)" .device/supraseal-vs-cuzk
  strip .device/supraseal-vs-cuzk
fi
ls -la .device
