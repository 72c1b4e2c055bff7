#!/usr/bin/env bash
# Puts a CUDA 13.0 compiler (nvcc, cicc, ptxas, headers, static cudart) in a
# cache folder from NVIDIA's PyPI wheels — no GPU, driver or system CUDA
# needed — and prints the exports that select it:
#
#   eval "$(scripts/cuda-toolchain.sh)"
#
# Versions are pinned to the 13.0 driver of the GPU machines. The folder is
# $CUZK_CUDA_CACHE, default ~/.cache/cuzk-cuda-13.0; installed once, reused.
set -euo pipefail
cache="${CUZK_CUDA_CACHE:-$HOME/.cache/cuzk-cuda-13.0}"
find_root() { ls -d "$cache"/venv/lib/python3*/site-packages/nvidia/cu13 2>/dev/null | head -1; }
root=$(find_root || true)
if [ -z "$root" ] || [ ! -x "$root/bin/nvcc" ]; then
  mkdir -p "$cache"
  python3 -m venv "$cache/venv" >&2
  "$cache/venv/bin/pip" install --quiet --disable-pip-version-check \
    nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
    nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85 >&2
  root=$(find_root)
fi
# nvcc.profile expects the libraries under lib64.
[ -e "$root/lib64" ] || ln -s lib "$root/lib64"
printf 'export CUDA_HOME=%q CUDA_PATH=%q PATH=%q:"$PATH" LIBRARY_PATH=%q:"${LIBRARY_PATH:-}"\n' \
  "$root" "$root" "$root/bin" "$root/lib"
