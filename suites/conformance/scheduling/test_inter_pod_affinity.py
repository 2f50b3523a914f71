"""InterPodAffinity: required and preferred pod affinity and anti-affinity, including the
symmetric rules (existing pods' anti-affinity, existing pods' affinity in scoring).

Every test uses its own pool nodes; seed pods are pinned by ``kubernetes.io/hostname``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pool_pod

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
AFFINITY = "node(s) didn't match pod affinity rules"
ANTI = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI = "node(s) didn't satisfy existing pods anti-affinity rules"


def _term(app: str, key: str) -> Obj:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def _pod(namespace: str, name: str, app: str, affinity: Obj | None = None, node: str = "") -> Obj:
    pod = make_pool_pod(name, namespace, cpu="100m").label("app", app)
    if node:
        pod = pod.node_selector(**{HOST: node})
    if affinity is not None:
        pod = pod.set("spec.affinity", affinity)
    return pod.build()


def _required(kind: str, app: str, key: str) -> Obj:
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [_term(app, key)]}}


def _preferred(kind: str, app: str, key: str, weight: int = 100) -> Obj:
    term = {"weight": weight, "podAffinityTerm": _term(app, key)}
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [term]}}


def test_required_affinity_places_the_pod_in_the_matching_zone(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str]
) -> None:
    """Required pod affinity.

    With a pod app=db in zone b, a pod with required affinity to app=db on the zone key
    MUST be placed on a zone-b node.
    """
    pool(cpu="4", topology_kubernetes_io__zone="a")
    b1 = pool(cpu="4", topology_kubernetes_io__zone="b")
    b2 = pool(cpu="4", topology_kubernetes_io__zone="b")
    settle_nodes()
    target.apply(_pod(namespace, "db", "db", node=b1))
    bound_node("db")
    target.apply(_pod(namespace, "web", "web", _required("podAffinity", "db", ZONE)))
    assert bound_node("web") in {b1, b2}


def test_required_affinity_without_a_match_is_unresolvable_unless_self_matching(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    unschedulable: Callable[..., str],
) -> None:
    """Required pod affinity, first pod of a group.

    With no app=db pod anywhere, a pod requiring affinity to app=db MUST stay Pending
    naming the affinity rules; a pod labelled app=db requiring affinity to app=db (it
    matches its own term) MUST be placed.
    """
    pool(cpu="4", topology_kubernetes_io__zone="a")
    settle_nodes()
    target.apply(_pod(namespace, "lonely", "web", _required("podAffinity", "db", ZONE)))
    assert AFFINITY in unschedulable("lonely")
    target.apply(_pod(namespace, "first", "db", _required("podAffinity", "db", ZONE)))
    bound_node("first")


def test_required_anti_affinity_avoids_the_matching_node(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    unschedulable: Callable[..., str],
) -> None:
    """Required pod anti-affinity.

    With a pod app=web on node A, a pod with required anti-affinity to app=web on the
    hostname key MUST be placed on node B; pinned to A it MUST stay Pending.
    """
    a, b = pool(cpu="4"), pool(cpu="4")
    settle_nodes()
    target.apply(_pod(namespace, "web", "web", node=a))
    bound_node("web")
    target.apply(_pod(namespace, "other", "x", _required("podAntiAffinity", "web", HOST)))
    assert bound_node("other") == b
    target.apply(_pod(namespace, "pinned", "x", _required("podAntiAffinity", "web", HOST), node=a))
    assert ANTI in unschedulable("pinned")


def test_existing_pods_anti_affinity_is_symmetric(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    unschedulable: Callable[..., str],
) -> None:
    """Symmetry of existing pods' anti-affinity.

    A pod on node A with required anti-affinity to app=intruder (hostname key) keeps a
    plain app=intruder pod off A: it MUST be placed on B, and pinned to A it MUST stay
    Pending naming the existing pods' anti-affinity rules.
    """
    a, b = pool(cpu="4"), pool(cpu="4")
    settle_nodes()
    target.apply(_pod(namespace, "guard", "guard", _required("podAntiAffinity", "intruder", HOST), node=a))
    bound_node("guard")
    target.apply(_pod(namespace, "intruder", "intruder"))
    assert bound_node("intruder") == b
    target.apply(_pod(namespace, "pinned", "intruder", node=a))
    assert EXISTING_ANTI in unschedulable("pinned")


@pytest.mark.parametrize(("kind", "towards"), [("podAffinity", True), ("podAntiAffinity", False)])
def test_preferred_terms_decide_between_equal_nodes(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    kind: str, towards: bool,
) -> None:
    """Preferred pod affinity and anti-affinity.

    Of two equal nodes, the one with a small app=cache pod MUST be chosen by a pod that
    prefers affinity to app=cache, and the other by one that prefers anti-affinity.
    """
    a, b = pool(cpu="4"), pool(cpu="4")
    settle_nodes()
    target.apply(_pod(namespace, "cache", "cache", node=b))
    bound_node("cache")
    target.apply(_pod(namespace, "p", "p", _preferred(kind, "cache", HOST)))
    assert bound_node("p") == (b if towards else a)


def test_existing_pods_required_affinity_attracts_matching_pods(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str]
) -> None:
    """hardPodAffinityWeight (symmetric scoring).

    A pod app=team on zone b requires affinity to app=team (it matches itself). A plain
    app=team pod MUST then score zone b highest and be placed there.
    """
    pool(cpu="4", topology_kubernetes_io__zone="a")
    b = pool(cpu="4", topology_kubernetes_io__zone="b")
    settle_nodes()
    target.apply(_pod(namespace, "lead", "team", _required("podAffinity", "team", ZONE), node=b))
    bound_node("lead")
    target.apply(_pod(namespace, "member", "team"))
    assert bound_node("member") == b


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_seeded_anti_affinity_scenarios_place_on_the_only_free_node(
    target: Target, namespace: str, pool: Callable[..., str], settle_nodes: Callable[..., None], bound_node: Callable[..., str],
    seed: int,
) -> None:
    """Placement differential: affinity.

    Of four nodes, a seeded three hold an app=web pod; a pod with required anti-affinity
    to app=web MUST land on the fourth, and a pod preferring affinity to a seeded app=db
    pod on one of those three MUST land on that pod's node.
    """
    nodes = [pool(cpu="8") for _ in range(4)]
    settle_nodes()
    free = seed * 3 % 4  # the seed picks the free node and the db node
    for i, n in enumerate(nodes):
        if i != free:
            target.apply(_pod(namespace, f"web-{i}", "web", node=n))
            bound_node(f"web-{i}")
    target.apply(_pod(namespace, "anti", "x", _required("podAntiAffinity", "web", HOST)))
    assert bound_node("anti") == nodes[free]
    db = [i for i in range(4) if i != free][seed % 3]
    target.apply(_pod(namespace, "db", "db", node=nodes[db]))
    bound_node("db")
    target.apply(_pod(namespace, "near", "y", _preferred("podAffinity", "db", HOST)))
    assert bound_node("near") == nodes[db]
