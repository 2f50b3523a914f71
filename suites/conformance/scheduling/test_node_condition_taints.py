"""Taint nodes by condition: a new Node is not schedulable until it is seen Ready.

The TaintNodesByCondition admission plugin adds ``node.kubernetes.io/not-ready:NoSchedule``
to every Node it creates; the node lifecycle controller lifts it once the Ready condition
is True, and keeps ``node.kubernetes.io/unschedulable:NoSchedule`` in step with a cordon.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.retry import retry_on_conflict
from reference_impl.api import POOL_KEY, make_pool_node, make_pool_pod
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
NOT_READY = "node.kubernetes.io/not-ready"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


@pytest.fixture
def new_node(target: Target, namespace: str) -> Iterator[str]:
    name = f"taint-{namespace}"[:63]
    yield name
    try:
        target.delete("v1", "Node", name)
    except NotFound:
        pass


def _taints(node: Obj) -> list[tuple[str, str]]:
    return [(t["key"], t["effect"]) for t in (node.get("spec") or {}).get("taints") or ()]


def _has(target: Target, name: str, key: str) -> bool:
    return (key, "NoSchedule") in _taints(target.get("v1", "Node", name))


def _cordon(target: Target, name: str, on: bool) -> None:
    """Set or clear spec.unschedulable; a heartbeat or the controller may write between
    the read and the write (409), so read again."""

    def write() -> Obj:
        node = target.get("v1", "Node", name)
        if on:
            node["spec"]["unschedulable"] = True
        else:
            node["spec"].pop("unschedulable", None)
        return target.apply(node)

    retry_on_conflict(write, f"node {name}")


def test_a_new_node_is_created_not_ready_and_the_taint_is_lifted_once_ready(
    target: Target, namespace: str, new_node: str
) -> None:
    """Admission taints, the controller lifts.

    The create response of a Ready Node MUST already carry ``not-ready:NoSchedule`` next to
    its own taints (no timeAdded, no value); within 30 s the taint MUST be gone and the
    node's own taint kept.
    """
    created = target.apply(make_pool_node(new_node, namespace, cpu="1").build())
    assert (NOT_READY, "NoSchedule") in _taints(created)
    added = [t for t in created["spec"]["taints"] if t["key"] == NOT_READY]
    assert added == [{"key": NOT_READY, "effect": "NoSchedule"}]
    target.wait_until(lambda: not _has(target, new_node, NOT_READY), timeout=30,
                      what="the not-ready taint to be lifted")  # fmt: skip
    assert _taints(target.get("v1", "Node", new_node)) == [(POOL_KEY, "NoSchedule")]


def test_a_pod_created_with_the_node_lands_only_once_the_node_is_ready(
    target: Target, namespace: str, new_node: str
) -> None:
    """No pod on a node that was never seen Ready.

    A pod pinned to a Node created in the same instant MUST be bound to it, and only after
    the not-ready taint is gone (the pod does not tolerate it).
    """
    target.apply(make_pool_node(new_node, namespace, cpu="1").build())
    pod = make_pool_pod("pinned", namespace, cpu="100m").node_selector(
        **{"kubernetes.io/hostname": new_node}
    )
    target.apply(pod.build())
    target.wait_until(
        lambda: bool(target.get("v1", "Pod", "pinned", namespace)["spec"].get("nodeName")),
        timeout=60, what="the pinned pod bound",
    )  # fmt: skip
    assert not _has(target, new_node, NOT_READY)


def test_a_cordon_adds_the_unschedulable_taint_and_an_uncordon_lifts_it(
    target: Target, namespace: str, new_node: str
) -> None:
    """spec.unschedulable mirrored as a taint.

    Setting ``spec.unschedulable`` MUST add ``node.kubernetes.io/unschedulable:NoSchedule``
    (with a timeAdded) within 30 s; clearing it MUST lift that taint again.
    """
    target.apply(make_pool_node(new_node, namespace, cpu="1").build())
    target.wait_until(lambda: not _has(target, new_node, NOT_READY), timeout=30,
                      what="the node ready")  # fmt: skip
    _cordon(target, new_node, True)
    target.wait_until(lambda: _has(target, new_node, UNSCHEDULABLE), timeout=30,
                      what="the unschedulable taint")  # fmt: skip
    taint = next(t for t in target.get("v1", "Node", new_node)["spec"]["taints"]
                 if t["key"] == UNSCHEDULABLE)  # fmt: skip
    assert taint.get("timeAdded")
    _cordon(target, new_node, False)
    target.wait_until(lambda: not _has(target, new_node, UNSCHEDULABLE), timeout=30,
                      what="the unschedulable taint lifted")  # fmt: skip
