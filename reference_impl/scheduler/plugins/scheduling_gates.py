"""Models pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from reference_impl.scheduler.framework.interface import (
    OK,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    Plugin,
    PreEnqueuePlugin,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "SchedulingGates", "new"]

Obj = dict[str, Any]
NAME: Final = names.SCHEDULING_GATES


@final
class SchedulingGates:
    """Holds back pods that still have ``spec.schedulingGates`` (KEP-3521)."""

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def pre_enqueue(self, pod: Obj) -> Status:
        """UNSCHEDULABLE_AND_UNRESOLVABLE while any gate remains."""
        gates = pod["spec"].get("schedulingGates") or ()
        if not gates:
            return OK
        # Go's %v of a []string: "[a b]".
        listed = " ".join(g["name"] for g in gates)
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"waiting for scheduling gates: [{listed}]",), NAME
        )

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Only the pod's own update that removes its last gate can release it."""
        ev = ClusterEvent(
            EventResource.TARGET_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        )
        return (ClusterEventWithHint(ev, _gates_eliminated),)


def _gates_eliminated(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if new is None or new["metadata"].get("uid") != pod["metadata"].get("uid"):
        return QueueingHint.QUEUE_SKIP
    gated = bool(new["spec"].get("schedulingGates"))
    return QueueingHint.QUEUE_SKIP if gated else QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return SchedulingGates()


_: type[PreEnqueuePlugin] = SchedulingGates
_e: type[EnqueueExtensions] = SchedulingGates
