#!/usr/bin/env bash
# Build upstream Traefik (github.com/traefik/traefik/v3, pinned in go.mod) into BIN_DIR/traefik:
# the local cluster's Gateway API implementation (its kubernetesGateway provider), used by the
# ai_inference evidence. The web UI's embed directory ships in the module zip (a placeholder
# file only), so the default build works; the dashboard stays off. Skips when the stamp of
# go.mod, go.sum, the stand-ins and this script matches. Also copies the Gateway API
# standard-channel CRDs into BIN_DIR/gateway-api-crds/. Called by tools/build.sh.
# Usage: tools/traefik/build.sh [BIN_DIR]   (default $GARHWAL_CACHE_DIR/k8s/bin)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
bin="${1:-$cache/k8s/bin}"
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}" GOCACHE="${GOCACHE:-$cache/gobuild}"
export GOFLAGS="${GOFLAGS:--modcacherw}" CGO_ENABLED=0 GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
log() { echo "[build $(date -u +%H:%M:%S)] $*"; }

mod=github.com/traefik/traefik/v3
version="$(awk -v m="$mod" '$1 == m && $2 !~ /go.mod$/ {print $2; exit}' "$here/go.sum")"
stamp="$(cd "$here" && cat go.mod go.sum build.sh $(find ext standin -type f | sort) | sha256sum | cut -c1-16)"
crds="$bin/gateway-api-crds"
if [ "$(cat "$bin/.stamp-traefik" 2>/dev/null)" = "$stamp" ] && [ -x "$bin/traefik" ] \
  && [ -s "$crds/gateway.networking.k8s.io_httproutes.yaml" ]; then
  log "traefik: cached ($version)"
  exit 0
fi
mkdir -p "$bin"
log "building traefik $version with $(go version | cut -d' ' -f3)"
start=$(date +%s)
v=$mod/pkg/version
(cd "$here" && go build -p 2 -trimpath \
  -ldflags "-s -w -X $v.Version=$version -X $v.Codename=garhwal" \
  -o "$bin/traefik" "$mod/cmd/traefik")
# The Gateway API standard-channel CRDs of the gateway-api version traefik requires.
gw="$(cd "$here" && go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api)"
mkdir -p "$crds" && rm -f "$crds"/*.yaml
cp "$gw"/config/crd/standard/gateway.networking.k8s.io_*.yaml "$crds/"
rm -f "$crds"/*_vap_*.yaml  # a ValidatingAdmissionPolicy, not a CRD
chmod u+w "$crds"/*.yaml
echo "$stamp" > "$bin/.stamp-traefik"
log "done: $("$bin/traefik" version 2>&1 | head -1) in $(( $(date +%s) - start ))s"
