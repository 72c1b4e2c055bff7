#!/usr/bin/env bash
# The drop-in check: filecoin-ffi's own Go package (from the Go module proxy),
# built with -tags nofvm against cuzk's filcrypto artifacts instead of its Rust
# build, then vetted and tested with its own test suite (2 KiB sectors; the
# parameters come from cuzk's cache).
#
#   scripts/filecoin-ffi-check.sh [cargo build args, e.g. --features cuda]
#
# With CUZK_FILCRYPTO_DIST=<dir> it takes the artifacts scripts/filcrypto-dist.sh
# already wrote there instead of building them again.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.36.1   # the filcrypto.h the ABI spec was taken from
command -v go >/dev/null || { echo "go is needed for the filecoin-ffi check" >&2; exit 1; }
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
src=$(cd "$work" && go mod init check >/dev/null 2>&1 &&
      go mod download -json "github.com/filecoin-project/filecoin-ffi@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
cp -r "$src" "$work/ffi"
chmod -R u+w "$work/ffi"
if [ -n "${CUZK_FILCRYPTO_DIST:-}" ]; then
  dist=$(realpath "$CUZK_FILCRYPTO_DIST")
  cp "$dist"/filcrypto.h "$dist"/libfilcrypto.* "$work/ffi/"
  if ls "$dist"/libcudart_static.a >/dev/null 2>&1; then cp "$dist"/libcudart_static.a "$work/ffi/"; fi
  sed "s|^prefix=.*|prefix=$work/ffi|" "$dist/filcrypto.pc" > "$work/ffi/filcrypto.pc"
else
  scripts/filcrypto-dist.sh "$work/ffi" "$@"
fi
cd "$work/ffi"
export CGO_ENABLED=1 FIL_PROOFS_PARAMETER_CACHE="${FIL_PROOFS_PARAMETER_CACHE:-$HOME/.cache/cuzk/params}"
go build -tags nofvm ./...
go vet -tags nofvm .
go test -tags nofvm -count=1 .
