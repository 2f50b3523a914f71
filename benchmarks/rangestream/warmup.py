"""Watch-cache warm-up peak memory: RangeStream against paginated and unary Range.

Simulates N objects of 10 KiB each (sizes are accounted, not allocated, so 1M objects
do not need 10 GB) and warms a ``WatchCache`` three ways: RangeStream, the paginated
Range fallback (the cacher's 10000-key pages) and one unary Range. RangeStream's peak
buffered bytes must stay within 2x its chunk limit at every size. Then it restarts the
etcd of a real reference ``Cluster`` holding ``--cluster-objects`` ConfigMaps (history
compacted, so the watch must list again) and reports the apiserver's own re-list of that
cache, against etcd 3.7.3 and 3.6.6 (the fallback).
Results go to ``results-warmup.json`` beside this file.

    .venv/bin/python -m benchmarks.rangestream.warmup [--sizes 10000,100000,1000000]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from reference_impl.api import make_configmap
from reference_impl.apiserver.cacher import DEFAULT_PAGE_SIZE, WatchCache
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.features import FeatureGates
from reference_impl.storage.mvcc import KeyValue, RangeResult
from reference_impl.storage.range_stream import (
    DEFAULT_MAX_CHUNK_BYTES,
    RangeChunk,
    kv_size,
    range_stream,
)

OBJECT_BYTES: Final = 10 * 1024
PREFIX: Final = "/registry/pods/bench/"
RESULTS: Final = Path(__file__).resolve().parent / "results-warmup.json"


class SyntheticKeyspace:
    """``n`` keys under PREFIX whose values are 10 KiB by account, empty in memory."""

    def __init__(self, n: int, revision: int = 1) -> None:
        self.n = n
        self.revision = revision

    def key(self, i: int) -> str:
        """The i-th key, in key order."""
        return f"{PREFIX}p{i:08d}"

    def range(
        self,
        prefix: str,
        *,
        limit: int = 0,
        start_after: str | None = None,
        revision: int | None = None,
    ) -> RangeResult:
        """Paginated Range over the synthetic keys."""
        lo = 0 if start_after is None else int(start_after.rsplit("p", 1)[1]) + 1
        hi = self.n if not limit else min(self.n, lo + limit)
        kvs = [KeyValue(self.key(i), b"", 1, 1, 1) for i in range(lo, hi)]
        return RangeResult(kvs, self.revision, hi < self.n, self.n - lo)

    def range_stream(
        self,
        prefix: str,
        *,
        revision: int | None = None,
        start_after: str | None = None,
        max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
        size_of: Callable[[KeyValue], int] = kv_size,
    ) -> Iterator[RangeChunk]:
        """RangeStream over the synthetic keys (etcd v3.7 behaviour)."""
        return range_stream(
            self,
            prefix,
            revision=revision,
            start_after=start_after,
            max_chunk_bytes=max_chunk_bytes,
            size_of=size_of,
        )


def simulated_size(kv: KeyValue) -> int:
    """Key bytes plus the 10 KiB value the object would have."""
    return len(kv.key) + OBJECT_BYTES


def measure(n: int, max_chunk_bytes: int, page_size: int) -> dict[str, object]:
    """Warm one cache per mode over ``n`` simulated objects; the peak bytes of each."""
    ks = SyntheticKeyspace(n)
    out: dict[str, object] = {"objects": n, "chunk_limit_bytes": max_chunk_bytes}
    modes = (
        ("RangeStream", {"EtcdRangeStream": True}, page_size),
        ("PaginatedRange", {"EtcdRangeStream": False}, page_size),
        ("UnaryRange", {"EtcdRangeStream": False}, 0),
    )
    for label, gates, pages in modes:
        cache = WatchCache(
            ks,
            PREFIX,
            FeatureGates(gates),
            max_chunk_bytes=max_chunk_bytes,
            page_size=pages,
            size_of=simulated_size,
            keep=lambda kv: kv.mod_revision,  # sizes only: keep nothing heavy
        )
        stats = cache.initialize()
        assert stats.objects == n, (label, stats.objects)
        out[label] = {"peak_buffered_bytes": stats.peak_buffered_bytes, "chunks": stats.chunks}
    stream = out["RangeStream"]
    assert isinstance(stream, dict)
    out["stream_within_2x_limit"] = stream["peak_buffered_bytes"] <= 2 * max_chunk_bytes
    return out


def cluster_rewarm(objects: int, etcd_version: str) -> dict[str, Any]:
    """Restart the etcd of a cluster holding ``objects`` 10 KiB ConfigMaps, its history
    compacted past the configmaps watch; the apiserver's re-list of that cache, and the
    wall time of every re-list the restart caused."""
    cluster = Cluster(config=ClusterConfig(nodes=0, etcd_version=etcd_version))
    for i in range(objects):
        cluster.api.create(
            make_configmap(f"cm-{i:06d}", "default", blob="b" * OBJECT_BYTES).build()
        )
    # A write elsewhere, then a compaction: the configmaps watch cannot resume after the
    # restart, so the apiserver lists configmaps again (a plain restart resumes it).
    meta = {"name": "bump", "namespace": "default"}
    cluster.api.create({"apiVersion": "v1", "kind": "Secret", "metadata": meta})
    cluster.store.compact(cluster.store.revision)
    cluster.etcd.restart()
    start = time.perf_counter()
    cluster.settle()
    wall = time.perf_counter() - start
    stats = cluster.watch_caches.history("configmaps")[-1]
    assert stats["reason"] == "etcd-restart" and stats["objects"] == objects, stats
    return {
        "etcd": etcd_version,
        "mode": stats["mode"],
        "chunks": stats["chunks"],
        "peak_buffered_bytes": stats["peak_buffered_bytes"],
        "total_bytes": stats["total_bytes"],
        "relists_wall_s": round(wall, 4),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print it and write ``results-warmup.json``; exit 1 if a bound fails."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--chunk-bytes", type=int, default=DEFAULT_MAX_CHUNK_BYTES)
    ap.add_argument("--page-size", type=int, default=DEFAULT_PAGE_SIZE)
    ap.add_argument("--cluster-objects", type=int, default=2000)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    ok = True
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        row = measure(n, args.chunk_bytes, args.page_size)
        ok = ok and bool(row["stream_within_2x_limit"])
        rows.append(row)
        print(json.dumps(row))
    rewarm = [cluster_rewarm(args.cluster_objects, v) for v in ("3.7.3", "3.6.6")]
    for r in rewarm:
        print(json.dumps(r))
    stream = rewarm[0]
    ok = ok and stream["mode"] == "RangeStream" and rewarm[1]["mode"] == "PaginatedRange"
    ok = ok and int(stream["peak_buffered_bytes"]) <= 2 * DEFAULT_MAX_CHUNK_BYTES
    result = {
        "name": "rangestream-warmup",
        "synthetic": rows,
        "cluster_rewarm": {"objects": args.cluster_objects, "runs": rewarm},
        "threshold": "RangeStream peak <= 2x chunk limit at every size",
        "passed": ok,
    }
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
