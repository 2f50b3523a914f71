"""Models pkg/scheduler/backend/cache/podgroupstate.go: the cache's per-group pod state.

A ``PodGroupState`` tracks the member pods the scheduler knows of, each in one of three
sets: unscheduled (neither assumed nor assigned), assumed (reserved, not yet bound) and
assigned (``spec.nodeName`` set), plus the observed PodGroup object. The cache keeps one
per PodGroup key (``cache.py``); it exists while the PodGroup object or any member pod
does. A ``CompositePodGroupState`` holds a CompositePodGroup object and the keys of its
children. Every change draws a fresh generation from one process-wide counter
(``nextPodGroupGeneration``), so a state deleted and recreated never reuses one.

Pods are keyed by UID as upstream (namespace/name when a pod has none). Upstream's sets
are Go maps; here they are insertion-ordered dicts so every listing is deterministic.
"""

from __future__ import annotations

import itertools
from typing import Any

from reference_impl.scheduler.framework.workload_forest import EntityKey

__all__ = [
    "CompositePodGroupState",
    "CompositePodGroupStateSnapshot",
    "PodGroupState",
    "PodGroupStateSnapshot",
    "last_pod_group_generation",
    "next_pod_group_generation",
    "pod_uid",
]

Obj = dict[str, Any]
_generation = itertools.count(1)
_last = [0]


def next_pod_group_generation() -> int:
    """``nextPodGroupGeneration``: monotonic across all states."""
    _last[0] = next(_generation)
    return _last[0]


def last_pod_group_generation() -> int:
    """The latest generation drawn: unchanged means no state anywhere changed (readers
    memoise on it)."""
    return _last[0]


def pod_uid(pod: Obj) -> str:
    """The pod's UID (its namespace/name when it has none)."""
    meta = pod["metadata"]
    return str(meta.get("uid") or f"{meta.get('namespace', 'default')}/{meta['name']}")


def _node(pod: Obj) -> str:
    return str(pod["spec"].get("nodeName") or "")


class _PodGroupStateData:
    """``podGroupStateData``: shared by the live state and its snapshots."""

    __slots__ = ("all_pods_map", "assigned", "assumed", "generation", "pod_group", "unscheduled")

    def __init__(self) -> None:
        self.generation = 0
        self.all_pods_map: dict[str, Obj] = {}
        self.unscheduled: dict[str, None] = {}
        self.assumed: dict[str, Obj] = {}
        self.assigned: dict[str, None] = {}
        self.pod_group: Obj | None = None

    def add_pod(self, pod: Obj) -> None:
        """``addPod``: assigned if it has a node, else unscheduled."""
        self.generation = next_pod_group_generation()
        uid = pod_uid(pod)
        self.all_pods_map[uid] = pod
        if _node(pod):
            self.assigned[uid] = None
            # A pod seen earlier in another state, e.g. bound by someone else.
            self.unscheduled.pop(uid, None)
            self.assumed.pop(uid, None)
        else:
            self.unscheduled[uid] = None

    def update_pod(self, old: Obj, new: Obj) -> None:
        """``updatePod``: a binding moves the pod to assigned."""
        self.generation = next_pod_group_generation()
        uid = pod_uid(new)
        self.all_pods_map[uid] = new
        if not _node(old) and _node(new):
            self.assigned[uid] = None
            self.unscheduled.pop(uid, None)
            self.assumed.pop(uid, None)

    def delete_pod(self, uid: str) -> None:
        """``deletePod``."""
        self.generation = next_pod_group_generation()
        self.all_pods_map.pop(uid, None)
        self.unscheduled.pop(uid, None)
        self.assumed.pop(uid, None)
        self.assigned.pop(uid, None)

    def assume_pod(self, pod: Obj) -> None:
        """``assumePod``: a pod not known here is ignored; one stored with a node counts
        as assigned, otherwise the assumed copy (with its node) is kept."""
        uid = pod_uid(pod)
        stored = self.all_pods_map.get(uid)
        if stored is None:
            return
        self.generation = next_pod_group_generation()
        if _node(stored):
            self.assigned[uid] = None
        else:
            self.assumed[uid] = pod
        self.unscheduled.pop(uid, None)

    def forget_pod(self, uid: str) -> None:
        """``forgetPod``: back from assumed to unscheduled (assigned if it has a node)."""
        pod = self.all_pods_map.get(uid)
        if pod is None:
            return
        self.generation = next_pod_group_generation()
        self.assumed.pop(uid, None)
        if _node(pod):
            self.assigned[uid] = None
        else:
            self.unscheduled[uid] = None

    def empty(self) -> bool:
        """No pods and no PodGroup object."""
        return not self.all_pods_map and self.pod_group is None

    def set_pod_group(self, pg: Obj) -> None:
        """``setPodGroup``."""
        self.generation = next_pod_group_generation()
        self.pod_group = pg

    def remove_pod_group(self) -> None:
        """``removePodGroup``."""
        self.generation = next_pod_group_generation()
        self.pod_group = None

    # -- readers (fwk.PodGroupState) ----------------------------------------------------

    def all_pods(self) -> set[str]:
        """``AllPods``: UIDs of every known member."""
        return set(self.all_pods_map)

    def all_pods_count(self) -> int:
        """``AllPodsCount``."""
        return len(self.all_pods_map)

    def unscheduled_pods(self) -> dict[str, Obj]:
        """``UnscheduledPods``: pod name -> pod."""
        out: dict[str, Obj] = {}
        for uid in self.unscheduled:
            pod = self.all_pods_map[uid]
            out[pod["metadata"]["name"]] = pod
        return out

    def assumed_pods(self) -> set[str]:
        """``AssumedPods``: UIDs."""
        return set(self.assumed)

    def assigned_pods(self) -> set[str]:
        """``AssignedPods``: UIDs."""
        return set(self.assigned)

    def scheduled_pods(self) -> list[Obj]:
        """``ScheduledPods``: assigned pods, then assumed ones (with their assumed node)."""
        out = [self.all_pods_map[uid] for uid in self.assigned]
        out.extend(self.assumed.values())
        return out

    def scheduled_pods_count(self) -> int:
        """``ScheduledPodsCount``."""
        return len(self.assumed) + len(self.assigned)

    def _copy_into(self, other: _PodGroupStateData) -> None:
        """``clone``: new sets, the same (read-only) pod and PodGroup objects."""
        other.generation = self.generation
        other.all_pods_map = dict(self.all_pods_map)
        other.unscheduled = dict(self.unscheduled)
        other.assumed = dict(self.assumed)
        other.assigned = dict(self.assigned)
        other.pod_group = self.pod_group


class PodGroupState(_PodGroupStateData):
    """``podGroupState``: the live state the cache updates."""

    __slots__ = ()

    def snapshot(self) -> PodGroupStateSnapshot:
        """``snapshot``: an independent copy for one pod-group cycle."""
        snap = PodGroupStateSnapshot()
        self._copy_into(snap)
        return snap

    def set_pod_group(self, pg: Obj) -> None:
        """``setPodGroup`` (the live state bumps its generation once more)."""
        super().set_pod_group(pg)
        self.generation = next_pod_group_generation()

    def remove_pod_group(self) -> None:
        """``removePodGroup``."""
        super().remove_pod_group()
        self.generation = next_pod_group_generation()


class PodGroupStateSnapshot(_PodGroupStateData):
    """``podGroupStateSnapshot``: a point-in-time copy a cycle may assume pods in."""

    __slots__ = ()

    def clone(self) -> PodGroupStateSnapshot:
        """``Clone``."""
        snap = PodGroupStateSnapshot()
        self._copy_into(snap)
        return snap


class _CompositePodGroupStateData:
    """``compositePodGroupStateData``: the object and its children's keys."""

    __slots__ = ("children", "composite_pod_group", "generation")

    def __init__(self) -> None:
        self.generation = 0
        self.composite_pod_group: Obj | None = None
        self.children: dict[EntityKey, None] = {}

    def empty(self) -> bool:
        """No CompositePodGroup object and no children."""
        return self.composite_pod_group is None and not self.children

    def set_composite_pod_group(self, cpg: Obj) -> None:
        """``setCompositePodGroup``."""
        self.generation = next_pod_group_generation()
        self.composite_pod_group = cpg

    def remove_composite_pod_group(self) -> None:
        """``removeCompositePodGroup``."""
        self.generation = next_pod_group_generation()
        self.composite_pod_group = None

    def add_child(self, child: EntityKey) -> None:
        """``addChild``."""
        self.generation = next_pod_group_generation()
        self.children[child] = None

    def remove_child(self, child: EntityKey) -> None:
        """``removeChild``."""
        self.generation = next_pod_group_generation()
        self.children.pop(child, None)

    def get_children(self) -> list[EntityKey]:
        """``GetChildren``."""
        return list(self.children)


class CompositePodGroupState(_CompositePodGroupStateData):
    """``compositePodGroupState``: the live state the cache updates."""

    __slots__ = ()

    def snapshot(self) -> CompositePodGroupStateSnapshot:
        """``snapshot``: an independent copy."""
        snap = CompositePodGroupStateSnapshot()
        snap.generation = self.generation
        snap.composite_pod_group = self.composite_pod_group
        snap.children = dict(self.children)
        return snap


class CompositePodGroupStateSnapshot(_CompositePodGroupStateData):
    """``compositePodGroupStateSnapshot``."""

    __slots__ = ()
