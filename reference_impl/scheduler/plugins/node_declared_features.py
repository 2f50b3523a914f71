"""Models pkg/scheduler/framework/plugins/nodedeclaredfeatures (gate NodeDeclaredFeatures,
GA and locked on in 1.37) with component-helpers' feature registry.

A pod that needs a node-declared feature fits only nodes listing it in
``status.declaredFeatures``. The registry (shared with the kubelet's admit handler) is
``reference_impl.api.node_declared_features``; of its features only three are inferred
for scheduling, the others matter to pod updates or other components only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.api.node_declared_features import infer_for_scheduling
from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
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

__all__ = ["ERR_REASON", "NAME", "NodeDeclaredFeatures", "infer_for_scheduling", "new"]

Obj = dict[str, Any]
NAME: Final = names.NODE_DECLARED_FEATURES
ERR_REASON: Final = "node(s) didn't match Pod's required features"
_REJECT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,), NAME)


@dataclass(frozen=True, slots=True)
class _State:
    required: frozenset[str]

    def clone(self) -> Self:
        return self


_PRE_FILTER: Final = StateKey[_State]("PreFilter" + NAME)


def _declared(node: Obj | None) -> frozenset[str]:
    return frozenset(((node or {}).get("status") or {}).get("declaredFeatures") or ())


@final
class NodeDeclaredFeatures:
    """Filters nodes that do not declare the features the pod needs."""

    def __init__(self, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the node features the pod needs (``InferForPodScheduling``)."""
        return sign.signed((sign.FEATURES_SIGNER, sorted(infer_for_scheduling(pod))))

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP when the pod needs no declared feature."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        required = infer_for_scheduling(pod)
        if not required:
            return None, SKIP
        state.write(_PRE_FILTER, _State(required))
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE_AND_UNRESOLVABLE unless the node declares every required feature."""
        st = state.try_read(_PRE_FILTER)
        if st is None:  # getPreFilterState: PreFilter did not run (a deferred resize skips)
            if self._resize_preemption and is_pod_resize_deferred(pod):
                return OK
            return Status(Code.ERROR, (f'error reading "{_PRE_FILTER.name}" from cycle-state: not found',), NAME)
        return OK if st.required <= _declared(node_info.node) else _REJECT

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A node added or its declared features changed; the pod updated."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE),
                _node_changed,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE), _pod_updated),
        )


def _node_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    # UpdateNodeDeclaredFeature is not a separate action here: compare the lists instead.
    if old is not None and _declared(old) == _declared(new):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def _pod_updated(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if old is None or new is None:
        return QueueingHint.QUEUE
    same = infer_for_scheduling(old) == infer_for_scheduling(new)
    return QueueingHint.QUEUE_SKIP if same else QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return NodeDeclaredFeatures(resize_preemption=gate)


_: type[FilterPlugin] = NodeDeclaredFeatures
_f: type[PreFilterPlugin] = NodeDeclaredFeatures
_e: type[EnqueueExtensions] = NodeDeclaredFeatures
