"""Ports noderesources/fit_test.go's TestScorePlacement_Resources (NodeResourcesFit's
PlacementScore: MostAllocated over the placement's nodes)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
)
from suites.selftest.reference_impl.scheduler.upstream_noderesources_util import pod

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"
CM = (("cpu", 1), ("memory", 1))
CMG = (("cpu", 1), ("memory", 1), (GPU, 1))


def cm(cpu: str, mem: str, gpu: str | None = None) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem, **({GPU: gpu} if gpu is not None else {})}


def mk(name: str, caps: dict[str, str], *existing: Obj) -> NodeInfo:
    res = {"pods": "32", **caps}
    ni = NodeInfo(name, {"metadata": {"name": name}, "status": {"capacity": res, "allocatable": dict(res)}})
    for p in existing:
        ni.add_pod(PodInfo(p))
    return ni


C5 = cm("5000m", "5000")
C5G = cm("5000m", "5000", "5")
FOO, BAR = cm("1000m", "0"), cm("2000m", "2000")


@pytest.mark.parametrize(
    ("nodes", "group", "resources", "want"),
    [
        pytest.param([mk("node1", C5), mk("node2", C5)], [(FOO, "node1"), (BAR, "node2")], CM, 25,
                     id="Computes score based on total requests"),
        pytest.param([mk("node1", C5), mk("node2", C5)], [(FOO, "node1"), (BAR, "node2")],
                     (("cpu", 4), ("memory", 1)), 28, id="Computes score using weights"),
        pytest.param([mk("node1", C5), mk("node2", C5)], [(FOO, "node1"), (BAR, "node1")],
                     (("cpu", 4), ("memory", 1)), 28, id="Handles multiple pods per node"),
        pytest.param([mk("node1", C5), mk("node2", C5)], [(FOO, "node1"), (BAR, "node2")], CM, 25,
                     id="Does not include nodes from outside of placement"),
        pytest.param([mk("node1", C5, pod(FOO, node_name="node1")), mk("node2", C5)],
                     [(FOO, "node1"), (BAR, "node2")], CM, 30,
                     id="Includes pre-existing pods from outside of pod group"),
        pytest.param([mk("node1", C5G, pod(cm("1000m", "0", "0"), node_name="node1")), mk("node2", C5G)],
                     [(cm("1000m", "0", "0"), "node1"), (cm("1000m", "2000", "1"), "node2")], CMG, 20,
                     id="Includes scalar resources if any pod in pod group has nonzero requests"),
        pytest.param([mk("node1", C5G, pod(cm("1000m", "0", "1"), node_name="node1")), mk("node2", C5G)],
                     [(cm("1000m", "0", "0"), "node1"), (cm("1000m", "2000", "0"), "node2")], CMG, 25,
                     id="Does not include scalar resources if all pods in pod group have zero requests"),
    ],
)
def test_score_placement_resources(
    nodes: list[NodeInfo], group: list[tuple[dict[str, str], str]], resources: tuple[tuple[str, int], ...],
    want: int,
) -> None:
    # The placement is node1 and node2 (a third snapshot node stays outside it).
    fit = NodeResourcesFit(NodeResourcesFitArgs(resources=resources), None)
    proposed = tuple((PodInfo(pod(req)), node) for req, node in group)
    assignments = PodGroupAssignments(Placement("", nodes), proposed)
    score, st = fit.score_placement(PodGroupInfo({"metadata": {"name": "g"}}), assignments)
    assert st.is_success() and score == want
