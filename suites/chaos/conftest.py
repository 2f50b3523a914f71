"""Chaos suites: private pool nodes, the GPU driver, and faults run through the Injector
contract (prepare reads, apply injects, revert always runs in ``finally``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from fixtures import Target
from fixtures.chaos import Injector, Rollback, Scope
from fixtures.helpers.dra_driver import FakeDriver
from reference_impl.api import make_pool_node
from reference_impl.errors import NotFound

__all__ = ["fault", "gpu_driver", "pool_nodes"]

GPU_CLASS = "chaos-gpu"
Obj = dict[str, Any]


@pytest.fixture
def pool_nodes(target: Target, namespace: str) -> Iterator[Callable[..., Obj]]:
    """``make(suffix, cpu=..)``: a node only this test's pool pods use; deleted after."""
    made: list[str] = []

    def make(suffix: str, cpu: str = "16", pods: str = "20") -> Obj:
        name = f"{namespace}-{suffix}"
        made.append(name)
        return target.apply(make_pool_node(name, namespace, cpu=cpu, pods=pods).build())

    yield make
    for name in made:
        try:
            target.delete("v1", "Node", name)
        except NotFound:
            pass


@pytest.fixture
def gpu_driver(target: Target, namespace: str) -> Iterator[FakeDriver]:
    """The fake GPU driver with a DeviceClass of its own; slices removed after."""
    drv = FakeDriver(target, prefix=f"chaos-{namespace}")
    drv.install_class(f"{GPU_CLASS}-{namespace}")
    try:
        yield drv
    finally:
        drv.cleanup()


def node_ready(target: Target, name: str) -> str:
    """The node's Ready condition status, ``Gone`` when the node is deleted."""
    try:
        node = target.get("v1", "Node", name)
    except NotFound:
        return "Gone"
    for c in (node.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return str(c.get("status"))
    return "Unknown"


@contextmanager
def fault(target: Target, injector: Injector, scope: Scope) -> Iterator[Rollback]:
    """Inject ``injector`` on ``scope``; the rollback runs however the block ends."""
    rollback = injector.prepare(target, scope)
    try:
        injector.apply(target, rollback)
        yield rollback
    finally:
        injector.revert(target, rollback)
