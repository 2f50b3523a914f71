"""PodTopologySpread: hard and soft topology spread constraints (KEP-895, KEP-3022
minDomains, KEP-3094 node inclusion policies).

Every test uses its own pool nodes, labelled with their zone; seed pods are pinned to a
node by ``kubernetes.io/hostname`` and carry no constraint themselves.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pool_pod

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
SPREAD = "node(s) didn't match pod topology spread constraints"


def _spread(max_skew: int = 1, when: str = "DoNotSchedule", key: str = ZONE, **extra: Any) -> Obj:
    return {
        "maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": {"app": "spread"}}, **extra,
    }


def _seed(target: Target, namespace: str, name: str, node: str) -> None:
    pod = make_pool_pod(name, namespace, cpu="100m").label("app", "spread")
    target.apply(pod.node_selector(**{HOST: node}).build())


def _pod(namespace: str, name: str, *constraints: Obj, cpu: str = "100m") -> Obj:
    pod = make_pool_pod(name, namespace, cpu=cpu).label("app", "spread")
    return pod.set("spec.topologySpreadConstraints", list(constraints)).build()


def test_do_not_schedule_places_the_pod_in_the_emptiest_zone(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str]
) -> None:
    """DoNotSchedule maxSkew.

    With two matching pods in zone a and none in zone b, a pod with a maxSkew 1 zone
    constraint MUST be placed in zone b (zone a would reach skew 3).
    """
    a = pool(cpu="4", topology_kubernetes_io__zone="a")
    b = pool(cpu="4", topology_kubernetes_io__zone="b")
    settle_nodes()
    for i in range(2):
        _seed(target, namespace, f"seed-{i}", a)
        assert bound_node(f"seed-{i}") == a
    target.apply(_pod(namespace, "p", _spread()))
    assert bound_node("p") == b


def test_do_not_schedule_leaves_the_pod_pending_when_only_a_skewed_zone_fits(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    unschedulable: Callable[..., str],
) -> None:
    """DoNotSchedule versus ScheduleAnyway.

    Zone b's only node is too small for the pod, and zone a already has two matching pods:
    a DoNotSchedule pod MUST stay Pending with a message naming the spread constraints,
    and the same pod with ScheduleAnyway MUST be placed in zone a.
    """
    a = pool(cpu="4", topology_kubernetes_io__zone="a")
    pool(cpu="1", topology_kubernetes_io__zone="b")
    settle_nodes()
    for i in range(2):
        _seed(target, namespace, f"seed-{i}", a)
        bound_node(f"seed-{i}")
    target.apply(_pod(namespace, "hard", _spread(), cpu="2"))
    assert SPREAD in unschedulable("hard")
    target.apply(_pod(namespace, "soft", _spread(when="ScheduleAnyway"), cpu="2"))
    assert bound_node("soft") == a


def test_min_domains_counts_missing_domains_as_empty(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    unschedulable: Callable[..., str],
) -> None:
    """minDomains.

    With minDomains 3 but only two zones, the global minimum is taken as 0: after one
    matching pod per zone, a third pod with maxSkew 1 MUST stay Pending; without
    minDomains the same pod MUST be placed.
    """
    pool(cpu="4", topology_kubernetes_io__zone="a")
    pool(cpu="4", topology_kubernetes_io__zone="b")
    settle_nodes()
    c = _spread(minDomains=3)
    target.apply(_pod(namespace, "p0", c))
    first = bound_node("p0")
    target.apply(_pod(namespace, "p1", c))
    assert bound_node("p1") != first  # the first zone would reach skew 2
    target.apply(_pod(namespace, "p2", c))
    assert SPREAD in unschedulable("p2")
    target.apply(_pod(namespace, "p3", _spread()))
    bound_node("p3")


@pytest.mark.parametrize(("policy", "schedulable"), [("Honor", True), ("Ignore", False)])
def test_node_affinity_policy_decides_which_domains_count(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    unschedulable: Callable[..., str], policy: str, schedulable: bool,
) -> None:
    """nodeAffinityPolicy.

    The pod may only run on zone a's node (nodeSelector tier=x), which has one matching
    pod. With Honor (the default) zone b is not counted, so the pod MUST be placed there;
    with Ignore zone b counts as an empty domain and the pod MUST stay Pending.
    """
    a = pool(cpu="4", topology_kubernetes_io__zone="a", tier="x")
    pool(cpu="4", topology_kubernetes_io__zone="b")
    settle_nodes()
    _seed(target, namespace, "seed", a)
    bound_node("seed")
    pod = _pod(namespace, "p", _spread(nodeAffinityPolicy=policy))
    pod["spec"]["nodeSelector"]["tier"] = "x"
    target.apply(pod)
    if schedulable:
        assert bound_node("p") == a
    else:
        assert SPREAD in unschedulable("p")


def test_missing_topology_label_is_unschedulable(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], unschedulable: Callable[..., str]
) -> None:
    """Required label.

    A DoNotSchedule pod whose only candidate node lacks the topology key MUST stay Pending
    with "(missing required label)".
    """
    pool(cpu="4")
    settle_nodes()
    target.apply(_pod(namespace, "p", _spread(key="example.com/rack")))
    assert f"{SPREAD} (missing required label)" in unschedulable("p")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_seeded_spread_scenarios_place_on_the_unique_least_loaded_zone(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    seed: int,
) -> None:
    """Placement differential: spread.

    Three zones of one node each get a seeded number of matching pods with a unique
    minimum; a maxSkew 1 DoNotSchedule pod MUST land on that least-loaded zone's node,
    and a ScheduleAnyway pod (no hard constraint) MUST too, as spreading scores it best.
    """
    # The seed picks one of the 24 orderings of three distinct counts out of 0..3.
    counts = list(list(itertools.permutations(range(4), 3))[seed * 7 % 24])
    nodes = [pool(cpu="8", topology_kubernetes_io__zone=f"z{i}") for i in range(3)]
    settle_nodes()
    for i, n in enumerate(counts):
        for j in range(n):
            _seed(target, namespace, f"seed-{i}-{j}", nodes[i])
            bound_node(f"seed-{i}-{j}")
    best = nodes[counts.index(min(counts))]
    target.apply(_pod(namespace, "hard", _spread()))
    assert bound_node("hard") == best
    target.delete("v1", "Pod", "hard", namespace)
    target.wait_until(
        lambda: all(p["metadata"]["name"] != "hard" for p in target.list("v1", "Pod", namespace)),
        timeout=60, what="pod hard deleted",
    )
    target.apply(_pod(namespace, "soft", _spread(when="ScheduleAnyway")))
    assert bound_node("soft") == best


@pytest.mark.parametrize("service", [True, False])
def test_system_default_constraints_spread_pods_a_service_selects(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None],
    bound_node: Callable[..., str], service: bool,
) -> None:
    """System default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway).

    Node A is larger and holds two app=spread pods; every resource score favours A a
    little. When a Service selects app=spread, the default spreading MUST outweigh that
    and place a plain app=spread pod on B; without the Service the pod MUST go to A.
    """
    if service:
        target.apply({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "spread", "namespace": namespace},
            "spec": {"selector": {"app": "spread"}, "ports": [{"port": 80}]},
        })
    a = pool(cpu="16", memory="32Gi")
    b = pool(cpu="4", memory="4Gi")
    settle_nodes()
    for i in range(2):
        _seed(target, namespace, f"seed-{i}", a)
        bound_node(f"seed-{i}")
    target.apply(make_pool_pod("p", namespace, cpu="100m").label("app", "spread").build())
    assert bound_node("p") == (b if service else a)
