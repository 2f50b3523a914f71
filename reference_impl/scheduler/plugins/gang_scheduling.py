"""Models pkg/scheduler/framework/plugins/gangscheduling/gang_scheduling.go.

PreEnqueue holds a pod of a gang PodGroup until the PodGroup exists and at least
``gang.minCount`` of its pods exist, and (CompositePodGroup on) while its hierarchy is
broken or too deep (``podgroup_tree.hierarchy_error``) and, for a PodGroup under a
CompositePodGroup, until the whole tree from its root meets its quorum
(``checkCPGHierarchyReadiness``, in ``podgroup_readiness``); the all-or-nothing placement
itself is the pod-group cycle (``scheduler/workload_cycle.py``). The plugin keeps a
membership index (PodGroup key -> pod keys) from the pod informer, as upstream's workload
manager does. Its queueing hints requeue a pod only for events in its own hierarchy (the
same root CompositePodGroup, or the same PodGroup), and for a PodGroup update only when
the gang's minCount went down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from reference_impl.apiserver.server import ObjectEvent
from reference_impl.scheduler.framework.interface import (
    OK,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    Plugin,
    PreEnqueuePlugin,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.podgroup_readiness import TreeReadiness
from reference_impl.scheduler.plugins.podgroup_tree import InformerHierarchy, hierarchy_error

__all__ = ["NAME", "POD_GROUP_VERSION", "GangScheduling", "group_key", "new"]

Obj = dict[str, Any]
NAME: Final = names.GANG_SCHEDULING
POD_GROUP_VERSION: Final = "scheduling.k8s.io/v1beta1"
_QUEUE, _SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
_TERMINAL: Final = ("Succeeded", "Failed")


def group_key(pod: Obj) -> str | None:
    """``namespace/podGroupName`` of the pod's group, or None for a pod of its own."""
    group = pod["spec"].get("schedulingGroup") or {}
    name = group.get("podGroupName")
    return f"{pod['metadata'].get('namespace', 'default')}/{name}" if name else None


def min_count(pg: Obj) -> int:
    """The gang minimum; 0 for a basic group (not a gang)."""
    gang = (pg.get("spec") or {}).get("schedulingPolicy", {}).get("gang")
    return int(gang.get("minCount") or 0) if gang is not None else 0


@final
class GangScheduling:
    """PreEnqueue gate for gang members, and the group lookups the pod-group cycle uses."""

    def __init__(self, handle: Handle, features: SchedulerFeatures) -> None:
        self._handle = handle
        self._enabled = features.enable_generic_workload
        self._composite = features.enable_composite_pod_group
        self._members: dict[str, set[str]] = {}
        self._tree = InformerHierarchy(handle.ctx.informers)
        self._ready = TreeReadiness(self._tree, self._members)
        if self._enabled:
            pods = handle.ctx.informers.informer("v1", "Pod")
            pods.add_handler(self._on_pod)
            # A scheduler started (or restarted) after pods exist sees them as an informer
            # replays its store to a new handler.
            for pod in pods.items():
                self._track(pod, deleted=False)

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def _on_pod(self, ev: ObjectEvent) -> None:
        self._track(ev.obj, deleted=ev.type == "DELETED")

    def _track(self, obj: Obj, *, deleted: bool) -> None:
        key = f"{obj['metadata'].get('namespace', 'default')}/{obj['metadata']['name']}"
        gk = group_key(obj)
        if gk is None:
            return
        live = not deleted and (obj.get("status") or {}).get("phase") not in _TERMINAL
        members = self._members.setdefault(gk, set())
        before = len(members)
        if live and not obj["metadata"].get("deletionTimestamp"):
            members.add(key)
        else:
            members.discard(key)
        if len(members) != before:
            self._ready.members_changed()

    def pod_group(self, key: str) -> Obj | None:
        """The PodGroup ``namespace/name`` from the informer, or None."""
        if not self._enabled:
            return None
        ns, name = key.split("/", 1)
        return self._tree.pod_group(ns, name)

    def members(self, key: str) -> list[str]:
        """Keys of the group's existing, non-terminal pods, sorted."""
        return sorted(self._members.get(key, ()))

    def pre_enqueue(self, pod: Obj) -> Status:
        """Hold the pod until its PodGroup exists and has at least minCount pods."""
        gk = group_key(pod)
        if gk is None or not self._enabled:
            return OK
        pg = self.pod_group(gk)
        if pg is None:
            # preEnqueueWithHierarchies fails building the hierarchy snapshot first.
            why = (
                f"failed to build hierarchy snapshot: pod group object not found in state for "
                f"podgroup/{gk}"
                if self._composite
                else f'waiting for pods\'s pod group "{gk.partition("/")[2]}" to appear in '
                "scheduling queue"
            )
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (why,), NAME)
        ns, name = gk.split("/", 1)
        if self._composite and (parent := (pg.get("spec") or {}).get("parentCompositePodGroupName")):
            # preEnqueueWithHierarchies: the hierarchy snapshot and its root must be found
            # (a missing CompositePodGroup, a cycle, more than 4 levels: rejected here),
            # then the tree from that root must meet its quorum; the PodGroup's own
            # minCount counts only as one child of its parent.
            if (err := hierarchy_error(self._tree, ns, name)) is not None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (err,), NAME)
            return self._ready.check(ns, str(parent), NAME)
        if self._composite:
            ready = self._ready.pod_group_ready(ns, name)  # isPGReady: basic needs 1 pod
        else:
            ready = len(self._members.get(gk, ())) >= min_count(pg)
        if not ready:
            why = "waiting for minCount pods from a gang to appear in scheduling queue"
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (why,), NAME)
        return OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A PodGroup appearing or changing, a member pod created, a node added or relabelled.
        CompositePodGroup events reach the queue as PodGroup updates (``eventhandlers``)."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD), self.after_pod_added
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD), self.after_pod_added
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD_GROUP, ActionType.ADD), self.after_pod_group_added
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD_GROUP, ActionType.UPDATE),
                self.after_pod_group_updated,
            ),
            # A new or relabelled node may open a topology domain the whole gang fits in.
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
        )

    # -- queueing hints (isSchedulableAfter*) --------------------------------------------

    def _root(self, kind: str, ns: str, name: str) -> tuple[str, str, str] | None:
        """``GetRootKeyForGroup`` over the informers: the topmost known ancestor, at any
        depth; a group not (yet) known is its own root, as upstream's tests' manager
        answers; None on a cycle (upstream's error: not the same hierarchy)."""
        seen: set[tuple[str, str]] = set()
        while True:
            if (kind, name) in seen:
                return None
            seen.add((kind, name))
            obj = self._tree.pod_group(ns, name) if kind == "PodGroup" else self._tree.composite(ns, name)
            parent = ((obj or {}).get("spec") or {}).get("parentCompositePodGroupName")
            if not parent:
                break
            kind, name = "CompositePodGroup", parent
        return ns, kind, name

    def _same_hierarchy(self, pod: Obj, kind: str, ns: str, name: str) -> bool:
        """``areSameHierarchy``: the pod's PodGroup and ``kind ns/name`` share a root (without
        CompositePodGroup: are the same PodGroup)."""
        group = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName")
        pod_ns = pod["metadata"].get("namespace", "default")
        if not group:
            return False
        if not self._composite:
            return (kind, ns, name) == ("PodGroup", pod_ns, group)
        mine = self._root("PodGroup", pod_ns, group)
        return mine is not None and mine == self._root(kind, ns, name)

    def after_pod_added(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """``isSchedulableAfterPodAdded``: a pod of the same hierarchy may complete the gang."""
        group = ((new or {}).get("spec") or {}).get("schedulingGroup") or {}
        if new is None or not group.get("podGroupName"):
            return _SKIP
        ns = new["metadata"].get("namespace", "default")
        return _QUEUE if self._same_hierarchy(pod, "PodGroup", ns, group["podGroupName"]) else _SKIP

    def after_pod_group_added(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """``isSchedulableAfterPodGroupAdded``."""
        if new is None:
            return _SKIP
        meta = new["metadata"]
        ns = meta.get("namespace", "default")
        return _QUEUE if self._same_hierarchy(pod, "PodGroup", ns, meta["name"]) else _SKIP

    def after_composite_pod_group_added(
        self, pod: Obj, old: Obj | None, new: Obj | None
    ) -> QueueingHint:
        """``isSchedulableAfterCompositePodGroupAdded``."""
        if new is None:
            return _SKIP
        meta = new["metadata"]
        ns = meta.get("namespace", "default")
        return _QUEUE if self._same_hierarchy(pod, "CompositePodGroup", ns, meta["name"]) else _SKIP

    def after_pod_group_updated(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """``isSchedulableAfterPodGroupUpdated``: only a lowered gang minCount helps. A
        CompositePodGroup added comes here too (see ``events_to_register``); one updated
        requeues as before (upstream registers no such event)."""
        if new is None:
            return _SKIP
        if new.get("kind") == "CompositePodGroup":
            return self.after_composite_pod_group_added(pod, None, new) if old is None else _QUEUE
        meta = new["metadata"]
        if not self._same_hierarchy(pod, "PodGroup", meta.get("namespace", "default"), meta["name"]):
            return _SKIP
        old_gang = ((old or {}).get("spec") or {}).get("schedulingPolicy", {}).get("gang")
        new_gang = (new.get("spec") or {}).get("schedulingPolicy", {}).get("gang")
        if old_gang is None or new_gang is None:
            return _SKIP  # a non-gang policy change never makes waiting pods schedulable
        lowered = int(new_gang.get("minCount") or 0) < int(old_gang.get("minCount") or 0)
        return _QUEUE if lowered else _SKIP

    def placement_feasible(
        self, group: Obj, remaining: int, scheduled: int, *, composite: bool = False
    ) -> Status:
        """``PlacementFeasible``: Success once ``scheduled`` meets the group's minimum,
        Wait while the ``remaining`` pods could still meet it, else Unschedulable. The
        minimum is the gang's minCount (a CompositePodGroup's minGroupCount), 1 for a
        basic group. ``GroupPlacer.try_place`` runs it before the first member and after
        each one, and stops the attempt at Unschedulable."""
        policy = (group.get("spec") or {}).get("schedulingPolicy") or {}
        gang = policy.get("gang")
        need = 1 if gang is None else int(gang.get("minGroupCount" if composite else "minCount") or 0)
        if remaining + scheduled < need:
            why = f"minCount ({need}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"
            return Status(Code.UNSCHEDULABLE, (why,), NAME)
        if scheduled < need:
            why = f"minCount ({need}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining"
            return Status(Code.WAIT, (why,), NAME)
        return OK


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return GangScheduling(handle, features)


_: type[PreEnqueuePlugin] = GangScheduling
_e: type[EnqueueExtensions] = GangScheduling
