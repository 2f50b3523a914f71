"""Who writes what on a CompositePodGroup hierarchy: upstream's rule, end to end.

Upstream v1.37.2's scheduler writes PodGroupInitiallyScheduled on each PodGroup of a
hierarchy (``submitPodGroupAlgorithmResult``, ``updatePodGroupConditionWithError``) and
nothing on a CompositePodGroup: ``submitPodGroupAlgorithmResult`` skips composites ("do
not own any pods directly"), and no controller sets the
``CompositePodGroupInitiallyScheduled`` type that the API documents. Upstream's
``TestCPGHierarchicalScheduling_ScheduleOnePodGroup`` shape (a gang composite with
minGroupCount 2 over three one-pod gangs, room for two) is run on a reference Cluster: the
two that fit bind, the composite's status stays empty. Whether a composite is already met
is read from its subtree's scheduled pods, so a later member of a met child schedules on
its own, and one arriving after the children lost their pods waits for the composite's
minimum again (as upstream's root attempt, which counts scheduled pods, decides).
"""

from __future__ import annotations

from typing import Any

from reference_impl.api import (
    condition,
    make_child_pod_group,
    make_composite_pod_group,
    make_node,
    make_pod,
)
from reference_impl.cluster import Cluster, ClusterConfig

Obj = dict[str, Any]
PG_V, CPG_V = "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"
RUNTIME = {PG_V: "true", CPG_V: "true"}
# CompositePodGroup depends on TopologyAwareWorkloadScheduling (kube's gate dependencies).
GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}


def _cluster(nodes: int) -> Cluster:
    c = Cluster(GATES, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    for i in range(nodes):
        c.apply(make_node(f"n{i}").capacity(cpu="1", memory="8Gi", pods="10").build())
    c.apply(make_composite_pod_group("cpg-root", "default", min_group_count=2))
    for name in ("pg1", "pg2", "pg3"):
        c.apply(make_child_pod_group(name, "default", "cpg-root", 1))
    return c


def _pod(c: Cluster, name: str, group: str) -> None:
    c.apply(make_pod(name, "default").req(cpu="1").pod_group(group).build())


def _bound(c: Cluster) -> set[str]:
    return {p["metadata"]["name"] for p in c.api.list("v1", "Pod", "default")
            if p["spec"].get("nodeName")}


def _cpg_status(c: Cluster) -> Obj:
    cpg = c.get(CPG_V, "CompositePodGroup", "cpg-root", "default")
    assert cpg is not None
    return dict(cpg.get("status") or {})


def _pg_cond(c: Cluster, name: str) -> tuple[str, str] | None:
    pg = c.get(PG_V, "PodGroup", name, "default")
    cond = condition(pg, "PodGroupInitiallyScheduled") if pg is not None else None
    return (cond["status"], cond["reason"]) if cond is not None else None


def test_admitted_composite_gets_no_condition() -> None:
    c = _cluster(nodes=2)
    for i, group in enumerate(("pg1", "pg2", "pg3")):
        _pod(c, f"p{i + 1}", group)
    c.settle()
    assert _bound(c) == {"p1", "p2"}
    assert _pg_cond(c, "pg1") == _pg_cond(c, "pg2") == ("True", "Scheduled")
    assert _cpg_status(c).get("conditions") in (None, [])


def test_unschedulable_composite_gets_no_condition() -> None:
    c = _cluster(nodes=1)
    for i, group in enumerate(("pg1", "pg2", "pg3")):
        _pod(c, f"p{i + 1}", group)
    c.settle()
    assert _bound(c) == set()
    assert _pg_cond(c, "pg1") == ("False", "Unschedulable")
    assert _cpg_status(c).get("conditions") in (None, [])


def test_met_composite_lets_a_child_schedule_alone_until_its_pods_go() -> None:
    c = _cluster(nodes=3)
    _pod(c, "p1", "pg1")
    _pod(c, "p2", "pg2")
    c.settle()
    assert _bound(c) == {"p1", "p2"}
    _pod(c, "p3", "pg3")  # two children already met: pg3 needs only itself
    c.settle()
    assert _bound(c) == {"p1", "p2", "p3"}
    for name in ("p1", "p2", "p3"):
        c.api.delete("v1", "Pod", name, "default")
    c.settle()
    assert not {p["metadata"]["name"] for p in c.api.list("v1", "Pod", "default")}
    _pod(c, "q1", "pg1")  # nothing scheduled any more: minGroupCount 2 applies again
    c.settle()
    assert "q1" not in _bound(c)
    _pod(c, "q2", "pg2")
    c.settle()
    assert {"q1", "q2"} <= _bound(c)
