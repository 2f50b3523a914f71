"""Shared informers and work queues, after client-go's ``tools/cache`` and ``util/workqueue``.

Informers keep an up-to-date cache per resource from the apiserver's commit stream and
call handlers synchronously; handlers only enqueue keys. A WorkQueue drains on the
simulated clock, de-duplicating keys, so controllers run as ordered events on the heap
and never re-enter the apiserver from inside a write.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from reference_impl.apiserver import conversion
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.apiserver.workqueue_rate import RateLimiter
from reference_impl.clock import Duration, Instant, Priority, SimClock, Timer, millis
from reference_impl.errors import ApiError, Conflict, NotFound

__all__ = ["InformerFactory", "SharedInformer", "WorkQueue", "object_key"]

Obj = dict[str, Any]
Handler = Callable[[ObjectEvent], None]


def object_key(obj: Obj) -> str:
    """``namespace/name``, or ``name`` for cluster-scoped objects (``cache.MetaNamespaceKeyFunc``)."""
    meta = obj["metadata"]
    ns = meta.get("namespace")
    return f"{ns}/{meta['name']}" if ns else str(meta["name"])


def _converted(obj: Obj | None, api_version: str) -> Obj | None:
    if obj is None or obj.get("apiVersion") == api_version:
        return obj
    return conversion.convert(copy.deepcopy(obj), api_version)


class SharedInformer:
    """A cache of one resource's objects plus the handlers interested in it.

    Objects are in ``api_version``, the version the first requester asked for: commit
    events arrive in the storage version and are converted when that differs."""

    def __init__(self, group_resource: str, api_version: str = "") -> None:
        self.group_resource = group_resource
        self.api_version = api_version
        self.cache: dict[str, Obj] = {}
        self.version = 0  # bumped by every event: derived views compare it to stay current
        self._handlers: list[Handler] = []

    def add_handler(self, fn: Handler) -> None:
        """Call ``fn`` for every add, update and delete of this resource."""
        self._handlers.append(fn)

    def get(self, key: str) -> Obj | None:
        """The cached object for ``namespace/name``; read-only."""
        return self.cache.get(key)

    def items(self) -> Iterator[Obj]:
        """Cached objects in key order."""
        for k in sorted(self.cache):
            yield self.cache[k]

    def dispatch(self, ev: ObjectEvent) -> None:
        """Apply one committed event to the cache, then notify handlers."""
        if self.api_version and ev.obj.get("apiVersion") != self.api_version:
            obj = _converted(ev.obj, self.api_version)
            assert obj is not None
            ev = ObjectEvent(ev.type, ev.info, obj, _converted(ev.old, self.api_version))
        key = object_key(ev.obj)
        self.version += 1
        if ev.type == "DELETED":
            self.cache.pop(key, None)
        else:
            self.cache[key] = ev.obj
        for fn in self._handlers:
            fn(ev)


class InformerFactory:
    """One informer per resource, fed by a single apiserver event handler."""

    def __init__(self, server: APIServer) -> None:
        self.server = server
        self._informers: dict[str, SharedInformer] = {}
        server.add_event_handler(self._on_event)

    def informer(self, api_version: str, kind: str) -> SharedInformer:
        """The informer for a kind; the first call lists existing objects into it."""
        info = self.server.resource(api_version, kind)
        inf = self._informers.get(info.group_resource)
        if inf is None:
            inf = SharedInformer(info.group_resource, api_version)
            self._informers[info.group_resource] = inf
            for obj in self.server.list(api_version, kind):
                inf.cache[object_key(obj)] = obj
        return inf

    def _on_event(self, ev: ObjectEvent) -> None:
        inf = self._informers.get(ev.info.group_resource)
        if inf is not None:
            inf.dispatch(ev)


class WorkQueue:
    """A de-duplicating FIFO of keys drained as clock events (``workqueue.RateLimiting``).

    Without ``rate_limiter``, a sync that raises Conflict or NotFound is retried with
    exponential backoff (10 ms doubling to 1 s), another API error at most 10 times (not
    upstream: the queues not yet on their controller's limiter). Given ``rate_limiter``
    (upstream's, e.g. ``workqueue_rate.default_controller_rate_limiter``), every API
    error requeues the key after ``when(key)`` (``AddRateLimited``), forever or, with
    ``max_retries``, while ``NumRequeues`` is below it; success ``Forget``s it.

    ``add_after`` is the delaying queue's: a key already waiting keeps the earlier of its
    two ready times (``waitingEntryByData``), and a delay of zero or less adds at once.
    """

    def __init__(
        self,
        clock: SimClock,
        sync: Callable[[str], None],
        *,
        name: str,
        priority: Priority = Priority.NORMAL,
        rate_limiter: RateLimiter | None = None,
        max_retries: int | None = None,
    ) -> None:
        self.name = name
        self._clock = clock
        self._sync = sync
        self._priority = priority
        self._queue: list[str] = []
        self._dirty: set[str] = set()
        self._scheduled = False
        self._failures: dict[str, int] = {}
        self._waiting: dict[str, tuple[Instant, Timer]] = {}  # key -> its pending AddAfter
        self.rate_limiter = rate_limiter
        self.max_retries = max_retries

    def add(self, key: str) -> None:
        """Queue ``key`` unless it is already waiting."""
        if key in self._dirty:
            return
        self._dirty.add(key)
        self._queue.append(key)
        if not self._scheduled:
            self._scheduled = True
            self._clock.call_later(Duration(0), self._drain, priority=self._priority)

    def add_after(self, key: str, delay: Duration) -> None:
        """``AddAfter``: queue ``key`` after ``delay`` of simulated time, unless it is
        already waiting to be queued no later than that."""
        if delay <= 0:
            self.add(key)
            return
        at = Instant(self._clock.now() + delay)
        waiting = self._waiting.get(key)
        if waiting is not None:
            if waiting[0] <= at:
                return
            waiting[1].cancel()  # the earlier ready time replaces it
        timer = self._clock.call_at(at, lambda: self._ready(key), priority=self._priority)
        self._waiting[key] = (at, timer)

    def _ready(self, key: str) -> None:
        del self._waiting[key]
        self.add(key)

    def ready_at(self, key: str) -> Instant | None:
        """When ``key``'s pending ``add_after`` queues it, or None if it is not waiting."""
        waiting = self._waiting.get(key)
        return waiting[0] if waiting is not None else None

    def add_rate_limited(self, key: str) -> None:
        """``AddRateLimited``: ``add_after(key, rate_limiter.when(key))``."""
        assert self.rate_limiter is not None, f"{self.name}: no rate limiter"
        self.add_after(key, self.rate_limiter.when(key))

    def forget(self, key: str) -> None:
        """``Forget``: the rate limiter stops tracking ``key``."""
        if self.rate_limiter is not None:
            self.rate_limiter.forget(key)
        self._failures.pop(key, None)

    def __len__(self) -> int:
        return len(self._queue)

    def num_requeues(self, key: str) -> int:
        """``NumRequeues``: the key's failures since its last success."""
        if self.rate_limiter is not None:
            return self.rate_limiter.num_requeues(key)
        return self._failures.get(key, 0)

    def _drain(self) -> None:
        self._scheduled = False
        batch, self._queue = self._queue, []
        for key in batch:
            self._dirty.discard(key)
            if self.rate_limiter is not None:
                self._run_rate_limited(key, self.rate_limiter)
                continue
            try:
                self._sync(key)
                self._failures.pop(key, None)
            except (Conflict, NotFound):
                n = self._failures[key] = self._failures.get(key, 0) + 1
                self.add_after(key, millis(min(5 * 2**n, 1000)))
            except ApiError:
                n = self._failures[key] = self._failures.get(key, 0) + 1
                if n <= 10:
                    self.add_after(key, millis(min(5 * 2**n, 1000)))

    def _run_rate_limited(self, key: str, limiter: RateLimiter) -> None:
        try:
            self._sync(key)
        except ApiError:
            if self.max_retries is None or limiter.num_requeues(key) < self.max_retries:
                self.add_after(key, limiter.when(key))
                return
        limiter.forget(key)  # synced, or dropped out of the queue
