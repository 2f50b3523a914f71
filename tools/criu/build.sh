#!/usr/bin/env bash
# Build CRIU 4.1.1 (checkpoint/restore in userspace) for the real nodes: runc calls it when
# the kubelet checkpoints a container (ContainerCheckpoint). Debian bookworm's criu 3.17.1
# cannot run on this kernel (6.18: "vdso: Unexpected rt vDSO area bounds"), and trixie's
# 4.1.1 package needs a newer glibc, so the Debian source is built against bookworm's
# libraries (~20 s on 2 cores). The tarball is checked against its sha256; skipped when the
# binary and this script's stamp are there.
# Usage: tools/criu/build.sh [BIN_DIR]   (default $GARHWAL_CACHE_DIR/node/bin, ~/.cache/garhwal)
set -euo pipefail
VERSION=4.1.1
SHA256=f80a66cb3726bb2116266d4759ce3bcbfab7abdb6b6d430bf20dd41911717afe
URL="http://deb.debian.org/debian/pool/main/c/criu/criu_${VERSION}.orig.tar.xz"
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
bin="${1:-$cache/node/bin}"
stamp="$(sha256sum "$0" | cut -c1-16)"
log() { echo "[criu-build $(date -u +%H:%M:%S)] $*"; }
if [ "$(cat "$bin/.stamp-criu" 2>/dev/null)" = "$stamp" ] && [ -x "$bin/criu" ]; then
  log "criu $VERSION: cached"
  exit 0
fi
deps=(libprotobuf-c-dev protobuf-c-compiler libprotobuf-dev protobuf-compiler python3-protobuf libnl-3-dev
      libnet1-dev libbsd-dev libcap-dev libgnutls28-dev libnftables-dev libaio-dev uuid-dev pkg-config
      libdrm-dev gcc make)
missing=()
for d in "${deps[@]}"; do dpkg -s "$d" >/dev/null 2>&1 || missing+=("$d"); done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing build dependencies: ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
src="$cache/criu-src"
mkdir -p "$src" "$bin"
tarball="$src/criu_${VERSION}.orig.tar.xz"
if ! echo "$SHA256  $tarball" | sha256sum -c --status 2>/dev/null; then
  log "downloading $URL"
  curl -fsSL -o "$tarball.part" "$URL"
  echo "$SHA256  $tarball.part" | sha256sum -c --status || { echo "criu tarball: sha256 mismatch" >&2; exit 1; }
  mv "$tarball.part" "$tarball"
fi
rm -rf "$src/criu-$VERSION"
tar -C "$src" -xJf "$tarball"
s=$(date +%s)
make -C "$src/criu-$VERSION" -j2 criu >"$src/build.log" 2>&1 || { tail -20 "$src/build.log" >&2; exit 1; }
install -m 0755 "$src/criu-$VERSION/criu/criu" "$bin/criu"
echo "$stamp" > "$bin/.stamp-criu"
log "criu $VERSION in $bin ($(( $(date +%s) - s ))s)"
