"""The scheduler's walks over a PodGroup / CompositePodGroup hierarchy (KEP-6012).

Each function models one upstream walk, with its own depth and error rules:

- ``pod_group_states``: ``helper.GetPodGroupStates`` (plugins/helper/podgroup.go), the leaf
  PodGroups below an entity, with one error per entity the lister cannot give and one for
  each entity at depth ``WorkloadMaxTreeDepth`` (4, the root at 0); the walk goes on past
  an error. TopologyPlacement and PodGroupPodsCount read scheduled pods through it.
- ``leaf_pod_groups``: the queue's ``workloadForest.getLeafPodGroups``: no depth limit, a
  missing root gives nothing, a cycle ends the walk.
- ``root_key``: ``GetRootKeyForGroup`` (cache.go / snapshot.go): unlimited, None when an
  entity is missing, an error on a cycle.
- ``hierarchy_snapshot``: ``cacheImpl.BuildHierarchySnapshotFromPod``: the root is looked up
  at most ``WorkloadMaxTreeDepth - 1`` parents above the PodGroup's own parent (so at most 4
  CompositePodGroups above a PodGroup can be its root), then the subtree below it.
- ``hierarchy_error``: what GangScheduling's PreEnqueue (``preEnqueueWithHierarchies``)
  rejects a pod with when that snapshot, or its root lookup, fails.

Entity keys print as upstream's ``EntityKey.String``: ``podgroup/<ns>/<name>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Protocol

__all__ = [
    "CPG",
    "MAX_TREE_DEPTH",
    "PG",
    "HierarchyError",
    "HierarchyLister",
    "HierarchySnapshot",
    "InformerHierarchy",
    "StateLister",
    "entity_key",
    "hierarchy_error",
    "hierarchy_snapshot",
    "leaf_pod_groups",
    "pod_group_states",
    "root_key",
]

Obj = dict[str, Any]
PG: Final = "PodGroup"
CPG: Final = "CompositePodGroup"
MAX_TREE_DEPTH: Final = 4  # schedulingv1alpha3.WorkloadMaxTreeDepth, counting the leaf
_PG_VERSION: Final = "scheduling.k8s.io/v1beta1"
_CPG_VERSION: Final = "scheduling.k8s.io/v1alpha3"


class HierarchyError(Exception):
    """A hierarchy walk failed; the message is upstream's error text."""


def entity_key(kind: str, ns: str, name: str) -> str:
    """``fwk.EntityKey.String()`` (kind PodGroup, CompositePodGroup or Pod)."""
    return f"{kind.lower()}/{ns}/{name}"


def _parent(obj: Obj | None) -> str:
    return str(((obj or {}).get("spec") or {}).get("parentCompositePodGroupName") or "")


class StateLister(Protocol):
    """The snapshot's PodGroupStates / CompositePodGroupStates listers, as
    ``GetPodGroupStates`` reads them (a ``Get`` may fail: ``HierarchyError``)."""

    def pod_group_state(self, ns: str, name: str) -> Obj:
        """The PodGroup, or HierarchyError."""
        ...

    def composite_children(self, ns: str, name: str) -> list[tuple[str, str]]:
        """The (kind, name) children of a CompositePodGroup, or HierarchyError."""
        ...


class HierarchyLister(StateLister, Protocol):
    """The objects themselves; ``children`` lists what names ``name`` as its parent."""

    def pod_group(self, ns: str, name: str) -> Obj | None:
        """The PodGroup object, or None."""
        ...

    def composite(self, ns: str, name: str) -> Obj | None:
        """The CompositePodGroup object, or None."""
        ...

    def children(self, ns: str, name: str) -> tuple[list[Obj], list[Obj]]:
        """The child PodGroups and CompositePodGroups of ``ns/name``, each sorted by name."""
        ...


class InformerHierarchy:
    """A ``HierarchyLister`` over the scheduler's informers. As in upstream's cache, a
    CompositePodGroup named as a parent has a state (children, no object) before its
    object exists; one neither existing nor named has none."""

    def __init__(self, informers: Any) -> None:
        self._informers = informers
        # (ns, parent) -> (child PodGroups, child CompositePodGroups), rebuilt only when
        # either informer's version moves: a tree walk costs O(tree), not O(all groups).
        self._index: dict[tuple[str, str], tuple[list[Obj], list[Obj]]] = {}
        self._index_at: tuple[int, int] | None = None
        self._stores: dict[str, Any] = {}

    def _store(self, kind: str) -> Any:
        # The factory hands out one informer per kind: look it up once (PreEnqueue's path).
        store = self._stores.get(kind)
        if store is None:
            store = self._informers.informer(_PG_VERSION if kind == PG else _CPG_VERSION, kind)
            self._stores[kind] = store
        return store

    def versions(self) -> tuple[int, int] | None:
        """The PodGroup and CompositePodGroup informers' versions (None for stores that
        keep none): equal versions mean equal objects."""
        pg, cpg = getattr(self._store(PG), "version", None), getattr(self._store(CPG), "version", None)
        return (pg, cpg) if isinstance(pg, int) and isinstance(cpg, int) else None

    def _children_index(self) -> dict[tuple[str, str], tuple[list[Obj], list[Obj]]]:
        at = self.versions()
        if at is not None and at == self._index_at:
            return self._index
        index: dict[tuple[str, str], tuple[list[Obj], list[Obj]]] = {}
        for slot, kind in enumerate((PG, CPG)):
            for o in self._store(kind).items():  # key order: names sorted per namespace
                if parent := _parent(o):
                    ns = o["metadata"].get("namespace", "default")
                    index.setdefault((ns, parent), ([], []))[slot].append(o)
        self._index, self._index_at = index, at
        return index

    def pod_group(self, ns: str, name: str) -> Obj | None:
        """The PodGroup object, or None."""
        obj: Obj | None = self._store(PG).get(f"{ns}/{name}")
        return obj

    def composite(self, ns: str, name: str) -> Obj | None:
        """The CompositePodGroup object, or None."""
        obj: Obj | None = self._store(CPG).get(f"{ns}/{name}")
        return obj

    def children(self, ns: str, name: str) -> tuple[list[Obj], list[Obj]]:
        """The child PodGroups and CompositePodGroups of ``ns/name``, each sorted by name."""
        pgs, cpgs = self._children_index().get((ns, name), ([], []))
        by_name = lambda o: str(o["metadata"]["name"])  # noqa: E731
        return sorted(pgs, key=by_name), sorted(cpgs, key=by_name)

    def pod_group_state(self, ns: str, name: str) -> Obj:
        """Snapshot ``PodGroupStates().Get``."""
        pg = self.pod_group(ns, name)
        if pg is None:
            raise HierarchyError(f"pod group state not found for pod group {ns}/{name}")
        return pg

    def composite_children(self, ns: str, name: str) -> list[tuple[str, str]]:
        """Snapshot ``CompositePodGroupStates().Get(...).GetChildren()``."""
        pgs, cpgs = self.children(ns, name)
        if self.composite(ns, name) is None and not pgs and not cpgs:
            raise HierarchyError(f"composite pod group state not found for pod group {ns}/{name}")
        return [(PG, o["metadata"]["name"]) for o in pgs] + [
            (CPG, o["metadata"]["name"]) for o in cpgs
        ]


def pod_group_states(
    lister: StateLister, kind: str, ns: str, name: str
) -> list[tuple[Obj | None, str]]:
    """``GetPodGroupStates``: each leaf PodGroup below ``kind ns/name`` (itself for a
    PodGroup) as ``(pg, "")``, each failure as ``(None, message)``, in walk order."""
    out: list[tuple[Obj | None, str]] = []

    def walk(kind: str, name: str, depth: int) -> None:
        if depth >= MAX_TREE_DEPTH:
            out.append((None, f"exceeded maximum hierarchy depth at {entity_key(kind, ns, name)}"))
            return
        try:
            if kind == CPG:
                for child_kind, child in lister.composite_children(ns, name):
                    walk(child_kind, child, depth + 1)
                return
            out.append((lister.pod_group_state(ns, name), ""))
        except HierarchyError as err:
            out.append((None, str(err)))

    walk(kind, name, 0)
    return out


def leaf_pod_groups(
    lister: HierarchyLister, kind: str, ns: str, name: str, *, composite: bool = True
) -> list[Obj]:
    """``workloadForest.getLeafPodGroups``: every PodGroup below the root, at any depth;
    nothing for a missing root, and no CompositePodGroups with the gate off. Upstream
    walks breadth-first over unordered sets; here each level's PodGroups come first, then
    each child CompositePodGroup's subtree (depth-first), names sorted."""
    if kind == PG:
        pg = lister.pod_group(ns, name)
        return [pg] if pg is not None else []
    out: list[Obj] = []
    if not composite or lister.composite(ns, name) is None:
        return out
    seen: set[str] = set()

    def walk(cpg: str) -> bool:
        if cpg in seen:
            return False  # a cycle: upstream logs it and returns what it has
        seen.add(cpg)
        pgs, cpgs = lister.children(ns, cpg)
        out.extend(pgs)
        return all(walk(c["metadata"]["name"]) for c in cpgs)

    walk(name)
    return out


def root_key(
    lister: HierarchyLister, kind: str, ns: str, name: str, *, composite: bool = True
) -> tuple[str, str] | None:
    """``GetRootKeyForGroup``: the topmost (kind, name) above ``kind ns/name``; None when
    an entity on the way is missing; HierarchyError on a cycle. Without the
    CompositePodGroup gate a PodGroup is its own root."""
    seen: list[str] = []
    while True:
        key = entity_key(kind, ns, name)
        if kind not in (PG, CPG):
            raise HierarchyError(f"pod key type not supported in GetRootKeyForGroup for {key}")
        if key in seen:
            raise HierarchyError(f"cycle detected in the hierarchy: [{' '.join(seen)}]")
        seen.append(key)
        obj = lister.pod_group(ns, name) if kind == PG else lister.composite(ns, name)
        if obj is None:
            return None
        parent = _parent(obj)
        if not parent or (kind == PG and not composite):
            return kind, name
        kind, name = CPG, parent


@dataclass(slots=True)
class HierarchySnapshot:
    """The entities ``BuildHierarchySnapshotFromPod`` copies: keys ``ns/name``."""

    pod_groups: list[str] = field(default_factory=list)
    composites: list[str] = field(default_factory=list)


def _snapshot_root(lister: HierarchyLister, ns: str, group: str, composite: bool) -> tuple[str, str]:
    """The first half of ``BuildHierarchySnapshotFromPod``: the root it builds from."""
    key = entity_key(PG, ns, group)
    pg = lister.pod_group(ns, group)
    if pg is None:
        # A pod of the group gives it a state; the object is what is missing.
        raise HierarchyError(f"pod group object not found in state for {key}")
    kind, name = PG, group
    if composite and _parent(pg):
        kind, name = CPG, _parent(pg)
        for _ in range(MAX_TREE_DEPTH - 1):
            cpg = lister.composite(ns, name)
            if cpg is None:
                # Its child gave it a (placeholder) state; the object is what is missing.
                raise HierarchyError(
                    f"composite pod group object not found in state for {entity_key(CPG, ns, name)}"
                )
            if not _parent(cpg):
                break
            name = _parent(cpg)
    return kind, name


def hierarchy_snapshot(
    lister: HierarchyLister, pod: Obj, *, composite: bool = True
) -> HierarchySnapshot:
    """``BuildHierarchySnapshotFromPod``: the entities below the root found upwards from
    the pod's PodGroup, or HierarchyError (upstream's message)."""
    group = str((pod["spec"].get("schedulingGroup") or {}).get("podGroupName") or "")
    if not group:
        raise HierarchyError("pod has no scheduling group")
    ns = pod["metadata"].get("namespace", "default")
    kind, name = _snapshot_root(lister, ns, group, composite)
    snap = HierarchySnapshot()
    seen: set[str] = set()

    def build(kind: str, name: str) -> None:
        key = entity_key(kind, ns, name)
        if key in seen:
            raise HierarchyError(f"cycle detected in composite pod group hierarchy: {key}")
        seen.add(key)
        if kind == PG:
            snap.pod_groups.append(f"{ns}/{name}")
            return
        pgs, cpgs = lister.children(ns, name) if composite else ([], [])
        if lister.composite(ns, name) is None and not pgs and not cpgs:
            raise HierarchyError(f"composite pod group state not found for {key}")
        snap.composites.append(f"{ns}/{name}")
        for pg in pgs:
            build(PG, pg["metadata"]["name"])
        for cpg in cpgs:
            build(CPG, cpg["metadata"]["name"])

    build(kind, name)
    return snap


def hierarchy_error(lister: HierarchyLister, ns: str, group: str) -> str | None:
    """Why ``preEnqueueWithHierarchies`` rejects a pod of PodGroup ``ns/group``
    (UnschedulableAndUnresolvable), or None. Its snapshot fails as above; then the root of
    the pod's parent must be found inside that snapshot (``checkCPGHierarchyReadiness``),
    which fails when the snapshot's root still has a parent (more than 4 levels) or has no
    object. Only the upward walks are run: the downward one fails only on a cycle, and a
    cycle is a loop of parents through the snapshot's root."""
    try:
        kind, name = _snapshot_root(lister, ns, group, True)
    except HierarchyError as err:
        return f"failed to build hierarchy snapshot: {err}"
    if kind == PG:
        return None
    top = lister.composite(ns, name)
    at, seen = _parent(top), {name}
    while at and at not in seen:
        seen.add(at)
        at = _parent(lister.composite(ns, at))
    if at == name:
        key = entity_key(CPG, ns, name)
        return f"failed to build hierarchy snapshot: cycle detected in composite pod group hierarchy: {key}"
    if top is None or _parent(top):
        first = _parent(lister.pod_group(ns, group))
        return (
            "failed to build hierarchy snapshot: composite pod group object not found in state "
            f"for {entity_key(CPG, ns, first)}"
        )
    return None
