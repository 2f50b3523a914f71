"""Models pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go.

PreEnqueue holds a pod of a gang PodGroup until the PodGroup exists and at least
``gang.minCount`` pods are in its pod-group state in the cache (``AllPodsCount``: queued
pods of this scheduler, pods being deleted, assigned pods, and a pod deleted while it
waited at Permit, which its forget puts back). With CompositePodGroup on it reads a
hierarchy snapshot (``BuildHierarchySnapshotFromPod``, ``cache_hierarchy``): a broken or
too deep hierarchy is rejected, and a PodGroup under a CompositePodGroup waits until the
whole tree from its root meets its quorum (``checkCPGHierarchyReadiness``). The
all-or-nothing placement itself is the pod-group cycle (``scheduler/workload_cycle.py``).
The pod-group manager is the scheduler cache (the reference's snapshot lister). Its
queueing hints requeue a pod only for events in its own hierarchy (``GetRootKeyForGroup``
on the manager), and for a PodGroup update only when the gang's minCount went down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from reference_impl.scheduler.cache_podgroups import PodGroupCache
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
from reference_impl.scheduler.framework.types import pod_key
from reference_impl.scheduler.framework.workload_forest import (
    COMPOSITE_POD_GROUP_KEY_TYPE,
    EntityKey,
    composite_pod_group_key,
    pod_group_key,
)
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.podgroup_tree import HierarchyError, InformerHierarchy
from reference_impl.scheduler.podgroupstate import last_pod_group_generation

__all__ = ["NAME", "POD_GROUP_VERSION", "GangScheduling", "group_key", "new"]

Obj = dict[str, Any]
NAME: Final = names.GANG_SCHEDULING
POD_GROUP_VERSION: Final = "scheduling.k8s.io/v1beta1"
_QUEUE, _SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
_UU: Final = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
_QUORUM: Final = "waiting for minCount pods from a gang to appear in scheduling queue"


def group_key(pod: Obj) -> str | None:
    """``namespace/podGroupName`` of the pod's group, or None for a pod of its own."""
    group = pod["spec"].get("schedulingGroup") or {}
    name = group.get("podGroupName")
    return f"{pod['metadata'].get('namespace', 'default')}/{name}" if name else None


def min_count(pg: Obj) -> int:
    """The gang minimum; 0 for a basic group (not a gang)."""
    gang = (pg.get("spec") or {}).get("schedulingPolicy", {}).get("gang")
    return int(gang.get("minCount") or 0) if gang is not None else 0


def _gang(obj: Obj) -> Obj | None:
    gang: Obj | None = ((obj.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
    return gang


def _no_group(name: str) -> Status:
    why = f'waiting for pods\'s pod group "{name}" to appear in scheduling queue'
    return Status(_UU, (why,), NAME)


@final
class GangScheduling:
    """PreEnqueue gate for gang members, and the group lookups the pod-group cycle uses."""

    def __init__(self, handle: Handle, features: SchedulerFeatures) -> None:
        self._handle = handle
        self._enabled = features.enable_generic_workload
        self._composite = features.enable_composite_pod_group
        self._tree = InformerHierarchy(handle.ctx.informers)
        # fh.PodGroupManager(): the scheduler cache, which is the reference's snapshot lister.
        lister = handle.snapshot_shared_lister()
        self.pod_group_manager: PodGroupCache = (
            lister if isinstance(lister, PodGroupCache)
            else PodGroupCache(self._enabled, self._composite)
        )
        # PreEnqueue verdicts per PodGroup key, valid while no pod-group state changed: the
        # pods of one tree woken by the same event cost one walk.
        self._memo: dict[str, Status] = {}
        self._memo_at = -1

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def pod_group(self, key: str) -> Obj | None:
        """The PodGroup ``namespace/name`` from the informer, or None."""
        if not self._enabled:
            return None
        ns, name = key.split("/", 1)
        return self._tree.pod_group(ns, name)

    def members(self, key: str) -> list[str]:
        """Keys (namespace/name) of the pods in the group's state in the cache, sorted."""
        ns, name = key.split("/", 1)
        state, _ = self.pod_group_manager.pod_group_states_get(ns, name)
        return [] if state is None else sorted(pod_key(p) for p in state.all_pods_map.values())

    def pre_enqueue(self, pod: Obj) -> Status:
        """``PreEnqueue``: hold the pod until its PodGroup (tree) meets its quorum."""
        gk = group_key(pod)
        if gk is None or not self._enabled:
            return OK
        if not self._composite:
            return self._pre_enqueue_hierarchies_disabled(gk)
        at = last_pod_group_generation()
        if at != self._memo_at:
            self._memo.clear()
            self._memo_at = at
        got = self._memo.get(gk)
        if got is None:
            got = self._memo[gk] = self._pre_enqueue_with_hierarchies(pod, gk)
        return got

    def _pre_enqueue_hierarchies_disabled(self, gk: str) -> Status:
        """``preEnqueueHierarchiesDisabled``."""
        ns, name = gk.split("/", 1)
        mgr = self.pod_group_manager
        pg, _ = mgr.pod_groups_get(ns, name)
        if pg is None:
            return _no_group(name)
        gang = _gang(pg)
        if gang is None:
            return OK
        state, err = mgr.pod_group_states_get(ns, name)
        if state is None:
            return Status(Code.ERROR, (err,), NAME)
        if state.all_pods_count() < int(gang.get("minCount") or 0):
            return Status(_UU, (_QUORUM,), NAME)
        return OK

    def _pre_enqueue_with_hierarchies(self, pod: Obj, gk: str) -> Status:
        """``preEnqueueWithHierarchies``."""
        try:
            snap = self.pod_group_manager.build_hierarchy_snapshot_from_pod(pod)
        except HierarchyError as err:
            return Status(_UU, (f"failed to build hierarchy snapshot: {err}",), NAME)
        ns, name = gk.split("/", 1)
        pg, _ = snap.pod_groups_get(ns, name)
        if pg is None:
            return _no_group(name)
        parent = (pg.get("spec") or {}).get("parentCompositePodGroupName")
        if not parent:
            return OK if _pg_ready(snap, ns, name) else Status(_UU, (_QUORUM,), NAME)
        return _check_cpg_hierarchy_readiness(snap, ns, str(parent))

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

    def _root(self, key: EntityKey) -> EntityKey | None:
        """``GetRootKeyForGroup`` on the manager; None when not found or on its error
        (``areSameHierarchy`` logs it and answers False)."""
        try:
            root, ok = self.pod_group_manager.get_root_key_for_group(key)
        except HierarchyError:
            return None
        return root if ok else None

    def _same_hierarchy(self, pod: Obj, kind: str, ns: str, name: str) -> bool:
        """``areSameHierarchy``: the pod's PodGroup and ``kind ns/name`` share a root (without
        CompositePodGroup: are the same PodGroup)."""
        group = (pod["spec"].get("schedulingGroup") or {}).get("podGroupName")
        pod_ns = pod["metadata"].get("namespace", "default")
        if not group:
            return False
        if not self._composite:
            return (kind, ns, name) == ("PodGroup", pod_ns, group)
        mine = self._root(pod_group_key(pod_ns, str(group)))
        if mine is None:
            return False
        key = pod_group_key if kind == "PodGroup" else composite_pod_group_key
        target = key(ns, name)
        return mine == self._root(target)

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


def _pg_ready(snap: PodGroupCache, ns: str, name: str) -> bool:
    """``isPGReady`` with PreEnqueue's count (``AllPodsCount``): minCount, 1 for basic."""
    pg, _ = snap.pod_groups_get(ns, name)
    if pg is None:
        return False
    gang = _gang(pg)
    need = int(gang.get("minCount") or 0) if gang is not None else 1
    state = snap.pod_group_states.get(pod_group_key(ns, name))
    return state is not None and state.all_pods_count() >= need


def _cpg_tree_ready(snap: PodGroupCache, ns: str, name: str) -> bool:
    """``isCPGTreeReady``: at least minGroupCount ready children (1 for basic)."""
    state = snap.composite_pod_group_states.get(composite_pod_group_key(ns, name))
    cpg = state.composite_pod_group if state is not None else None
    if state is None or cpg is None:
        return False
    gang = _gang(cpg)
    need = int(gang.get("minGroupCount") or 0) if gang is not None else 1
    ready = 0
    for child in state.children:
        if child.type == COMPOSITE_POD_GROUP_KEY_TYPE:
            ready += _cpg_tree_ready(snap, ns, child.name)
        else:
            ready += _pg_ready(snap, ns, child.name)
    return ready >= need


def _check_cpg_hierarchy_readiness(snap: PodGroupCache, ns: str, start: str) -> Status:
    """``checkCPGHierarchyReadiness`` from the pod's PodGroup's parent ``ns/start``."""
    key = composite_pod_group_key(ns, start)
    try:
        root, ok = snap.get_root_key_for_group(key)
    except HierarchyError as err:
        return Status(Code.ERROR, (str(err),), NAME)  # fwk.AsStatus
    if not ok or root is None:
        why = (
            "failed to build hierarchy snapshot: composite pod group object not found in "
            f"state for {key}"
        )
        return Status(_UU, (why,), NAME)
    if not _cpg_tree_ready(snap, root.namespace, root.name):
        why = f'waiting for composite pod group "{root.name}" tree to meet quorum'
        return Status(_UU, (why,), NAME)
    return OK


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return GangScheduling(handle, features)


_: type[PreEnqueuePlugin] = GangScheduling
_e: type[EnqueueExtensions] = GangScheduling
