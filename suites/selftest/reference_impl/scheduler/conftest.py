"""A tiny control plane for scheduler selftests: store, apiserver, informers, scheduler.

Independent of ``reference_impl.cluster`` on purpose, so the scheduler is tested alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.scheduler import Profile, Scheduler
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


@dataclass
class Harness:
    """Handles to one simulated control plane with only the scheduler running."""

    clock: SimClock
    server: APIServer
    scheduler: Scheduler
    trace: Trace

    def create(self, *manifests: Obj) -> None:
        """Create objects, then run every reaction due now."""
        for m in manifests:
            self.server.create(m)
        self.clock.settle()

    def advance(self, secs: float) -> None:
        """Run simulated time forward."""
        self.clock.run_until(Instant(self.clock.now() + seconds(secs)))
        self.clock.settle()

    def pod(self, name: str) -> Obj:
        """The stored pod."""
        return self.server.get("v1", "Pod", name, "default")

    def node_of(self, name: str) -> str:
        """The node a pod is bound to, or ""."""
        node: str = self.pod(name)["spec"].get("nodeName") or ""
        return node

    def bindings(self) -> dict[str, str]:
        """pod name -> node name, for every pod."""
        return {
            p["metadata"]["name"]: p["spec"].get("nodeName") or ""
            for p in self.server.list("v1", "Pod", "default")
        }

    def scheduled_condition(self, name: str) -> Obj | None:
        """The pod's PodScheduled condition."""
        for c in (self.pod(name).get("status") or {}).get("conditions") or []:
            if c["type"] == "PodScheduled":
                out: Obj = c
                return out
        return None


def make_harness(
    seed: int = 0, profile: Profile | None = None, gates: dict[str, bool] | None = None
) -> Harness:
    """Build the control plane (1.37 gates with ``gates`` overrides) and start the scheduler."""
    clock = SimClock()
    rng = Rng(seed)
    fg = FeatureGates(gates)
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    server.create(make_namespace("default").build())
    informers = InformerFactory(server)
    trace = Trace(clock)
    ctx = ComponentContext(server, informers, clock, rng, fg, trace)
    sched = Scheduler(ctx, profile)
    sched.start()
    return Harness(clock, server, sched, trace)


HarnessFactory = Callable[..., Harness]


@pytest.fixture
def harness_factory() -> HarnessFactory:
    """``harness_factory(seed=0, profile=None, gates=None)`` builds a fresh control plane."""
    return make_harness


@pytest.fixture
def h() -> Harness:
    """A fresh control plane with seed 0."""
    return make_harness()
