#!/usr/bin/env bash
# Build karpenter's KWOK cloud provider (sigs.k8s.io/karpenter/kwok, pinned in go.mod) into
# BIN_DIR/karpenter, and copy its CRDs (NodePool, NodeClaim, NodeOverlay, KWOKNodeClass,
# CapacityBuffer) from the same module into BIN_DIR/karpenter-crds/. Skips when the stamp of
# go.mod, go.sum and this script matches. Called by tools/build.sh with the cache exported.
# Usage: tools/karpenter/build.sh BIN_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1"
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}" GOCACHE="${GOCACHE:-$cache/gobuild}"
# v1.15.0 declares go 1.26.9, newer than the machine's 1.26.8: the approved newer toolchain
# comes from the module proxy (cached in GOMODCACHE), for this module's build only.
export GOFLAGS="${GOFLAGS:--modcacherw}" CGO_ENABLED=0 GOTOOLCHAIN=go1.27.3
log() { echo "[build $(date -u +%H:%M:%S)] $*"; }

mod=sigs.k8s.io/karpenter
version="$(awk -v m="$mod" '$1 == m && $2 !~ /go.mod$/ {print $2; exit}' "$here/go.sum")"
stamp="$(cat "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -c1-16)"
crds="$bin/karpenter-crds"
if [ "$(cat "$bin/.stamp-karpenter" 2>/dev/null)" = "$stamp" ] && [ -x "$bin/karpenter" ] \
  && [ -s "$crds/karpenter.sh_nodepools.yaml" ]; then
  log "karpenter (kwok provider): cached ($version)"
  exit 0
fi
log "building karpenter $version (kwok provider) with $(go version | cut -d' ' -f3)"
(cd "$here" && go build -p 2 -trimpath -ldflags "-s -w" -o "$bin/karpenter" "$mod/kwok")
src="$(cd "$here" && go list -m -f '{{.Dir}}' "$mod")"

mkdir -p "$crds" && rm -f "$crds"/*.yaml
cp "$src"/kwok/charts/crds/*.yaml "$src"/kwok/apis/crds/*.yaml "$crds/"
chmod u+w "$crds"/*.yaml
echo "$stamp" > "$bin/.stamp-karpenter"
log "done: karpenter $version, CRDs: $(cd "$crds" && echo *.yaml)"
