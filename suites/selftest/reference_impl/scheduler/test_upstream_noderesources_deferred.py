"""Ports noderesources/fit_test.go's TestDeferredResizeFit (KEP-5836: a deferred resize
fits by what it adds beyond its own cached requests)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.node_resources_fit import (
    NAME,
    NodeResourcesFit,
    NodeResourcesFitArgs,
)

Obj = dict[str, Any]
_DEFERRED = [{"type": "PodResizePending", "reason": "Deferred"}]


def pod(name: str, cpu: int, mem: int | None = None, deferred: bool = False) -> Obj:
    req = {"cpu": f"{cpu}m", **({"memory": str(mem)} if mem is not None else {})}
    out: Obj = {"metadata": {"name": name, "uid": f"{name}-uid", "namespace": "default"},
                "spec": {"nodeName": "test-node", "containers": [{"name": "c", "resources": {"requests": req}}]}}
    if deferred:
        out["status"] = {"conditions": _DEFERRED}
    return out


def node_info(cpu: int, mem: int, *existing: Obj) -> NodeInfo:
    alloc = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "32"}
    ni = NodeInfo("test-node", {"metadata": {"name": "test-node"}, "status": {"allocatable": alloc}})
    for p in existing:
        ni.add_pod(PodInfo(p))
    return ni


U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@pytest.mark.parametrize(
    ("target", "ni", "gate", "want"),
    [
        pytest.param(pod("pod1", 800, 1600, True), node_info(1000, 2000, pod("pod1", 500, 1000)), True, OK,
                     id="deferred pod resize fits, no other workloads"),
        pytest.param(pod("pod1", 800, 1600, True), node_info(1000, 2000, pod("pod1", 500, 1000)), False,
                     Status(U, ("Insufficient cpu", "Insufficient memory"), NAME),
                     id="feature gate is false - double counting causes fit failure"),
        pytest.param(pod("pod1", 800, deferred=True), node_info(1000, 0, pod("pod1", 500), pod("pod2", 400)), True,
                     Status(U, ("Insufficient cpu",), NAME),
                     id="deferred pod resize does not fit, but is resolvable via preemption"),
        pytest.param(pod("pod1", 1200, deferred=True), node_info(1000, 0, pod("pod1", 500)), True,
                     Status(UU, ("Insufficient cpu",), NAME),
                     id="deferred pod resize does not fit, unresolvable (exceeds node capacity)"),
        pytest.param(pod("pod1", 800, 1600, True), node_info(1000, 2000), False, OK,
                     id="feature gate is false, pod is not in cache, resize fits"),
    ],
)
def test_deferred_resize_fit(target: Obj, ni: NodeInfo, gate: bool, want: Status) -> None:
    fit = NodeResourcesFit(NodeResourcesFitArgs(), None, resize_preemption=gate)
    state = CycleState()
    _, st = fit.pre_filter(state, target, [ni])
    assert st.is_success()
    assert fit.filter(state, target, ni) == want
