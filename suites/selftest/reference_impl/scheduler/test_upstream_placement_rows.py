"""Upstream's TopologyAwareWorkloadScheduling placement tables, row by row.

Ported: ``TestGeneratePlacements`` (plugins/topologyaware/topology_placement_test.go),
``TestScorePlacement`` and ``TestNormalizePlacementScore``
(plugins/podgrouppodscount/podgroup_pods_count_test.go). Upstream finds a group's
scheduled pods (through any CompositePodGroup levels) in the snapshot; the reference's
workload cycle collects them and hands their nodes in as ``PodGroupInfo.scheduled_nodes``
(``composite_cycle._subtree_groups``), so a row's scheduled pods become that tuple: the
``pathToRoot`` of a cpg row only decides membership, which every row's pods have.
Upstream runs each PodGroup row with CompositePodGroup off and on; the plugins do not
read the gate, so each row runs once.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import podgroup_pods_count, topology_placement

Obj = dict[str, Any]
INITIAL = "test-placement"


def _node(name: str, **labels: str) -> NodeInfo:
    b = make_node(name)
    for k, v in labels.items():
        b = b.label(k, v)
    return NodeInfo(name, b.build())


def _group(kind: str, key: str | None) -> Obj:
    spec: Obj = {}
    if key is not None:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    return {"kind": kind, "metadata": {"name": "root", "namespace": "default"}, "spec": spec}


class _Lister:
    def __init__(self, nodes: list[NodeInfo]) -> None:
        self._by_name = {n.name: n for n in nodes}

    def get(self, name: str) -> NodeInfo | None:
        return self._by_name.get(name)


class _Handle:
    def __init__(self, nodes: list[NodeInfo]) -> None:
        self._lister = _Lister(nodes)

    def snapshot_shared_lister(self) -> _Lister:
        return self._lister


_N6 = [("node0", "topology2", "d1"), ("node1", "topology2", "d4"), ("node2", "topology1", "d1"),
       ("node3", "topology1", "d2"), ("node4", "topology1", "d1"), ("node5", "topology1", "d3")]
D123 = {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}
_L = list[tuple[str, str, str]]


def _ns(rows: _L) -> list[NodeInfo]:
    return [_node(n, **{k: v}) for n, k, v in rows]


# (name, kind, topology key, scheduled pods' nodes, placement nodes, other nodes, want, code)
_ROWS: list[tuple[str, str, str | None, list[str], _L, _L, dict[str, list[str]], Code]] = []
for _kind, _p in (("PodGroup", ""), ("CompositePodGroup", "for cpg ")):
    _ROWS += [
        (f"{_p}without constraint returns placement matching all nodes", _kind, None, [],
         [("node1", "x", "y"), ("node2", "foo", "bar")], [("node3", "x", "y")],
         {INITIAL: ["node1", "node2"]}, Code.SUCCESS),
        (f"{_p}with topology key constraint, returns placement for each topology domain", _kind,
         "topology1", [], _N6, [], D123, Code.SUCCESS),
        (f"{_p}without matching topology label, returns empty", _kind, "topology3", [], _N6, [],
         {}, Code.SUCCESS),
        (f"{_p}with pods already scheduled in a single domain, returns that domain", _kind,
         "topology", ["node2", "node3"], [("node0", "topology", "d2"), ("node1", "topology", "d1")],
         [("node2", "topology", "d1"), ("node3", "topology", "d1")], {"d1": ["node1"]},
         Code.SUCCESS),
        (f"{_p}with pods already scheduled in a single domain not present in current placement, "
         "returns empty", _kind, "topology", ["node2", "node3"], [("node0", "topology", "d2")],
         [("node2", "topology", "d1"), ("node3", "topology", "d1")], {}, Code.SUCCESS),
    ]
_CONFLICT = ([("node0", "topology", "d2"), ("node1", "topology", "d1")],
             [("node2", "topology", "d0"), ("node3", "topology", "d1")])
_OUTSIDE = ([("node0", "topology", "d2"), ("node1", "topology", "d1")],
            [("node2", "topology", "d1"), ("node3", "topology", "d1")])
_ROWS += [
    ("with pods already scheduled in conflicting domains, returns error", "PodGroup", "topology",
     ["node2", "node3"], *_CONFLICT, {}, Code.ERROR),
    ("with already scheduled pod on node outside of snapshot, returns error", "PodGroup",
     "topology", ["node2", "node4"], *_OUTSIDE, {}, Code.ERROR),
    ("with already scheduled pod on node without topology label, returns error", "PodGroup",
     "topology", ["node2"], [("node1", "topology", "d2")], [("node2", "foo", "bar")], {},
     Code.ERROR),
    ("for cpg with pods already scheduled in conflicting domains across separate pod groups, "
     "returns error", "CompositePodGroup", "topology", ["node2", "node3"], *_CONFLICT, {},
     Code.ERROR),
    ("for cpg with pods already scheduled in conflicting domains in a single pod group, "
     "returns error", "CompositePodGroup", "topology", ["node2", "node3"], *_CONFLICT, {},
     Code.ERROR),
    ("for cpg with already scheduled pod on node outside of snapshot, returns error",
     "CompositePodGroup", "topology", ["node2", "node4"], *_OUTSIDE, {}, Code.ERROR),
    ("for cpg with already scheduled pod on node without topology label, returns error",
     "CompositePodGroup", "topology", ["node2"], [("node1", "topology", "d2")],
     [("node2", "foo", "bar")], {}, Code.ERROR),
]


@pytest.mark.parametrize(
    ("kind", "key", "scheduled", "placement", "others", "want", "code"),
    [pytest.param(*r[1:], id=r[0]) for r in _ROWS],
)
def test_generate_placements(
    kind: str, key: str | None, scheduled: list[str], placement: _L, others: _L,
    want: dict[str, list[str]], code: Code,
) -> None:
    # Upstream's unlabelled nodes: a label under an unrelated key keeps the table flat.
    pnodes, onodes = _ns(placement), _ns(others)
    features = SchedulerFeatures(enable_composite_pod_group=kind == "CompositePodGroup")
    plugin = topology_placement.new(None, _Handle(pnodes + onodes), features)  # type: ignore[arg-type]
    assert isinstance(plugin, topology_placement.TopologyPlacement)
    got, status = plugin.generate_placements(
        PodGroupInfo(_group(kind, key), tuple(scheduled)), Placement(INITIAL, pnodes)
    )
    assert status.code is code
    if status.is_success():
        assert {p.name: [n.name for n in p.nodes] for p in got} == want


def _proposed() -> tuple[tuple[PodInfo, str], ...]:
    out = []
    for i, node in ((1, "node1"), (2, "node2")):
        pod = make_pod(f"proposed-pod-{i}").build()
        pod["metadata"]["namespace"] = "default"
        out.append((PodInfo(pod), node))
    return tuple(out)


# (name, kind, assigned pods' nodes, assumed pods' nodes, expected score)
_SCORE_ROWS = [
    ("existing assigned and assumed pods", "PodGroup", ["node2", "node3"], ["node1"], 5),
    ("no assumed pods", "PodGroup", ["node1"], [], 3),
    ("no assigned pods", "PodGroup", [], ["node1"], 3),
    ("no assigned pods, no assumed pods", "PodGroup", [], [], 2),
    ("for cpg existing assigned and assumed pods across multi-level hierarchies",
     "CompositePodGroup", ["node2", "node3"], ["node1"], 5),
    ("for cpg with no assumed pods", "CompositePodGroup", ["node1"], [], 3),
    ("for cpg with no assigned pods", "CompositePodGroup", [], ["node1"], 3),
    ("for cpg with no assigned pods, no assumed pods", "CompositePodGroup", [], [], 2),
]


@pytest.mark.parametrize(
    ("kind", "assigned", "assumed", "want"), [pytest.param(*r[1:], id=r[0]) for r in _SCORE_ROWS]
)
def test_score_placement(kind: str, assigned: list[str], assumed: list[str], want: int) -> None:
    features = SchedulerFeatures(enable_composite_pod_group=kind == "CompositePodGroup")
    plugin = podgroup_pods_count.new(None, None, features)  # type: ignore[arg-type]
    assert isinstance(plugin, podgroup_pods_count.PodGroupPodsCount)
    group = PodGroupInfo(_group(kind, None), tuple(assigned + assumed))
    score, status = plugin.score_placement(
        group, PodGroupAssignments(Placement("p", []), _proposed())
    )
    assert status.is_success()
    assert score == want


@pytest.mark.parametrize(
    ("scores", "want", "error"),
    [
        pytest.param([10, 50, 110], [9, 45, 100], "", id="distinct scores"),
        pytest.param([50, 50], [100, 100], "", id="equal scores"),
        pytest.param([50], [100], "", id="single score"),
        pytest.param([11, 100, 101, 102], [10, 98, 99, 100], "",
                     id="some minimal score that is far from a group of scores located closely"),
        pytest.param([0, 0], None,
                     "no pods from pod group are assigned to any of the candidate placements",
                     id="zero scores"),
    ],
)
def test_normalize_placement_score(scores: list[int], want: list[int] | None, error: str) -> None:
    plugin = podgroup_pods_count.PodGroupPodsCount()
    status = plugin.normalize_placement_scores(PodGroupInfo(_group("PodGroup", None)), scores)
    assert status is not None
    if error:
        assert not status.is_success() and status.message() == error
        return
    assert status.is_success() and scores == want
