"""A control plane with only the fake kubelet running (no controllers, no scheduler)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.features import FeatureGates
from reference_impl.kubelet import Kubelet, KubeletConfig
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


@dataclass
class KubeletHarness:
    """Handles to the apiserver, clock and kubelet."""

    clock: SimClock
    server: APIServer
    kubelet: Kubelet
    trace: Trace

    def create(self, *manifests: Obj) -> list[Obj]:
        """Create objects and settle."""
        out = [self.server.create(m) for m in manifests]
        self.clock.settle()
        return out

    def pod(self, name: str) -> Obj | None:
        """The pod in default, or None."""
        return self.server.try_get("v1", "Pod", name, "default")

    def wait(self, cond: Callable[[], bool], timeout: float = 120) -> float:
        """Run until ``cond``; the simulated seconds it took."""
        t0 = self.clock.now()
        assert self.clock.run_until(Instant(t0 + seconds(timeout)), stop=cond)
        return (self.clock.now() - t0) / 1e9


def make_harness(config: KubeletConfig | None = None, seed: int = 3) -> KubeletHarness:
    """Namespaces default and kube-node-lease, then the kubelet."""
    clock = SimClock()
    rng = Rng(seed)
    gates = FeatureGates()
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    for ns in ("default", "kube-node-lease"):
        server.create(make_namespace(ns).build())
    trace = Trace(clock)
    ctx = ComponentContext(server, InformerFactory(server), clock, rng, gates, trace)
    kubelet = Kubelet(ctx, config or KubeletConfig())
    kubelet.start()
    clock.settle()
    return KubeletHarness(clock, server, kubelet, trace)
