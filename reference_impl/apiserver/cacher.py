"""The watch cache's initial list, after ``k8s.io/apiserver/pkg/storage/cacher``.

With the EtcdRangeStream gate (KEP-5966) and an etcd that has RangeStream (v3.7+), the
cache warms up from byte-bounded chunks and drops each chunk once decoded, so the peak
buffered bytes follow the chunk size, not the collection size. Against an etcd that
answers Unimplemented it falls back to a paginated Range (``page_size`` keys a page;
0 = one unary Range of everything, the pre-1.37 behaviour). A stream broken by an etcd
restart is resumed after the last key received, at the same revision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.errors import ServiceUnavailable, Unimplemented
from reference_impl.features import FeatureGates
from reference_impl.storage.mvcc import KeyValue
from reference_impl.storage.range_stream import DEFAULT_MAX_CHUNK_BYTES, StreamingKV, kv_size

__all__ = ["DEFAULT_PAGE_SIZE", "WarmupStats", "WatchCache"]

DEFAULT_PAGE_SIZE: Final = 500  # the reflector's default list page size
MAX_RETRIES: Final = 5


@dataclass(slots=True)
class WarmupStats:
    """What one warm-up cost: the mode, chunks, peak buffered bytes and retries."""

    mode: str = ""
    chunks: int = 0
    peak_buffered_bytes: int = 0
    total_bytes: int = 0
    objects: int = 0
    retries: int = 0
    revision: int = 0
    fell_back: bool = False
    chunk_bytes: list[int] = field(default_factory=list)
    chunk_objects: list[int] = field(default_factory=list)


class WatchCache:
    """The cacher's store for one resource prefix, filled by ``initialize``."""

    def __init__(
        self,
        etcd: StreamingKV,
        prefix: str,
        gates: FeatureGates,
        *,
        max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
        page_size: int = DEFAULT_PAGE_SIZE,
        size_of: Callable[[KeyValue], int] = kv_size,
        decode: bool = True,
    ) -> None:
        self._etcd = etcd
        self.prefix = prefix
        self._gates = gates
        self.max_chunk_bytes = max_chunk_bytes
        self.page_size = page_size
        self._size_of = size_of
        self._decode = decode
        self.items: dict[str, Any] = {}
        self.resource_version = 0

    def initialize(self) -> WarmupStats:
        """List the prefix into the cache; returns the measurements."""
        self.items.clear()
        stats = WarmupStats()
        if self._gates.enabled("EtcdRangeStream"):
            try:
                self._fill(self._streamed(stats), stats)
                stats.mode = "RangeStream"
                return stats
            except Unimplemented:
                stats.fell_back = True
        self._fill(self._paged(stats), stats)
        stats.mode = "Range" if self.page_size == 0 else "PaginatedRange"
        return stats

    def _fill(self, chunks: Iterator[list[KeyValue]], stats: WarmupStats) -> None:
        for kvs in chunks:
            nbytes = sum(self._size_of(kv) for kv in kvs)
            stats.chunks += 1
            stats.chunk_bytes.append(nbytes)
            stats.chunk_objects.append(len(kvs))
            stats.total_bytes += nbytes
            stats.peak_buffered_bytes = max(stats.peak_buffered_bytes, nbytes)
            for kv in kvs:
                self.items[kv.key] = kv.decode() if self._decode else kv.mod_revision
            stats.objects += len(kvs)
            del kvs  # the chunk is freed before the next is read
        self.resource_version = stats.revision

    def _streamed(self, stats: WarmupStats) -> Iterator[list[KeyValue]]:
        after: str | None = None
        rev: int | None = None
        while True:
            try:
                for chunk in self._etcd.range_stream(
                    self.prefix,
                    revision=rev,
                    start_after=after,
                    max_chunk_bytes=self.max_chunk_bytes,
                    size_of=self._size_of,
                ):
                    rev = stats.revision = chunk.revision
                    if chunk.kvs:
                        after = chunk.kvs[-1].key
                    yield chunk.kvs
                return
            except ServiceUnavailable:
                stats.retries += 1
                if stats.retries > MAX_RETRIES:
                    raise

    def _paged(self, stats: WarmupStats) -> Iterator[list[KeyValue]]:
        after: str | None = None
        rev: int | None = None
        while True:
            page = self._etcd.range(
                self.prefix, limit=self.page_size, start_after=after, revision=rev
            )
            rev = stats.revision = page.revision
            yield page.kvs
            if not page.more or not page.kvs:
                return
            after = page.kvs[-1].key
