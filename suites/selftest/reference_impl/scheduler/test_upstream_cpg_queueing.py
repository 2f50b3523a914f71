"""A CompositePodGroup tree's quorum gates its pods in PreEnqueue, end to end.

Ported: ``TestCPGQueueing`` (test/integration/scheduler/podgroup/queueing_test.go), each
row's steps on a reference Cluster: pods of an incomplete tree (a (Composite)PodGroup on
the way to the root missing) wait in the queue's incompletePodGroupPods until it appears;
pods of a short tree are held by GangScheduling's PreEnqueue (``preEnqueueWithHierarchies``
/ ``checkCPGHierarchyReadiness``) and the event that completes the tree (a PodGroup or pod
added, a lowered minCount, a node) wakes them through the plugin's queueing hints.
Upstream's "unschedulable entities" are the queue's gated pods here, with PreEnqueue's
message. Also a 2-level tree whose pods arrive in an order that leaves the
quorum short: nothing binds until the last one, then everything does.
"""

from __future__ import annotations

from typing import Any

from reference_impl.api import (
    make_child_pod_group,
    make_composite_pod_group,
    make_node,
    make_pod,
)
from reference_impl.cluster import Cluster, ClusterConfig

Obj = dict[str, Any]
PG_V, CPG_V = "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"
RUNTIME = {PG_V: "true", CPG_V: "true"}
GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}
NS = "default"
TREE = 'waiting for composite pod group "{}" tree to meet quorum'


def _cluster(nodes: int = 1) -> Cluster:
    c = Cluster(GATES, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    for i in range(nodes):
        _node(c, f"node{i}" if i else "node")
    return c


def _node(c: Cluster, name: str) -> None:
    c.apply(make_node(name).capacity(cpu="8", memory="16Gi", pods="110").build())


def _pods(c: Cluster, group: str, *names: str) -> None:
    for name in names:
        c.apply(make_pod(name, NS).req(cpu="2").pod_group(group).build())


def _bound(c: Cluster) -> set[str]:
    return {p["metadata"]["name"] for p in c.api.list("v1", "Pod", NS) if p["spec"].get("nodeName")}


def _incomplete(c: Cluster, *names: str) -> bool:
    """Whether every named pod waits in incompletePodGroupPods (in no sub-queue)."""
    return all(c.scheduler.queue.where(f"{NS}/{name}") == "incomplete" for name in names)


def _held(c: Cluster, *names: str) -> set[str]:
    """The PreEnqueue messages the named pods are held with (empty when one is not held)."""
    queue = c.scheduler.queue
    out: set[str] = set()
    for name in names:
        key = f"{NS}/{name}"
        if queue.where(key) != "gated":
            return set()
        out.add(queue._unschedulable[key].gating_message)  # noqa: SLF001
    return out


# TestCPGQueueing's objects: pg1 (minCount 2) under cpg-mid (minGroupCount 1) under
# cpg-root (minGroupCount 1); pg2-1 and pg2-2 (minCount 2) under cpg-root2 (minGroupCount 2).
def _pg1(c: Cluster, min_count: int = 2) -> None:
    c.apply(make_child_pod_group("pg1", NS, "cpg-mid", min_count, workload="w1"))


def _cpg_mid(c: Cluster) -> None:
    c.apply(make_composite_pod_group("cpg-mid", NS, min_group_count=1, parent="cpg-root",
                                     workload="w1", template="cpg-mid-t"))


def _cpg_root(c: Cluster) -> None:
    c.apply(make_composite_pod_group("cpg-root", NS, min_group_count=1, workload="w1"))


def _root2(c: Cluster, *children: str) -> None:
    if not children:
        c.apply(make_composite_pod_group("cpg-root2", NS, min_group_count=2, workload="w2"))
    for child in children:
        c.apply(make_child_pod_group(child, NS, "cpg-root2", 2, workload="w2"))


def test_incomplete_cpg_tree_buffers_pods_and_missing_root_cpg_wakes_them_up() -> None:
    c = _cluster()
    _pg1(c)
    _cpg_mid(c)
    _pods(c, "pg1", "p1", "p2")
    c.settle()
    assert _incomplete(c, "p1", "p2")
    assert _bound(c) == set()
    _cpg_root(c)
    c.settle()
    assert _bound(c) == {"p1", "p2"}


def test_node_add_triggers_queueing_hint_for_complete_cpg_tree_from_unschedulable_q() -> None:
    c = _cluster(nodes=0)
    _cpg_root(c)
    _cpg_mid(c)
    _pg1(c)
    _pods(c, "pg1", "p1", "p2")
    c.settle()
    assert _bound(c) == set()
    queue = c.scheduler.queue
    assert {queue.where(f"{NS}/p1"), queue.where(f"{NS}/p2")} == {"unschedulable"}
    _node(c, "node")
    c.settle()
    assert _bound(c) == {"p1", "p2"}


def test_pod_group_add_triggers_queueing_hint_for_unschedulable_cpg_root() -> None:
    c = _cluster()
    _root2(c)
    _root2(c, "pg2-1")
    _pods(c, "pg2-1", "p2-1", "p2-2")
    _pods(c, "pg2-2", "p2-3", "p2-4")
    c.settle()
    assert _held(c, "p2-1", "p2-2") == {TREE.format("cpg-root2")}
    assert _incomplete(c, "p2-3", "p2-4")
    _root2(c, "pg2-2")
    c.settle()
    assert _bound(c) == {"p2-1", "p2-2", "p2-3", "p2-4"}


def test_pod_add_triggers_queueing_hint_for_unschedulable_cpg_root() -> None:
    c = _cluster()
    _root2(c)
    _root2(c, "pg2-1", "pg2-2")
    _pods(c, "pg2-1", "p2-1", "p2-2")
    _pods(c, "pg2-2", "p2-3")
    c.settle()
    assert _held(c, "p2-1", "p2-2", "p2-3") == {TREE.format("cpg-root2")}
    _pods(c, "pg2-2", "p2-4")
    c.settle()
    assert _bound(c) == {"p2-1", "p2-2", "p2-3", "p2-4"}


def test_pod_group_update_reducing_min_count_triggers_queueing_hint_for_cpg_tree() -> None:
    c = _cluster()
    _cpg_root(c)
    _cpg_mid(c)
    _pg1(c)
    _pods(c, "pg1", "p1")
    c.settle()
    assert _held(c, "p1") == {TREE.format("cpg-root")}
    pg = c.get(PG_V, "PodGroup", "pg1", NS)
    assert pg is not None
    pg["spec"]["schedulingPolicy"]["gang"]["minCount"] = 1
    c.apply(pg)
    c.settle()
    assert _bound(c) == {"p1"}


def test_two_level_tree_binds_nothing_until_its_quorum_exists() -> None:
    """root (minGroupCount 2) over mid-a (minGroupCount 2 over a1, a2) and mid-b (basic,
    over b1); every PodGroup has minCount 2. The pods arrive so that each step leaves the
    tree one member short; only the last one lets the whole tree in."""
    c = _cluster(nodes=2)
    c.apply(make_composite_pod_group("root", NS, min_group_count=2))
    c.apply(make_composite_pod_group("mid-a", NS, min_group_count=2, parent="root"))
    c.apply(make_composite_pod_group("mid-b", NS, parent="root"))
    for child, parent in (("a1", "mid-a"), ("a2", "mid-a"), ("b1", "mid-b")):
        c.apply(make_child_pod_group(child, NS, parent, 2))
    steps = [("b1", "b1-0"), ("a1", "a1-0"), ("b1", "b1-1"), ("a1", "a1-1"), ("a2", "a2-0")]
    created: list[str] = []
    for group, pod in steps:
        _pods(c, group, pod)
        created.append(pod)
        c.settle()
        assert _bound(c) == set(), pod
        assert _held(c, *created) == {TREE.format("root")}, pod
    _pods(c, "a2", "a2-1")
    c.settle()
    assert _bound(c) == {*created, "a2-1"}
