"""A one-profile control plane for the schedule_one_test.go ports: the real Scheduler
with PrioritySort, a recording DefaultBinder and the given plugins (``tf.NewFramework``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reference_impl.api import make_namespace
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.scheduler import Profile, Scheduler
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, Code, Plugin, Status
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.registry import in_tree_registry
from reference_impl.scheduler.profile import PluginConfig
from reference_impl.storage.mvcc import MVCCStore

__all__ = ["KEY", "Env", "FakeReserve", "RecordingBinder", "const", "env"]

Obj = dict[str, Any]
KEY = "default/foo"


@dataclass
class FakeReserve:
    """``FakeReservePlugin``: a fixed Reserve status; counts Unreserve."""

    status: Status = OK
    unreserved: int = 0

    def name(self) -> str:
        return "FakeReserve"

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        return self.status

    def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        self.unreserved += 1


@dataclass
class RecordingBinder:
    """DefaultBinder's name; records the Binding target and fails with ``error``."""

    error: str = ""
    bound: list[str] = field(default_factory=list)
    real: Any = None

    def name(self) -> str:
        return names.DEFAULT_BINDER

    def bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        self.bound.append(node_name)
        if self.error:
            return Status(Code.ERROR, (self.error,))
        status: Status = self.real.bind(state, pod, node_name)
        return status


@dataclass
class Env:
    """One control plane with a scheduler whose profile holds only the given plugins."""

    clock: SimClock
    server: APIServer
    sched: Scheduler
    trace: Trace
    binder: RecordingBinder

    def pod(self, name: str = "foo") -> Obj:
        return self.server.get("v1", "Pod", name, "default")

    def condition(self, name: str = "foo") -> Obj | None:
        for c in (self.pod(name).get("status") or {}).get("conditions") or []:
            if c["type"] == "PodScheduled":
                out: Obj = c
                return out
        return None

    def events(self) -> list[tuple[str, str]]:
        return [(r.event, r.detail) for r in self.trace.records if r.component == "scheduler"]


def env(*plugins: Plugin, bind_error: str = "", extra: tuple[str, ...] = ()) -> Env:
    """``tf.NewFramework`` with PrioritySort, DefaultBinder (recording), ``plugins`` and the
    in-tree plugins named in ``extra``."""
    clock, rng, fg = SimClock(), Rng(0), FeatureGates(None)
    server = APIServer(MVCCStore(), clock, rng.child("apiserver"), fg)
    server.create(make_namespace("default").build())
    informers = InformerFactory(server)
    trace = Trace(clock)
    ctx = ComponentContext(server, informers, clock, rng, fg, trace)
    binder = RecordingBinder(bind_error)
    reg = dict(in_tree_registry())
    real_binder = reg[names.DEFAULT_BINDER]

    def binder_factory(args: object | None, handle: Handle, feats: SchedulerFeatures) -> Plugin:
        binder.real = real_binder(args, handle, feats)
        return binder

    reg[names.DEFAULT_BINDER] = binder_factory
    configs = [PluginConfig(names.PRIORITY_SORT), *(PluginConfig(n) for n in extra)]
    for pl in plugins:
        reg[pl.name()] = const(pl)
        configs.append(PluginConfig(pl.name()))
    configs.append(PluginConfig(names.DEFAULT_BINDER))
    sched = Scheduler(ctx, Profile(plugins=tuple(configs)), reg)
    sched.start()
    return Env(clock, server, sched, trace, binder)


def const(plugin: Plugin) -> Callable[[object | None, Handle, SchedulerFeatures], Plugin]:
    return lambda _args, _handle, _features: plugin
