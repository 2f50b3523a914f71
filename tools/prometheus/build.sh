#!/usr/bin/env bash
# Build upstream Prometheus (github.com/prometheus/prometheus, pinned in go.mod) into
# BIN_DIR/prometheus: the local cluster's Prometheus-compatible collector and query API, used
# by the ai_service_metrics evidence. Only Kubernetes service discovery is compiled in
# (remove_all_sd + enable_kubernetes_sd, upstream's own build tags) and no web UI assets
# (builtinassets left out): the query API is all garhwal uses. Skips when the stamp of go.mod,
# go.sum and this script matches. Called by tools/build.sh with the cache exported.
# Usage: tools/prometheus/build.sh [BIN_DIR]   (default $GARHWAL_CACHE_DIR/k8s/bin)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
bin="${1:-$cache/k8s/bin}"
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}" GOCACHE="${GOCACHE:-$cache/gobuild}"
export GOFLAGS="${GOFLAGS:--modcacherw}" CGO_ENABLED=0 GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
log() { echo "[build $(date -u +%H:%M:%S)] $*"; }

mod=github.com/prometheus/prometheus
version="$(awk -v m="$mod" '$1 == m && $2 !~ /go.mod$/ {print $2; exit}' "$here/go.sum")"
stamp="$(cat "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -c1-16)"
if [ "$(cat "$bin/.stamp-prometheus" 2>/dev/null)" = "$stamp" ] && [ -x "$bin/prometheus" ]; then
  log "prometheus: cached ($version)"
  exit 0
fi
mkdir -p "$bin"
log "building prometheus $version with $(go version | cut -d' ' -f3)"
start=$(date +%s)
# Module v0.3MM.P is Prometheus v3.MM.P (upstream's tagging of the Go module).
m="${version#v0.}"; release="3.$(( ${m%%.*} - 300 )).${m#*.}"
v=github.com/prometheus/common/version
(cd "$here" && go build -p 2 -trimpath -tags "remove_all_sd enable_kubernetes_sd" \
  -ldflags "-s -w -X $v.Version=$release -X $v.Branch=garhwal" \
  -o "$bin/prometheus" "$mod/cmd/prometheus")
echo "$stamp" > "$bin/.stamp-prometheus"
log "done: $("$bin/prometheus" --version 2>&1 | head -1) in $(( $(date +%s) - start ))s"
