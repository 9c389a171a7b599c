#!/usr/bin/env bash
# Installs IPFS Cluster (ipfs-cluster-service, ipfs-cluster-ctl) into .cache/cluster/<version>/ and prints that
# folder. `go install …/cmd/…@v` fails (the proxy answers 403 for the nested module paths it probes), so build
# from a throw-away module that requires the root module. The Go module proxy serves v1.1.0 and v1.0.8.
# Usage: scripts/cluster.sh [version]   (env CLUSTER_VERSION; default v1.1.0)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
want="${1:-${CLUSTER_VERSION:-v1.1.0}}"
dir="$root/.cache/cluster/$want"
ready() { [ -x "$dir/ipfs-cluster-service" ] && [ -x "$dir/ipfs-cluster-ctl" ]; }
if ready; then echo "$dir"; exit 0; fi
command -v go >/dev/null || { echo "scripts/cluster.sh: go is not installed" >&2; exit 1; }
mkdir -p "$root/.cache"
exec 9>"$root/.cache/cluster.lock"
flock 9
if ready; then echo "$dir"; exit 0; fi
mod="$(mktemp -d)"
trap 'rm -rf "$mod"' EXIT
cd "$mod"
go mod init tsipfs-cluster-build >/dev/null 2>&1
go get "github.com/ipfs-cluster/ipfs-cluster@$want" >&2
mkdir -p "$dir.tmp"
go build -mod=mod -o "$dir.tmp/" github.com/ipfs-cluster/ipfs-cluster/cmd/ipfs-cluster-service github.com/ipfs-cluster/ipfs-cluster/cmd/ipfs-cluster-ctl >&2
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$dir"
