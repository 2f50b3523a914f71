"""Models pkg/scheduler/backend/queue/workload_forest.go: the queue's forest of groups.

The scheduling queue keeps its own view of the PodGroups and CompositePodGroups it has
observed, to find a pod's root group (the entity upstream queues) and the PodGroups below
a root. A child is linked to its parent's key when the child arrives, whether or not the
parent has been observed yet, so a late parent finds its children without a scan; a root
lookup fails (None) while any CompositePodGroup on the way up is missing, or on a cycle.
With the CompositePodGroup gate off a PodGroup is never linked to a parent: it is its
own root.

Upstream iterates Go sets (no order); here children are visited PodGroups first, then
CompositePodGroups, each by name, so every walk is deterministic.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from reference_impl.scheduler.framework.types import QueuedPodInfo

__all__ = [
    "COMPOSITE_POD_GROUP_KEY_TYPE",
    "POD_GROUP_KEY_TYPE",
    "EntityKey",
    "PodGroupInfo",
    "QueuedPodGroupInfo",
    "WorkloadForest",
    "composite_pod_group_key",
    "pod_group_key",
    "pod_group_key_for_pod",
    "pod_group_key_of",
]

Obj = dict[str, Any]
POD_GROUP_KEY_TYPE: Final = "podgroup"  # fwk.PodGroupKeyType
COMPOSITE_POD_GROUP_KEY_TYPE: Final = "compositepodgroup"  # fwk.CompositePodGroupKeyType
_KIND_ORDER: Final = {POD_GROUP_KEY_TYPE: 0, COMPOSITE_POD_GROUP_KEY_TYPE: 1}


@dataclass(frozen=True, slots=True)
class EntityKey:
    """``fwk.EntityKey``: the kind, namespace and name of a queued entity."""

    type: str
    namespace: str
    name: str
    # The fields' hash, made once: keys are looked up in dicts many times per pod.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.type, self.namespace, self.name)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, tuple[str, str, str]]:
        # Rebuilt through __init__: a str hash differs from one process to the next.
        return EntityKey, (self.type, self.namespace, self.name)

    def __str__(self) -> str:
        return f"{self.type}/{self.namespace}/{self.name}"


# Frozen keys, asked for several times per queued pod: each is made once (while cached).
@lru_cache(maxsize=4096)
def _entity_key(type_: str, namespace: str, name: str) -> EntityKey:
    return EntityKey(type_, namespace, name)


@lru_cache(maxsize=4096)
def pod_group_key(namespace: str, name: str) -> EntityKey:
    """``fwk.PodGroupKey``."""
    return _entity_key(POD_GROUP_KEY_TYPE, namespace, name)


@lru_cache(maxsize=1024)
def composite_pod_group_key(namespace: str, name: str) -> EntityKey:
    """``fwk.CompositePodGroupKey``."""
    return _entity_key(COMPOSITE_POD_GROUP_KEY_TYPE, namespace, name)


def _ns_name(obj: Obj) -> tuple[str, str]:
    meta = obj["metadata"]
    return str(meta.get("namespace", "default")), str(meta["name"])


def _parent(obj: Obj) -> str:
    return str((obj.get("spec") or {}).get("parentCompositePodGroupName") or "")


def pod_group_key_of(pg: Obj) -> EntityKey:
    """The key of a PodGroup object."""
    return pod_group_key(*_ns_name(pg))


def _cpg_key(cpg: Obj) -> EntityKey:
    return composite_pod_group_key(*_ns_name(cpg))


def pod_group_key_for_pod(pod: Obj) -> EntityKey | None:
    """``podGroupKeyForPod``: the key of the pod's PodGroup; None for a pod without one."""
    name = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName")
    if not name:
        return None
    return pod_group_key(str(pod["metadata"].get("namespace", "default")), str(name))


def _child_order(key: EntityKey) -> tuple[int, str]:
    return _KIND_ORDER[key.type], key.name


@dataclass(slots=True)
class PodGroupInfo:
    """``framework.PodGroupInfo``: a (Composite)PodGroup and the subtree below it; a root
    lookup carries only the namespace, name and type."""

    namespace: str
    name: str
    type: str
    pod_group: Obj | None = None
    composite_pod_group: Obj | None = None
    children: list[PodGroupInfo] | None = None

    @property
    def key(self) -> EntityKey:
        """The entity's key."""
        return _entity_key(self.type, self.namespace, self.name)


@dataclass(slots=True)
class QueuedPodGroupInfo:
    """``framework.QueuedPodGroupInfo``: a root group as the queue holds it, its pods by
    leaf PodGroup (None for a root lookup, which names the root only)."""

    pod_group_info: PodGroupInfo
    queued_pod_infos: dict[EntityKey, list[QueuedPodInfo]] | None = field(default=None)

    @property
    def key(self) -> EntityKey:
        """The root's key."""
        return self.pod_group_info.key


def _lookup(type_: str, namespace: str, name: str) -> QueuedPodGroupInfo:
    return QueuedPodGroupInfo(PodGroupInfo(namespace, name, type_))


class WorkloadForest:
    """``workloadForest``: the (Composite)PodGroups the queue has observed, and each
    parent key's children (kept even while the parent itself is unobserved)."""

    def __init__(self, is_composite_pod_group_enabled: bool) -> None:
        self.pod_groups: dict[EntityKey, Obj] = {}
        self.composite_pod_groups: dict[EntityKey, Obj] = {}
        self.children: dict[EntityKey, set[EntityKey]] = {}
        self.is_composite_pod_group_enabled = is_composite_pod_group_enabled
        # The latest cycles met by the walks (upstream's utilruntime.HandleError).
        self.errors: deque[str] = deque(maxlen=16)

    # -- bookkeeping ----------------------------------------------------------------------

    def add_pod_group(self, pg: Obj) -> None:
        """``addPodGroup``: record ``pg`` and link it under its parent's key."""
        key = pod_group_key_of(pg)
        self.pod_groups[key] = pg
        if self.pod_group_has_parent(pg):
            self._link(composite_pod_group_key(key.namespace, _parent(pg)), key)

    def update_pod_group(self, pg: Obj) -> None:
        """``updatePodGroup``: the parent is immutable, so only the object changes."""
        self.pod_groups[pod_group_key_of(pg)] = pg

    def delete_pod_group(self, pg: Obj) -> None:
        """``deletePodGroup``: forget ``pg`` and unlink it from its parent's key."""
        key = pod_group_key_of(pg)
        self.pod_groups.pop(key, None)
        if self.pod_group_has_parent(pg):
            self._unlink(composite_pod_group_key(key.namespace, _parent(pg)), key)

    def add_composite_pod_group(self, cpg: Obj) -> None:
        """``addCompositePodGroup``: record ``cpg`` and link it under its parent's key."""
        key = _cpg_key(cpg)
        self.composite_pod_groups[key] = cpg
        if parent := _parent(cpg):
            self._link(composite_pod_group_key(key.namespace, parent), key)

    def update_composite_pod_group(self, cpg: Obj) -> None:
        """``updateCompositePodGroup``."""
        self.composite_pod_groups[_cpg_key(cpg)] = cpg

    def delete_composite_pod_group(self, cpg: Obj) -> None:
        """``deleteCompositePodGroup``: its own children stay linked under its key."""
        key = _cpg_key(cpg)
        self.composite_pod_groups.pop(key, None)
        if parent := _parent(cpg):
            self._unlink(composite_pod_group_key(key.namespace, parent), key)

    def _link(self, parent: EntityKey, child: EntityKey) -> None:
        self.children.setdefault(parent, set()).add(child)

    def _unlink(self, parent: EntityKey, child: EntityKey) -> None:
        siblings = self.children.get(parent)
        if siblings is None:
            return
        siblings.discard(child)
        if not siblings:
            del self.children[parent]

    def _children_of(self, key: EntityKey) -> list[EntityKey]:
        return sorted(self.children.get(key, ()), key=_child_order)

    # -- lookups --------------------------------------------------------------------------

    def get_pod_group(self, lookup: Obj) -> Obj | None:
        """``getPodGroup``: the current object for ``lookup``'s namespace and name."""
        return self.pod_groups.get(pod_group_key_of(lookup))

    def get_composite_pod_group(self, lookup: Obj) -> Obj | None:
        """``getCompositePodGroup``."""
        return self.composite_pod_groups.get(_cpg_key(lookup))

    def get_root_lookup_info_for_pod(self, pod: Obj) -> QueuedPodGroupInfo | None:
        """``getRootLookupInfoForPod``: the root above the pod's PodGroup; None while the
        PodGroup or an ancestor is unobserved."""
        key = pod_group_key_for_pod(pod)
        pg = self.pod_groups.get(key) if key is not None else None
        if pg is None:
            return None
        # ``pg`` is the current object (pod_groups is keyed by each object's own key).
        return self._root_lookup_info_for_current(pg)

    def get_root_lookup_info_for_pod_group(self, pg: Obj) -> QueuedPodGroupInfo | None:
        """``getRootLookupInfoForPodGroup``: the current object decides the parent."""
        current = self.pod_groups.get(pod_group_key_of(pg))
        if current is None:
            return None
        return self._root_lookup_info_for_current(current)

    def _root_lookup_info_for_current(self, current: Obj) -> QueuedPodGroupInfo | None:
        ns, name = _ns_name(current)
        if not self.pod_group_has_parent(current):
            return _lookup(POD_GROUP_KEY_TYPE, ns, name)
        return self._root_lookup_info_for_parent_cpg(_parent(current), ns)

    def get_root_lookup_info_for_cpg(self, cpg: Obj) -> QueuedPodGroupInfo | None:
        """``getRootLookupInfoForCPG``: the topmost CompositePodGroup above (or at) ``cpg``."""
        ns, name = _ns_name(cpg)
        return self._root_lookup_info_for_parent_cpg(name, ns)

    def _root_lookup_info_for_parent_cpg(self, parent: str, ns: str) -> QueuedPodGroupInfo | None:
        """``getRootLookupInfoForParentCPG``: up the parents to one that has none."""
        name, visited = parent, set[EntityKey]()
        while True:
            key = composite_pod_group_key(ns, name)
            if key in visited:
                self.errors.append(f"cycle detected in composite pod group hierarchy: {parent}/{ns}")
                return None
            visited.add(key)
            cpg = self.composite_pod_groups.get(key)
            if cpg is None:
                return None
            if not (name := _parent(cpg)):
                return _lookup(COMPOSITE_POD_GROUP_KEY_TYPE, *_ns_name(cpg))

    def get_leaf_pod_groups(self, root: QueuedPodGroupInfo) -> list[Obj]:
        """``getLeafPodGroups``: the PodGroups below ``root`` at any depth, breadth first
        (a PodGroup root: itself, if observed). A cycle ends the walk with what it has."""
        info = root.pod_group_info
        if info.type == POD_GROUP_KEY_TYPE:
            pg = self.pod_groups.get(info.key)
            return [pg] if pg is not None else []
        out: list[Obj] = []
        queue, visited = deque([info.key]), set[EntityKey]()
        while queue:
            key = queue.popleft()
            if key in visited:
                self.errors.append(f"cycle detected in composite pod group hierarchy: {info.name}/{info.namespace}")
                return out
            visited.add(key)
            for child in self._children_of(key):
                if (pg := self.pod_groups.get(child)) is not None:
                    out.append(pg)
                if child in self.composite_pod_groups:
                    queue.append(child)
        return out

    # -- queued group trees -----------------------------------------------------------------

    def build_pod_group_info_for_pg(self, pg: Obj, visited: set[EntityKey]) -> PodGroupInfo | None:
        """``buildPodGroupInfoForPG``: a leaf node; None if ``pg`` was visited (a cycle)."""
        key = pod_group_key_of(pg)
        if key in visited:
            self.errors.append(f"cycle detected in composite pod group hierarchy: {key}")
            return None
        visited.add(key)
        return PodGroupInfo(key.namespace, key.name, POD_GROUP_KEY_TYPE, pod_group=pg, children=[])

    def build_pod_group_info_for_cpg(self, cpg: Obj, visited: set[EntityKey]) -> PodGroupInfo | None:
        """``buildPodGroupInfoForCPG``: ``cpg`` and its observed subtree."""
        key = _cpg_key(cpg)
        if key in visited:
            self.errors.append(f"cycle detected in composite pod group hierarchy: {key}")
            return None
        visited.add(key)
        children: list[PodGroupInfo] = []
        info = PodGroupInfo(key.namespace, key.name, COMPOSITE_POD_GROUP_KEY_TYPE,
                            composite_pod_group=cpg, children=children)
        for child in self._children_of(key):
            sub: PodGroupInfo | None = None
            if (pg := self.pod_groups.get(child)) is not None:
                sub = self.build_pod_group_info_for_pg(pg, visited)
            elif (ccpg := self.composite_pod_groups.get(child)) is not None:
                sub = self.build_pod_group_info_for_cpg(ccpg, visited)
            if sub is not None:
                children.append(sub)
        return info

    def pod_group_has_parent(self, pg: Obj) -> bool:
        """``podGroupHasParent``: a parent is named and the CompositePodGroup gate is on."""
        return self.is_composite_pod_group_enabled and bool(_parent(pg))
