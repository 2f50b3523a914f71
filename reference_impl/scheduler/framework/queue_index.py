"""The unschedulable pool with event-to-pods indexes (queueing hints, DRA-REQUEUE).

Upstream ``unschedulablePods`` is a plain map scanned on every cluster event. Here the pool
also keeps, per rejecting plugin, the pods that plugin rejected, and for plugins that offer
a ``QueueIndex`` an index from keys (e.g. ``class:<DeviceClass>``) to those pods. An event
then only examines the pods under the keys the event can help, so its cost does not grow
with the number of pending pods that it cannot help.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

from reference_impl.scheduler.framework.interface import ClusterEvent, EventResource
from reference_impl.scheduler.framework.types import QueuedPodInfo

__all__ = ["QueueIndex", "UnschedulablePool"]

Obj = dict[str, Any]


@runtime_checkable
class QueueIndex(Protocol):
    """A plugin's index between pods it rejected and the events that may help them."""

    def pod_index_keys(self, pod: Obj) -> Iterable[str] | None:
        """Keys of a pod this plugin rejected; None = not indexable (examined on every event)."""
        ...

    def event_index_keys(
        self, event: ClusterEvent, old: Obj | None, new: Obj | None
    ) -> Iterable[str] | None:
        """Keys of the pods ``event`` may help; None = every pod this plugin rejected."""
        ...


def _rejectors(p: QueuedPodInfo) -> set[str]:
    return p.unschedulable_plugins | p.pending_plugins


class UnschedulablePool(Mapping[str, QueuedPodInfo]):
    """Pod key -> QueuedPodInfo, with per-plugin membership and indexes kept in step."""

    def __init__(self) -> None:
        self._pods: dict[str, QueuedPodInfo] = {}
        self._indexes: dict[str, QueueIndex] = {}
        self._by_plugin: dict[str, set[str]] = {}
        self._unindexed: dict[str, set[str]] = {}
        self._by_key: dict[str, dict[str, set[str]]] = {}
        self._entries: dict[str, list[tuple[str, str]]] = {}  # pod -> (plugin, index key)
        self._rejected: dict[str, frozenset[str]] = {}  # pod -> rejectors when it joined
        self._no_rejector: set[str] = set()

    def register_index(self, plugin: str, index: QueueIndex) -> None:
        """Index the pods ``plugin`` rejects (before any pod joins the pool)."""
        self._indexes[plugin] = index

    # -- the mapping ------------------------------------------------------------------

    def __getitem__(self, key: str) -> QueuedPodInfo:
        return self._pods[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._pods)

    def __len__(self) -> int:
        return len(self._pods)

    def __setitem__(self, key: str, pinfo: QueuedPodInfo) -> None:
        self.pop(key, None)
        self._pods[key] = pinfo
        rejectors = frozenset(_rejectors(pinfo))
        self._rejected[key] = rejectors
        if not rejectors:
            self._no_rejector.add(key)
        entries: list[tuple[str, str]] = []
        for plugin in rejectors:
            self._by_plugin.setdefault(plugin, set()).add(key)
            index = self._indexes.get(plugin)
            if index is None:
                continue
            keys = _safe(lambda: index.pod_index_keys(pinfo.pod))  # noqa: B023
            if keys is None:
                self._unindexed.setdefault(plugin, set()).add(key)
                entries.append((plugin, ""))
                continue
            for k in set(keys):
                self._by_key.setdefault(plugin, {}).setdefault(k, set()).add(key)
                entries.append((plugin, k))
        self._entries[key] = entries

    def __delitem__(self, key: str) -> None:
        if self.pop(key, None) is None:
            raise KeyError(key)

    def pop(self, key: str, default: Any = None) -> Any:
        """Remove ``key`` from the pool and from every index."""
        pinfo = self._pods.pop(key, None)
        if pinfo is None:
            return default
        self._no_rejector.discard(key)
        for plugin in self._rejected.pop(key, frozenset()):
            _discard(self._by_plugin, plugin, key)
        for plugin, k in self._entries.pop(key, ()):
            if not k:
                _discard(self._unindexed, plugin, key)
                continue
            by_key = self._by_key[plugin]
            _discard(by_key, k, key)
        return pinfo

    # -- candidates of an event ---------------------------------------------------------

    def candidates(
        self, event: ClusterEvent, old: Obj | None, new: Obj | None, interested: frozenset[str],
        narrowed: dict[str, set[str]] | None = None,
    ) -> set[str]:
        """Pods ``event`` might help: no recorded rejector, or rejected by an interested
        plugin and (for indexed plugins) under a key the event names.

        ``narrowed`` receives, per indexed plugin that narrowed, the pods it named: upstream
        runs that plugin's QueueingHint only for those (``isPodWorthRequeuing``'s
        per-plugin PreQueueingHint narrowing). As ``runPreQueueingHintPlugins``, an event
        with neither object is never narrowed."""
        if event.resource is EventResource.WILDCARD:
            return set(self._pods)
        out = set(self._no_rejector)
        both_nil = old is None and new is None
        for plugin in interested:
            if plugin not in self._by_plugin:
                continue  # no waiting pod was rejected by it (its index keys are a subset)
            index = self._indexes.get(plugin)
            keys = None if index is None or both_nil else _safe(lambda: index.event_index_keys(event, old, new))  # noqa: B023
            if keys is None:
                out |= self._by_plugin.get(plugin, set())
                continue
            named = set(self._unindexed.get(plugin, set()))
            by_key = self._by_key.get(plugin, {})
            for k in keys:
                named |= by_key.get(k, set())
            out |= named
            if narrowed is not None:
                narrowed[plugin] = named
        return out


def _safe(fn: Any) -> Iterable[str] | None:
    # A failing index must never lose a pod: fall back to "not indexable".
    try:
        keys = fn()
    except Exception:  # noqa: BLE001
        return None
    return None if keys is None else list(keys)


def _discard(m: dict[str, set[str]], k: str, key: str) -> None:
    s = m.get(k)
    if s is not None:
        s.discard(key)
        if not s:
            del m[k]
