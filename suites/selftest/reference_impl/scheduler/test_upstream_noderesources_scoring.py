"""Ports NodeResourcesFit's scoring tables: least_allocated_test.go
(TestLeastAllocatedScoringStrategy), most_allocated_test.go (TestMostAllocatedScoringStrategy),
requested_to_capacity_ratio_test.go (TestRequestedToCapacityRatioScoringStrategy,
TestBrokenLinearFunction, TestResourceBinPackingSingleExtended,
TestResourceBinPackingMultipleExtended) and fit_test.go's TestFitScore.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import MAX_NODE_SCORE, Code
from reference_impl.scheduler.plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
)
from reference_impl.scheduler.plugins.node_resources_strategies import broken_linear
from suites.selftest.reference_impl.scheduler.upstream_noderesources_util import (
    node,
    node_info,
    pod,
)

Obj = dict[str, Any]
Caps = dict[str, str]
Reqs = list[Caps]  # one request map per container (st.MakePod().Req(...).Req(...))
DEFAULT = (("cpu", 1), ("memory", 1))
EXT = "abc.com/xyz"
EXT_SET = (("cpu", 1), ("memory", 1), (EXT, 1))


def scores(
    fit: NodeResourcesFit, p: Obj, nodes: list[tuple[str, Caps]], existing: list[Obj],
    pre_score: bool = True,
) -> tuple[list[int], set[Code]]:
    infos = [node_info(node(n, caps), *(e for e in existing if e["spec"].get("nodeName") == n))
             for n, caps in nodes]
    state = CycleState()
    if pre_score:
        assert fit.pre_score(state, p, infos).is_success()
    got, codes = [], set()
    for ni in infos:
        s, st = fit.score(state, p, ni)
        got.append(s)
        codes.add(st.code)
    return got, codes


C4, C6 = {"cpu": "4000", "memory": "10000"}, {"cpu": "6000", "memory": "10000"}
C10 = {"cpu": "10000", "memory": "20000"}
REQ12 = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})


def _strategy_rows(kind: str) -> list[Any]:
    # (name, pod, nodes, existing, resources, want) shared by least_ and most_allocated_test.go.
    least = kind == "LeastAllocated"
    P = pytest.param
    return [
        P(pod(), [("node1", C4), ("node2", C4)], [], DEFAULT,
          [MAX_NODE_SCORE] * 2 if least else [0, 0], id="nothing scheduled, nothing requested"),
        P(pod(*REQ12), [("node1", C4), ("node2", C6)], [], DEFAULT,
          [37, 50] if least else [62, 50],
          id="nothing scheduled, resources requested, differently sized nodes"),
        P(pod(*REQ12), [("node1", C4), ("node2", C6)], [], (), None,
          id="Resources not set, pods scheduled with error"),
        P(pod(), [("node1", C10), ("node2", C10)],
          [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
           pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
           pod({"cpu": "3000", "memory": "0"}, node_name="node2"),
           pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
          DEFAULT, [70, 57] if least else [30, 42],
          id="no resources requested, pods scheduled with resources"),
        P(pod(*REQ12), [("node1", C10), ("node2", C10)],
          [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
           pod({"cpu": "3000", "memory": "5000"}, node_name="node2")],
          DEFAULT, [57, 45] if least else [42, 55], id="resources requested, pods scheduled with resources"),
        P(pod(*REQ12), [("node1", C4), ("node2", C6)], [], (("memory", 2), ("cpu", 1)),
          [41, 50] if least else [58, 50],
          id=("nothing scheduled, resources requested with different weight on CPU and memory, "
              "differently sized nodes") if least else
          "nothing scheduled, resources requested, differently sized nodes (weighted)"),
        P(pod(*REQ12), [("node1", {"cpu": "6000", "memory": "10000"}),
                        ("node2", {"cpu": "6000", "memory": "10000", EXT: "4"})], [], EXT_SET,
          [50, 50], id="bypass extended resource if the pod does not request"),
        P(pod({"cpu": "3000", "memory": "5000", EXT: "2"}),
          [("node1", {"cpu": "6000", "memory": "10000", EXT: "4"}),
           ("node2", {"cpu": "6000", "memory": "10000", EXT: "10"})], [], EXT_SET,
          [50, 60] if least else [50, 40],
          id="honor extended resource if the pod requests" if least
          else "honor extended resource if the pod request"),
        P(pod({"cpu": "3000", "memory": "4000"}),
          [("node1", {"cpu": "6000", "memory": "10000"}),
           ("node2", {"cpu": "6000", "memory": "10000", EXT: "4"})], [],
          ((EXT, 2), ("cpu", 1), ("memory", 1)), [55, 55] if least else [45, 45],
          id="if the node doesn't have a resource"),
    ]


_LEAST_ONLY = [
    pytest.param(pod(), [("node1", C4), ("node2", C4)],
                 [pod(node_name="node1"), pod(node_name="node1"), pod(node_name="node2"),
                  pod(node_name="node2")], DEFAULT, [MAX_NODE_SCORE] * 2,
                 id="no resources requested, pods scheduled"),
    pytest.param(pod(*REQ12), [("node1", C10), ("node2", {"cpu": "10000", "memory": "50000"})],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")], DEFAULT, [57, 60],
                 id="resources requested, pods scheduled with resources, differently sized nodes"),
    pytest.param(pod({"cpu": "3000", "memory": "0"}), [("node1", C4), ("node2", C4)],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")], DEFAULT, [50, 25],
                 id="requested resources exceed node capacity"),
    pytest.param(pod(), [("node1", {}), ("node2", {})],
                 [pod({"cpu": "3000", "memory": "0"}, node_name="node1"),
                  pod({"cpu": "3000", "memory": "5000"}, node_name="node2")], DEFAULT, [0, 0],
                 id="zero node resources, pods scheduled with resources"),
]

_MOST_ONLY = [
    pytest.param(pod({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
                 [("node1", {"cpu": "5000", "memory": "10000"}),
                  ("node2", {"cpu": "10000", "memory": "9000"})], [], DEFAULT, [95, 75],
                 id="resources requested equal node capacity"),
    pytest.param(pod(bare=1), [("node1", {"cpu": "250m", "memory": "1000Mi"}),
                               ("node2", {"cpu": "250m", "memory": "1000Mi"})],
                 [pod(node_name="node1", bare=1), pod(node_name="node1", bare=1)], DEFAULT, [80, 30],
                 id="no resources requested, pods scheduled, nonzero request for resource"),
]


def _check(strategy: str, p: Obj, nodes: list[tuple[str, Caps]], existing: list[Obj],
           resources: tuple[tuple[str, int], ...], want: list[int] | None) -> None:
    fit = NodeResourcesFit(NodeResourcesFitArgs(strategy, resources), None)
    got, codes = scores(fit, p, nodes, existing)
    if want is None:  # "resources not found": Score fails with MinNodeScore
        assert got == [0] * len(nodes) and codes == {Code.ERROR}
    else:
        assert got == want and codes == {Code.SUCCESS}


@pytest.mark.parametrize(("p", "nodes", "existing", "resources", "want"),
                         [*_strategy_rows("LeastAllocated"), *_LEAST_ONLY])
def test_least_allocated_scoring_strategy(
    p: Obj, nodes: list[tuple[str, Caps]], existing: list[Obj],
    resources: tuple[tuple[str, int], ...], want: list[int] | None,
) -> None:
    _check("LeastAllocated", p, nodes, existing, resources, want)


@pytest.mark.parametrize(("p", "nodes", "existing", "resources", "want"),
                         [*_strategy_rows("MostAllocated"), *_MOST_ONLY])
def test_most_allocated_scoring_strategy(
    p: Obj, nodes: list[tuple[str, Caps]], existing: list[Obj],
    resources: tuple[tuple[str, int], ...], want: list[int] | None,
) -> None:
    _check("MostAllocated", p, nodes, existing, resources, want)


_WEIGHT_ROWS = [
    ("resource with negative weight", (("memory", -1), ("cpu", 1)), 0),
    ("resource with zero weight", (("memory", 1), ("cpu", 0)), 1),
]


@pytest.mark.parametrize(
    ("strategy", "resources", "index"),
    [
        *(pytest.param(s, res, i, id=f"{s}: {name}") for s in ("LeastAllocated", "MostAllocated")
          for name, res, i in _WEIGHT_ROWS),
        pytest.param("LeastAllocated", (("memory", 1), ("cpu", 101)), 1,
                     id="LeastAllocated: resource weight larger than MaxNodeScore"),
        pytest.param("MostAllocated", (("memory", 101),), 0,
                     id="MostAllocated: resource weight larger than MaxNodeScore"),
    ],
)
def test_scoring_strategy_weight_validation(
    strategy: str, resources: tuple[tuple[str, int], ...], index: int
) -> None:
    field = f"scoringStrategy.resources[{index}].weight"
    with pytest.raises(ValueError, match="^" + re.escape(f"{field}: Invalid value")):
        NodeResourcesFit(NodeResourcesFitArgs(strategy, resources), None)


_SHAPE_DOWN = ((0, 10), (100, 0))


@pytest.mark.parametrize(
    ("p", "nodes", "existing", "want"),
    [
        pytest.param(pod(), [("node1", C4), ("node2", C4)],
                     [pod(node_name="node1"), pod(node_name="node1")], [MAX_NODE_SCORE] * 2,
                     id="nothing scheduled, nothing requested (default - least requested nodes have priority)"),
        pytest.param(pod(*REQ12), [("node1", C4), ("node2", C6)],
                     [pod(node_name="node1"), pod(node_name="node1")], [38, 50],
                     id="nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)"),
        pytest.param(pod(), [("node1", C4), ("node2", C6)],
                     [pod({"cpu": "3000", "memory": "5000"}, node_name="node1"),
                      pod({"cpu": "3000", "memory": "5000"}, node_name="node2")], [38, 50],
                     id="no resources requested, pods scheduled with resources (default - least requested nodes have priority)"),
    ],
)
def test_requested_to_capacity_ratio_scoring_strategy(
    p: Obj, nodes: list[tuple[str, Caps]], existing: list[Obj], want: list[int]
) -> None:
    fit = NodeResourcesFit(NodeResourcesFitArgs("RequestedToCapacityRatio", DEFAULT, _SHAPE_DOWN), None)
    assert scores(fit, p, nodes, existing)[0] == want


@pytest.mark.parametrize(
    ("points", "assertions"),
    [
        pytest.param(((10, 1), (90, 9)), ((-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2),
                                          (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)), id="case_0"),
        pytest.param(((0, 2), (40, 10), (100, 0)), ((-10, 2), (0, 2), (20, 6), (30, 8), (40, 10),
                                                    (70, 5), (100, 0), (110, 0)), id="case_1"),
        pytest.param(((0, 2), (40, 2), (100, 2)), ((-10, 2), (0, 2), (20, 2), (30, 2), (40, 2),
                                                   (70, 2), (100, 2), (110, 2)), id="case_2"),
    ],
)
def test_broken_linear_function(
    points: tuple[tuple[int, int], ...], assertions: tuple[tuple[int, int], ...]
) -> None:
    f = broken_linear(points)
    assert [(p, f(p)) for p, _ in assertions] == list(assertions)


MIB = 1024 * 1024


def _ext_node(name: str, ext: dict[str, int]) -> tuple[str, Caps]:
    # util_test.go makeNode(name, 4000 milli-CPU, 10000Mi, extended)
    return name, {"cpu": "4000m", "memory": str(10000 * MIB), **{k: str(v) for k, v in ext.items()}}


_FOO4, _FOO8 = {"intel.com/foo": 4}, {"intel.com/foo": 8}


@pytest.mark.parametrize(
    ("p", "existing", "want"),
    [
        pytest.param(pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
        pytest.param(pod({"intel.com/foo": "2"}), [pod()], [2, 5],
                     id="resources requested, pods scheduled with less resources"),
        pytest.param(pod({"intel.com/foo": "2"}), [pod({"intel.com/foo": "2"}, node_name="node2")],
                     [2, 10], id="resources requested, pods scheduled with resources, on node with existing pod running "),
        pytest.param(pod({"intel.com/foo": "4"}), [pod()], [5, 10],
                     id="resources requested, pods scheduled with more resources"),
    ],
)
def test_resource_bin_packing_single_extended(p: Obj, existing: list[Obj], want: list[int]) -> None:
    args = NodeResourcesFitArgs("RequestedToCapacityRatio", (("intel.com/foo", 1),), ((0, 0), (100, 1)))
    nodes = [_ext_node("node1", _FOO8), _ext_node("node2", _FOO4)]
    assert scores(NodeResourcesFit(args, None), p, nodes, existing)[0] == want


_E1 = {"intel.com/foo": 4, "intel.com/bar": 8}
_E2 = {"intel.com/foo": 8, "intel.com/bar": 4}
_P1 = {"intel.com/foo": "2", "intel.com/bar": "2"}
_P2 = {"intel.com/foo": "4", "intel.com/bar": "2"}


@pytest.mark.parametrize(
    ("p", "existing", "want"),
    [
        pytest.param(pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
        pytest.param(pod(_P1), [pod()], [4, 3], id="resources requested, pods scheduled with less resources"),
        pytest.param(pod(_P1), [pod(_P2, node_name="node2")], [4, 7],
                     id="resources requested, pods scheduled with resources, on node with existing pod running "),
        pytest.param(pod(_P2), [pod()], [5, 5], id="resources requested, pods scheduled with more resources"),
    ],
)
def test_resource_bin_packing_multiple_extended(p: Obj, existing: list[Obj], want: list[int]) -> None:
    args = NodeResourcesFitArgs(
        "RequestedToCapacityRatio", (("intel.com/foo", 3), ("intel.com/bar", 5)), ((0, 0), (100, 1))
    )
    nodes = [_ext_node("node1", _E2), _ext_node("node2", _E1)]
    assert scores(NodeResourcesFit(args, None), p, nodes, existing)[0] == want


_REQ35 = {"cpu": "3000", "memory": "5000"}
_REQ12 = {"cpu": "1000", "memory": "2000"}
_EXISTING = [pod({"cpu": "2000", "memory": "4000"}, node_name="node1"),
             pod({"cpu": "1000", "memory": "2000"}, node_name="node2")]


def _sidecar_existing() -> list[Obj]:
    side = pod(_REQ12, node_name="node1")
    side["spec"]["initContainers"] = [{"name": "side", "image": "i", "restartPolicy": "Always",
                                       "resources": {"requests": dict(_REQ12)}}]
    return [side, pod(_REQ12, node_name="node2")]


_SKIP_DRA = pytest.mark.skip(
    reason="DRA-backed extended resource scoring (ResourceSlices) is not modelled in NodeResourcesFit.Score"
)
_FIT_SCORE = [
    ("test case for ScoringStrategy RequestedToCapacityRatio case1",
     NodeResourcesFitArgs("RequestedToCapacityRatio", DEFAULT, _SHAPE_DOWN), _REQ35, C6, _EXISTING, [10, 32]),
    ("test case for ScoringStrategy RequestedToCapacityRatio case2",
     NodeResourcesFitArgs("RequestedToCapacityRatio", DEFAULT, ((0, 0), (100, 10))), _REQ35, C6, _EXISTING,
     [95, 68]),
    ("test case for ScoringStrategy MostAllocated", NodeResourcesFitArgs("MostAllocated", DEFAULT), _REQ12,
     C6, _EXISTING, [67, 36]),
    ("test case for ScoringStrategy LeastAllocated", NodeResourcesFitArgs("LeastAllocated", DEFAULT), _REQ12,
     C6, _EXISTING, [32, 63]),
]


@pytest.mark.parametrize(
    ("args", "p", "nodes", "existing", "want", "pre_score"),
    [
        *(pytest.param(a, pod(q), [("node1", C4), ("node2", n2)], e, w, True, id=name)
          for name, a, q, n2, e, w in _FIT_SCORE),
        *(pytest.param(a, pod(q), [("node1", C4), ("node2", n2)], e, w, False,
                       id=f"{name} if PreScore is not called")
          for name, a, q, n2, e, w in _FIT_SCORE if "case2" not in name),
        pytest.param(NodeResourcesFitArgs("MostAllocated", DEFAULT), pod(_REQ12),
                     [("node1", C4), ("node2", C4)], _sidecar_existing(), [67, 45], True,
                     id="test case for ScoringStrategy MostAllocated with sidecar container"),
        pytest.param(NodeResourcesFitArgs("LeastAllocated", DEFAULT), pod(_REQ12),
                     [("node1", C4), ("node2", C4)], _sidecar_existing(), [32, 55], True,
                     id="test case for ScoringStrategy LeastAllocated with sidecar container"),
        pytest.param(None, None, [], [], [], True, marks=_SKIP_DRA,
                     id="test case for ScoringStrategy LeastAllocated with Extended resources"),
        pytest.param(None, None, [], [], [], False, marks=_SKIP_DRA,
                     id="test case for ScoringStrategy LeastAllocated with Extended resources if PreScore is not called"),
    ],
)
def test_fit_score(
    args: NodeResourcesFitArgs, p: Obj, nodes: list[tuple[str, Caps]], existing: list[Obj],
    want: list[int], pre_score: bool,
) -> None:
    got, codes = scores(NodeResourcesFit(args, None), p, nodes, existing, pre_score)
    assert got == want and codes == {Code.SUCCESS}
