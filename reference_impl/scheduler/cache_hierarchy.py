"""Models the hierarchy readers of pkg/scheduler/backend/cache (cache.go, snapshot.go).

- ``get_root_key_for_group``: ``GetRootKeyForGroup`` over a cache's (or a hierarchy
  snapshot's) pod-group states: the topmost group above a key, ``(None, False)`` when a
  state or its object on the way is missing, ``HierarchyError`` on a cycle or a Pod key.
- ``build_hierarchy_snapshot_from_pod``: ``cacheImpl.BuildHierarchySnapshotFromPod``: the
  root is looked up at most ``WorkloadMaxTreeDepth - 1`` parents above the pod's
  PodGroup's parent, then every state below it goes into a ``HierarchySnapshot``.

Deviation, for O(1) per pod: upstream clones each state into the snapshot; here the
snapshot holds the live states. Its readers (GangScheduling's PreEnqueue) use it at once,
inside the same event, so nothing can change in between.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.scheduler.cache_podgroups import PodGroupCache
from reference_impl.scheduler.framework.workload_forest import (
    COMPOSITE_POD_GROUP_KEY_TYPE,
    POD_GROUP_KEY_TYPE,
    EntityKey,
    composite_pod_group_key,
    pod_group_key_for_pod,
)
from reference_impl.scheduler.plugins.podgroup_tree import HierarchyError

__all__ = [
    "HierarchySnapshot",
    "build_hierarchy_snapshot_from_pod",
    "get_root_key_for_group",
]

Obj = dict[str, Any]
MAX_TREE_DEPTH: Final = 4  # schedulingv1alpha3.WorkloadMaxTreeDepth


def _parent(obj: Obj | None) -> str:
    return str(((obj or {}).get("spec") or {}).get("parentCompositePodGroupName") or "")


def get_root_key_for_group(states: PodGroupCache, key: EntityKey) -> tuple[EntityKey | None, bool]:
    """``GetRootKeyForGroup`` (cache.go and snapshot.go walk alike). Without the
    CompositePodGroup gate a PodGroup is its own root; a CompositePodGroup key is walked
    regardless (snapshot.go's rows)."""
    current = key
    visited: list[EntityKey] = []
    while True:
        if current in visited:
            raise HierarchyError(
                f"cycle detected in the hierarchy: [{' '.join(str(k) for k in visited)}]"
            )
        visited.append(current)
        if current.type == POD_GROUP_KEY_TYPE:
            pgs = states.pod_group_states.get(current)
            pg = pgs.pod_group if pgs is not None else None
            if pg is None:
                return None, False
            if not states.composite_pod_group_enabled or not _parent(pg):
                return current, True
            current = composite_pod_group_key(current.namespace, _parent(pg))
        elif current.type == COMPOSITE_POD_GROUP_KEY_TYPE:
            cpgs = states.composite_pod_group_states.get(current)
            cpg = cpgs.composite_pod_group if cpgs is not None else None
            if cpg is None:
                return None, False
            if not _parent(cpg):
                return current, True
            current = composite_pod_group_key(current.namespace, _parent(cpg))
        else:
            raise HierarchyError(f"pod key type not supported in GetRootKeyForGroup for {current}")


class HierarchySnapshot(PodGroupCache):
    """The states of one hierarchy (``NewEmptySnapshot`` filled by
    ``buildPodGroupStateSnapshotTree``), with the cache's listers over them.
    ``BuildHierarchySnapshotFromPod`` on it returns itself (snapshot.go)."""

    def build_hierarchy_snapshot_from_pod(self, pod: Obj) -> HierarchySnapshot:
        """snapshot.go's ``BuildHierarchySnapshotFromPod``: the snapshot itself."""
        return self


def build_hierarchy_snapshot_from_pod(cache: PodGroupCache, pod: Obj) -> HierarchySnapshot:
    """``cacheImpl.BuildHierarchySnapshotFromPod``, or HierarchyError (upstream's text)."""
    key = pod_group_key_for_pod(pod)
    if key is None:
        raise HierarchyError("pod has no scheduling group")
    pgs = cache.pod_group_states.get(key)
    if pgs is None:
        raise HierarchyError(f"pod group state not found for {key}")
    if pgs.pod_group is None:
        raise HierarchyError(f"pod group object not found in state for {key}")
    current = key
    if cache.composite_pod_group_enabled and (parent := _parent(pgs.pod_group)):
        current = composite_pod_group_key(key.namespace, parent)
        for _ in range(MAX_TREE_DEPTH - 1):
            cpgs = cache.composite_pod_group_states.get(current)
            if cpgs is None:
                raise HierarchyError(f"parent composite pod group state not found for {current}")
            if cpgs.composite_pod_group is None:
                raise HierarchyError(
                    f"composite pod group object not found in state for {current}"
                )
            if not (parent := _parent(cpgs.composite_pod_group)):
                break
            current = composite_pod_group_key(key.namespace, parent)
    snap = HierarchySnapshot(cache.generic_workload_enabled, cache.composite_pod_group_enabled)
    visited: set[EntityKey] = set()

    def build(at: EntityKey) -> None:
        if at in visited:
            raise HierarchyError(f"cycle detected in composite pod group hierarchy: {at}")
        visited.add(at)
        if at.type == POD_GROUP_KEY_TYPE:
            state = cache.pod_group_states.get(at)
            if state is None:
                raise HierarchyError(f"pod group state not found for {at}")
            snap.pod_group_states[at] = state
            return
        cstate = cache.composite_pod_group_states.get(at)
        if cstate is None:
            raise HierarchyError(f"composite pod group state not found for {at}")
        snap.composite_pod_group_states[at] = cstate
        for child in list(cstate.children):
            build(child)

    build(current)
    return snap
