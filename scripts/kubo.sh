#!/usr/bin/env bash
# Installs the Kubo reference binary (interop tests, benchmarks) into .cache/kubo/<version>/ipfs and prints its path.
# Kubo's go.mod has `exclude` directives, so `go install pkg@version` refuses it: build from a throw-away module.
# Usage: scripts/kubo.sh [version]   (env KUBO_VERSION; default v0.40.1, else the newest served)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
want="${1:-${KUBO_VERSION:-v0.40.1}}"
bin="$root/.cache/kubo/$want/ipfs"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
command -v go >/dev/null || { echo "scripts/kubo.sh: go is not installed" >&2; exit 1; }
mkdir -p "$root/.cache"
exec 9>"$root/.cache/kubo.lock"
flock 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mod="$(mktemp -d)"
trap 'rm -rf "$mod"' EXIT
cd "$mod"
go mod init tsipfs-kubo-build >/dev/null 2>&1
if ! go get "github.com/ipfs/kubo/cmd/ipfs@$want" >&2; then
  latest="$(go list -m -versions github.com/ipfs/kubo | tr ' ' '\n' | grep -v -- '-' | tail -1)"
  echo "scripts/kubo.sh: $want not served, using $latest" >&2
  want="$latest"; bin="$root/.cache/kubo/$want/ipfs"
  go get "github.com/ipfs/kubo/cmd/ipfs@$want" >&2
fi
mkdir -p "$(dirname "$bin")"
go build -o "$bin.tmp" github.com/ipfs/kubo/cmd/ipfs >&2
mv "$bin.tmp" "$bin"
echo "$bin"
