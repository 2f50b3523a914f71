"""Shared fixtures of the scheduling suites: a private pool of small nodes per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from fixtures import Target
from reference_impl.api import make_pool_node
from reference_impl.errors import NotFound


@pytest.fixture
def pool(target: Target, namespace: str) -> Iterator[Callable[..., str]]:
    """``pool(cpu="1", **labels)`` adds a node only this test's pods use; removed at teardown."""
    made: list[str] = []

    def add(cpu: str = "1", **labels: str) -> str:
        name = f"sched-{namespace}-{len(made)}"[:63]
        node = make_pool_node(name, namespace, cpu=cpu, memory="4Gi")
        for k, v in labels.items():
            node = node.label(k.replace("__", "/").replace("_", "."), v)
        target.apply(node.build())
        made.append(name)
        return name

    yield add
    for name in made:
        try:
            target.delete("v1", "Node", name)
        except NotFound:
            pass
