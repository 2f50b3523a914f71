"""etcd v3.7 RangeStream and a restartable etcd server model (KEP-5966).

After ``server/etcdserver/v3_server.go`` (v3.7): RangeStream is a server-streaming RPC
that reuses ``RangeRequest``. The server reads the keyspace at one revision in chunks that
start at 10 keys and adapt toward a byte limit (``MaxRequestBytes``, ~1.5 MiB): a chunk
that would pass the limit is cut and the next asks for half as many keys; a chunk under
half the limit doubles. ``EtcdServer(version="3.6.x")`` answers RangeStream with
``Unimplemented``, as an older etcd does. ``restart`` breaks every open stream with
ServiceUnavailable; the data is durable (the WAL), so no acknowledged write is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final, Protocol

from reference_impl.errors import ServiceUnavailable, Unimplemented
from reference_impl.storage.mvcc import KeyValue, MVCCStore, RangeResult

__all__ = [
    "DEFAULT_MAX_CHUNK_BYTES",
    "INITIAL_CHUNK_KEYS",
    "EtcdServer",
    "RangeChunk",
    "RangeSource",
    "StreamingKV",
    "kv_size",
    "range_stream",
]

INITIAL_CHUNK_KEYS: Final = 10
DEFAULT_MAX_CHUNK_BYTES: Final = 1_572_864  # etcd --max-request-bytes default (1.5 MiB)


class RangeSource(Protocol):
    """Anything that answers a paginated Range, like ``MVCCStore.range``."""

    def range(
        self,
        prefix: str,
        *,
        limit: int = 0,
        start_after: str | None = None,
        revision: int | None = None,
    ) -> RangeResult:
        """Keys under ``prefix`` in key order at ``revision``, at most ``limit``."""
        ...


class StreamingKV(RangeSource, Protocol):
    """An etcd client view: Range plus RangeStream (which may raise Unimplemented)."""

    def range_stream(
        self,
        prefix: str,
        *,
        revision: int | None = None,
        start_after: str | None = None,
        max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
        size_of: Callable[[KeyValue], int] = ...,
    ) -> Iterator[RangeChunk]:
        """Stream ``prefix`` in byte-bounded chunks."""
        ...


def kv_size(kv: KeyValue) -> int:
    """The bytes a KV takes on the wire (key plus value), as etcd's size accounting."""
    return len(kv.key) + len(kv.value)


@dataclass(frozen=True, slots=True)
class RangeChunk:
    """One streamed message: its KVs and their bytes; only the last one carries the header."""

    kvs: list[KeyValue]
    nbytes: int
    revision: int
    last: bool
    count: int = 0


def range_stream(
    source: RangeSource,
    prefix: str,
    *,
    revision: int | None = None,
    start_after: str | None = None,
    max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
    size_of: Callable[[KeyValue], int] = kv_size,
    alive: Callable[[], None] = lambda: None,
) -> Iterator[RangeChunk]:
    """Stream ``prefix`` at one revision in byte-bounded, adaptively sized chunks.

    ``alive`` is called before each chunk and raises when the server went away.
    """
    limit = INITIAL_CHUNK_KEYS
    after = start_after
    rev = revision
    seen = 0
    while True:
        alive()
        page = source.range(prefix, limit=limit, start_after=after, revision=rev)
        rev = page.revision
        kvs: list[KeyValue] = []
        nbytes = 0
        for kv in page.kvs:
            size = size_of(kv)
            if kvs and nbytes + size > max_chunk_bytes:
                break  # cut here: the rest comes in the next chunk
            kvs.append(kv)
            nbytes += size
        cut = len(kvs) < len(page.kvs)
        more = page.more or cut
        seen += len(kvs)
        yield RangeChunk(kvs, nbytes, rev, not more, seen if not more else 0)
        if not more:
            return
        after = kvs[-1].key
        if cut:
            limit = max(1, limit // 2)
        elif nbytes < max_chunk_bytes // 2:
            limit *= 2


class EtcdServer:
    """An etcd member over an ``MVCCStore``: a version, RangeStream and restart."""

    def __init__(self, store: MVCCStore, version: str = "3.7.3") -> None:
        self.store = store
        self.version = version
        self.epoch = 0  # bumps on every restart; open streams of an older epoch break
        self.streams_broken = 0
        self._fail_after_chunks: int | None = None
        self._after_restart: Callable[[], None] | None = None
        self._on_start: list[Callable[[], None]] = []

    @property
    def supports_range_stream(self) -> bool:
        """RangeStream exists from etcd v3.7."""
        major, minor = (int(x) for x in self.version.split(".")[:2])
        return (major, minor) >= (3, 7)

    def range(
        self,
        prefix: str,
        *,
        limit: int = 0,
        start_after: str | None = None,
        revision: int | None = None,
    ) -> RangeResult:
        """The unary (optionally paginated) Range."""
        return self.store.range(prefix, limit=limit, start_after=start_after, revision=revision)

    def range_stream(
        self,
        prefix: str,
        *,
        revision: int | None = None,
        start_after: str | None = None,
        max_chunk_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
        size_of: Callable[[KeyValue], int] = kv_size,
    ) -> Iterator[RangeChunk]:
        """RangeStream; Unimplemented below v3.7; a restart breaks the stream (503)."""
        if not self.supports_range_stream:
            raise Unimplemented(
                f"unknown method RangeStream for service etcdserverpb.KV (etcd {self.version})"
            )
        epoch = self.epoch
        sent = 0

        def alive() -> None:
            nonlocal sent
            if self._fail_after_chunks is not None and sent >= self._fail_after_chunks:
                self._fail_after_chunks = None
                self.restart()
                hook, self._after_restart = self._after_restart, None
                if hook is not None:
                    hook()  # before the client sees the broken stream
            if self.epoch != epoch or not self.store.available:
                self.streams_broken += 1
                raise ServiceUnavailable("etcdserver: stream closed: server restarted")
            sent += 1

        return range_stream(
            self,
            prefix,
            revision=revision,
            start_after=start_after,
            max_chunk_bytes=max_chunk_bytes,
            size_of=size_of,
            alive=alive,
        )

    def stop(self) -> None:
        """Kill the member: every call fails with ServiceUnavailable until ``start``."""
        self.store.available = False
        self.epoch += 1

    def start(self) -> None:
        """Start the member again; committed data is all there (it was in the WAL).

        The ``on_start`` callbacks run after: the apiserver's watches on this member
        broke while it was down and now resume, or list again if compacted past."""
        self.store.available = True
        for fn in list(self._on_start):
            fn()

    def on_start(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` every time the member starts again after a stop."""
        self._on_start.append(fn)

    def restart(self) -> None:
        """Stop and start: open streams and watches break, data survives."""
        self.stop()
        self.start()

    def restart_after_chunks(
        self, chunks: int, after_restart: Callable[[], None] | None = None
    ) -> None:
        """Fault injection: restart in the middle of the next stream, after ``chunks``;
        ``after_restart`` runs once the member is back, before the client sees the
        broken stream (writes or a compaction that race the client's retry)."""
        self._fail_after_chunks = chunks
        self._after_restart = after_restart
