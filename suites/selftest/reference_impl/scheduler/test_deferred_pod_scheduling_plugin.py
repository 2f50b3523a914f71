"""DeferredPodScheduling (KEP-5836) after the cases of upstream v1.37.2's
deferred_pod_scheduling_test.go (TestDeferredPodScheduling_PreFilter, _Filter,
_isSchedulableAfterNodeChange, _isSchedulableAfterNodeAdd, _Permit; row ids are upstream's
names): each with the gate off and on, for deferred and other pods; same verdicts, codes and
messages."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, Code, QueueingHint, Status
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins.deferred_pod_scheduling import (
    ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION,
    DeferredPodScheduling,
)

Obj = dict[str, Any]
SKIP = QueueingHint.QUEUE_SKIP
QUEUE = QueueingHint.QUEUE


def _pod(deferred: bool = True) -> Obj:
    pod = make_pod("pod1").node("node1").build()
    if deferred:
        cond = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}
        pod["status"] = {"conditions": [cond]}
    return pod


def _node(name: str = "node1", policy: list[str] | None = None) -> Obj:
    node = make_node(name).build()
    if policy is not None:
        node["spec"]["podPreemptionPolicy"] = {"disableResizePreemption": policy}
    return node


ENABLED, DISABLED, OTHER = _node(), _node(policy=["policy1"]), _node("node2")


def _same(got: Status, want: Status) -> bool:
    # statusEqual: code and message only.
    return got.code is want.code and got.message() == want.message()


@pytest.mark.parametrize(
    ("pod", "gate", "want"),
    [
        (_pod(), False, Status(Code.SKIP)),
        (_pod(deferred=False), True, Status(Code.SKIP)),
        (_pod(), True, OK),
    ],
    ids=["feature gate off, deferred pod -> skip", "feature gate on, non-deferred pod -> skip",
         "feature gate on, deferred pod -> success/nil"],
)
def test_pre_filter(pod: Obj, gate: bool, want: Status) -> None:
    result, status = DeferredPodScheduling(gate).pre_filter(CycleState(), pod, [])
    assert result is None and _same(status, want)


@pytest.mark.parametrize(
    ("pod", "node", "gate", "want"),
    [
        (_pod(), DISABLED, False, OK),
        (_pod(deferred=False), DISABLED, True, OK),
        (_pod(), ENABLED, True, OK),
        (_pod(), _node(policy=[]), True, OK),
        (_pod(), DISABLED, True,
         Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION,))),
        (_pod(), OTHER, True,
         Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("pod assigned to different node",))),
    ],
    ids=["feature gate off -> success (ignore disabled policy)",
         "feature gate on, non-deferred pod -> success (ignore disabled policy)",
         "node has nil preemption policy -> success",
         "node has empty disable preemption policy -> success",
         "node has disabled preemption policy -> unschedulable",
         "node name does not match pod assigned node -> unschedulable"],
)
def test_filter(pod: Obj, node: Obj, gate: bool, want: Status) -> None:
    ni = NodeInfo(node["metadata"]["name"], node)
    assert _same(DeferredPodScheduling(gate).filter(CycleState(), pod, ni), want)


def test_the_messages_are_upstreams() -> None:
    assert ERR_REASON_NODE_DISABLES_RESIZE_PREEMPTION == "node had resize preemption disabled"


@pytest.mark.parametrize(
    ("pod", "old", "new", "gate", "want"),
    [
        (_pod(), DISABLED, ENABLED, False, SKIP),
        (_pod(deferred=False), DISABLED, ENABLED, True, SKIP),
        (_pod(), OTHER, OTHER, True, SKIP),
        (_pod(), DISABLED, ENABLED, True, QUEUE),
        (_pod(), ENABLED, DISABLED, True, SKIP),
        (_pod(), ENABLED, ENABLED, True, SKIP),
    ],
    ids=["gate off, deferred pod, transition to enabled -> skip",
         "gate on, non-deferred pod, transition to enabled -> skip",
         "gate on, deferred pod, node is not pod's assigned node -> skip",
         "gate on, deferred pod, policy transition disabled -> enabled -> queue",
         "gate on, deferred pod, policy transition enabled -> disabled -> skip",
         "gate on, deferred pod, other node field updated -> skip"],
)
def test_is_schedulable_after_node_change(
    pod: Obj, old: Obj, new: Obj, gate: bool, want: QueueingHint
) -> None:
    assert DeferredPodScheduling(gate).schedulable_after_node_change(pod, old, new) is want


@pytest.mark.parametrize(
    ("pod", "new", "gate", "want"),
    [
        (_pod(), ENABLED, False, SKIP),
        (_pod(deferred=False), ENABLED, True, SKIP),
        (_pod(), OTHER, True, SKIP),
        (_pod(), ENABLED, True, QUEUE),
        (_pod(), DISABLED, True, SKIP),
    ],
    ids=["gate off, deferred pod, add enabled node -> skip",
         "gate on, non-deferred pod, add enabled node -> skip",
         "gate on, deferred pod, node is not pod's assigned node -> skip",
         "gate on, deferred pod, add enabled node -> queue",
         "gate on, deferred pod, add disabled node -> skip"],
)
def test_is_schedulable_after_node_add(pod: Obj, new: Obj, gate: bool, want: QueueingHint) -> None:
    assert DeferredPodScheduling(gate).schedulable_after_node_add(pod, None, new) is want


@pytest.mark.parametrize(
    ("pod", "gate", "want"),
    [
        (_pod(), False, OK),
        (_pod(deferred=False), True, OK),
        (_pod(), True, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                              ("pod resize fits, waiting for Kubelet actuation",))),
    ],
    ids=["feature gate off, deferred pod -> success/nil",
         "feature gate on, non-deferred pod -> success/nil",
         "feature gate on, deferred pod -> reject with UnschedulableAndUnresolvable"],
)
def test_permit(pod: Obj, gate: bool, want: Status) -> None:
    status, _ = DeferredPodScheduling(gate).permit(CycleState(), pod, "node1")
    assert _same(status, want)


def test_a_node_event_without_the_expected_objects_is_an_error() -> None:
    # Upstream returns Queue with an error for a wrong object; the queue queues on errors.
    with pytest.raises(TypeError):
        DeferredPodScheduling(True).schedulable_after_node_change(_pod(), None, ENABLED)
