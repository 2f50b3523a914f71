#!/usr/bin/env bash
# Build garhwal's NVML library (libnvidia-ml.so.1, loaded by the unmodified pynvml through
# LD_LIBRARY_PATH) with gcc into an ignored cache folder; skips when the source is unchanged.
# Usage: tools/nvml/build.sh [LIB_DIR]  (default $GARHWAL_CACHE_DIR/nvml/lib, ~/.cache/garhwal)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${GARHWAL_CACHE_DIR:-$HOME/.cache/garhwal}"
lib="${1:-$cache/nvml/lib}"
stamp="$(cat "$here/nvml.c" "$0" | sha256sum | cut -c1-16)"
if [ "$(cat "$lib/.stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$lib/libnvidia-ml.so.1" ]; then
  echo "[build $(date -u +%H:%M:%S)] libnvidia-ml.so.1: cached"
  exit 0
fi
mkdir -p "$lib"
tmp="$lib/.libnvidia-ml.so.1.$$"
"${CC:-gcc}" -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-format-truncation -fPIC -shared \
  -fvisibility=hidden -Wl,-soname,libnvidia-ml.so.1 -o "$tmp" "$here/nvml.c" -lpthread
mv -f "$tmp" "$lib/libnvidia-ml.so.1"   # atomic: a running agent keeps its mapped copy
ln -sf libnvidia-ml.so.1 "$lib/libnvidia-ml.so"
echo "$stamp" > "$lib/.stamp"
echo "[build $(date -u +%H:%M:%S)] libnvidia-ml.so.1 in $lib"
