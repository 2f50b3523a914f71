"""What every control-plane component is handed: the apiserver, informers, clock and seed."""

from __future__ import annotations

from dataclasses import dataclass, field

from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng

__all__ = ["ComponentContext", "Trace", "TraceRecord"]


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """One line of the golden trace: when, who, what happened, to which object, and detail."""

    instant: Instant
    component: str
    event: str
    object: str
    detail: str = ""


@dataclass(slots=True)
class Trace:
    """An append-only log of component decisions, for golden-trace tests and reports."""

    clock: SimClock
    records: list[TraceRecord] = field(default_factory=list)
    limit: int = 200_000

    def record(self, component: str, event: str, obj: str, detail: str = "") -> None:
        """Append a record (older records are dropped past ``limit``, keeping memory flat)."""
        self.records.append(TraceRecord(self.clock.now(), component, event, obj, detail))
        if len(self.records) > self.limit:
            del self.records[: self.limit // 2]


@dataclass(frozen=True, slots=True)
class ComponentContext:
    """The handles a controller, the scheduler or the kubelet model is built from."""

    server: APIServer
    informers: InformerFactory
    clock: SimClock
    rng: Rng
    gates: FeatureGates
    trace: Trace
