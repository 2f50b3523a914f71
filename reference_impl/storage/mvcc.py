"""An etcd-like MVCC key-value store, after ``etcd/server/storage/mvcc``.

Every write gets the next global revision. Each key keeps its history of versions, so a
read at an older revision sees the past, until ``compact`` drops history before a revision;
reads and watches below the compacted revision then fail with ``Gone`` (ErrCompacted).
Values are stored as JSON bytes, as the apiserver stores objects, so a stored object can
never be changed through a reference a caller kept.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from operator import attrgetter
from typing import Any

from reference_impl.errors import Gone, ServiceUnavailable
from reference_impl.storage import codec

__all__ = ["EventType", "KeyValue", "MVCCStore", "RangeResult", "StoreEvent", "Watcher"]


class EventType(Enum):
    """What a store event did to its key."""

    PUT = "PUT"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One version of a key, like ``mvccpb.KeyValue``."""

    key: str
    value: bytes
    create_revision: int
    mod_revision: int
    version: int

    def decode(self) -> dict[str, Any]:
        """The stored object as a fresh dict."""
        out: dict[str, Any] = codec.loads(self.value)
        return out


@dataclass(frozen=True, slots=True)
class StoreEvent:
    """A committed change, delivered to watchers in revision order."""

    type: EventType
    kv: KeyValue
    prev: KeyValue | None


@dataclass(frozen=True, slots=True)
class RangeResult:
    """The answer to a Range: the page of keys, the read revision and the continuation."""

    kvs: list[KeyValue]
    revision: int
    more: bool
    count: int


# A key's history: its versions in revision order, a deletion as its tombstone KeyValue
# (version 0, as etcd's). One list per key rather than a record of two lists: every stored
# key is a long-lived object the cyclic collector walks, so fewer per key keep full
# collections of a large store cheaper.
_History = list[KeyValue]
_mod_revision = attrgetter("mod_revision")


def _at(hist: _History, revision: int) -> KeyValue | None:
    """The version visible at ``revision``; None before the first or after a deletion."""
    kv = hist[-1] if hist and hist[-1].mod_revision <= revision else None
    if kv is None:
        i = bisect.bisect_right(hist, revision, key=_mod_revision)
        kv = hist[i - 1] if i else None
    return kv if kv is not None and kv.version else None


def _latest(hist: _History) -> KeyValue | None:
    """The current version; None after a deletion."""
    return hist[-1] if hist and hist[-1].version else None


class Watcher:
    """A watch on a key prefix: events are queued in order until the caller drains them."""

    def __init__(self, store: MVCCStore, prefix: str) -> None:
        self._store = store
        self.prefix = prefix
        self.events: deque[StoreEvent] = deque()
        self.closed = False

    def drain(self) -> Iterator[StoreEvent]:
        """Yield and remove the queued events."""
        while self.events:
            yield self.events.popleft()

    def cancel(self) -> None:
        """Stop receiving events."""
        self._store._cancel(self)
        self.closed = True


class MVCCStore:
    """Revisions, Range with limit and continue, watch from a revision, compaction."""

    def __init__(self) -> None:
        self._revision = 0
        self._compacted = 0
        self._keys: list[str] = []
        self._hist: dict[str, _History] = {}
        self._log: list[StoreEvent] = []
        self._log_revs: list[int] = []
        self._watchers: list[Watcher] = []
        self._listeners: list[Callable[[StoreEvent], None]] = []
        self.available = True

    @property
    def revision(self) -> int:
        """The revision of the last committed write."""
        return self._revision

    @property
    def compacted_revision(self) -> int:
        """Reads and watches below this revision fail with Gone."""
        return self._compacted

    def _check_up(self) -> None:
        if not self.available:
            raise ServiceUnavailable("etcdserver: leader changed / server is unavailable")

    def get(self, key: str, revision: int | None = None) -> KeyValue | None:
        """The value of ``key`` at ``revision`` (default: now), or None."""
        self._check_up()
        rev = self._read_revision(revision)
        hist = self._hist.get(key)
        return _at(hist, rev) if hist else None

    def put(self, key: str, value: dict[str, Any] | bytes) -> KeyValue:
        """Write ``value`` under ``key`` at the next revision."""
        self._check_up()
        data = value if isinstance(value, bytes) else codec.dumps(value, sort_keys=True)
        hist = self._hist.get(key)
        if hist is None:
            hist = self._hist[key] = []
            bisect.insort(self._keys, key)
        prev = _latest(hist)
        self._revision += 1
        create = prev.create_revision if prev else self._revision
        kv = KeyValue(key, data, create, self._revision, (prev.version if prev else 0) + 1)
        hist.append(kv)
        self._commit(StoreEvent(EventType.PUT, kv, prev))
        return kv

    def put_new(self, events: Sequence[StoreEvent]) -> None:
        """Commit ``events``, built already: each the PUT of a new key (version 1, no
        previous version) at the revision after the last. What ``put`` of each in turn
        does, without encoding again; events and KeyValues are immutable, so a store's
        standard first contents can be built once and shared (the apiserver's bootstrap
        RBAC policy)."""
        self._check_up()
        for ev in events:
            kv = ev.kv
            if (ev.type is not EventType.PUT or ev.prev is not None or kv.key in self._hist
                    or kv.version != 1 or not kv.create_revision == kv.mod_revision == self._revision + 1):  # fmt: skip
                raise ValueError(f"put_new: {kv.key} at {kv.mod_revision} is not the next new key")
            self._revision = kv.mod_revision
            self._hist[kv.key] = [kv]
            bisect.insort(self._keys, kv.key)
            self._commit(ev)

    def delete(self, key: str) -> KeyValue | None:
        """Delete ``key`` at the next revision; returns the deleted version, or None."""
        self._check_up()
        hist = self._hist.get(key)
        prev = _latest(hist) if hist else None
        if hist is None or prev is None:
            return None
        self._revision += 1
        tomb = KeyValue(key, b"", 0, self._revision, 0)
        hist.append(tomb)
        self._commit(StoreEvent(EventType.DELETE, tomb, prev))
        return prev

    def range(
        self,
        prefix: str,
        *,
        limit: int = 0,
        start_after: str | None = None,
        revision: int | None = None,
        start: str | None = None,
    ) -> RangeResult:
        """Keys under ``prefix`` in key order at ``revision``, at most ``limit`` (0: all).

        ``start_after`` continues a paginated read after that key, ``start`` from that
        key on (etcd's range start); pass the same revision as the first page to get a
        consistent snapshot.
        """
        self._check_up()
        rev = self._read_revision(revision)
        lo = bisect.bisect_right(self._keys, start_after) if start_after else 0
        if start:
            lo = max(lo, bisect.bisect_left(self._keys, start))
        lo = max(lo, bisect.bisect_left(self._keys, prefix))
        kvs: list[KeyValue] = []
        more = False
        count = 0
        keys = self._keys
        for i in range(lo, len(keys)):  # by index: islice would step over the first lo keys
            key = keys[i]
            if not key.startswith(prefix):
                break
            kv = _at(self._hist[key], rev)
            if kv is None:
                continue
            count += 1
            if limit and len(kvs) >= limit:
                more = True
                continue
            kvs.append(kv)
        return RangeResult(kvs, rev, more, count)

    def watch(self, prefix: str, start_revision: int | None = None) -> Watcher:
        """Watch ``prefix``; with ``start_revision``, first replay events from that revision."""
        self._check_up()
        w = Watcher(self, prefix)
        if start_revision is not None:
            if start_revision <= self._compacted:
                raise Gone(
                    f"etcdserver: mvcc: required revision {start_revision} has been compacted "
                    f"(compacted revision {self._compacted})"
                )
            i = bisect.bisect_left(self._log_revs, start_revision)
            w.events.extend(e for e in self._log[i:] if e.kv.key.startswith(prefix))
        self._watchers.append(w)
        return w

    def add_listener(self, fn: Callable[[StoreEvent], None]) -> None:
        """Call ``fn`` synchronously after every committed write (the apiserver's cacher)."""
        self._listeners.append(fn)

    def compact(self, revision: int) -> None:
        """Drop history below ``revision``; later reads or watches below it get Gone."""
        self._check_up()
        revision = min(revision, self._revision)
        if revision <= self._compacted:
            return
        self._compacted = revision
        cut = bisect.bisect_left(self._log_revs, revision)
        del self._log[:cut]
        del self._log_revs[:cut]
        for key in list(self._keys):
            hist = self._hist[key]
            i = bisect.bisect_right(hist, revision, key=_mod_revision)
            keep = max(i - 1, 0)  # keep the version visible at the compaction revision
            del hist[:keep]
            if len(hist) == 1 and not hist[0].version:
                del self._hist[key]
                self._keys.remove(key)

    def _read_revision(self, revision: int | None) -> int:
        if revision is None or revision == 0:
            return self._revision
        if revision < self._compacted:
            raise Gone(f"etcdserver: mvcc: required revision has been compacted ({revision})")
        if revision > self._revision:
            raise Gone(f"etcdserver: mvcc: required revision is a future revision ({revision})")
        return revision

    def _commit(self, event: StoreEvent) -> None:
        self._log.append(event)
        self._log_revs.append(event.kv.mod_revision)
        for w in self._watchers:
            if event.kv.key.startswith(w.prefix):
                w.events.append(event)
        for fn in self._listeners:
            fn(event)

    def _cancel(self, watcher: Watcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)
