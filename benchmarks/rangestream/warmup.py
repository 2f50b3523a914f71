"""Watch-cache warm-up peak memory: RangeStream against paginated and unary Range.

Simulates N objects of 10 KiB each (sizes are accounted, not allocated, so 1M objects
do not need 10 GB) and warms a ``WatchCache`` three ways. RangeStream's peak buffered
bytes must stay within 2x its chunk limit at every size.

    .venv/bin/python -m benchmarks.rangestream.warmup [--sizes 10000,100000,1000000]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from typing import Final

from reference_impl.apiserver.cacher import WatchCache
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
            decode=False,
        )
        stats = cache.initialize()
        assert stats.objects == n, (label, stats.objects)
        out[label] = {"peak_buffered_bytes": stats.peak_buffered_bytes, "chunks": stats.chunks}
    stream = out["RangeStream"]
    assert isinstance(stream, dict)
    out["stream_within_2x_limit"] = stream["peak_buffered_bytes"] <= 2 * max_chunk_bytes
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one JSON line per size; exit 1 if a bound fails."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--chunk-bytes", type=int, default=DEFAULT_MAX_CHUNK_BYTES)
    ap.add_argument("--page-size", type=int, default=500)
    args = ap.parse_args(argv)
    ok = True
    for n in (int(s) for s in args.sizes.split(",")):
        row = measure(n, args.chunk_bytes, args.page_size)
        ok = ok and bool(row["stream_within_2x_limit"])
        print(json.dumps(row))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
