"""Ports noderesources/balanced_allocation_test.go: TestNodeResourcesBalancedAllocation."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.plugins.balanced_allocation import (
    BalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
)
from suites.selftest.reference_impl.scheduler.upstream_noderesources_util import (
    node,
    node_info,
    pod,
)

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"
WITH_GPU = NodeResourcesBalancedAllocationArgs((("cpu", 1), ("memory", 1), (GPU, 1)))


def mk(name: str, milli_cpu: int, memory: int, gpus: int = 0) -> Obj:
    """util_test.go makeNode."""
    caps = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    if gpus:
        caps[GPU] = str(gpus)
    return node(name, caps)


def cm(cpu: str, mem: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem}


def c(cpu: str) -> dict[str, str]:
    return {"cpu": cpu}


_REQ = (cm("1000m", "2000"), cm("2000m", "3000"))
_SKIP_DRA = pytest.mark.skip(reason="DRA-backed extended resources (ResourceSlices) are not "
                             "counted by the reference's BalancedAllocation")


@pytest.mark.parametrize(
    ("args", "p", "nodes", "existing", "want", "pre_score"),
    [
        pytest.param(None, pod(), [mk("node1", 4000, 10000), mk("node2", 4000, 10000)], [], None, True,
                     id="nothing scheduled, nothing requested, skip in PreScore"),
        pytest.param(None, pod(*_REQ), [mk("node1", 4000, 10000), mk("node2", 6000, 10000)], [], [68, 75],
                     True, id="nothing scheduled, resources requested, differently sized nodes"),
        pytest.param(None, pod(*_REQ), [mk("node1", 10000, 20000), mk("node2", 10000, 20000)],
                     [pod(c("1000m"), c("2000m"), node_name="node1"), pod(*_REQ, node_name="node2")],
                     [73, 74], True, id="resources requested, pods scheduled with resources"),
        pytest.param(None, pod(*_REQ), [mk("node1", 10000, 20000), mk("node2", 10000, 50000)],
                     [pod(c("1000m"), c("2000m"), node_name="node1"), pod(*_REQ, node_name="node2")],
                     [73, 70], True,
                     id="resources requested, pods scheduled with resources, differently sized nodes"),
        pytest.param(None, pod({"memory": "2000"}, {"memory": "3000"}),
                     [mk("node1", 3000, 5000), mk("node2", 3000, 5000)],
                     [pod(c("1000m"), c("2000m"), node_name="node1")], [100, 50], True,
                     id="resources requested, pods scheduled with resources, nodes to reach min/max score"),
        pytest.param(None, pod(c("1000m"), c("2000m")), [mk("node1", 6000, 10000), mk("node2", 6000, 10000)],
                     [pod(c("1000m"), c("2000m"), node_name="node1"), pod(*_REQ, node_name="node2")],
                     [62, 62], True, id="requested resources at node capacity"),
        pytest.param(WITH_GPU, pod({"cpu": "0", "memory": "0", GPU: "1"}),
                     [mk("node1", 3500, 40000, 8), mk("node2", 3500, 40000, 8)],
                     [pod(cm("1000m", "2000"), {"cpu": "2000m", "memory": "3000", GPU: "3"}, node_name="node1"),
                      pod(*_REQ, node_name="node2")], [75, 76], True,
                     id="scalar resource is included in the score computation if pod requests the scalar resource"),
        pytest.param(WITH_GPU, pod(*_REQ), [mk("node1", 3500, 40000, 8), mk("node2", 3500, 40000)], [],
                     [56, 56], True,
                     id="scalar resource is not included in the score computation if pod doesn't request the scalar resource"),
        pytest.param(None, pod(*_REQ), [mk("node1", 10000, 20000), mk("node2", 10000, 20000)],
                     [pod(c("1000m"), c("2000m"), node_name="node1"), pod(*_REQ, node_name="node2")],
                     [73, 74], False, id="resources requested, pods scheduled with resources if PreScore not called"),
        pytest.param(None, pod(), [], [], None, True, marks=_SKIP_DRA,
                     id="include DRA resource on a node for balanced resource allocation"),
        pytest.param(None, pod(), [], [], None, False, marks=_SKIP_DRA,
                     id="include DRA resource on a node for balanced resource allocation if PreScore not called"),
    ],
)
def test_node_resources_balanced_allocation(
    args: NodeResourcesBalancedAllocationArgs | None, p: Obj, nodes: list[Obj], existing: list[Obj],
    want: list[int] | None, pre_score: bool,
) -> None:
    plugin = BalancedAllocation(args or NodeResourcesBalancedAllocationArgs())
    infos = [node_info(n, *(e for e in existing if e["spec"]["nodeName"] == n["metadata"]["name"]))
             for n in nodes]
    state = CycleState()
    if pre_score:
        st = plugin.pre_score(state, p, infos)
        assert st.code is (Code.SKIP if want is None else Code.SUCCESS)
        if want is None:
            return
    got = []
    for ni in infos:
        s, st = plugin.score(state, p, ni)
        assert st.is_success()
        got.append(s)
    assert got == want
    if pre_score:  # the batch fast path agrees (cpu and memory only)
        batch = plugin.score_nodes(state, p, infos)
        assert batch is None or batch == want
