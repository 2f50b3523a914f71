"""A tiny control plane for controller selftests: store, apiserver, informers, controllers,
the fake kubelet and a test-only binder (the real scheduler is tested on its own)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reference_impl.api import make_namespace, make_node
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import Duration, Instant, SimClock, seconds
from reference_impl.controllers import Controller, start_controllers
from reference_impl.errors import Conflict, NotFound
from reference_impl.features import FeatureGates
from reference_impl.kubelet import Kubelet, KubeletConfig
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


@dataclass
class Harness:
    """Handles to one simulated control plane."""

    clock: SimClock
    server: APIServer
    trace: Trace
    controllers: list[Controller]
    kubelet: Kubelet

    def create(self, *manifests: Obj) -> list[Obj]:
        """Create objects, then run every reaction due now."""
        out = [self.server.create(m) for m in manifests]
        self.clock.settle()
        return out

    def advance(self, secs: float) -> None:
        """Run simulated time forward by ``secs``."""
        self.clock.run_until(Instant(self.clock.now() + seconds(secs)))
        self.clock.settle()

    def run_until(self, cond: Callable[[], bool], timeout: float = 300) -> float:
        """Run until ``cond`` holds; returns the simulated seconds it took. Fails on timeout."""
        t0 = self.clock.now()
        ok = self.clock.run_until(Instant(t0 + seconds(timeout)), stop=cond)
        assert ok, "condition not met before the timeout"
        return (self.clock.now() - t0) / 1e9

    def step_until(
        self, cond: Callable[[], bool], check: Callable[[], None], timeout: float = 300
    ) -> None:
        """Step event by event, calling ``check`` after each, until ``cond`` holds."""
        deadline = Instant(self.clock.now() + seconds(timeout))
        while not cond():
            nxt = self.clock.peek()
            assert nxt is not None and nxt <= deadline, "condition not met before the timeout"
            self.clock.step()
            check()

    def pods(self, ns: str = "default", selector: str | None = None) -> list[Obj]:
        """Pods in ``ns``."""
        return self.server.list("v1", "Pod", ns, label_selector=selector)

    def get(self, api_version: str, kind: str, name: str, ns: str | None = "default") -> Obj | None:
        """The stored object or None."""
        return self.server.try_get(api_version, kind, name, ns)


def install_binder(server: APIServer, clock: SimClock, node: str) -> None:
    """Bind every new unbound pod to ``node`` at the same instant (test-only scheduler)."""

    def bind(ns: str, name: str) -> None:
        try:
            server.bind(ns, name, node)
        except (NotFound, Conflict):
            pass

    def on_event(ev: ObjectEvent) -> None:
        if ev.info.kind == "Pod" and ev.type == "ADDED" and not ev.obj["spec"].get("nodeName"):
            meta = ev.obj["metadata"]
            clock.call_later(Duration(0), lambda: bind(meta["namespace"], meta["name"]))

    server.add_event_handler(on_event)


def build_harness(seed: int = 1, kubelet: KubeletConfig | None = None, nodes: int = 2) -> Harness:
    """A started control plane with ``nodes`` fake nodes and the test binder."""
    clock = SimClock()
    rng = Rng(seed)
    gates = FeatureGates()
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), gates)
    for ns in ("default", "kube-node-lease"):
        server.create(make_namespace(ns).build())
    informers = InformerFactory(server)
    trace = Trace(clock)
    ctx = ComponentContext(server, informers, clock, rng, gates, trace)
    controllers = start_controllers(ctx)
    kl = Kubelet(ctx, kubelet or KubeletConfig())
    kl.start()
    for i in range(nodes):
        server.create(make_node(f"node-{i}").build())
    install_binder(server, clock, "node-0")
    clock.settle()
    return Harness(clock, server, trace, controllers, kl)
