"""Models the pod-group part of pkg/scheduler/backend/cache/cache.go.

The cache keeps a ``PodGroupState`` per PodGroup key (GenericWorkload on) and a
``CompositePodGroupState`` per CompositePodGroup key (CompositePodGroup on). Pods enter
a group's state from the event handlers (``AddPodGroupMember`` for a queued pod) and from
the cache's own pod operations (assume, forget, add, update, remove); the (Composite)
PodGroup objects from their informers. A state is dropped once it holds neither pods nor
its object; a child's parent gets a placeholder state until the parent is observed.
``SchedulerCache`` (cache.py) inherits this; readers use the ``*_get`` listers.
"""

from __future__ import annotations

from typing import Any

from reference_impl.scheduler.framework.workload_forest import (
    EntityKey,
    composite_pod_group_key,
    pod_group_key,
    pod_group_key_for_pod,
)
from reference_impl.scheduler.podgroupstate import (
    CompositePodGroupState,
    PodGroupState,
    PodGroupStateSnapshot,
    pod_uid,
)

__all__ = ["PodGroupCache"]

Obj = dict[str, Any]


def _ns_name(obj: Obj) -> tuple[str, str]:
    meta = obj["metadata"]
    return str(meta.get("namespace", "default")), str(meta["name"])


def _parent(obj: Obj | None) -> str:
    return str(((obj or {}).get("spec") or {}).get("parentCompositePodGroupName") or "")


class PodGroupCache:
    """The cache's ``podGroupStates`` and ``compositePodGroupStates``."""

    def __init__(self, generic_workload: bool = False, composite_pod_group: bool = False) -> None:
        self.generic_workload_enabled = generic_workload
        self.composite_pod_group_enabled = composite_pod_group
        self.pod_group_states: dict[EntityKey, PodGroupState] = {}
        self.composite_pod_group_states: dict[EntityKey, CompositePodGroupState] = {}

    # -- member pods --------------------------------------------------------------------

    def _member_key(self, pod: Obj) -> EntityKey | None:
        """``isPodGroupMember`` (GenericWorkload on, a scheduling group named): its key."""
        if not self.generic_workload_enabled:
            return None
        return pod_group_key_for_pod(pod)

    def add_pod_group_member(self, pod: Obj) -> None:
        """``AddPodGroupMember``: creates the group's state if needed."""
        if (key := self._member_key(pod)) is None:
            return
        state = self.pod_group_states.get(key)
        if state is None:
            state = self.pod_group_states[key] = PodGroupState()
        state.add_pod(pod)

    def update_pod_group_member(self, old: Obj, new: Obj) -> None:
        """``UpdatePodGroupMember``: a state never added to is left alone (a missed add)."""
        if (key := self._member_key(new)) is None:
            return
        state = self.pod_group_states.get(key)
        if state is not None:
            state.update_pod(old, new)

    def remove_pod_group_member(self, pod: Obj) -> None:
        """``RemovePodGroupMember``: the state goes once empty."""
        if (key := self._member_key(pod)) is None:
            return
        state = self.pod_group_states.get(key)
        if state is None:
            return
        state.delete_pod(pod_uid(pod))
        if state.empty():
            del self.pod_group_states[key]

    def assume_pod_group_member(self, pod: Obj) -> None:
        """``assumePodGroupMember`` (from ``AssumePod``): a state created here stores the
        assumed copy itself, so the pod counts as assigned there (upstream's order)."""
        if (key := self._member_key(pod)) is None:
            return
        state = self.pod_group_states.get(key)
        if state is None:
            state = self.pod_group_states[key] = PodGroupState()
            state.all_pods_map[pod_uid(pod)] = pod
        state.assume_pod(pod)

    def forget_pod_group_member(self, pod: Obj) -> None:
        """``forgetPodGroupMember`` (from ``ForgetPod``): assumed -> unscheduled."""
        if (key := self._member_key(pod)) is None:
            return
        state = self.pod_group_states.get(key)
        if state is not None:
            state.forget_pod(pod_uid(pod))

    def update_pod_group_state_snapshot(
        self, snapshot: dict[EntityKey, PodGroupStateSnapshot]
    ) -> None:
        """``updatePodGroupStateSnapshot``: drop states gone from the cache and copy those
        whose generation moved. (The scheduler's cycles read the live states, as its node
        snapshot is the cache itself; this keeps upstream's copy rule for its callers.)"""
        for key in [k for k in snapshot if k not in self.pod_group_states]:
            del snapshot[key]
        for key, state in self.pod_group_states.items():
            existing = snapshot.get(key)
            if existing is None or existing.generation != state.generation:
                snapshot[key] = state.snapshot()

    # -- listers --------------------------------------------------------------------------

    def pod_group_states_get(self, namespace: str, name: str) -> tuple[PodGroupState | None, str]:
        """``PodGroupStates().Get``: the state, or None and upstream's error."""
        if not self.generic_workload_enabled:
            return None, "generic workload feature gate is disabled"
        state = self.pod_group_states.get(pod_group_key(namespace, name))
        if state is None:
            return None, f"pod group state not found for pod group {namespace}/{name}"
        return state, ""

    def pod_groups_get(self, namespace: str, name: str) -> tuple[Obj | None, str]:
        """``PodGroups().Get``: the cached PodGroup object, or None and upstream's error."""
        if not self.generic_workload_enabled:
            return None, "generic workload feature gate is disabled"
        key = pod_group_key(namespace, name)
        state = self.pod_group_states.get(key)
        if state is None:
            return None, f"pod group state not found for pod group {key}"
        if state.pod_group is None:
            return None, f"pod group object not found for pod group {key}"
        return state.pod_group, ""

    def composite_pod_group_states_get(
        self, namespace: str, name: str
    ) -> tuple[CompositePodGroupState | None, str]:
        """``CompositePodGroupStates().Get``."""
        if not self.composite_pod_group_enabled:
            return None, "composite pod group feature gate is disabled"
        key = composite_pod_group_key(namespace, name)
        state = self.composite_pod_group_states.get(key)
        if state is None:
            return None, f"composite pod group state not found for composite pod group {key}"
        return state, ""

    def composite_pod_groups_get(self, namespace: str, name: str) -> tuple[Obj | None, str]:
        """``CompositePodGroups().Get``."""
        state, err = self.composite_pod_group_states_get(namespace, name)
        if state is None:
            return None, err
        if state.composite_pod_group is None:
            key = composite_pod_group_key(namespace, name)
            return None, f"composite pod group object not found for composite pod group {key}"
        return state.composite_pod_group, ""

    def get_root_key_for_group(self, key: EntityKey) -> tuple[EntityKey | None, bool]:
        """``GetRootKeyForGroup`` (``cache_hierarchy``); HierarchyError on a cycle."""
        from reference_impl.scheduler import cache_hierarchy  # it subclasses this class

        return cache_hierarchy.get_root_key_for_group(self, key)

    def build_hierarchy_snapshot_from_pod(self, pod: Obj) -> PodGroupCache:
        """``BuildHierarchySnapshotFromPod`` (``cache_hierarchy``); HierarchyError."""
        from reference_impl.scheduler import cache_hierarchy

        return cache_hierarchy.build_hierarchy_snapshot_from_pod(self, pod)

    # -- PodGroup and CompositePodGroup objects ---------------------------------------------

    def _link(self, namespace: str, parent: str, child: EntityKey) -> None:
        """A placeholder parent state until the parent itself is observed."""
        key = composite_pod_group_key(namespace, parent)
        state = self.composite_pod_group_states.get(key)
        if state is None:
            state = self.composite_pod_group_states[key] = CompositePodGroupState()
        state.add_child(child)

    def _unlink(self, namespace: str, parent: str, child: EntityKey) -> None:
        key = composite_pod_group_key(namespace, parent)
        state = self.composite_pod_group_states.get(key)
        if state is None:
            return
        state.remove_child(child)
        if state.empty():
            del self.composite_pod_group_states[key]

    def add_pod_group(self, pg: Obj) -> None:
        """``AddPodGroup``: set the object; link it under its parent (CompositePodGroup on)."""
        if not self.generic_workload_enabled:
            return
        ns, name = _ns_name(pg)
        key = pod_group_key(ns, name)
        state = self.pod_group_states.get(key)
        if state is None:
            state = self.pod_group_states[key] = PodGroupState()
        state.set_pod_group(pg)
        if self.composite_pod_group_enabled and (parent := _parent(pg)):
            self._link(ns, parent, key)

    def update_pod_group(self, old: Obj, new: Obj) -> None:
        """``UpdatePodGroup`` (the parent is immutable)."""
        if not self.generic_workload_enabled:
            return
        state = self.pod_group_states.get(pod_group_key(*_ns_name(new)))
        if state is not None:
            state.set_pod_group(new)

    def remove_pod_group(self, pg: Obj) -> None:
        """``RemovePodGroup``: unlink from the parent; the state stays while pods do."""
        if not self.generic_workload_enabled:
            return
        ns, name = _ns_name(pg)
        key = pod_group_key(ns, name)
        state = self.pod_group_states.get(key)
        if state is None:
            return
        if self.composite_pod_group_enabled and (parent := _parent(pg)):
            self._unlink(ns, parent, key)
        state.remove_pod_group()
        if state.empty():
            del self.pod_group_states[key]

    def add_composite_pod_group(self, cpg: Obj) -> None:
        """``AddCompositePodGroup``."""
        if not self.composite_pod_group_enabled:
            return
        ns, name = _ns_name(cpg)
        key = composite_pod_group_key(ns, name)
        state = self.composite_pod_group_states.get(key)
        if state is None:
            state = self.composite_pod_group_states[key] = CompositePodGroupState()
        state.set_composite_pod_group(cpg)
        if parent := _parent(cpg):
            self._link(ns, parent, key)

    def update_composite_pod_group(self, old: Obj, new: Obj) -> None:
        """``UpdateCompositePodGroup``."""
        if not self.composite_pod_group_enabled:
            return
        state = self.composite_pod_group_states.get(composite_pod_group_key(*_ns_name(new)))
        if state is not None:
            state.set_composite_pod_group(new)

    def remove_composite_pod_group(self, cpg: Obj) -> None:
        """``RemoveCompositePodGroup``: the parent is the cached object's; a parent state
        that is gone ends the removal early, as upstream."""
        if not self.composite_pod_group_enabled:
            return
        ns, name = _ns_name(cpg)
        key = composite_pod_group_key(ns, name)
        state = self.composite_pod_group_states.get(key)
        if state is None:
            return
        if parent := _parent(state.composite_pod_group):
            parent_key = composite_pod_group_key(ns, parent)
            if parent_key not in self.composite_pod_group_states:
                return
            self._unlink(ns, parent, key)
        state.remove_composite_pod_group()
        if state.empty():
            del self.composite_pod_group_states[key]
