"""CompositePodGroup trees scheduled end to end: upstream's integration rows.

Ported: ``TestCPGScheduling`` (test/integration/scheduler/podgroup/cpg_test.go), each
row's steps on a reference Cluster with one node: GangScheduling's PreEnqueue tree quorum
(``checkCPGHierarchyReadiness``) lets a tree in, then the pod-group cycle
(``composite_cycle``) places it. The Workload objects are left out (the scheduler reads
none); pods and groups carry upstream's names and CPU requests. Upstream gives every
object priority 100; the reference's priority admission forbids a bare integer priority,
and one priority for all changes nothing, so they keep the default.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_composite_pod_group, make_node, make_pod, make_pod_group
from reference_impl.cluster import Cluster, ClusterConfig

Obj = dict[str, Any]
RUNTIME = {"scheduling.k8s.io/v1beta1": "true", "scheduling.k8s.io/v1alpha3": "true"}
GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}
NS = "default"


def _cluster(cpu: str) -> Cluster:
    c = Cluster(GATES, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    c.apply(make_node("node1").capacity(cpu=cpu, memory="64Gi", pods="110").build())
    return c


def _cpg(c: Cluster, name: str, min_groups: int | None, parent: str = "") -> None:
    c.apply(make_composite_pod_group(name, NS, min_group_count=min_groups, parent=parent))


def _pg(c: Cluster, name: str, parent: str, min_count: int | None) -> None:
    pg = make_pod_group(name, NS, min_count=min_count)
    pg["spec"]["parentCompositePodGroupName"] = parent
    pg["spec"]["workloadRef"] = {"workloadName": "wl", "templateName": "t"}
    c.apply(pg)


def _pods(c: Cluster, group: str, *cpus: str) -> list[str]:
    """``makeTestPods``: ``<group>-pod-<i>`` requesting each CPU amount."""
    names = []
    for i, cpu in enumerate(cpus):
        pod = make_pod(f"{group}-pod-{i}", NS).req(cpu=cpu).pod_group(group).build()
        c.apply(pod)
        names.append(pod["metadata"]["name"])
    return names


def _bound(c: Cluster) -> set[str]:
    return {p["metadata"]["name"] for p in c.api.list("v1", "Pod", NS) if p["spec"].get("nodeName")}


def _hierarchical(c: Cluster) -> tuple[set[str], set[str]]:
    _cpg(c, "cpg-root", 2)
    _cpg(c, "cpg-sub1", 2, "cpg-root")
    _cpg(c, "cpg-sub2", None, "cpg-root")
    _cpg(c, "cpg-sub3", 2, "cpg-root")
    for pg, parent, mc in (("pg1", "cpg-sub1", 3), ("pg2", "cpg-sub1", 3), ("pg3", "cpg-sub1", 3),
                           ("pg4", "cpg-sub2", None), ("pg5", "cpg-sub2", 3),
                           ("pg6", "cpg-sub3", 3), ("pg7", "cpg-sub3", 3)):
        _pg(c, pg, parent, mc)
    ok = {*_pods(c, "pg1", "1", "1", "1"), *_pods(c, "pg2", "1", "1", "1")}
    bad = set(_pods(c, "pg3", "100", "100", "100"))
    ok |= {*_pods(c, "pg4", "1", "1", "1"), *_pods(c, "pg5", "1", "1", "1")}
    bad |= {*_pods(c, "pg6", "1", "1", "1"), *_pods(c, "pg7", "100", "100", "100")}
    return ok, bad


def _min_group_count(c: Cluster) -> tuple[set[str], set[str]]:
    _cpg(c, "cpg-root", 2)
    for pg in ("pg1", "pg2", "pg3"):
        _pg(c, pg, "cpg-root", 3)
    ok = {*_pods(c, "pg1", "1", "1", "1"), *_pods(c, "pg2", "1", "1", "1")}
    return ok, set(_pods(c, "pg3", "100", "1", "1"))


def _basic_with_gang(c: Cluster) -> tuple[set[str], set[str]]:
    _cpg(c, "cpg-root", None)
    _pg(c, "pg1", "cpg-root", 3)
    _pg(c, "pg2", "cpg-root", 3)
    return set(_pods(c, "pg1", "1", "1", "1")), set(_pods(c, "pg2", "100", "1", "1"))


def _basic_with_basic(c: Cluster) -> tuple[set[str], set[str]]:
    _cpg(c, "cpg-root", None)
    _pg(c, "pg1", "cpg-root", None)
    _pg(c, "pg2", "cpg-root", None)
    return {*_pods(c, "pg1", "1", "1"), *_pods(c, "pg2", "1", "1")}, set()


def _gang_with_basic(c: Cluster) -> tuple[set[str], set[str]]:
    _cpg(c, "cpg-root", 2)
    for pg in ("pg1", "pg2", "pg3"):
        _pg(c, pg, "cpg-root", None)
    ok = {*_pods(c, "pg1", "1", "1", "1"), *_pods(c, "pg2", "1", "1", "1")}
    return ok, set(_pods(c, "pg3", "10", "10", "10"))


def _basic_with_unschedulable_basic(c: Cluster) -> tuple[set[str], set[str]]:
    _cpg(c, "cpg-root", None)
    _pg(c, "pg1", "cpg-root", None)
    _pg(c, "pg2", "cpg-root", None)
    return set(), {*_pods(c, "pg1", "50", "50"), *_pods(c, "pg2", "50", "50")}


@pytest.mark.parametrize(
    ("cpu", "build"),
    [
        pytest.param("20", _hierarchical, id="TestCPGHierarchicalScheduling"),
        pytest.param("20", _min_group_count, id="TestCPGMinGroupCount"),
        pytest.param("20", _basic_with_gang, id="TestCPGBasicWithGangChildren"),
        pytest.param("20", _basic_with_basic, id="TestCPGBasicWithBasicChildren"),
        pytest.param("8", _gang_with_basic, id="TestCPGGangWithBasicChildren"),
        pytest.param("20", _basic_with_unschedulable_basic,
                     id="TestCPGBasicWithUnschedulableBasicChildren"),
    ],
)
def test_cpg_scheduling(cpu: str, build: Any) -> None:
    c = _cluster(cpu)
    ok, bad = build(c)
    c.settle()
    bound = _bound(c)
    assert ok <= bound
    assert not bad & bound


def test_cpg_dynamic_child_addition() -> None:
    """``TestCPGDynamicChildAddition``: children added to a scheduled basic root; a gang
    sub-composite (minGroupCount 2) holds its first child until the second arrives."""
    c = _cluster("20")
    _cpg(c, "cpg-root", None)
    _pg(c, "pg1", "cpg-root", None)
    first = set(_pods(c, "pg1", "1", "1"))
    c.settle()
    assert _bound(c) == first
    _pg(c, "pg2", "cpg-root", None)
    second = set(_pods(c, "pg2", "1", "1"))
    c.settle()
    assert _bound(c) == first | second
    _cpg(c, "cpg-sub", 2, "cpg-root")
    _pg(c, "sub-pg1", "cpg-sub", None)
    sub1 = set(_pods(c, "sub-pg1", "1", "1"))
    c.settle()
    assert _bound(c) == first | second
    _pg(c, "sub-pg2", "cpg-sub", None)
    sub2 = set(_pods(c, "sub-pg2", "1", "1"))
    c.settle()
    assert _bound(c) == first | second | sub1 | sub2
