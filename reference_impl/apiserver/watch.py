"""What the apiserver streams: in-process commit events and versioned watch iterators.

Both carry objects converted from the storage version: ``ObjectEvent`` in the storage
version (informers convert to theirs), ``WatchIterator`` in the version the client watched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from reference_impl.api.resources import ResourceInfo
from reference_impl.api.watch import WatchEvent, WatchEventType
from reference_impl.errors import BadRequest
from reference_impl.storage.mvcc import EventType, KeyValue, MVCCStore, StoreEvent, Watcher

__all__ = ["ObjectEvent", "WatchIterator", "object_event", "open_watch"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ObjectEvent:
    """A committed change as in-process informers see it; ``obj`` and ``old`` are
    read-only: they are shared by every handler, and ``old`` is the previous event's
    ``obj`` for that key (as client-go's update handlers get the cached object)."""

    type: WatchEventType
    info: ResourceInfo
    obj: Obj
    old: Obj | None


def object_event(ev: StoreEvent, info: ResourceInfo, previous: Obj | None = None) -> ObjectEvent:
    """The ObjectEvent of one store event, objects in the storage version.

    ``previous`` is the last event object delivered for this key, if any: it is reused as
    ``old`` when it is the version this event replaces (one decode per event, not two)."""
    if ev.type is EventType.DELETE:
        assert ev.prev is not None
        obj = ev.prev.decode()
        obj["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
        return ObjectEvent("DELETED", info, obj, None)
    obj = ev.kv.decode()
    obj["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
    old: Obj | None = None
    if ev.prev is not None:
        rv = str(ev.prev.mod_revision)
        if previous is not None and previous["metadata"].get("resourceVersion") == rv:
            old = previous
        else:
            old = ev.prev.decode()
            old["metadata"]["resourceVersion"] = rv
    return ObjectEvent("MODIFIED" if old else "ADDED", info, obj, old)


def open_watch(
    store: MVCCStore,
    prefix: str,
    api_version: str,
    since: str | None,
    out: Callable[[KeyValue, str], Obj],
) -> WatchIterator:
    """A watch of ``prefix`` from ``since``, or from now after a synthetic list of ADDED."""
    initial: list[WatchEvent] = []
    if since is None:
        snap = store.range(prefix)
        initial = [WatchEvent("ADDED", out(kv, api_version)) for kv in snap.kvs]
        watcher = store.watch(prefix, snap.revision + 1)
    else:
        try:
            start = int(since)
        except ValueError:
            raise BadRequest(f"invalid resource version {since!r}") from None
        watcher = store.watch(prefix, start + 1)
    return WatchIterator(initial, watcher, api_version, out)


class WatchIterator:
    """Yields queued events; each ``__iter__`` pass drains what has arrived since."""

    def __init__(
        self,
        initial: list[WatchEvent],
        watcher: Watcher,
        api_version: str,
        out: Callable[[KeyValue, str], Obj],
    ) -> None:
        self._pending = list(initial)
        self._watcher = watcher
        self._api_version = api_version
        self._out = out

    def __iter__(self) -> Iterator[WatchEvent]:
        return self

    def has_pending(self) -> bool:
        """Whether an event is ready to be yielded."""
        return bool(self._pending or self._watcher.events)

    def stop(self) -> None:
        """Stop watching."""
        self._watcher.cancel()

    def __next__(self) -> WatchEvent:
        if self._pending:
            return self._pending.pop(0)
        if not self._watcher.events:
            raise StopIteration
        ev = self._watcher.events.popleft()
        if ev.type is EventType.DELETE:
            assert ev.prev is not None
            obj = self._out(ev.prev, self._api_version)
            obj["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
            return WatchEvent("DELETED", obj)
        return WatchEvent("MODIFIED" if ev.prev else "ADDED", self._out(ev.kv, self._api_version))
