"""Nomination after preemption (KEP-5710 and upstream's nominator).

After preempting, the scheduler sets the preemptor's ``status.nominatedNodeName`` (for a
gang, each member's) and keeps that node's freed room for it: a lower-priority pod
filtered against the node must fit alongside the nominated pods. Binding clears the
field (ClearingNominatedNodeNameAfterBinding, on by default in 1.37).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fixtures import Target
from fixtures.helpers.retry import retry_on_conflict
from reference_impl.api import make_pod_group, make_pool_pod
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5710")]
OPEN = "garhwal.dev/open"


@pytest.fixture
def classes(priority_class: Callable[..., str]) -> tuple[str, str, str]:
    """Low (10), mid (500) and high (1000) PriorityClasses, removed afterwards."""
    return priority_class("low", 10), priority_class("mid", 500), priority_class("high", 1000)


def _node_of(target: Target, namespace: str, name: str) -> str:
    try:
        return str(target.get("v1", "Pod", name, namespace)["spec"].get("nodeName") or "")
    except NotFound:
        return ""


def _nominations(target: Target, namespace: str, since: str, names: set[str]) -> dict[str, str]:
    """The last non-empty nominatedNodeName each of ``names`` was seen with."""
    seen: dict[str, str] = {}
    for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=5):
        name = ev.object["metadata"]["name"]
        nnn = (ev.object.get("status") or {}).get("nominatedNodeName")
        if name in names and nnn:
            seen[name] = str(nnn)
    return seen


def test_the_preemptor_is_nominated_to_the_node_it_freed_and_binds_there(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str, str]
) -> None:
    """nominatedNodeName after preemption.

    A high-priority pod that preempts the low-priority pod of a full one-pod node MUST get
    ``status.nominatedNodeName`` set to that node, MUST then bind to it, and once bound
    its nominatedNodeName MUST be cleared.
    """
    node = pool(cpu="1")
    low, _, high = classes
    target.apply(make_pool_pod("low", namespace).priority_class(low).build())
    target.wait_until(
        lambda: bool(_node_of(target, namespace, "low")), timeout=60, what="low bound"
    )
    since = target.get("v1", "Pod", "low", namespace)["metadata"]["resourceVersion"]
    target.apply(make_pool_pod("high", namespace).priority_class(high).build())
    target.wait_until(
        lambda: _node_of(target, namespace, "high") == node, timeout=180, what="high bound"
    )
    assert _nominations(target, namespace, since, {"high"}) == {"high": node}
    target.wait_until(
        lambda: (
            not (target.get("v1", "Pod", "high", namespace).get("status") or {}).get(
                "nominatedNodeName"
            )
        ),
        timeout=30,
        what="nominatedNodeName cleared after binding",
    )


def test_a_lower_priority_pod_cannot_take_the_room_reserved_for_a_preemptor(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str, str]
) -> None:
    """Nominated pods hold their room.

    A 2-CPU node runs a 1-CPU low-priority pod. A 2-CPU high-priority pod and a 1-CPU
    mid-priority pod both wait for a node label; when the node gets it, both become
    schedulable at once: the high-priority pod goes first, preempts the low one and is
    nominated to the node. The mid-priority pod would fit the free CPU, but MUST NOT bind
    (the nominated pod's 2 CPU are reserved); the high-priority pod MUST bind there.
    """
    node = pool(cpu="2")
    low, mid, high = classes
    target.apply(make_pool_pod("low", namespace, "1").priority_class(low).node(node).build())
    target.wait_until(
        lambda: _phase(target, namespace, "low") == "Running", timeout=60, what="low running"
    )
    for name, cpu, cls in (("high", "2", high), ("mid", "1", mid)):
        target.apply(
            make_pool_pod(name, namespace, cpu)
            .priority_class(cls)
            .node_selector(**{OPEN: "yes"})
            .build()
        )
    target.wait_until(
        lambda: (
            _scheduled_false(target, namespace, "high")
            and _scheduled_false(target, namespace, "mid")
        ),
        timeout=60,
        what="high and mid unschedulable",
    )
    since = target.get("v1", "Pod", "mid", namespace)["metadata"]["resourceVersion"]

    def open_node() -> object:
        n = target.get("v1", "Node", node)
        n["metadata"].setdefault("labels", {})[OPEN] = "yes"
        return target.apply(n)

    retry_on_conflict(open_node, f"node {node}")
    target.wait_until(
        lambda: _node_of(target, namespace, "high") == node, timeout=180, what="high bound"
    )
    assert _nominations(target, namespace, since, {"high"}) == {"high": node}
    for ev in target.watch("v1", "Pod", since, namespace=namespace, timeout=5):
        if ev.object["metadata"]["name"] == "mid":
            assert not ev.object["spec"].get("nodeName"), "mid took the room reserved for high"
    assert _node_of(target, namespace, "mid") == ""


def _phase(target: Target, namespace: str, name: str) -> str:
    return str((target.get("v1", "Pod", name, namespace).get("status") or {}).get("phase"))


def _scheduled_false(target: Target, namespace: str, name: str) -> bool:
    pod = target.get("v1", "Pod", name, namespace)
    return any(
        c.get("type") == "PodScheduled" and c.get("status") == "False"
        for c in (pod.get("status") or {}).get("conditions") or ()
    )


def test_gang_preemption_nominates_every_member(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str, str]
) -> None:
    """Gang nominations.

    A high-priority gang of 2 (minCount 2) that preempts the two low-priority pods of two
    full one-pod nodes MUST have each member nominated, to two different nodes, and both
    members MUST then bind.
    """
    nodes = {pool(cpu="1"), pool(cpu="1")}
    low, _, high = classes
    for i in range(2):
        target.apply(make_pool_pod(f"low-{i}", namespace).priority_class(low).build())
    target.wait_until(
        lambda: all(_node_of(target, namespace, f"low-{i}") for i in range(2)),
        timeout=60,
        what="low pods bound",
    )
    since = target.get("v1", "Pod", "low-1", namespace)["metadata"]["resourceVersion"]
    target.apply(make_pod_group("gang", namespace, min_count=2, priority_class=high))
    for i in range(2):
        target.apply(
            make_pool_pod(f"g-{i}", namespace).pod_group("gang").priority_class(high).build()
        )
    target.wait_until(
        lambda: all(_node_of(target, namespace, f"g-{i}") for i in range(2)),
        timeout=180,
        what="gang bound",
    )
    seen = _nominations(target, namespace, since, {"g-0", "g-1"})
    assert set(seen) == {"g-0", "g-1"}
    assert set(seen.values()) == nodes
