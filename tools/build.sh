#!/usr/bin/env bash
# Build the upstream v1.37.2 control plane, etcd v3.7.3, KWOK, karpenter v1.15.0's KWOK
# provider, Prometheus and Traefik from Go modules into an ignored cache folder. Skips each build when the cached
# binaries match its go.mod/go.sum.
# Usage: tools/build.sh [BIN_DIR]   (default $GARHWAL_CACHE_DIR/k8s/bin, ~/.cache/garhwal)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Caches live outside the checkout by default so fresh clones (CI) build warm.
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
bin="${1:-$cache/k8s/bin}"
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}"
export GOCACHE="${GOCACHE:-$cache/gobuild}"
export GOFLAGS="${GOFLAGS:--modcacherw}"
export CGO_ENABLED=0
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
K8S_VERSION=v1.37.2
mkdir -p "$bin"

stamp_of() { cat "$root/tools/$1/go.mod" "$root/tools/$1/go.sum" "$0" | sha256sum | cut -c1-16; }
log() { echo "[build $(date -u +%H:%M:%S)] $*"; }

fresh() { # fresh NAME BINARY...: true when the stamp matches and every binary exists
  local name=$1; shift
  [ "$(cat "$bin/.stamp-$name" 2>/dev/null)" = "$(stamp_of "$name")" ] || return 1
  for b in "$@"; do [ -x "$bin/$b" ] || return 1; done
}

if fresh k8s kube-apiserver kube-controller-manager kube-scheduler kubectl; then
  log "kube-apiserver, kube-controller-manager, kube-scheduler, kubectl: cached ($K8S_VERSION)"
else
  log "building kube-apiserver, kube-controller-manager, kube-scheduler, kubectl $K8S_VERSION"
  v=k8s.io/component-base/version
  ldf="-s -w -X $v.gitVersion=$K8S_VERSION -X $v.gitMajor=1 -X $v.gitMinor=37 -X $v.gitTreeState=clean"
  ldf="$ldf -X $v.buildDate=2026-11-01T00:00:00Z -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
  ldf="$ldf -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=37"
  (cd "$root/tools/k8s" && go build -p 2 -trimpath -ldflags "$ldf" -o "$bin/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
  stamp_of k8s > "$bin/.stamp-k8s"
  log "done: $("$bin/kube-apiserver" --version)"
fi

if fresh etcd etcd; then
  log "etcd: cached"
else
  log "building etcd"
  (cd "$root/tools/etcd" && go build -trimpath -ldflags "-s -w" -o "$bin/etcd" .)
  stamp_of etcd > "$bin/.stamp-etcd"
  log "done: $("$bin/etcd" --version | head -1)"
fi

if fresh kwok kwok; then
  log "kwok: cached"
else
  log "building kwok"
  (cd "$root/tools/kwok" && go build -trimpath -ldflags "-s -w" -o "$bin/kwok" sigs.k8s.io/kwok/cmd/kwok)
  stamp_of kwok > "$bin/.stamp-kwok"
  log "done: kwok"
fi
# karpenter's KWOK provider, the local cluster's node autoscaler: its own script and stamp.
"$root/tools/karpenter/build.sh" "$bin"
# Upstream Prometheus, the collector `cluster up --real-nodes` starts: its own script and stamp.
"$root/tools/prometheus/build.sh" "$bin"
# Upstream Traefik, the Gateway API implementation `cluster up --real-nodes` starts.
"$root/tools/traefik/build.sh" "$bin"
log "binaries in $bin"

# The NVML library (C, gcc) beside the Go binaries' cache.
"$root/tools/nvml/build.sh" "$cache/nvml/lib"
