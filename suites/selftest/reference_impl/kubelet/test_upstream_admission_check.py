"""Upstream's ``TestAdmissionCheck`` (pkg/scheduler/eventhandlers_test.go) against the
kubelet layer's port of ``scheduler.AdmissionCheck`` (``admission_check``), with and
without ``includeAllFailures``.

The four rows with DRANodeAllocatableResources on are skipped: the kubelet admission's
requests do not count ``status.nodeAllocatableResourceClaimStatuses`` (their mapped
amounts and per-pod overheads). With the gate off those amounts are ignored, as here.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.kubelet.admission import (
    FailureReason,
    InsufficientResource,
    NodeInfo,
    PredicateFailure,
    admission_check,
)

Obj = dict[str, Any]
NODE_AFFINITY = PredicateFailure("NodeAffinity", "node(s) didn't match Pod's node affinity/selector")
NODE_NAME = PredicateFailure("NodeName", "node(s) didn't match the requested node name")
NODE_PORTS = PredicateFailure("NodePorts",
                              "node(s) didn't have free ports for the requested pod ports")
POD_OVERHEAD = InsufficientResource("cpu", 2000, 7000, 8000, False)
EXTENDED = InsufficientResource("foo.com/bar", 1, 0, 0, True)
_NODE_ALLOCATABLE = pytest.mark.skip(
    reason="nodeAllocatableResourceClaimStatuses are not counted by the kubelet admission")


def _node(labels: dict[str, str] | None = None, cpu: str = "") -> Obj:
    """st.MakeNode().Name("fake-node"): capacity (and allocatable) with 32 pods."""
    res = {"pods": "32", **({"cpu": cpu} if cpu else {})}
    return {"metadata": {"name": "fake-node", "labels": dict(labels or {})},
            "status": {"capacity": res, "allocatable": dict(res)}}


def _pod(name: str, *, host_port: int = 0, selector: dict[str, str] | None = None,
         node: str = "", req: dict[str, str] | None = None, overhead: str = "") -> Obj:
    container: Obj = {"name": "c", "image": "pause"}
    if host_port:
        container["ports"] = [{"hostPort": host_port, "containerPort": host_port,
                               "protocol": "TCP"}]
    if req:
        container["resources"] = {"requests": dict(req)}
    spec: Obj = {"containers": [container]}
    if selector:
        spec["nodeSelector"] = dict(selector)
    if node:
        spec["nodeName"] = node
    if overhead:
        spec["overhead"] = {"cpu": overhead}
    return {"metadata": {"name": name, "namespace": "default", "uid": name}, "spec": spec,
            "status": {}}


def _claimed(mapped: str) -> Obj:
    pod = _pod("pod1", req={"cpu": "1"})
    pod["status"]["nodeAllocatableResourceClaimStatuses"] = [
        {"resourceClaimName": "node-allocatable-claim",
         "mapping": [{"name": "cpu", "quantity": mapped}]}]
    return pod


FOO_BAR = {"foo": "bar"}
ROWS = [
    pytest.param(_node(FOO_BAR), [_pod("pod1", host_port=80)],
                 _pod("pod2", host_port=80, selector={"foo": "bar1"}),
                 [[NODE_AFFINITY, NODE_PORTS], [NODE_AFFINITY]],
                 id="check nodeAffinity and nodeports, nodeAffinity need fail quickly if "
                    "includeAllFailures is false"),
    pytest.param(_node(FOO_BAR, cpu="8"), [_pod("pod1", req={"cpu": "7"}, node="fake-node")],
                 _pod("pod2", req={"cpu": "1"}, overhead="1", selector={"foo": "bar1"}),
                 [[POD_OVERHEAD, NODE_AFFINITY], [POD_OVERHEAD]],
                 id="check PodOverhead and nodeAffinity, PodOverhead need fail quickly if "
                    "includeAllFailures is false"),
    pytest.param(_node(), [_pod("pod1", host_port=80, node="fake-node")],
                 _pod("pod2", host_port=80, node="fake-node1"),
                 [[NODE_NAME, NODE_PORTS], [NODE_NAME]],
                 id="check nodename and nodeports, nodename need fail quickly if "
                    "includeAllFailures is false"),
    pytest.param(_node(), [], _pod("pod1", req={"foo.com/bar": "1"}), [[EXTENDED], [EXTENDED]],
                 id="check extended resource handling when node Allocatable doesn't have the "
                    "resource"),
    pytest.param(_node(), [], _pod("pod1", req={"foo.com/bar": "1"}), [[EXTENDED], [EXTENDED]],
                 id="check extended resource handling when node Allocatable doesn't have the "
                    "resource and DRAExtendedResource is enabled"),
    pytest.param(_node(cpu="8"), [], _claimed("8"), [[], []],
                 id="pod not rejected when DRANodeAllocatableResources flag is disabled"),
    pytest.param(_node(cpu="8"), [], _claimed("8"), [], marks=_NODE_ALLOCATABLE,
                 id="pod rejected when DRANodeAllocatableResources flag is enabled and pod's "
                    "resource request exceeds node capacity"),
    pytest.param(_node(cpu="8"), [], _claimed("7"), [], marks=_NODE_ALLOCATABLE,
                 id="pod not rejected when DRANodeAllocatableResources flag is enabled and pod's "
                    "resource request fits within node capacity"),
    pytest.param(_node(cpu="8"), [], _claimed("8"), [], marks=_NODE_ALLOCATABLE,
                 id="pod rejected when DRANodeAllocatableResources flag is enabled and pod's "
                    "resource request + DRA Overhead exceeds node capacity"),
    pytest.param(_node(cpu="8"), [], _claimed("7"), [], marks=_NODE_ALLOCATABLE,
                 id="pod not rejected when DRANodeAllocatableResources flag is enabled and pod's "
                    "resource request + DRA Overhead fits within node capacity"),
]


@pytest.mark.parametrize(("node", "existing", "pod", "want"), ROWS)
def test_admission_check(node: Obj, existing: list[Obj], pod: Obj,
                         want: list[list[FailureReason]]) -> None:
    info = NodeInfo(node, existing)
    for include_all, expected in zip((True, False), want, strict=True):
        assert admission_check(pod, info, include_all) == expected
