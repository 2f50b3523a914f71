"""Models pkg/scheduler/framework/events.go: which cluster events an object update is.

Node and pod updates are split into fine-grained action types, so a queueing hint only
runs for the kinds of change that could matter to the plugin that rejected a pod.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.scheduler.framework.interface import ActionType, ClusterEvent, EventResource
from reference_impl.scheduler.framework.pod_resources import pod_requests

__all__ = [
    "ASSIGNED_POD_ADD",
    "ASSIGNED_POD_DELETE",
    "NODE_ADD",
    "UNSCHEDULABLE_TIMEOUT",
    "node_update_events",
    "pod_update_events",
]

Obj = dict[str, Any]

NODE_ADD: Final = ClusterEvent(EventResource.NODE, ActionType.ADD, "NodeAdd")
ASSIGNED_POD_ADD: Final = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD, "AssignedPodAdd")
ASSIGNED_POD_DELETE: Final = ClusterEvent(
    EventResource.ASSIGNED_POD, ActionType.DELETE, "AssignedPodDelete"
)
# The periodic flush of pods left in the unschedulable pool (it requeues unconditionally).
UNSCHEDULABLE_TIMEOUT: Final = ClusterEvent(
    EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout"
)


def _spec(o: Obj) -> Obj:
    spec: Obj = o.get("spec") or {}
    return spec


def _status(o: Obj) -> Obj:
    status: Obj = o.get("status") or {}
    return status


def _meta(o: Obj) -> Obj:
    meta: Obj = o.get("metadata") or {}
    return meta


def node_update_events(old: Obj, new: Obj) -> list[ClusterEvent]:
    """The scheduling-relevant kinds of change between two Node versions (maybe none)."""
    checks = (
        (ActionType.UPDATE_NODE_ALLOCATABLE, "UpdateNodeAllocatable",
         _status(old).get("allocatable") != _status(new).get("allocatable")),
        (ActionType.UPDATE_NODE_LABEL, "UpdateNodeLabel",
         _meta(old).get("labels") != _meta(new).get("labels")),
        # spec.unschedulable behaves as the node.kubernetes.io/unschedulable taint.
        (ActionType.UPDATE_NODE_TAINT, "UpdateNodeTaint",
         _spec(old).get("taints") != _spec(new).get("taints")
         or bool(_spec(old).get("unschedulable")) != bool(_spec(new).get("unschedulable"))),
        (ActionType.UPDATE_NODE_CONDITION, "UpdateNodeCondition",
         _conditions(old) != _conditions(new)),
        (ActionType.UPDATE_NODE_ANNOTATION, "UpdateNodeAnnotation",
         _meta(old).get("annotations") != _meta(new).get("annotations")),
        # Absent and null are the same policy (equality.Semantic over the pointer).
        (ActionType.UPDATE_NODE_PREEMPTION_POLICY, "UpdateNodePreemptionPolicy",
         _spec(old).get("podPreemptionPolicy") != _spec(new).get("podPreemptionPolicy")),
    )
    return [ClusterEvent(EventResource.NODE, a, label) for a, label, changed in checks if changed]


def _conditions(node: Obj) -> dict[str, str]:
    # Heartbeat times change constantly; only type -> status matters (upstream strips them).
    return {c.get("type", ""): c.get("status", "") for c in _status(node).get("conditions") or ()}


def pod_update_events(resource: EventResource, old: Obj, new: Obj) -> list[ClusterEvent]:
    """The kinds of change between two Pod versions, for an assigned or unscheduled pod."""
    out = []
    if _meta(old).get("labels") != _meta(new).get("labels"):
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_LABEL, "UpdatePodLabel"))
    if _spec(old).get("tolerations") != _spec(new).get("tolerations"):
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_TOLERATIONS, "UpdatePodToleration"))
    if _spec(old).get("schedulingGates") and not _spec(new).get("schedulingGates"):
        out.append(
            ClusterEvent(
                resource, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED,
                "UpdatePodSchedulingGatesEliminated",
            )
        )
    down, up = _scaled(old, new)
    if down:
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_DOWN, "UpdatePodScaleDown"))
    if up:
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_UP, "UpdatePodScaleUp"))
    if _status(old).get("resourceClaimStatuses") != _status(new).get("resourceClaimStatuses"):
        out.append(
            ClusterEvent(
                resource, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM,
                "UpdatePodGeneratedResourceClaim",
            )
        )
    if not out:
        out.append(ClusterEvent(resource, ActionType.UPDATE_OTHER, "UpdatePod"))
    return out


_REQUEST_STATUS: Final = ("containerStatuses", "initContainerStatuses", "conditions")


def _scaled(old: Obj, new: Obj) -> tuple[bool, bool]:
    """Whether any effective request dropped (frees room, KEP-1287) or grew (KEP-5836)."""
    if _spec(old) == _spec(new) and all(
        _status(old).get(f) == _status(new).get(f) for f in _REQUEST_STATUS
    ):
        return False, False  # pod_requests reads only these: nothing can have changed
    before, after = pod_requests(old), pod_requests(new)
    down = any(after.get(k, 0) < v for k, v in before.items())
    return down, any(v > before.get(k, 0) for k, v in after.items())
