#!/usr/bin/env bash
# Regenerates the Go messages and client of cuzk.v1 (go/cuzkv1, checked in)
# from daemon/proto: protoc from protoc-bin-vendored (the crate the daemon's
# build already fetched), the Go plugins at pinned versions.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fetch --locked >/dev/null
protoc=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path '*protoc-bin-vendored-linux-x86_64-*/bin/protoc' | sort | tail -1)
[ -x "$protoc" ] || { echo "protoc-bin-vendored's protoc not found" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN=$bin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
GOBIN=$bin go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
PATH=$bin:$PATH "$protoc" -I daemon/proto \
  --go_out=go --go_opt=module=cuzk.dev/go \
  --go-grpc_out=go --go-grpc_opt=module=cuzk.dev/go \
  daemon/proto/cuzk/v1/proving.proto
