"""What the apiserver streams: in-process commit events and versioned watch iterators.

Both carry objects converted from the storage version: ``ObjectEvent`` in the storage
version (informers convert to theirs), ``WatchIterator`` in the version the client watched.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.api.watch import WatchEvent, WatchEventType
from reference_impl.apiserver.list_options import parse_resource_version, too_large
from reference_impl.clock import Duration, Instant, SimClock, Timer, seconds
from reference_impl.errors import Gone
from reference_impl.storage.mvcc import EventType, KeyValue, MVCCStore, StoreEvent, Watcher

__all__ = [
    "BOOKMARK_FREQUENCY",
    "INITIAL_EVENTS_END",
    "ObjectEvent",
    "WatchIterator",
    "bookmark_event",
    "object_event",
    "open_watch",
]

Obj = dict[str, Any]
INITIAL_EVENTS_END: Final = "k8s.io/initial-events-end"  # metav1.InitialEventsAnnotationKey
BOOKMARK_FREQUENCY: Final[Duration] = seconds(60)  # cacher's defaultBookmarkFrequency
PRE_TIMEOUT: Final[Duration] = seconds(2)  # a bookmark this long before the deadline


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
    *,
    kind: str = "",
    matches: Callable[[Obj], bool] | None = None,
    allow_bookmarks: bool = False,
    send_initial_events: bool | None = None,
    clock: SimClock | None = None,
    timeout_seconds: float | None = None,
) -> WatchIterator:
    """A watch of ``prefix`` as the watch cache serves it (``Cacher.Watch``,
    ``getWatchCacheResourceVersion``, ``watchCache.getAllEventsSinceLocked``):

    - no ``send_initial_events``, resourceVersion "" or "0": the current objects as
      ADDED, then what follows; "N": every change after N (Gone "too old resource
      version: N (C)" when N is below the compaction C).
    - ``send_initial_events=True``: the current objects as ADDED whatever the
      resourceVersion ("Too large resource version" 504 when it is in the future),
      followed with ``allow_bookmarks`` by the BOOKMARK annotated
      ``k8s.io/initial-events-end`` at the current revision.
    - ``send_initial_events=False``: no initial objects; from N, or from now for "" and
      "0".

    ``matches`` filters as a watch's label and field selectors do
    (``cacheWatcher.convertToWatchEvent``): an object that stops matching is DELETED (its
    last matching state at the event's resourceVersion), one that starts is ADDED.

    Bookmarks (``allow_bookmarks``) in simulated time, deterministically: besides the
    initial-events-end one, a BOOKMARK at the current revision is due
    ``BOOKMARK_FREQUENCY`` (1 min, ``defaultBookmarkFrequency``) after the watch opened
    or after the last bookmark, and once 2 s before the ``timeout_seconds`` deadline when
    that comes first (``cacheWatcher.nextBookmarkTime``); after the pre-timeout one, none.
    A due bookmark is sent once the events before it have been, and a timer on
    ``clock`` wakes a caller waiting for events at that instant. Upstream's cacher
    dispatches them from a ~1 s jittered ticker in 1 s buckets.
    """
    rv = since or ""
    parsed = parse_resource_version(rv)
    if rv:
        required = parsed
    elif send_initial_events is None:
        required = 0  # the legacy case: state from the cache, no wait
    else:
        required = store.revision  # the most recent revision, from etcd
    pending: list[WatchEvent] = []
    if send_initial_events or (required == 0 and send_initial_events is None):
        if send_initial_events and required > store.revision:
            raise too_large(required, store.revision)  # waitUntilFreshLocked gave up
        snap = store.range(prefix)
        for kv in snap.kvs:
            obj = out(kv, api_version)
            if matches is None or matches(obj):
                pending.append(WatchEvent("ADDED", obj))
        after = snap.revision
        if send_initial_events and allow_bookmarks:
            pending.append(bookmark_event(api_version, kind, after, initial_events_end=True))
    else:
        after = required or store.revision
        if after < store.compacted_revision:  # watchCacheHistory.GetIntervalLocked
            raise Gone(f"too old resource version: {after} ({store.compacted_revision})")
    watcher = store.watch(prefix, after + 1 if after < store.revision else None)
    it = WatchIterator(pending, watcher, api_version, out, after=after, matches=matches)
    if allow_bookmarks and clock is not None:
        deadline = None if timeout_seconds is None else Instant(clock.now() + seconds(timeout_seconds))
        it.schedule_bookmarks(store, clock, kind, deadline)
    return it


def bookmark_event(api_version: str, kind: str, rv: int, *, initial_events_end: bool = False) -> WatchEvent:
    """A BOOKMARK: an empty object of the kind carrying only a resourceVersion (and the
    ``k8s.io/initial-events-end: "true"`` annotation, AnnotateInitialEventsEndBookmark)."""
    meta: Obj = {"resourceVersion": str(rv)}
    if initial_events_end:
        meta["annotations"] = {INITIAL_EVENTS_END: "true"}
    return WatchEvent("BOOKMARK", {"apiVersion": api_version, "kind": kind, "metadata": meta})


class WatchIterator:
    """Yields queued events; each ``__iter__`` pass drains what has arrived since."""

    def __init__(
        self,
        initial: list[WatchEvent],
        watcher: Watcher,
        api_version: str,
        out: Callable[[KeyValue, str], Obj],
        *,
        after: int = 0,
        matches: Callable[[Obj], bool] | None = None,
    ) -> None:
        self._pending = deque(initial)
        self._watcher = watcher
        self._api_version = api_version
        self._out = out
        self._after = after  # events at or below this revision were seen already
        self._matches = matches
        self._bookmarks: _Bookmarks | None = None

    def schedule_bookmarks(
        self, store: MVCCStore, clock: SimClock, kind: str, deadline: Instant | None
    ) -> None:
        """Send periodic and pre-timeout bookmarks (see ``open_watch``)."""
        self._bookmarks = _Bookmarks(store, clock, self._api_version, kind, deadline)

    def __iter__(self) -> Iterator[WatchEvent]:
        return self

    def has_pending(self) -> bool:
        """Whether an event is ready to be yielded (a due bookmark included)."""
        if self._pending or self._watcher.events:
            return True
        return self._bookmarks is not None and self._bookmarks.is_due()

    def stop(self) -> None:
        """Stop watching."""
        self._watcher.cancel()
        if self._bookmarks is not None:
            self._bookmarks.cancel()

    def __next__(self) -> WatchEvent:
        if self._pending:
            return self._pending.popleft()
        events = self._watcher.events
        while events:
            ev = events.popleft()
            if ev.kv.mod_revision <= self._after:
                continue  # a watch from a future resourceVersion starts after it
            if self._matches is not None:
                filtered = self._filtered(ev, self._matches)
                if filtered is None:
                    continue
                return filtered
            if ev.type is EventType.DELETE:
                assert ev.prev is not None
                obj = self._out(ev.prev, self._api_version)
                obj["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
                return WatchEvent("DELETED", obj)
            return WatchEvent("MODIFIED" if ev.prev else "ADDED", self._out(ev.kv, self._api_version))
        if self._bookmarks is not None and self._bookmarks.is_due():
            return self._bookmarks.take()
        raise StopIteration

    def _filtered(self, ev: StoreEvent, matches: Callable[[Obj], bool]) -> WatchEvent | None:
        cur = None if ev.type is EventType.DELETE else self._out(ev.kv, self._api_version)
        cur_passes = cur is not None and matches(cur)
        old = None if ev.prev is None else self._out(ev.prev, self._api_version)
        old_passes = old is not None and matches(old)
        if cur is not None and cur_passes:
            return WatchEvent("MODIFIED" if old_passes else "ADDED", cur)
        if old is not None and old_passes:
            old["metadata"]["resourceVersion"] = str(ev.kv.mod_revision)
            return WatchEvent("DELETED", old)
        return None


class _Bookmarks:
    """When the next periodic bookmark of one watch is due, and a timer at that instant."""

    def __init__(
        self, store: MVCCStore, clock: SimClock, api_version: str, kind: str, deadline: Instant | None
    ) -> None:
        self._store = store
        self._clock = clock
        self._api_version = api_version
        self._kind = kind
        self._deadline = deadline
        self._timer: Timer | None = None
        self._due: Instant | None = None
        self._plan(clock.now())

    def _plan(self, now: Instant) -> None:
        due = now + BOOKMARK_FREQUENCY
        if self._deadline is not None:
            due = min(due, self._deadline - PRE_TIMEOUT)
        self._due = Instant(due) if due > now else None
        self._timer = None if self._due is None else self._clock.call_at(self._due, _wake)

    def is_due(self) -> bool:
        return self._due is not None and self._clock.now() >= self._due

    def take(self) -> WatchEvent:
        now = self._clock.now()
        self._plan(now)
        return bookmark_event(self._api_version, self._kind, self._store.revision)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._due = None


def _wake() -> None:
    """The bookmark timer's callback: the wake-up itself is its work."""
