"""Topology-aware gang scheduling (KEP-5732): a whole PodGroup inside one label value."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import Target
from reference_impl.api import (
    condition,
    make_child_pod_group,
    make_composite_pod_group,
    make_pod_group,
    make_pool_pod,
)
from reference_impl.errors import Invalid

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.feature("KEP-5732"),
    pytest.mark.feature_gates(GenericWorkload=True),
]
PG = "scheduling.k8s.io/v1beta1"
RACK = "topology.kubernetes.io/rack"
RACK_ARG = "topology_kubernetes_io__rack"  # the pool fixture's spelling of RACK


def _bound(target: Target, namespace: str) -> dict[str, str]:
    return {
        p["metadata"]["name"]: p["spec"]["nodeName"]
        for p in target.list("v1", "Pod", namespace)
        if p["spec"].get("nodeName")
    }


def _racks(target: Target, namespace: str, prefix: str) -> set[str]:
    """The rack values of the nodes the pods named ``prefix-*`` are bound to."""
    nodes = {
        n["metadata"]["name"]: (n["metadata"].get("labels") or {}).get(RACK, "")
        for n in target.list("v1", "Node")
    }
    return {
        nodes.get(node, "")
        for p, node in _bound(target, namespace).items()
        if p.startswith(f"{prefix}-")
    }


def _initially(target: Target, namespace: str, name: str) -> str:
    pg = target.get(PG, "PodGroup", name, namespace)
    return str((condition(pg, "PodGroupInitiallyScheduled") or {}).get("status", ""))


def _gang(
    target: Target, namespace: str, group: str, pods: int, min_count: int | None = None
) -> None:
    mc = pods if min_count is None else min_count
    target.apply(make_pod_group(group, namespace, min_count=mc, topology_key=RACK))
    for i in range(pods):
        target.apply(make_pool_pod(f"{group}-{i}", namespace).pod_group(group).build())


def _rack(pool: Callable[..., str], rack: str, nodes: int, cpu: str = "1") -> list[str]:
    return [pool(cpu=cpu, **{RACK_ARG: rack}) for _ in range(nodes)]


def _gang_members_first(target: Target, namespace: str, group: str, pods: int, mc: int) -> None:
    """The pods before their PodGroup: the gang waits for the group, so its first cycle
    sees every member (placement scores count the pods each rack would take)."""
    for i in range(pods):
        target.apply(make_pool_pod(f"{group}-{i}", namespace).pod_group(group).build())
    _scheduler_saw_pods(target, namespace)
    target.apply(make_pod_group(group, namespace, min_count=mc, topology_key=RACK))


def _scheduler_saw_pods(target: Target, namespace: str) -> None:
    """Wait until the scheduler has seen every pod created so far. Pods and PodGroups reach
    a real scheduler through separate informers, so a PodGroup written after its members
    can arrive first and start a cycle over only some of them; the pod informer delivers
    in write order, so a later pod marked unschedulable proves the members arrived."""
    name = "seen-barrier"
    pod = make_pool_pod(name, namespace, cpu="10m").node_selector(**{RACK: "no-such-rack"})
    target.apply(pod.build())

    def unschedulable() -> bool:
        got = target.get("v1", "Pod", name, namespace)
        return (condition(got, "PodScheduled") or {}).get("reason") == "Unschedulable"

    target.wait_until(unschedulable, timeout=60, what=f"{name} marked Unschedulable")
    target.delete("v1", "Pod", name, namespace)


def test_a_gang_lands_entirely_inside_the_one_rack_that_can_hold_it(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """The whole gang in one rack.

    With ``schedulingConstraints.topology: [{key: topology.kubernetes.io/rack}]`` a gang of
    4 one-node pods, offered rack r1 with 2 free nodes and rack r2 with 4, MUST bind all 4
    pods, and every one of them MUST be on a node of rack r2.
    """
    _rack(pool, "r1", 2)
    _rack(pool, "r2", 4)
    _gang(target, namespace, "topo", 4)
    target.wait_until(lambda: len(_bound(target, namespace)) == 4, timeout=120, what="4 pods bound")
    assert _racks(target, namespace, "topo") == {"r2"}


def test_a_gang_that_fits_only_across_racks_waits_until_one_rack_can_hold_it(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """A gang never straddles two racks.

    A gang of 4 on two racks of 2 free nodes each (4 nodes in all) MUST bind no pod and
    MUST report PodGroupInitiallyScheduled=False; after 2 more nodes join rack r1, all 4
    pods MUST bind inside rack r1.
    """
    _rack(pool, "r1", 2)
    _rack(pool, "r2", 2)
    _gang(target, namespace, "split", 4)
    target.wait_until(
        lambda: _initially(target, namespace, "split") == "False",
        timeout=120,
        what="PodGroupInitiallyScheduled=False",
    )
    assert _bound(target, namespace) == {}
    _rack(pool, "r1", 2)
    target.wait_until(lambda: len(_bound(target, namespace)) == 4, timeout=180, what="4 pods bound")
    assert _racks(target, namespace, "split") == {"r1"}


def test_nodes_without_the_topology_label_are_not_a_domain(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Unlabelled nodes are outside every domain.

    A topology-constrained gang of 2 MUST NOT bind on 3 free nodes that carry no rack
    label while a plain pod does bind there; once 2 labelled nodes of one rack appear the
    gang MUST bind on them.
    """
    for _ in range(3):
        pool(cpu="1")
    target.apply(make_pool_pod("plain", namespace).build())
    _gang(target, namespace, "nolabel", 2)
    # The plain pod's bind and the gang's verdict are separate scheduling cycles: wait for both.
    target.wait_until(
        lambda: _initially(target, namespace, "nolabel") == "False"
        and "plain" in _bound(target, namespace),
        timeout=120,
        what="PodGroupInitiallyScheduled=False and the plain pod bound",
    )
    assert set(_bound(target, namespace)) == {"plain"}
    _rack(pool, "r9", 2)
    target.wait_until(
        lambda: {"nolabel-0", "nolabel-1"} <= set(_bound(target, namespace)),
        timeout=180,
        what="gang bound",
    )
    assert _racks(target, namespace, "nolabel") == {"r9"}


def test_sibling_gangs_may_land_in_different_racks(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """The constraint binds one PodGroup, not its siblings.

    Two gangs of 2 with the rack constraint, on two racks of 2 free nodes each, MUST both
    bind; each gang MUST sit inside one rack, and the two gangs MUST use different racks.
    """
    _rack(pool, "r1", 2)
    _rack(pool, "r2", 2)
    _gang(target, namespace, "a", 2)
    _gang(target, namespace, "b", 2)
    target.wait_until(lambda: len(_bound(target, namespace)) == 4, timeout=120, what="4 pods bound")
    ra, rb = _racks(target, namespace, "a"), _racks(target, namespace, "b")
    assert len(ra) == 1 and len(rb) == 1
    assert ra != rb


def test_members_beyond_min_count_stay_in_the_rack_the_gang_started_in(
    target: Target, namespace: str, pool: Callable[..., str]
) -> None:
    """Later members are pinned to the gang's domain.

    A gang of 4 pods with minCount 2 on rack r1 (3 free nodes) and rack r2 (1 free node)
    MUST bind 3 pods, all in r1, and the fourth MUST stay unbound even though r2 has a
    free node; when a node joins r1 the fourth pod MUST bind there.
    """
    _rack(pool, "r1", 3)
    _rack(pool, "r2", 1)
    _gang(target, namespace, "pin", 4, min_count=2)
    target.wait_until(lambda: len(_bound(target, namespace)) == 3, timeout=120, what="3 pods bound")
    target.apply(make_pool_pod("marker", namespace, "0").build())
    target.wait_until(
        lambda: "marker" in _bound(target, namespace), timeout=60, what="marker bound"
    )
    assert len([p for p in _bound(target, namespace) if p.startswith("pin-")]) == 3
    assert _racks(target, namespace, "pin") == {"r1"}
    _rack(pool, "r1", 1)
    target.wait_until(
        lambda: len([p for p in _bound(target, namespace) if p.startswith("pin-")]) == 4,
        timeout=180,
        what="fourth member bound",
    )
    assert _racks(target, namespace, "pin") == {"r1"}


def test_of_two_feasible_racks_the_gang_takes_the_one_that_holds_more_members(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None]
) -> None:
    """Placement scoring by member count (PodGroupPodsCount).

    A gang of 4 pods with minCount 2, offered rack r1 with 2 free nodes and rack r2 with
    4, MUST bind all 4 pods inside r2: both racks meet minCount, and the placement that
    holds more of the group scores higher.
    """
    settle_nodes(*_rack(pool, "r1", 2), *_rack(pool, "r2", 4))
    _gang_members_first(target, namespace, "most", 4, 2)
    target.wait_until(lambda: len(_bound(target, namespace)) == 4, timeout=120, what="4 pods bound")
    assert _racks(target, namespace, "most") == {"r2"}


def test_of_two_racks_that_both_hold_the_gang_it_packs_the_fuller_one(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None]
) -> None:
    """Placement scoring by allocation (NodeResourcesFit, MostAllocated).

    A gang of 2 one-CPU pods, offered rack r1 of two 4-CPU nodes and rack r2 of two 1-CPU
    nodes, MUST bind both pods inside r2: either rack holds the whole gang, and the
    placement left more allocated scores higher.
    """
    settle_nodes(*_rack(pool, "r1", 2, cpu="4"), *_rack(pool, "r2", 2))
    _gang_members_first(target, namespace, "pack", 2, 2)
    target.wait_until(lambda: len(_bound(target, namespace)) == 2, timeout=120, what="2 pods bound")
    assert _racks(target, namespace, "pack") == {"r2"}


@pytest.mark.runtime_config("scheduling.k8s.io/v1alpha3=true")
@pytest.mark.feature_gates(CompositePodGroup=True, TopologyAwareWorkloadScheduling=True)
def test_a_composite_gang_with_a_topology_constraint_keeps_every_child_in_one_rack(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None]
) -> None:
    """A CompositePodGroup's own topology constraint.

    A CompositePodGroup with minGroupCount 2 and the rack constraint, over two child gangs
    of 2 one-node pods that have no constraint of their own, offered rack r1 with 3 free
    nodes (room for one child) and rack r2 with 4, MUST bind all 4 pods inside r2.
    """
    settle_nodes(*_rack(pool, "r1", 3), *_rack(pool, "r2", 4))
    root = make_composite_pod_group("root", namespace, min_group_count=2)
    root["spec"]["schedulingConstraints"] = {"topology": [{"key": RACK}]}
    target.apply(root)
    for child in ("ca", "cb"):
        target.apply(make_child_pod_group(child, namespace, "root", 2))
        for i in range(2):
            target.apply(make_pool_pod(f"{child}-{i}", namespace).pod_group(child).build())
    target.wait_until(lambda: len(_bound(target, namespace)) == 4, timeout=120, what="4 pods bound")
    assert _racks(target, namespace, "ca") | _racks(target, namespace, "cb") == {"r2"}


def test_topology_constraints_are_validated_and_immutable(target: Target, namespace: str) -> None:
    """Topology validation.

    A PodGroup with two topology entries MUST be rejected on
    spec.schedulingConstraints.topology; one with a single rack key MUST be stored with
    it unchanged, and changing the key afterwards MUST be rejected.
    """
    bad = make_pod_group("two", namespace, min_count=2, topology_key=RACK)
    bad["spec"]["schedulingConstraints"]["topology"].append({"key": "kubernetes.io/hostname"})
    with pytest.raises(Invalid) as e:
        target.apply(bad)
    assert "spec.schedulingConstraints.topology" in {c.field for c in e.value.causes}
    stored = target.apply(make_pod_group("one", namespace, min_count=2, topology_key=RACK))
    assert stored["spec"]["schedulingConstraints"] == {"topology": [{"key": RACK}]}
    stored["spec"]["schedulingConstraints"] = {"topology": [{"key": "kubernetes.io/hostname"}]}
    with pytest.raises(Invalid):
        target.apply(stored)
