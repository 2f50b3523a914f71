"""Ports NodeResourcesFit's queueing-hint tables from noderesources/fit_test.go:
Test_isSchedulableAfterAssignedPodDelete, Test_isSchedulableAfterTargetPodScaleDown,
Test_isSchedulableAfterAssignedPodScaleDown, Test_isSchedulableAfterNodeChange,
Test_isSchedulableAfterDeviceClassChange, TestEventsToRegister, TestIsFit and
TestHaveAnyRequestedResourcesIncreased."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import ActionType, QueueingHint
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
    fits_request,
    requested_resources_increased,
)
from suites.selftest.reference_impl.scheduler.upstream_noderesources_util import (
    EXT_A,
    EXT_B,
    EXT_DRA,
    HUGE_A,
    FixedClasses,
    r,
    res_pod,
)

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
_WRONG_TYPE = pytest.mark.skip(reason="a non-Pod/non-Node object cannot reach the Python hint")
P = pytest.param
DEFERRED = [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]


def mp(name: str = "", node: str = "", req: dict[str, str] | None = None, nominated: str = "",
       deferred: bool = False, pod_level: dict[str, str] | None = None) -> Obj:
    """st.MakePod() with the builders these tables use."""
    spec: Obj = {"containers": []}
    if req is not None:
        spec["containers"] = [{"name": "c", "image": "i", "resources": {"requests": dict(req)}}]
    if node:
        spec["nodeName"] = node
    if pod_level is not None:
        spec["resources"] = {"requests": dict(pod_level)}
    status: Obj = {}
    if nominated:
        status["nominatedNodeName"] = nominated
    if deferred:
        status["conditions"] = DEFERRED
    return {"metadata": {"name": name or "p", "namespace": "default", "uid": name or "p"}, "spec": spec,
            "status": status}


def mn(caps: dict[str, str] | None) -> Obj:
    """st.MakeNode().Capacity(caps): capacity and allocatable, plus 32 pods."""
    res = {"pods": "32", **(caps or {})}
    return {"metadata": {"name": ""}, "status": {"capacity": res, "allocatable": dict(res)}}


def _hint(plugin: NodeResourcesFit, resource: str, action: ActionType) -> Any:
    for reg in plugin.events_to_register():
        if reg.event.resource.name == resource and reg.event.action & action:
            return reg.hint
    raise AssertionError((resource, action))


_PREEMPT = NodeResourcesFit(NodeResourcesFitArgs(), None, resize_preemption=True)
CPU1, CPU2 = {"cpu": "1"}, {"cpu": "2"}


@pytest.mark.parametrize(
    ("pod", "old", "want"),
    [
        P(None, None, Q, id="backoff-wrong-old-object", marks=_WRONG_TYPE),
        P(mp("pod1", req=CPU1), mp("pod2", "fake", CPU1), Q, id="queue-on-other-pod-deleted"),
        P(mp(), mp(), SKIP, id="skip-queue-on-unscheduled-pod-deleted"),
        P(mp("pod1", req=CPU1), mp("pod2", req=CPU2, nominated="fake"), Q, id="queue-on-nominated-pod-deleted"),
        P(mp("pod1", "node1", CPU1, deferred=True), mp("pod2", "node2", CPU1), SKIP,
          id="skip-queue-on-other-pod-deleted-different-node-when-deferred"),
        P(mp("pod1", "node1", CPU1, deferred=True), mp("pod2", "node1", CPU1), Q,
          id="queue-on-other-pod-deleted-same-node-when-deferred"),
    ],
)
def test_is_schedulable_after_assigned_pod_delete(pod: Obj, old: Obj, want: QueueingHint) -> None:
    assert _hint(_PREEMPT, "ASSIGNED_POD", ActionType.DELETE)(pod, old, None) == want


@pytest.mark.parametrize(
    "pod",
    [
        P(mp("pod1", req=CPU1), id="queue-on-target-pod-some-resource-scale-down"),
        P(mp("pod1", pod_level=CPU1), id="queue-on-target-pod-some-pod-level-resource-scale-down"),
    ],
)
def test_is_schedulable_after_target_pod_scale_down(pod: Obj) -> None:
    hint = _hint(NodeResourcesFit(NodeResourcesFitArgs(), None), "TARGET_POD", ActionType.UPDATE_POD_SCALE_DOWN)
    assert hint is None or hint(pod, None, None) == Q  # no hint: always queue


MEM1, MEM2 = {"memory": "1"}, {"memory": "2"}


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        P(None, None, None, Q, id="backoff-wrong-old-object", marks=_WRONG_TYPE),
        P(None, None, None, Q, id="backoff-wrong-new-object", marks=_WRONG_TYPE),
        P(mp("pod1", req=CPU1), mp("pod2", req=CPU2), mp("pod2", req=CPU1), SKIP,
          id="skip-queue-on-other-unscheduled-pod"),
        P(mp("pod1", req=CPU1), mp("pod2", "fake", MEM2), mp("pod2", "fake", MEM1), SKIP,
          id="skip-queue-on-other-pod-unrelated-resource-scaled-down"),
        P(mp("pod1", pod_level=CPU1), mp("pod2", "fake", pod_level=MEM2), mp("pod2", "fake", pod_level=MEM1), SKIP,
          id="skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down"),
        P(mp("pod1", req=CPU1), mp("pod2", "fake", CPU2), mp("pod2", "fake", CPU1), Q,
          id="queue-on-other-pod-some-resource-scale-down"),
        P(mp("pod1", pod_level=CPU1), mp("pod2", "fake", pod_level=CPU2), mp("pod2", "fake", pod_level=CPU1), Q,
          id="queue-on-other-pod-some-pod-level-resource-scale-down"),
        P(mp("pod1", "node1", CPU1, deferred=True), mp("pod2", "node2", CPU2), mp("pod2", "node2", CPU1), SKIP,
          id="skip-queue-on-other-pod-scaled-down-different-node-when-deferred"),
        P(mp("pod1", "node1", CPU1, deferred=True), mp("pod2", "node1", CPU2), mp("pod2", "node1", CPU1), Q,
          id="queue-on-other-pod-scaled-down-same-node-when-deferred"),
    ],
)
def test_is_schedulable_after_assigned_pod_scale_down(pod: Obj, old: Obj, new: Obj, want: QueueingHint) -> None:
    assert _hint(_PREEMPT, "ASSIGNED_POD", ActionType.UPDATE_POD_SCALE_DOWN)(pod, old, new) == want


_MEM2_A1 = res_pod(r(mem=2, scalars={EXT_A: 1}))


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        P(None, None, None, Q, id="backoff-wrong-new-object", marks=_WRONG_TYPE),
        P(None, None, None, Q, id="backoff-wrong-old-object", marks=_WRONG_TYPE),
        P(res_pod(r(mem=2)), None, mn({"memory": "1"}), SKIP, id="skip-queue-on-node-add-without-sufficient-resources"),
        P(res_pod(r(scalars={EXT_A: 1})), None, mn({EXT_B: "1"}), SKIP,
          id="skip-queue-on-node-add-without-required-resource-type"),
        P(_MEM2_A1, None, mn({"memory": "4", EXT_A: "2"}), Q, id="queue-on-node-add-with-sufficient-resources"),
        P(_MEM2_A1, mn({"memory": "2", EXT_A: "2"}), mn({"memory": "2", EXT_A: "1", EXT_B: "2"}), SKIP,
          id="skip-queue-on-node-unrelated-changes"),
        P(_MEM2_A1, mn({"memory": "2", EXT_A: "1"}), mn({"memory": "2", EXT_A: "2"}), Q,
          id="queue-on-pod-requested-resources-increase"),
        P(_MEM2_A1, mn({"memory": "4", EXT_A: "2"}), mn({"memory": "1", EXT_A: "2"}), SKIP,
          id="skip-queue-on-node-changes-from-suitable-to-unsuitable"),
        P(_MEM2_A1, mn({"memory": "1", EXT_A: "2"}), mn({"memory": "4", EXT_A: "2"}), Q,
          id="queue-on-node-changes-from-unsuitable-to-suitable"),
    ],
)
def test_is_schedulable_after_node_change(pod: Obj, old: Obj | None, new: Obj, want: QueueingHint) -> None:
    hint = _hint(NodeResourcesFit(NodeResourcesFitArgs(), None), "NODE", ActionType.ADD)
    assert hint(pod, old, new) == want


def _is_fit(pod: Obj, node: Obj | None) -> bool:
    # isFit: a nil node fits nothing; else Fits on an empty NodeInfo.
    return node is not None and not fits_request(PodInfo(pod).requests, NodeInfo("", node))


@pytest.mark.parametrize(
    ("pod", "node", "want"),
    [
        P(mp(), None, False, id="nil node"),
        P(mp(req={"cpu": "2"}), mn({"cpu": "1"}), False, id="insufficient resource"),
        P(mp(req={"cpu": "1"}), mn({"cpu": "2"}), True, id="sufficient resource"),
        P(mp(pod_level={"cpu": "2"}), mn({"cpu": "1"}), False, id="insufficient pod-level resource"),
        P(mp(pod_level={"cpu": "2"}), mn({"cpu": "2"}), True, id="sufficient pod-level resource"),
        P(mp(pod_level={HUGE_A: "2Mi"}), mn({HUGE_A: "2Mi"}), True, id="sufficient pod-level resource hugepages"),
        P(mp(pod_level={HUGE_A: "4Mi"}), mn({HUGE_A: "2Mi"}), False, id="insufficient pod-level resource hugepages"),
    ],
)
def test_is_fit(pod: Obj, node: Obj | None, want: bool) -> None:
    assert _is_fit(pod, node) is want


_ONES = {"pods": "1", "cpu": "1", "memory": "1", "ephemeral-storage": "1", EXT_A: "1"}
_REQ222 = r(2, 2, 2, {EXT_A: 2})
_REQ_DRA = r(2, 2, 2, {EXT_DRA: 2})


@pytest.mark.parametrize(
    ("pod", "before", "after", "dra", "want"),
    [
        P(res_pod(r()), _ONES, {**_ONES, "cpu": "2", "memory": "2", "ephemeral-storage": "2", EXT_A: "2"}, False,
          False, id="no-requested-resources"),
        P(res_pod(r()), _ONES, {**_ONES, "pods": "2"}, False, True, id="no-requested-resources-pods-increased"),
        P(res_pod(_REQ_DRA), {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_DRA: "4"},
          {"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_DRA: "1"}, True, False,
          id="requested-resources-dra-in-node"),
        P(res_pod(_REQ_DRA), {"cpu": "1", "memory": "2", "ephemeral-storage": "3"},
          {"cpu": "1", "memory": "2", "ephemeral-storage": "1"}, True, True, id="requested-resources-dra-not-in-node"),
        P(res_pod(r(scalars={EXT_DRA: 1})), {EXT_DRA: "0"}, {EXT_DRA: "0"}, True, True,
          id="requested-resources-dra-zero-capacity"),
        P(res_pod(_REQ222), {"cpu": "1", "memory": "2", "ephemeral-storage": "3"},
          {"cpu": "1", "memory": "2", "ephemeral-storage": "1"}, False, False, id="scalar-resources-not-in-node"),
        P(res_pod(_REQ222), {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
          {"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_A: "1"}, False, False,
          id="requested-resources-decreased"),
        P(res_pod(_REQ222), {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
          {"cpu": "3", "memory": "4", "ephemeral-storage": "3", EXT_A: "4"}, False, True,
          id="requested-resources-increased"),
        P(res_pod(r(2, 2)), {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
          {"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_A: "1"}, False, False,
          id="non-requested-resources-decreased"),
        P(res_pod(r(2, 2)), {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
          {"cpu": "1", "memory": "2", "ephemeral-storage": "5", EXT_A: "6"}, False, False,
          id="non-requested-resources-increased"),
    ],
)
def test_have_any_requested_resources_increased(
    pod: Obj, before: dict[str, str], after: dict[str, str], dra: bool, want: bool
) -> None:
    alloc = [NodeInfo("", mn(caps)).allocatable for caps in (before, after)]
    backed = {EXT_DRA: "device-class-name"} if dra else {}
    assert requested_resources_increased(PodInfo(pod).requests, alloc[0], alloc[1], backed) is want


def dc(name: str = "", ern: str | None = None) -> Obj:
    spec: Obj = {} if ern is None else {"extendedResourceName": ern}
    return {"metadata": {"name": name}, "spec": spec}


_GPU_CLASS = "deviceclass.resource.kubernetes.io/gpuclass"


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        P(None, None, None, Q, id="backoff-wrong-new-object", marks=_WRONG_TYPE),
        P(None, None, None, Q, id="backoff-wrong-old-object", marks=_WRONG_TYPE),
        P(res_pod(r(mem=2)), dc(), dc(), SKIP, id="skip-queue-on-class-nil-extended-resource-name-pointer"),
        P(res_pod(r(mem=2)), dc(ern="example.com/gpu"), dc(ern="example.com/gpu"), SKIP,
          id="skip-queue-on-class-same-extended-resource-name-pointer"),
        P(res_pod(r(mem=2)), dc(ern="example.com/gpu"), dc(ern="example.com/gpu"), SKIP,
          id="skip-queue-on-class-same-extended-resource-name"),
        P(res_pod(r(scalars={_GPU_CLASS: 1})), None, dc("gpuclass", "example.com/gpu"), Q,
          id="queue-on-class-add-with-implicit-extended-resource-name"),
        P(res_pod(r(scalars={_GPU_CLASS: 1})), None, dc("myclass", "example.com/gpu"), SKIP,
          id="skip-on-class-add-with-implicit-extended-resource-name-not-matching"),
        P(res_pod(r(scalars={"example.com/othergpu": 1})), None, dc("myclass", "example.com/gpu"), SKIP,
          id="skip-on-class-add-with-explicit-extended-resource-name-not-matching"),
        P(res_pod(r(scalars={_GPU_CLASS: 1})), dc("gpuclass"), dc("gpuclass", "example.com/gpu"), SKIP,
          id="skip-on-class-update-with-implicit-extended-resource-name"),
        P(res_pod(r(scalars={"example.com/gpu": 1})), None, dc(ern="example.com/gpu"), Q,
          id="queue-on-class-add-with-extended-resource-name"),
        P(res_pod(r(scalars={"example.com/gpu": 1})), dc(ern="example.com/gpu1"), dc(ern="example.com/gpu"), Q,
          id="queue-on-class-update-with-extended-resource-name"),
    ],
)
def test_is_schedulable_after_device_class_change(pod: Obj, old: Obj | None, new: Obj, want: QueueingHint) -> None:
    fit = NodeResourcesFit(NodeResourcesFitArgs(), FixedClasses({}))
    assert _hint(fit, "DEVICE_CLASS", ActionType.ADD)(pod, old, new) == want


_LOCKED = pytest.mark.skip(reason="InPlacePodVerticalScaling is GA and locked on in 1.37")


@pytest.mark.parametrize(
    ("dra", "want"),
    [
        P(False, [("AssignedPod", ActionType.DELETE), ("Node", ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
                  ("AssignedPod", ActionType.UPDATE_POD_SCALE_DOWN),
                  ("TargetPod", ActionType.UPDATE_POD_SCALE_DOWN)],
          id="Register events with InPlacePodVerticalScaling feature enabled"),
        P(False, [], id="Register events with default features", marks=_LOCKED),
        P(True, [], id="Register events with DRAExtendedResource feature enabled", marks=_LOCKED),
    ],
)
def test_events_to_register(dra: bool, want: list[tuple[str, ActionType]]) -> None:
    fit = NodeResourcesFit(NodeResourcesFitArgs(), FixedClasses({}) if dra else None)
    got = [(str(reg.event.resource), reg.event.action) for reg in fit.events_to_register()]
    assert sorted(got) == sorted(want)
