"""The watch cache and its initial list, after ``k8s.io/apiserver/pkg/storage/cacher`` and
``storage/etcd3/watcher.go`` (``watchChan.sync``): since 1.35 the cacher's reflector
uses WatchList, so its initial list is the etcd watcher's sync, not ``GetList`` (a live
1.37 apiserver shows ``etcd_requests_total{operation="listStream"}`` per cache and no
``apiserver_storage_list_duration_seconds`` for it).

With the EtcdRangeStream gate (KEP-5966), and RangeStream not marked unsupported by the
``FeatureSupportChecker``, the cache warms up from one RangeStream over the prefix, in
byte-bounded chunks each dropped once decoded, so the peak buffered bytes follow the
chunk size, not the collection size. An etcd that answers ``Unimplemented`` (below 3.7)
is marked unsupported (for 10 minutes), logged as upstream does at V(4), and read by a
paginated Range instead (``page_size`` keys a page: ``maxLimit``, 10000; 0 = one unary
Range of everything, the pre-1.37 behaviour). Each read counts in
``etcd_requests_total`` (``listStream``, or ``list`` per page), each warm-up in
``apiserver_watch_cache_initializations_total`` (and its duration histogram) or
``..._errors_total``.

A stream or page broken by an etcd restart is resumed after the last key received, at
the same revision; when that revision has been compacted meanwhile (Gone) the list starts
over at the newest revision, as a reflector relists on 410. Deviation: upstream's sync
does not resume; the broken watch-list fails and the reflector lists again at the newest
revision. Both end with exactly the store's contents; resuming re-reads less.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.errors import Gone, ServiceUnavailable, Unimplemented
from reference_impl.features import FeatureGates
from reference_impl.storage.feature_support import FeatureSupportChecker
from reference_impl.storage.metrics import (
    CACHE_INIT_DURATION,
    CACHE_INIT_ERRORS,
    CACHE_INITS,
    REQUESTS_TOTAL,
    StorageMetrics,
)
from reference_impl.storage.mvcc import EventType, KeyValue, StoreEvent
from reference_impl.storage.range_stream import DEFAULT_MAX_CHUNK_BYTES, StreamingKV, kv_size

__all__ = ["DEFAULT_PAGE_SIZE", "FALLBACK_LOG", "MAX_RETRIES", "WarmupStats", "WatchCache"]

DEFAULT_PAGE_SIZE: Final = 10_000  # cacher.go storageWatchListPageSize
MAX_RETRIES: Final = 5
FALLBACK_LOG: Final = (
    "etcd server does not support RangeStream for {gr}; falling back to paginated list"
)


@dataclass(slots=True)
class WarmupStats:
    """What one warm-up cost: the mode, chunks, peak buffered bytes, retries and relists."""

    mode: str = ""
    chunks: int = 0
    peak_buffered_bytes: int = 0
    total_bytes: int = 0
    objects: int = 0
    retries: int = 0
    relists: int = 0
    revision: int = 0
    fell_back: bool = False
    reason: str = ""
    resource: str = ""
    chunk_bytes: list[int] = field(default_factory=list)
    chunk_objects: list[int] = field(default_factory=list)


class WatchCache:
    """The cacher's store for one resource prefix, filled by ``initialize`` and then kept
    current by ``apply`` (the store events the cacher's watch delivers)."""

    def __init__(
        self,
        etcd: StreamingKV,
        prefix: str,
        gates: FeatureGates,
        *,
        max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
        page_size: int = DEFAULT_PAGE_SIZE,
        size_of: Callable[[KeyValue], int] = kv_size,
        keep: Callable[[KeyValue], Any] = KeyValue.decode,
        support: FeatureSupportChecker | None = None,
        metrics: StorageMetrics | None = None,
        group_resource: tuple[str, str] = ("", ""),
        log: Callable[[str], None] = lambda _msg: None,
    ) -> None:
        self._etcd = etcd
        self.prefix = prefix
        self._gates = gates
        self.max_chunk_bytes = max_chunk_bytes
        self.page_size = page_size
        self._size_of = size_of
        self._keep = keep
        self._support = support
        self._metrics = metrics
        self._labels = {"group": group_resource[0], "resource": group_resource[1]}
        self._log = log
        self.items: dict[str, Any] = {}
        self.resource_version = 0
        self.ready = False

    @property
    def group_resource(self) -> str:
        """``resource.group`` as upstream logs name it (``resource`` for core)."""
        g, r = self._labels["group"], self._labels["resource"]
        return f"{r}.{g}" if g else r

    def initialize(self, reason: str = "") -> WarmupStats:
        """List the prefix into the cache; returns the measurements."""
        self.ready = False
        stats = WarmupStats(reason=reason, resource=self.group_resource)
        while True:
            try:
                self._list(stats)
                break
            except Gone:
                # The pinned revision was compacted while we retried: relist from scratch.
                stats.relists += 1
                if stats.relists > MAX_RETRIES:
                    self._count_init(CACHE_INIT_ERRORS)
                    raise
            except ServiceUnavailable:
                self._count_init(CACHE_INIT_ERRORS)
                raise
        self.ready = True
        self._count_init(CACHE_INITS)
        if self._metrics is not None:  # simulated time does not pass during a warm-up
            self._metrics.observe(CACHE_INIT_DURATION, self._labels, 0.0)
        return stats

    def _count_init(self, name: str) -> None:
        if self._metrics is not None:
            self._metrics.inc(name, self._labels)

    def apply(self, ev: StoreEvent) -> None:
        """Apply one committed change under this prefix (ignored until ready, and when the
        initial list already saw it)."""
        if not self.ready or ev.kv.mod_revision <= self.resource_version:
            return
        if ev.type is EventType.PUT:
            self.items[ev.kv.key] = self._keep(ev.kv)
        else:
            self.items.pop(ev.kv.key, None)
        self.resource_version = ev.kv.mod_revision

    # -- the initial list -----------------------------------------------------------------

    def _list(self, stats: WarmupStats) -> None:
        self.items.clear()
        stats.objects = 0
        stats.fell_back = False
        use_stream = self._gates.enabled("EtcdRangeStream") and (
            self._support is None or self._support.supports_range_stream()
        )
        if use_stream:
            try:
                self._fill(self._streamed(stats), stats)
                stats.mode = "RangeStream"
                return
            except Unimplemented:
                stats.fell_back = True
                if self._support is not None:
                    self._support.mark_unsupported()
                self._log(FALLBACK_LOG.format(gr=self.group_resource))
                self.items.clear()
        self._fill(self._paged(stats), stats)
        stats.mode = "Range" if self.page_size == 0 else "PaginatedRange"

    def _count(self, operation: str) -> None:
        if self._metrics is not None:
            self._metrics.inc(REQUESTS_TOTAL, {"operation": operation, **self._labels})

    def _fill(self, chunks: Iterator[list[KeyValue]], stats: WarmupStats) -> None:
        for kvs in chunks:
            nbytes = sum(self._size_of(kv) for kv in kvs)
            stats.chunks += 1
            stats.chunk_bytes.append(nbytes)
            stats.chunk_objects.append(len(kvs))
            stats.total_bytes += nbytes
            stats.peak_buffered_bytes = max(stats.peak_buffered_bytes, nbytes)
            for kv in kvs:
                self.items[kv.key] = self._keep(kv)
            stats.objects += len(kvs)
            del kvs  # the chunk is freed before the next is read
        self.resource_version = stats.revision

    def _streamed(self, stats: WarmupStats) -> Iterator[list[KeyValue]]:
        after: str | None = None
        rev: int | None = None
        while True:
            try:
                stream = self._etcd.range_stream(
                    self.prefix,
                    revision=rev,
                    start_after=after,
                    max_chunk_bytes=self.max_chunk_bytes,
                    size_of=self._size_of,
                )
                self._count("listStream")  # only once the server took the RPC
                for chunk in stream:
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
            try:
                self._count("list")
                page = self._etcd.range(
                    self.prefix, limit=self.page_size, start_after=after, revision=rev
                )
            except ServiceUnavailable:
                stats.retries += 1
                if stats.retries > MAX_RETRIES:
                    raise
                continue
            rev = stats.revision = page.revision
            yield page.kvs
            if not page.more or not page.kvs:
                return
            after = page.kvs[-1].key
