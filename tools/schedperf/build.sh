#!/usr/bin/env bash
# Build upstream v1.37.2 scheduler_perf benchmark test binaries (go test -c) into an ignored
# cache folder, from this module (its own go.mod/go.sum: tools/k8s stays untouched, so the
# control-plane stamp does not move). Skips the build when the cached binaries match the stamp.
# Usage: tools/schedperf/build.sh [--check] [BIN_DIR]   (default $GARHWAL_CACHE_DIR/schedperf/bin)
#   --check: build nothing; exit 0 when the cached binaries are fresh, 1 otherwise.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
bin="${1:-$cache/schedperf/bin}"
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}"
export GOCACHE="${GOCACHE:-$cache/gobuild}"
export GOFLAGS="${GOFLAGS:--modcacherw}"
# Same CGO/-trimpath settings as tools/build.sh, so the control plane's compiled packages are
# reused from GOCACHE (the runner sets TEST_SRCDIR/TEST_WORKSPACE for -trimpath binaries).
export CGO_ENABLED=0
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export GOPROXY="${GOPROXY:-off}"
perf=k8s.io/kubernetes/test/integration/scheduler_perf
# name=package: one test binary per upstream workload folder garhwal ships.
pkgs=(misc="$perf/misc" dra="$perf/dra" gangscheduling="$perf/podgroup/gangscheduling")
stamp="$(cat "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -c1-16)"
log() { echo "[schedperf $(date -u +%H:%M:%S)] $*"; }
mkdir -p "$bin"

fresh=1
[ "$(cat "$bin/.stamp" 2>/dev/null)" = "$stamp" ] || fresh=0
for p in "${pkgs[@]}"; do [ -x "$bin/${p%%=*}.test" ] || fresh=0; done
if [ "$check" = 1 ]; then [ "$fresh" = 1 ]; exit; fi
if [ "$fresh" = 1 ]; then log "scheduler_perf test binaries: cached ($bin)"; exit 0; fi

for p in "${pkgs[@]}"; do
  name=${p%%=*}
  log "building $name.test (${p#*=})"
  (cd "$here" && go test -c -p 2 -trimpath -ldflags "-s -w" -o "$bin/$name.test" "${p#*=}")
done
echo "$stamp" > "$bin/.stamp"
log "done: binaries in $bin"
