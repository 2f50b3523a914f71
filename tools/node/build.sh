#!/usr/bin/env bash
# Build what a real node runs into an ignored cache folder: kubelet v1.37.2 (tools/k8s, the
# control plane's module), containerd 2 with its runc shim and ctr (tools/containerd), and the
# pause and workload binaries of the node's images (tools/images), and garhwal's DRA driver
# (tools/dradriver, a kubelet plugin started beside the kubelet), garhwal's NVML library
# (tools/nvml: the node's "driver", read by the DRA driver and by the GPU metrics exporter,
# tools/gpuexporter, through NVIDIA's go-nvml, hence cgo for those two). runc and the CNI plugins
# come from Debian (apt-get install runc containernetworking-plugins). Each part is skipped
# when its stamp (its module files and this script) matches. Separate from tools/build.sh so
# that a change here does not rebuild the control plane.
# Usage: tools/node/build.sh [BIN_DIR]   (default $GARHWAL_CACHE_DIR/node/bin, ~/.cache/garhwal)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
self="$root/tools/node/build.sh"
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
bin="${1:-$cache/node/bin}"
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}"
export GOCACHE="${GOCACHE:-$cache/gobuild}"
export GOFLAGS="${GOFLAGS:--modcacherw}"
export CGO_ENABLED=0
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
K8S_VERSION=v1.37.2
CONTAINERD_VERSION=v2.4.2
mkdir -p "$bin"

stamp_of() { (cd "$root/tools/$1" && find . -name 'go.*' -o -name '*.go' | sort | xargs cat; cat "$self") | sha256sum | cut -c1-16; }
log() { echo "[node-build $(date -u +%H:%M:%S)] $*"; }
fresh() { # fresh MODULE BINARY...: true when the stamp matches and every binary exists
  local name=$1; shift
  [ "$(cat "$bin/.stamp-$name" 2>/dev/null)" = "$(stamp_of "$name")" ] || return 1
  for b in "$@"; do [ -x "$bin/$b" ] || return 1; done
}
timed() { local s; s=$(date +%s); "$@"; log "took $(( $(date +%s) - s ))s"; }

if fresh k8s kubelet; then
  log "kubelet: cached ($K8S_VERSION)"
else
  log "building kubelet $K8S_VERSION"
  v=k8s.io/component-base/version
  ldf="-s -w -X $v.gitVersion=$K8S_VERSION -X $v.gitMajor=1 -X $v.gitMinor=37 -X $v.gitTreeState=clean"
  ldf="$ldf -X $v.buildDate=2026-11-01T00:00:00Z -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
  (cd "$root/tools/k8s" && timed go build -p 2 -trimpath -ldflags "$ldf" -o "$bin/" k8s.io/kubernetes/cmd/kubelet)
  stamp_of k8s > "$bin/.stamp-k8s"
fi

if fresh containerd containerd containerd-shim-runc-v2 ctr; then
  log "containerd: cached ($CONTAINERD_VERSION)"
else
  log "building containerd $CONTAINERD_VERSION"
  m=github.com/containerd/containerd/v2
  (cd "$root/tools/containerd" && timed go build -p 2 -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w -X $m/version.Version=$CONTAINERD_VERSION" -o "$bin/" \
    $m/cmd/containerd $m/cmd/containerd-shim-runc-v2 $m/cmd/ctr)
  stamp_of containerd > "$bin/.stamp-containerd"
fi

if fresh images pause workload; then
  log "pause, workload: cached"
else
  log "building pause, workload"
  (cd "$root/tools/images" && go build -trimpath -ldflags "-s -w" -o "$bin/" ./pause ./workload)
  stamp_of images > "$bin/.stamp-images"
fi
"$root/tools/nvml/build.sh" "$bin"
"$root/tools/criu/build.sh" "$bin"   # runc calls it for the kubelet's container checkpoints
# go-nvml dlopens the library through cgo; its generated header warns about deprecations.
for m in dradriver gpuexporter; do
  if fresh $m $m; then
    log "$m: cached"
  else
    log "building $m"
    (cd "$root/tools/$m" && CGO_ENABLED=1 CGO_CFLAGS="-O2 -Wno-deprecated-declarations" \
      timed go build -p 2 -trimpath -ldflags "-s -w" -o "$bin/" .)
    stamp_of $m > "$bin/.stamp-$m"
  fi
done
for b in /usr/sbin/runc /usr/lib/cni/bridge /usr/lib/cni/host-local /usr/lib/cni/loopback; do
  [ -x "$b" ] || log "missing $b: apt-get install -y runc containernetworking-plugins"
done
log "binaries in $bin"
