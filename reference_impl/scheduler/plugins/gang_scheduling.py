"""Models pkg/scheduler/framework/plugins/gangscheduling/gang_scheduling.go.

PreEnqueue holds a pod of a gang PodGroup until the PodGroup exists and at least
``gang.minCount`` of its pods exist; the all-or-nothing placement itself is the pod-group
cycle (``scheduler/workload_cycle.py``). The plugin keeps a membership index (PodGroup
key -> pod keys) from the pod informer, as upstream's workload manager does.
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
    Status,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "POD_GROUP_VERSION", "GangScheduling", "group_key", "new"]

Obj = dict[str, Any]
NAME: Final = names.GANG_SCHEDULING
POD_GROUP_VERSION: Final = "scheduling.k8s.io/v1beta1"
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
        self._members: dict[str, set[str]] = {}
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
        if live and not obj["metadata"].get("deletionTimestamp"):
            members.add(key)
        else:
            members.discard(key)

    def pod_group(self, key: str) -> Obj | None:
        """The PodGroup ``namespace/name`` from the informer, or None."""
        if not self._enabled:
            return None
        return self._handle.ctx.informers.informer(POD_GROUP_VERSION, "PodGroup").get(key)

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
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f"waiting for PodGroup {gk} to be created",),
                NAME,
            )
        need, have = min_count(pg), len(self._members.get(gk, ()))
        if have < need:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f"waiting for minCount pods of PodGroup {gk}: {have} of {need} exist",),
                NAME,
            )
        return OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A PodGroup appearing or changing, a member pod created, a node added or relabelled."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD_GROUP, ActionType.ADD | ActionType.UPDATE)
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD)),
            # A new or relabelled node may open a topology domain the whole gang fits in.
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
        )


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return GangScheduling(handle, features)


_: type[PreEnqueuePlugin] = GangScheduling
_e: type[EnqueueExtensions] = GangScheduling
