"""Upstream's one-cycle CompositePodGroup trees (the ``_Internal`` tests), row by row.

Ported (schedule_one_podgroup_test.go): ``TestCPGHierarchicalScheduling_Internal``,
``TestCPGMinGroupCount_Internal`` and ``TestCPGBasicWithGangChildren_Internal``. Upstream
hands ``podGroupCycle`` the whole tree at once, with a fakePodGroupPlugin Filter failing the
named pods, and checks which pods reach the FailureHandler. Here the tree is created on a
reference Cluster with its scheduler held until every object exists (so the first attempt
sees the whole tree, as upstream's popped entity), the failing pods carry a nodeSelector
no node matches (their Filter is Unschedulable), and the check is which pods are bound and
which report PodScheduled=False. Upstream gives the pods priority 100; one priority for
all changes nothing, so they keep the default (the reference's admission forbids a bare one).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reference_impl.api import (
    condition,
    make_composite_pod_group,
    make_node,
    make_pod,
    make_pod_group,
)
from reference_impl.cluster import Cluster, ClusterConfig

RUNTIME = {"scheduling.k8s.io/v1beta1": "true", "scheduling.k8s.io/v1alpha3": "true"}
GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}
NS = "default"
Tree = tuple[list[tuple[str, int, str]], list[tuple[str, int, str]], set[str]]


def _hierarchical() -> Tree:
    """cpg-root (gang 2) over cpg-sub1 (gang 2: pg1, pg2, pg3 fails), cpg-sub2 (basic:
    pg4 basic, pg5) and cpg-sub3 (gang 2: pg6, pg7 fails, so pg6 fails with it)."""
    cpgs = [("cpg-root", 2, ""), ("cpg-sub1", 2, "cpg-root"), ("cpg-sub2", 0, "cpg-root"),
            ("cpg-sub3", 2, "cpg-root")]
    pgs = [("pg1", 3, "cpg-sub1"), ("pg2", 3, "cpg-sub1"), ("pg3", 3, "cpg-sub1"),
           ("pg4", 0, "cpg-sub2"), ("pg5", 3, "cpg-sub2"),
           ("pg6", 3, "cpg-sub3"), ("pg7", 3, "cpg-sub3")]
    return cpgs, pgs, {"pg3", "pg7"}


def _min_group_count() -> Tree:
    """cpg-root (gang 2) over pg1, pg2, pg3 (fails): two children suffice."""
    return [("cpg-root", 2, "")], [(f"pg{i}", 3, "cpg-root") for i in (1, 2, 3)], {"pg3"}


def _basic_with_gang() -> Tree:
    """cpg-root (basic) over gangs pg1 and pg2 (fails): pg1 goes alone."""
    return [("cpg-root", 0, "")], [("pg1", 3, "cpg-root"), ("pg2", 3, "cpg-root")], {"pg2"}


def _run(tree: Tree, cpu: str) -> Cluster:
    cpgs, pgs, failing = tree
    c = Cluster(GATES, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    c.apply(make_node("node1").capacity(cpu=cpu, memory="100Gi", pods="100").build())
    c.settle()
    c.scheduler._armed = True  # noqa: SLF001 - hold the loop until the tree is complete
    for name, min_groups, parent in cpgs:
        c.apply(make_composite_pod_group(name, NS, min_group_count=min_groups or None,
                                         parent=parent))
    for name, min_count, parent in pgs:
        pg = make_pod_group(name, NS, min_count=min_count or None)
        pg["spec"]["parentCompositePodGroupName"] = parent
        pg["spec"]["workloadRef"] = {"workloadName": "wl", "templateName": "t"}  # required
        c.apply(pg)
        for i in range(3):
            pod = make_pod(f"{name}-pod-{i}", NS).pod_group(name)
            if name in failing:
                pod = pod.node_selector(unschedulable="true")  # fakePodGroupPlugin's Filter
            c.apply(pod.build())
    c.scheduler._armed = False  # noqa: SLF001
    c.scheduler._kick()  # noqa: SLF001
    c.settle()
    return c


def _pods(*groups: str) -> set[str]:
    return {f"{g}-pod-{i}" for g in groups for i in range(3)}


@pytest.mark.parametrize(
    ("build", "cpu", "success", "fail"),
    [
        pytest.param(_hierarchical, "100", _pods("pg1", "pg2", "pg4", "pg5"),
                     _pods("pg3", "pg6", "pg7"), id="TestCPGHierarchicalScheduling_Internal"),
        pytest.param(_min_group_count, "20", _pods("pg1", "pg2"), _pods("pg3"),
                     id="TestCPGMinGroupCount_Internal"),
        pytest.param(_basic_with_gang, "20", _pods("pg1"), _pods("pg2"),
                     id="TestCPGBasicWithGangChildren_Internal"),
    ],
)
def test_cpg_internal(
    build: Callable[[], Tree], cpu: str, success: set[str], fail: set[str]
) -> None:
    c = _run(build(), cpu)
    pods = {p["metadata"]["name"]: p for p in c.api.list("v1", "Pod", NS)}
    assert {n for n, p in pods.items() if p["spec"].get("nodeName")} == success
    failed = {n for n, p in pods.items()
              if (condition(p, "PodScheduled") or {}).get("status") == "False"}
    assert failed == fail
