"""Models pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import attrgetter
from typing import Any, Final, final

from reference_impl.api.taints import Taint, parse_tolerations, tolerated
from reference_impl.api.well_known_taints import TAINT_NODE_UNSCHEDULABLE
from reference_impl.scheduler.framework import signature as sign
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

__all__ = ["ERR_REASON_UNSCHEDULABLE", "NAME", "NodeUnschedulable", "new"]

Obj = dict[str, Any]
NAME: Final = names.NODE_UNSCHEDULABLE
ERR_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
# A cordoned node behaves as if it had this taint; tolerating it lets a pod in.
UNSCHEDULABLE_TAINT: Final = Taint(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule")
_REJECT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNSCHEDULABLE,), NAME)
_UNSCHEDULABLE: Final = attrgetter("unschedulable")


@final
class NodeUnschedulable:
    """Keeps pods off nodes with ``spec.unschedulable`` unless they tolerate it."""

    def __init__(self, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the tolerations."""
        return sign.signed((sign.TOLERATIONS_SIGNER, sign.tolerations_signer(pod)))

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP for a deferred resize (KEP-5836); upstream has this PreFilter only for that."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Reject a cordoned node unless the pod tolerates the unschedulable taint."""
        if not node_info.unschedulable:
            return OK
        return OK if tolerated(UNSCHEDULABLE_TAINT, parse_tolerations(pod)) else _REJECT

    def filter_suspects(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> set[int] | None:
        """Cordoned nodes (BatchFilterPlugin): a schedulable node always passes."""
        index = nodes[0].index if nodes else None  # the cache's, shared by its NodeInfos
        if index is not None and not index.cordoned:
            return set()
        return set(compress(range(len(nodes)), map(_UNSCHEDULABLE, nodes)))

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A node becoming schedulable, or the pod gaining the toleration."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                _node_changed,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_TOLERATIONS),
                _pod_tolerations_changed,
            ),
        )


def _node_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if new is None:
        return QueueingHint.QUEUE_SKIP
    cordoned = bool((new.get("spec") or {}).get("unschedulable"))
    was = old is not None and bool((old.get("spec") or {}).get("unschedulable"))
    if not cordoned and (old is None or was):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _pod_tolerations_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if new is None or not tolerated(UNSCHEDULABLE_TAINT, parse_tolerations(new)):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return NodeUnschedulable(resize_preemption=gate)


_: type[FilterPlugin] = NodeUnschedulable
_e: type[EnqueueExtensions] = NodeUnschedulable
_f: type[PreFilterPlugin] = NodeUnschedulable
