"""Ports NodeResourcesFit's scale-up queueing-hint tables from noderesources/fit_test.go:
Test_isSchedulableAfterTargetPodScaleUp and Test_isSchedulableAfterAssignedPodScaleUp
(registered only with InPlacePodVerticalScalingSchedulerPreemption)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import ActionType, QueueingHint
from reference_impl.scheduler.plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
)
from suites.selftest.reference_impl.scheduler.test_upstream_noderesources_hints import mp

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
P = pytest.param
_WRONG_TYPE = pytest.mark.skip(reason="a non-Pod object cannot reach the Python hint")
UP = ActionType.UPDATE_POD_SCALE_UP
CPU1, CPU2 = {"cpu": "1"}, {"cpu": "2"}


def _hint(resource: str) -> Any:
    plugin = NodeResourcesFit(NodeResourcesFitArgs(), None, resize_preemption=True)
    found = [reg.hint for reg in plugin.events_to_register()
             if reg.event.resource.name == resource and reg.event.action & UP]
    assert len(found) == 1
    return found[0]


def test_scale_up_is_registered_only_with_resize_preemption() -> None:
    plugin = NodeResourcesFit(NodeResourcesFitArgs(), None)
    assert not [reg for reg in plugin.events_to_register() if reg.event.action & UP]


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        P(mp("pod1", "node1"), SKIP, id="skip-queue-on-pod-not-deferred"),
        P(mp("pod1", "node1", deferred=True), Q, id="queue-on-deferred-target-pod-scale-up"),
    ],
)
def test_is_schedulable_after_target_pod_scale_up(pod: Obj, want: QueueingHint) -> None:
    assert _hint("TARGET_POD")(pod, None, None) == want


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        P(None, None, None, Q, id="backoff-wrong-old-object", marks=_WRONG_TYPE),
        P(None, None, None, Q, id="backoff-wrong-new-object", marks=_WRONG_TYPE),
        P(mp("pod1", "node1"), mp("pod2", "node1"), mp("pod2", "node1"), SKIP,
          id="skip-queue-on-pod-not-deferred"),
        P(mp("pod1", "node1", deferred=True), mp("pod2", "node2", CPU1), mp("pod2", "node2", CPU2),
          SKIP, id="skip-queue-on-different-node-scale-up"),
        P(mp("pod1", "node1", deferred=True), mp("pod2", "node1", CPU1), mp("pod2", "node1", CPU2),
          Q, id="queue-on-same-node-scale-up"),
    ],
)
def test_is_schedulable_after_assigned_pod_scale_up(pod: Obj, old: Obj, new: Obj,
                                                    want: QueueingHint) -> None:
    assert _hint("ASSIGNED_POD")(pod, old, new) == want
