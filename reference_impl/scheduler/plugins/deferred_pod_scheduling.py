"""Models pkg/scheduler/framework/plugins/deferredpodscheduling (KEP-5836).

A bound pod whose in-place resize the kubelet deferred (``PodResizePending`` reason
Deferred) is queued and run through a scheduling cycle on its own node only, so that
DefaultPreemption can free room there. This plugin keeps such a pod to its node, refuses
nodes that opted out of resize preemption, and would reject it at Permit so it is never
bound again (the kubelet actuates the resize); in 1.37.2 a fitting pod stops earlier,
when the cache refuses to assume a pod it already holds. Every hook is a no-op for other
pods or with the gate off.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from reference_impl.clock import Duration
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    OK,
    SKIP,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    PermitPlugin,
    Plugin,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names

__all__ = [
    "ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION",
    "ERR_REASON_OTHER_NODE",
    "NAME",
    "PERMIT_REASON",
    "DeferredPodScheduling",
    "new",
]

Obj = dict[str, Any]
NAME: Final = names.DEFERRED_POD_SCHEDULING
ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION: Final = "node had resize preemption disabled"
ERR_REASON_OTHER_NODE: Final = "pod assigned to different node"
PERMIT_REASON: Final = "pod resize fits, waiting for Kubelet actuation"
_SKIP: Final = SKIP
_NO_TIMEOUT: Final = Duration(0)


def resize_preemption_disabled(node: Obj | None) -> bool:
    """Whether ``spec.podPreemptionPolicy.disableResizePreemption`` names any owner."""
    policy = ((node or {}).get("spec") or {}).get("podPreemptionPolicy") or {}
    return bool(policy.get("disableResizePreemption"))


@final
class DeferredPodScheduling:
    """Keeps a deferred-resize pod on its own node and out of the binding cycle."""

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled  # InPlacePodVerticalScalingSchedulerPreemption

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def _deferred(self, pod: Obj) -> bool:
        return self._enabled and is_pod_resize_deferred(pod)

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP unless the pod's resize is deferred."""
        return None, (OK if self._deferred(pod) else _SKIP)

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Another node than the pod's, or one with resize preemption disabled, is out."""
        if not self._deferred(pod):
            return OK
        node = node_info.node
        if node is None:
            return Status(Code.ERROR, ("node not found",))
        wanted = pod["spec"].get("nodeName")
        if wanted and wanted != node_info.name:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_OTHER_NODE,), NAME)
        if resize_preemption_disabled(node):
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION,),
                NAME,
            )
        return OK

    def permit(self, state: CycleState, pod: Obj, node_name: str) -> tuple[Status, Duration]:
        """Reject a deferred pod that fits: it stays queued until the kubelet resizes it."""
        if not self._deferred(pod):
            return OK, _NO_TIMEOUT
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (PERMIT_REASON,), NAME), _NO_TIMEOUT

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """The pod's node re-enabling resize preemption, or appearing with it enabled."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_PREEMPTION_POLICY),
                self.schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD), self.schedulable_after_node_add
            ),
        )

    def schedulable_after_node_change(
        self, pod: Obj, old: Obj | None, new: Obj | None
    ) -> QueueingHint:
        """QUEUE only when the pod's own node goes from disabled to enabled."""
        if not self._deferred(pod):
            return QueueingHint.QUEUE_SKIP
        if old is None or new is None:
            raise TypeError("a node update needs both versions")  # the queue then queues
        if pod["spec"].get("nodeName") != new["metadata"]["name"]:
            return QueueingHint.QUEUE_SKIP
        if resize_preemption_disabled(old) and not resize_preemption_disabled(new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def schedulable_after_node_add(
        self, pod: Obj, old: Obj | None, new: Obj | None
    ) -> QueueingHint:
        """QUEUE when the pod's own node is added with resize preemption enabled."""
        if not self._deferred(pod):
            return QueueingHint.QUEUE_SKIP
        if new is None:
            raise TypeError("a node add needs the new node")
        if pod["spec"].get("nodeName") != new["metadata"]["name"]:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE_SKIP if resize_preemption_disabled(new) else QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return DeferredPodScheduling(features.enable_in_place_pod_vertical_scaling_scheduler_preemption)


_: type[FilterPlugin] = DeferredPodScheduling
_f: type[PreFilterPlugin] = DeferredPodScheduling
_p: type[PermitPlugin] = DeferredPodScheduling
_e: type[EnqueueExtensions] = DeferredPodScheduling
