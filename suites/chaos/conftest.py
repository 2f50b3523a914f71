"""Chaos suites: private pool nodes and the GPU driver (DeviceClass ``chaos-gpu-<ns>``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.dra_driver import FakeDriver
from fixtures.plugin.gpu_fleet import gpu_fleet  # noqa: F401 - the fixture
from reference_impl.api import make_pool_node
from reference_impl.errors import NotFound

__all__ = ["gpu_driver", "pool_nodes"]

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
