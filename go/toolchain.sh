#!/usr/bin/env bash
# Prints the export that puts a Go toolchain able to build this module first
# on PATH, installing one if the machine has none:
#
#   eval "$(go/toolchain.sh)"
#
# A go on PATH, or in /usr/local/go, of the version go.mod asks for or later
# is used as it is. Otherwise Debian's golang-go (too old itself, and too old
# to switch toolchains) downloads the Go toolchain as the Go module
# golang.org/toolchain, which the go command's own toolchain switching
# fetches, into $CUZK_GO_CACHE (default ~/.cache/cuzk-go); installed once,
# reused.
set -euo pipefail
cd "$(dirname "$0")"
version=go1.26.8   # the Go of the development machines
needed_minor=$(sed -n 's/^go 1\.\([0-9]*\).*/\1/p' go.mod)

recent_enough() {
  local minor
  minor=$("$1" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  [ -n "$minor" ] && [ "$minor" -ge "$needed_minor" ]
}

for go in "$(command -v go || true)" /usr/local/go/bin/go; do
  if [ -n "$go" ] && [ -x "$go" ] && recent_enough "$go"; then
    printf 'export PATH=%q:"$PATH"\n' "$(dirname "$go")"
    exit 0
  fi
done

root="${CUZK_GO_CACHE:-$HOME/.cache/cuzk-go}/go"
if ! recent_enough "$root/bin/go"; then
  command -v go >/dev/null || { apt-get update -qq && apt-get install -y -qq golang-go; } >&2
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  download=$(mktemp -d)
  trap 'chmod -R u+w "$download"; rm -rf "$download"' EXIT
  dir=$(cd "$download" && GOPATH="$download" GOMODCACHE="$download/mod" GOFLAGS=-modcacherw \
        go mod download -json "golang.org/toolchain@v0.0.1-$version.linux-$arch" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  cp -r "$dir" "$root"
  # Module zips keep no file modes.
  chmod +x "$root"/bin/* "$root"/pkg/tool/*/*
fi
printf 'export PATH=%q:"$PATH"\n' "$root/bin"
