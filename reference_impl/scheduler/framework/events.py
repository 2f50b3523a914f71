"""Models pkg/scheduler/framework/events.go: which cluster events an object update is.

Node and pod updates are split into fine-grained action types, so a queueing hint only
runs for the kinds of change that could matter to the plugin that rejected a pod.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

from reference_impl.api.quantity import quantity_value
from reference_impl.scheduler.framework.interface import ActionType, ClusterEvent, EventResource
from reference_impl.scheduler.framework.pod_resources import pod_requests

__all__ = [
    "ASSIGNED_POD_ADD",
    "ASSIGNED_POD_DELETE",
    "FORCE_ACTIVATE",
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
# ``EventForceActivate``: Activate found the pod in flight; it is requeued when it returns.
FORCE_ACTIVATE: Final = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "ForceActivate")


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
    """``NodeSchedulingPropertiesChange``: the node's kinds of change, in upstream's order.

    Only un-cordoning (``spec.unschedulable`` true -> false) counts as a taint change, and
    it is reported besides a real taint change. NodeDeclaredFeatures is GA here.
    """
    checks = (
        (ActionType.UPDATE_NODE_TAINT, "UpdateNodeTaint",
         bool(_spec(old).get("unschedulable")) and not _spec(new).get("unschedulable")),
        (ActionType.UPDATE_NODE_ALLOCATABLE, "UpdateNodeAllocatable",
         _resources(_status(old).get("allocatable")) != _resources(_status(new).get("allocatable"))),
        (ActionType.UPDATE_NODE_LABEL, "UpdateNodeLabel",
         (_meta(old).get("labels") or {}) != (_meta(new).get("labels") or {})),
        (ActionType.UPDATE_NODE_TAINT, "UpdateNodeTaint",
         (_spec(old).get("taints") or []) != (_spec(new).get("taints") or [])),
        (ActionType.UPDATE_NODE_CONDITION, "UpdateNodeCondition",
         _conditions(old) != _conditions(new)),
        (ActionType.UPDATE_NODE_ANNOTATION, "UpdateNodeAnnotation",
         (_meta(old).get("annotations") or {}) != (_meta(new).get("annotations") or {})),
        # Absent and null are the same policy (equality.Semantic over the pointer).
        (ActionType.UPDATE_NODE_PREEMPTION_POLICY, "UpdateNodePreemptionPolicy",
         _spec(old).get("podPreemptionPolicy") != _spec(new).get("podPreemptionPolicy")),
        (ActionType.UPDATE_NODE_DECLARED_FEATURE, "UpdateNodeDeclaredFeature",
         list(_status(old).get("declaredFeatures") or ())
         != list(_status(new).get("declaredFeatures") or ())),
    )
    return [ClusterEvent(EventResource.NODE, a, label) for a, label, changed in checks if changed]


def _resources(rl: Obj | None) -> dict[str, Decimal]:
    # equality.Semantic compares quantities by value ("1000m" == "1").
    return {k: quantity_value(v) for k, v in (rl or {}).items()}


def _conditions(node: Obj) -> dict[str, str]:
    # Heartbeat times change constantly; only type -> status matters (upstream strips them).
    return {c.get("type", ""): c.get("status", "") for c in _status(node).get("conditions") or ()}


def pod_update_events(
    resource: EventResource, old: Obj, new: Obj, *, dra: bool = True
) -> list[ClusterEvent]:
    """``PodSchedulingPropertiesChange``: the pod's kinds of change, in upstream's order.

    ``resource`` is AssignedPod for a bound pod whatever the caller says; TargetPod for
    the queued pod's own update, UnscheduledPod otherwise. ``dra``: the DRA gate.
    """
    if _spec(new).get("nodeName"):
        resource = EventResource.ASSIGNED_POD
    kinds: list[tuple[ActionType, str]] = []
    if (_meta(old).get("labels") or {}) != (_meta(new).get("labels") or {}):
        kinds.append((ActionType.UPDATE_POD_LABEL, "UpdatePodLabel"))
    down, up = _scaled(old, new)
    if down:
        kinds.append((ActionType.UPDATE_POD_SCALE_DOWN, "UpdatePodScaleDown"))
    if up:
        kinds.append((ActionType.UPDATE_POD_SCALE_UP, "UpdatePodScaleUp"))
    if _spec(old).get("schedulingGates") and not _spec(new).get("schedulingGates"):
        kinds.append(
            (ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED, "UpdatePodSchedulingGatesEliminated")
        )
    # Tolerations can only be added (API validation), so the count tells a change.
    if len(_spec(old).get("tolerations") or ()) != len(_spec(new).get("tolerations") or ()):
        kinds.append((ActionType.UPDATE_POD_TOLERATIONS, "UpdatePodToleration"))
    if dra and _claims_changed(old, new):
        kinds.append((ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM, "UpdatePodGeneratedResourceClaim"))
    if not kinds:
        kinds.append((ActionType.UPDATE_OTHER, "UpdatePod"))
    return [ClusterEvent(resource, a, label) for a, label in kinds]


def _claims_changed(old: Obj, new: Obj) -> bool:
    """As ``PodStatusEqual``/``PodExtendedStatusEqual``: entries are compared in order."""
    def statuses(p: Obj) -> list[tuple[Any, Any]]:
        return [(c.get("name"), c.get("resourceClaimName"))
                for c in _status(p).get("resourceClaimStatuses") or ()]

    def extended(p: Obj) -> tuple[Any, list[Any]] | None:
        ext = _status(p).get("extendedResourceClaimStatus")
        if ext is None:
            return None
        return ext.get("resourceClaimName", ""), list(ext.get("requestMappings") or ())

    return statuses(old) != statuses(new) or extended(old) != extended(new)


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
