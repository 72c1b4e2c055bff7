#!/usr/bin/env bash
# Drop-in artifacts for filecoin-ffi: writes filcrypto.h, libfilcrypto.a,
# libfilcrypto.so and filcrypto.pc into <out-dir>, so that a filecoin-ffi
# checkout built with `go build -tags nofvm` links cuzk instead of its own
# Rust build (copy them over the checkout's, or point PKG_CONFIG_PATH here).
#
#   scripts/filcrypto-dist.sh <out-dir> [cargo build args, e.g. --features cuda]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:?usage: scripts/filcrypto-dist.sh <out-dir> [cargo build args]}")
shift
mkdir -p "$out"

# One compile of the library's crate types (cdylib, staticlib, rlib), which
# also reports the native libraries a static link needs (rustc reports them
# only while compiling, hence the touch: the crate itself is rebuilt).
touch src/lib.rs
libs=$(cargo rustc --release --locked --lib "$@" -- --print native-static-libs 2>&1 \
  | sed -n 's/.*native-static-libs: //p' | tail -1)
[ -n "$libs" ] || { echo "rustc did not report the native libraries" >&2; exit 1; }
cp target/release/libcuzk.a "$out/libfilcrypto.a"
cp target/release/libcuzk.so "$out/libfilcrypto.so"
cp include/cuzk.h "$out/filcrypto.h"
# The CUDA runtime (cuda feature) is linked statically but not bundled into
# the archive: ship it beside it, so that Libs needs nothing else.
if [[ " $libs " == *" -lcudart_static "* ]]; then
  cudart=$(for d in ${CUDA_HOME:+$CUDA_HOME/lib $CUDA_HOME/lib64} ${LIBRARY_PATH//:/ }; do
             [ -f "$d/libcudart_static.a" ] && echo "$d/libcudart_static.a" && break; done || true)
  [ -n "$cudart" ] || { echo "libcudart_static.a not found (CUDA_HOME / LIBRARY_PATH)" >&2; exit 1; }
  cp "$cudart" "$out/"
fi

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
cat > "$out/filcrypto.pc" <<PC
prefix=$out
libdir=\${prefix}
includedir=\${prefix}

Name: filcrypto
Description: cuzk (Groth16 prover for Filecoin) in place of filecoin-ffi's libfilcrypto
Version: $version
Cflags: -I\${includedir}
Libs: \${libdir}/libfilcrypto.a -L\${libdir} $libs
PC
echo "wrote filcrypto.h, libfilcrypto.a, libfilcrypto.so, filcrypto.pc to $out (Libs: $libs)"
