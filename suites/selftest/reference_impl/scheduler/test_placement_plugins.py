"""The TopologyAwareWorkloadScheduling placement plugins against the cases of upstream's
topology_placement_test.go and podgroup_pods_count_test.go, and the placement runner."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.scheduler.framework.interface import MAX_NODE_SCORE, OK, Code
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
    run_placement_generate_plugins,
    run_placement_score_plugins,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import node_resources_fit, podgroup_pods_count
from reference_impl.scheduler.plugins.topology_placement import TopologyPlacement

Obj = dict[str, Any]
RACK = "topology.kubernetes.io/rack"


def _ni(name: str, rack: str | None = None, cpu: str = "4", *pods: Obj) -> NodeInfo:
    node = make_node(name).capacity(cpu=cpu, memory="8Gi")
    if rack is not None:
        node = node.label(RACK, rack)
    ni = NodeInfo(name, node.build())
    for p in pods:
        p["metadata"].setdefault("namespace", "default")
        ni.add_pod(PodInfo(p))
    return ni


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


def _group(topology: bool = True) -> Obj:
    spec: Obj = {"schedulingPolicy": {"gang": {"minCount": 2}}}
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": RACK}]}
    return {"metadata": {"name": "pg", "namespace": "default"}, "spec": spec}


NODES = [_ni("node1", "r1"), _ni("node2", "r1"), _ni("node3", "r2"), _ni("bare")]


def _generate(group: PodGroupInfo, nodes: list[NodeInfo] = NODES) -> tuple[dict[str, list[str]], Code]:
    plugin = TopologyPlacement(_Handle(NODES))  # type: ignore[arg-type]
    placements, status = plugin.generate_placements(group, Placement("", nodes))
    return {p.name: [n.name for n in p.nodes] for p in placements}, status.code


def test_without_a_constraint_the_parent_placement_is_the_only_one() -> None:
    got, code = _generate(PodGroupInfo(_group(topology=False)))
    assert (got, code) == ({"": ["node1", "node2", "node3", "bare"]}, Code.SUCCESS)


def test_one_placement_per_topology_domain_and_unlabelled_nodes_in_none() -> None:
    got, code = _generate(PodGroupInfo(_group()))
    assert (got, code) == ({"r1": ["node1", "node2"], "r2": ["node3"]}, Code.SUCCESS)


def test_without_a_matching_label_no_placement_and_the_runner_says_unschedulable() -> None:
    assert _generate(PodGroupInfo(_group()), [NODES[3]]) == ({}, Code.SUCCESS)
    plugin = TopologyPlacement(_Handle(NODES))  # type: ignore[arg-type]
    placements, status = run_placement_generate_plugins([plugin], PodGroupInfo(_group()), [NODES[3]])
    assert placements == []
    assert (status.code, status.message(), status.plugin) == (
        Code.UNSCHEDULABLE, "no feasible placements found", "TopologyPlacementGenerator")


@pytest.mark.parametrize(
    ("scheduled", "nodes", "want"),
    [
        pytest.param(("node3",), NODES, ({"r2": ["node3"]}, Code.SUCCESS), id="the scheduled domain"),
        pytest.param(("node3",), NODES[:2], ({}, Code.SUCCESS), id="scheduled domain not offered"),
        pytest.param(("node1", "node3"), NODES, ({}, Code.ERROR), id="conflicting domains"),
        pytest.param(("gone",), NODES, ({}, Code.ERROR), id="node outside the snapshot"),
        pytest.param(("bare",), NODES, ({}, Code.ERROR), id="node without the label"),
    ],
)
def test_scheduled_members_pin_the_domain(
    scheduled: tuple[str, ...], nodes: list[NodeInfo], want: tuple[dict[str, list[str]], Code]
) -> None:
    assert _generate(PodGroupInfo(_group(), scheduled), nodes) == want


def test_no_generator_means_one_placement_of_every_node() -> None:
    placements, status = run_placement_generate_plugins([], PodGroupInfo(_group()), NODES)
    assert [(p.name, len(p.nodes)) for p in placements] == [("", 4)] and status == OK


def _assign(n: int, nodes: list[NodeInfo] = NODES[:1], cpu: str = "1") -> PodGroupAssignments:
    pods = tuple((PodInfo(make_pod(f"p{i}").req(cpu=cpu).build()), nodes[0].name) for i in range(n))
    return PodGroupAssignments(Placement("x", nodes), pods)


def test_pods_count_adds_scheduled_members_to_the_proposed_pods() -> None:
    plugin = podgroup_pods_count.PodGroupPodsCount()
    group = PodGroupInfo(_group(), ("node1", "node1", "node2"))  # 1 assumed + 2 assigned
    assert plugin.score_placement(group, _assign(2)) == (5, OK)
    assert plugin.score_placement(PodGroupInfo(_group()), _assign(2)) == (2, OK)


@pytest.mark.parametrize(
    ("scores", "want"),
    [
        pytest.param([10, 50, 110], [9, 45, 100], id="distinct scores"),
        pytest.param([50, 50], [100, 100], id="equal scores"),
        pytest.param([50], [100], id="single score"),
        pytest.param([11, 100, 101, 102], [10, 98, 99, 100], id="one far below a close group"),
    ],
)
def test_pods_count_normalises_against_the_largest(scores: list[int], want: list[int]) -> None:
    plugin = podgroup_pods_count.PodGroupPodsCount()
    assert plugin.normalize_placement_scores(PodGroupInfo(_group()), scores) == OK
    assert scores == want


def test_pods_count_with_only_zero_scores_is_an_error() -> None:
    plugin = podgroup_pods_count.PodGroupPodsCount()
    status = plugin.normalize_placement_scores(PodGroupInfo(_group()), [0, 0])
    assert status is not None and status.code is Code.ERROR


FIT = node_resources_fit.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]


def test_fit_scores_a_placement_most_allocated_over_all_its_nodes() -> None:
    # Two 1-CPU pods on two 4-CPU nodes: cpu 2000/8000 -> 25; memory: the non-zero
    # default 200Mi each, 400Mi of 16Gi -> 2; (25 + 2) / 2 = 13.
    roomy = _assign(2, [_ni("a", "r1"), _ni("b", "r1")])
    # The same pods on two 1-CPU nodes, one of which already runs a 500m pod:
    # cpu (2000 + 500) capped at 2000 -> 100; memory (400Mi + 200Mi) of 16Gi -> 3; 51.
    busy = make_pod("old").req(cpu="500m").build()
    tight = _assign(2, [_ni("c", "r2", "1", busy), _ni("d", "r2", "1")])
    group = PodGroupInfo(_group())
    assert FIT.score_placement(group, roomy) == (13, OK)  # type: ignore[attr-defined]
    assert FIT.score_placement(group, tight) == (51, OK)  # type: ignore[attr-defined]


def test_the_runner_weights_each_plugin_and_sums() -> None:
    group = PodGroupInfo(_group())
    cands = [_assign(2, [_ni("a", "r1"), _ni("b", "r1")]), _assign(4, [_ni("c", "r2")])]
    count = podgroup_pods_count.PodGroupPodsCount()
    totals, status = run_placement_score_plugins(
        [FIT, count], {"NodeResourcesFit": 1, "PodGroupPodsCount": 2}, group, cands  # type: ignore[list-item]
    )
    # Fit: 13 and (4000/4000 -> 100, 800Mi/8Gi -> 9) 54; count: 50 and 100, times 2.
    assert status == OK and totals == [13 + 2 * 50, 54 + 2 * MAX_NODE_SCORE]
