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
export GOFLAGS="${GOFLAGS:--modcacherw}" CGO_ENABLED=0 GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
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
log "building karpenter $version (kwok provider)"
# The module is fetched and checked against go.sum by hand: v1.15.0 declares go 1.26.9, which
# a local 1.26.8 toolchain refuses to load (the download itself succeeds).
(cd "$here" && go mod download "$mod" 2>/dev/null) || true
src="$GOMODCACHE/$mod@$version"
want="$(awk -v m="$mod" -v v="$version" '$1 == m && $2 == v {print $3}' "$here/go.sum")"
got="$(cat "$GOMODCACHE/cache/download/$mod/@v/$version.ziphash" 2>/dev/null || true)"
[ -d "$src" ] && [ "$got" = "$want" ] || { echo "karpenter: $mod@$version missing or not $want" >&2; exit 1; }

# A copy whose go directive the local toolchain accepts (a patch release apart: same language
# version), used through a build-only modfile; nothing else in it changes.
work="$cache/karpenter"
rm -rf "$work/src" && mkdir -p "$work" && cp -r "$src" "$work/src" && chmod -R u+w "$work/src"
have="$(go env GOVERSION | sed 's/^go//')"
need="$(go mod edit -json "$work/src/go.mod" | sed -n 's/^[[:space:]]*"Go": "\(.*\)",*$/\1/p')"
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | tail -1)" != "$have" ]; then
  log "karpenter declares go $need; building with the local go $have"
  need="$have" && go mod edit -go="$need" "$work/src/go.mod"
fi
cp "$here/go.mod" "$work/build.mod" && cp "$here/go.sum" "$work/build.sum"
go mod edit -replace="$mod=$work/src" -go="$need" "$work/build.mod"
(cd "$here" && go build -p 2 -trimpath -ldflags "-s -w" -modfile="$work/build.mod" \
  -o "$bin/karpenter" "$mod/kwok")

mkdir -p "$crds" && rm -f "$crds"/*.yaml
cp "$src"/kwok/charts/crds/*.yaml "$src"/kwok/apis/crds/*.yaml "$crds/"
chmod u+w "$crds"/*.yaml
echo "$stamp" > "$bin/.stamp-karpenter"
log "done: karpenter $version, CRDs: $(cd "$crds" && echo *.yaml)"
