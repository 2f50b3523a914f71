"""Shared fixtures of the scheduling suites: a private pool of small nodes and the
PriorityClasses of each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.priority import add_priority_class
from fixtures.helpers.real_node import lend_real_node, next_real_node, return_real_node
from reference_impl.api import POOL_KEY, make_pool_node, make_pool_pod
from reference_impl.errors import NotFound


@pytest.fixture
def pool(target: Target, namespace: str) -> Iterator[Callable[..., str]]:
    """``pool(cpu="1", memory="4Gi", images=None, **labels)`` adds a node only this test's
    pods use (label keys: "__" becomes "/", "_" becomes "."); removed at teardown. A KUBELET
    test on live gets a real node per call instead (the pinned one first), lent at its real
    size; it is skipped where the cluster has fewer real nodes than it asks for."""
    made: list[str] = []
    lent: list[tuple[str, dict[str, str]]] = []

    def add(
        cpu: str = "1", memory: str = "4Gi", images: list[Any] | None = None, **labels: str
    ) -> str:
        real = next_real_node(target, [n for n, _ in lent])
        if real is not None:  # a KUBELET test on live: a real node, at its real size
            keys = {k.replace("__", "/").replace("_", "."): v for k, v in labels.items()}
            lent.append((real, {POOL_KEY: namespace, **keys}))
            return lend_real_node(target, real, lent[-1][1], POOL_KEY, namespace)
        name = f"sched-{namespace}-{len(made)}"[:63]
        node = make_pool_node(name, namespace, cpu=cpu, memory=memory)
        for k, v in labels.items():
            node = node.label(k.replace("__", "/").replace("_", "."), v)
        if images is not None:
            node = node.set("status.images", images)
        target.apply(node.build())
        made.append(name)
        return name

    yield add
    for node, node_labels in lent:
        return_real_node(target, node, node_labels, POOL_KEY)
    for name in made:
        try:
            target.delete("v1", "Node", name)
        except NotFound:
            pass


@pytest.fixture
def priority_class(target: Target, namespace: str) -> Iterator[Callable[..., str]]:
    """``priority_class("low", 10, preemption_policy="Never")`` adds a PriorityClass named
    for this test and returns its name; removed at teardown."""
    made: list[str] = []

    def add(role: str, value: int, **kwargs: Any) -> str:
        name = f"sched-{role}-{namespace}"[:63]
        made.append(add_priority_class(target, name, value, namespace, **kwargs))
        return name

    yield add
    for name in made:
        try:
            target.delete("scheduling.k8s.io/v1", "PriorityClass", name)
        except NotFound:
            pass


@pytest.fixture
def classes(priority_class: Callable[..., str]) -> tuple[str, str]:
    """A low (10) and a high (1000) PriorityClass, removed afterwards."""
    return priority_class("low", 10), priority_class("high", 1000)


def _scheduled_false(pod: dict[str, Any]) -> str | None:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            return str(c.get("message") or "")
    return None


@pytest.fixture
def bound_node(target: Target, namespace: str) -> Callable[..., str]:
    """``bound_node("p")`` waits until pod p is bound and returns its node."""

    def wait(name: str, timeout: float = 60) -> str:
        target.wait_until(
            lambda: bool(target.get("v1", "Pod", name, namespace)["spec"].get("nodeName")),
            timeout=timeout, what=f"pod {name} bound",
        )
        node: str = target.get("v1", "Pod", name, namespace)["spec"]["nodeName"]
        return node

    return wait


@pytest.fixture
def unschedulable(target: Target, namespace: str) -> Callable[..., str]:
    """``unschedulable("p")`` waits for PodScheduled=False and returns its message."""

    def wait(name: str, timeout: float = 60) -> str:
        target.wait_until(
            lambda: _scheduled_false(target.get("v1", "Pod", name, namespace)) is not None,
            timeout=timeout, what=f"pod {name} unschedulable",
        )
        msg = _scheduled_false(target.get("v1", "Pod", name, namespace))
        assert not target.get("v1", "Pod", name, namespace)["spec"].get("nodeName")
        return msg or ""

    return wait


@pytest.fixture
def settle_nodes(target: Target, namespace: str) -> Callable[..., None]:
    """``settle_nodes(*nodes)``: make sure the scheduler knows every node before a test
    relies on scores across them. A fresh Node reaches a real scheduler's cache a moment
    after it is created; a pinned probe pod bound to each node (then deleted and gone)
    proves it is there."""

    def settle(*nodes: str) -> None:
        if not nodes:  # every pool node of this test
            nodes = tuple(sorted(
                n["metadata"]["name"] for n in target.list("v1", "Node")
                if (n["metadata"].get("labels") or {}).get(POOL_KEY) == namespace
            ))
        names = [f"probe-{i}" for i in range(len(nodes))]
        for name, node in zip(names, nodes, strict=True):
            pod = make_pool_pod(name, namespace, cpu="10m")
            target.apply(pod.node_selector(**{"kubernetes.io/hostname": node}).build())
        for name in names:
            target.wait_until(
                lambda n=name: bool(target.get("v1", "Pod", n, namespace)["spec"].get("nodeName")),
                timeout=60, what=f"probe {name} bound",
            )
            target.delete("v1", "Pod", name, namespace)
        target.wait_until(
            lambda: not {p["metadata"]["name"] for p in target.list("v1", "Pod", namespace)} & set(names),
            timeout=60, what="probes gone",
        )

    return settle
