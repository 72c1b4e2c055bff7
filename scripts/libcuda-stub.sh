#!/usr/bin/env bash
# Writes a link-time stand-in for the CUDA driver library (libcuda.so.1) into
# $1, from the toolchain's cuda.h: every driver entry point as an empty
# function. Only the linker sees it (its soname is the real one), so binaries
# that link the driver API directly (bellperson's ec-gpu code, used by the
# supraseal peer) can be built on a machine without a GPU driver; at run time
# the real driver is loaded.
set -euo pipefail
dir=$1
: "${CUDA_HOME:?run eval \"\$(scripts/cuda-toolchain.sh)\" first}"
mkdir -p "$dir"
gcc -E -P -I"$CUDA_HOME/include" -x c "$CUDA_HOME/include/cuda.h" \
  | grep -oE '\bcu[A-Z][A-Za-z0-9_]*[[:space:]]*\(' | tr -d ' (' | sort -u \
  | sed 's/.*/void &(void) {}/' > "$dir/libcuda-stub.c"
gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$dir/libcuda.so.1" "$dir/libcuda-stub.c"
ln -sf libcuda.so.1 "$dir/libcuda.so"
