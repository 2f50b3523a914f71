"""Every watch cache of one apiserver: warmed at start, kept current, re-listed when its
watch cannot resume after an etcd restart.

Upstream builds a cacher per served resource when the storage is created
(``--watch-cache``; events are not cached: ``DefaultWatchCacheSizes`` sets them to 0),
and each cacher's reflector lists before it serves. Here ``start`` warms every cache in
resource order, then keeps them current from the store's commits.

An etcd restart does not by itself re-list: the etcd client re-opens each watch at the
revision after the last one it received (checked on a live 1.37.2 apiserver: a 25 s etcd
outage left ``apiserver_watch_cache_initializations_total`` unchanged). Only a watch
whose revision has been compacted meanwhile ends with ErrCompacted, which the cacher's
reflector sees as 410 and answers with a new list; ``EtcdServer.on_start`` checks exactly
that and schedules those re-lists at the same simulated instant. etcd's progress
notifications (every 10 minutes, ``--watch-progress-notify-interval``) advance a quiet
watch's revision, so only caches idle past a compaction re-list. All caches share one
``FeatureSupportChecker`` and one ``StorageMetrics``, as upstream shares them per process.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Any, Final

from reference_impl.api.resources import RESOURCES
from reference_impl.apiserver.cacher import WarmupStats, WatchCache
from reference_impl.clock import Duration, Priority, SimClock, seconds
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.storage.feature_support import FeatureSupportChecker
from reference_impl.storage.metrics import StorageMetrics
from reference_impl.storage.mvcc import KeyValue, StoreEvent
from reference_impl.storage.range_stream import EtcdServer

__all__ = ["NOT_CACHED", "REGISTRY_PREFIX", "WatchCaches", "served_resources"]

REGISTRY_PREFIX: Final = "/registry/"
NOT_CACHED: Final = frozenset({"events", "events.events.k8s.io"})
RETRY_S: Final = 1.0
PROGRESS_NOTIFY_S: Final = 600.0  # etcd --watch-progress-notify-interval default
_HISTORY: Final = 2000  # warm-up records kept (memory stays flat across many restarts)


def served_resources(gates: FeatureGates) -> list[tuple[str, str]]:
    """(group, resource) of every stored resource served with these gates."""
    return sorted(
        {
            (r.group, r.plural)
            for r in RESOURCES.values()
            if not r.virtual and all(gates.enabled(g) for g in r.gates)
        }
    )


def _bound(log: Callable[[str, str], None], gr: str) -> Callable[[str], None]:
    return lambda msg: log(gr, msg)


def _same(kv: KeyValue) -> KeyValue:
    return kv  # KeyValues are immutable: the cache keeps them, decoded on read


class WatchCaches:
    """The cachers of the served resources, keyed by storage prefix."""

    def __init__(
        self,
        etcd: EtcdServer,
        resources: Iterable[tuple[str, str]],
        gates: FeatureGates,
        clock: SimClock,
        log: Callable[[str, str], None] = lambda _gr, _msg: None,
    ) -> None:
        self.etcd = etcd
        self._clock = clock
        self.support = FeatureSupportChecker(clock.now)
        self.metrics = StorageMetrics()
        self.warmups: deque[WarmupStats] = deque(maxlen=_HISTORY)
        self.caches: dict[str, WatchCache] = {}
        for group, resource in sorted(set(resources)):
            gr = f"{resource}.{group}" if group else resource
            if gr in NOT_CACHED:
                continue
            self.caches[f"{REGISTRY_PREFIX}{gr}/"] = WatchCache(
                etcd,
                f"{REGISTRY_PREFIX}{gr}/",
                gates,
                keep=_same,
                support=self.support,
                metrics=self.metrics,
                group_resource=(group, resource),
                log=_bound(log, gr),
            )
        self._pending_rewarm = False
        self._expired: list[WatchCache] = []

    def start(self) -> None:
        """Warm every cache, then follow the store and etcd restarts."""
        self.warm("start")
        self.etcd.store.add_listener(self._on_commit)
        self.etcd.on_start(self._on_etcd_start)
        self._clock.call_later(
            seconds(PROGRESS_NOTIFY_S), self._progress_notify, priority=Priority.LATE
        )

    def warm(self, reason: str, only: Iterable[WatchCache] | None = None) -> list[WarmupStats]:
        """Initialize every cache (or ``only`` these) now; the stats of those that made it.

        A cache whose list fails (etcd unreachable) stays not ready and is retried a
        second later, as the cacher's ``wait.Until(startCaching, time.Second)``."""
        out, failed = [], []
        for cache in list(self.caches.values()) if only is None else list(only):
            try:
                stats = cache.initialize(reason)
            except ApiError:
                failed.append(cache)
                continue
            self.warmups.append(stats)
            out.append(stats)
        if failed:
            self._clock.call_later(seconds(RETRY_S), lambda: self._retry(reason, failed))
        return out

    def _retry(self, reason: str, caches: list[WatchCache]) -> None:
        self.warm(reason, [c for c in caches if not c.ready])

    def cache_for(self, group: str, resource: str) -> WatchCache:
        """The cache of a resource; KeyError when it is not cached."""
        gr = f"{resource}.{group}" if group else resource
        return self.caches[f"{REGISTRY_PREFIX}{gr}/"]

    def objects(self, group: str, resource: str) -> dict[str, dict[str, Any]]:
        """A cache's contents, decoded: storage key -> object."""
        return {k: kv.decode() for k, kv in self.cache_for(group, resource).items.items()}

    def history(self, resource: str | None = None) -> list[dict[str, Any]]:
        """The warm-ups so far (oldest first), optionally of one ``resource.group``."""
        return [asdict(s) for s in self.warmups if resource is None or s.resource == resource]

    def _on_commit(self, ev: StoreEvent) -> None:
        key = ev.kv.key
        end = key.find("/", len(REGISTRY_PREFIX))
        cache = self.caches.get(key[: end + 1]) if end > 0 else None
        if cache is not None:
            cache.apply(ev)

    def _on_etcd_start(self) -> None:
        compacted = self.etcd.store.compacted_revision
        # The client resumes at the revision after the last one it got; etcd refuses a
        # watch whose start is below the compacted revision (mvcc: minRev < compactRev).
        expired = [c for c in self.caches.values()
                   if not c.ready or c.resource_version + 1 < compacted]
        for cache in expired:
            cache.ready = False  # the resumed watch got ErrCompacted: relist
        self._expired.extend(c for c in expired if c not in self._expired)
        if expired and not self._pending_rewarm:
            self._pending_rewarm = True
            self._clock.call_later(Duration(0), self._rewarm, priority=Priority.URGENT)

    def _rewarm(self) -> None:
        self._pending_rewarm = False
        expired, self._expired = self._expired, []
        self.warm("etcd-restart", expired)

    def _progress_notify(self) -> None:
        # A progress notification tells each synced watch the current revision.
        if self.etcd.store.available:
            rev = self.etcd.store.revision
            for cache in self.caches.values():
                if cache.ready:
                    cache.resource_version = max(cache.resource_version, rev)
        self._clock.call_later(
            seconds(PROGRESS_NOTIFY_S), self._progress_notify, priority=Priority.LATE
        )
