"""Preemption weighs PodDisruptionBudgets through their status (KEP-5710, upstream
``FilterVictimsWithPDBViolation``): budgets steer the choice of victims but are best effort.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pdb, make_pool_pod

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5710")]
Obj = dict[str, Any]


def _nodes_ready(target: Target, *names: str) -> None:
    """Pin pods only to nodes the node agent (KWOK on a live cluster) already runs."""

    def ready() -> bool:
        for name in names:
            conds = (target.get("v1", "Node", name).get("status") or {}).get("conditions") or ()
            if not any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds):
                return False
        return True

    target.wait_until(ready, timeout=60, what=f"nodes {', '.join(names)} Ready")


def _alive(target: Target, namespace: str) -> dict[str, str]:
    """Pods not being deleted -> their node ("" when unbound)."""
    return {
        p["metadata"]["name"]: str(p["spec"].get("nodeName") or "")
        for p in target.list("v1", "Pod", namespace)
        if not p["metadata"].get("deletionTimestamp")
    }


def _running(target: Target, namespace: str, *names: str) -> None:
    def running() -> bool:
        pods = {p["metadata"]["name"]: p for p in target.list("v1", "Pod", namespace)}
        return all((pods.get(n, {}).get("status") or {}).get("phase") == "Running" for n in names)

    target.wait_until(running, timeout=60, what=f"{', '.join(names)} running")


def _budget_closed(target: Target, namespace: str, name: str, healthy: int) -> None:
    def closed() -> bool:
        st = target.get("policy/v1", "PodDisruptionBudget", name, namespace).get("status") or {}
        return st.get("currentHealthy") == healthy and st.get("disruptionsAllowed") == 0

    target.wait_until(closed, timeout=60, what=f"PDB {name} with no disruption allowed")


def test_preemption_picks_the_node_whose_victim_keeps_its_budget(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """Fewest PDB violations first.

    Two full one-pod nodes each run a low-priority pod; one of them is covered by a PDB
    with minAvailable 1 (status: 0 disruptions allowed). A high-priority pod that needs a
    whole node MUST preempt the uncovered pod and bind to its node; the covered pod MUST
    keep running.
    """
    a, b = pool(cpu="1"), pool(cpu="1")
    _nodes_ready(target, a, b)
    low, high = classes
    # The covered pod sits on the node that would win every later tie (the first name).
    guarded = make_pool_pod("guarded", namespace).priority_class(low).node(min(a, b))
    target.apply(guarded.label("app", "guarded").build())
    target.apply(make_pool_pod("free", namespace).priority_class(low).node(max(a, b)).build())
    _running(target, namespace, "guarded", "free")
    target.apply(make_pdb("guard", namespace, {"app": "guarded"}, min_available=1))
    _budget_closed(target, namespace, "guard", 1)
    target.apply(make_pool_pod("high", namespace).priority_class(high).build())
    target.wait_until(
        lambda: _alive(target, namespace).get("high") == max(a, b), timeout=180, what="high bound"
    )
    assert _alive(target, namespace) == {"guarded": min(a, b), "high": max(a, b)}


def test_a_budget_with_room_lets_preemption_take_a_covered_pod(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """disruptionsAllowed is spent, not ignored.

    Two covered low-priority pods, one per full one-pod node, under a PDB with
    minAvailable 1 (status: 1 disruption allowed): a high-priority pod needing one node
    MUST preempt exactly one of them and bind; the other MUST keep running.
    """
    a, b = pool(cpu="1"), pool(cpu="1")
    _nodes_ready(target, a, b)
    low, high = classes
    for name, node in (("c-0", a), ("c-1", b)):
        pod = make_pool_pod(name, namespace).priority_class(low).node(node)
        target.apply(pod.label("app", "covered").build())
    _running(target, namespace, "c-0", "c-1")
    target.apply(make_pdb("guard", namespace, {"app": "covered"}, min_available=1))
    target.wait_until(
        lambda: (
            (
                target.get("policy/v1", "PodDisruptionBudget", "guard", namespace).get("status")
                or {}
            ).get("disruptionsAllowed")
            == 1
        ),
        timeout=60,
        what="1 disruption allowed",
    )
    target.apply(make_pool_pod("high", namespace).priority_class(high).build())
    target.wait_until(
        lambda: bool(_alive(target, namespace).get("high")), timeout=180, what="high bound"
    )
    alive = _alive(target, namespace)
    assert len({"c-0", "c-1"} & set(alive)) == 1


def test_preemption_still_takes_a_covered_pod_when_nothing_else_makes_room(
    target: Target, namespace: str, pool: Callable[..., str], classes: tuple[str, str]
) -> None:
    """PDBs are best effort for the scheduler.

    When the only lower-priority pod that can make room is covered by a PDB with no
    disruption allowed, a high-priority pod MUST still preempt it and bind.
    """
    a = pool(cpu="1")
    _nodes_ready(target, a)
    low, high = classes
    guarded = make_pool_pod("guarded", namespace).priority_class(low).node(a)
    target.apply(guarded.label("app", "guarded").build())
    _running(target, namespace, "guarded")
    target.apply(make_pdb("guard", namespace, {"app": "guarded"}, min_available=1))
    _budget_closed(target, namespace, "guard", 1)
    target.apply(make_pool_pod("high", namespace).priority_class(high).build())
    target.wait_until(
        lambda: _alive(target, namespace).get("high") == a, timeout=180, what="high bound"
    )
    assert "guarded" not in _alive(target, namespace)
