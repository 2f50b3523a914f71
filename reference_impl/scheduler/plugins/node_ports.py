"""Models pkg/scheduler/framework/plugins/nodeports/node_ports.go."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    OK,
    SKIP,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Plugin,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import HostPort, NodeInfo, host_ports
from reference_impl.scheduler.plugins import names

__all__ = ["ERR_REASON", "NAME", "NodePorts", "fits_ports", "new"]

Obj = dict[str, Any]
NAME: Final = names.NODE_PORTS
ERR_REASON: Final = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL: Final = "0.0.0.0"
_REJECT: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON,), NAME)
PodPorts = tuple[HostPort, ...]


@dataclass(frozen=True, slots=True)
class _State:
    want: tuple[HostPort, ...]

    def clone(self) -> Self:
        return self


_PRE_FILTER: Final = StateKey[_State]("PreFilter" + NAME)


def _conflict(want: HostPort, used: set[HostPort]) -> bool:
    """``HostPortInfo.CheckConflict``: 0.0.0.0 clashes with any IP on the same protocol/port."""
    ip, proto, port = want
    if ip == BIND_ALL:
        return any(p == proto and n == port for _, p, n in used)
    return (BIND_ALL, proto, port) in used or want in used


def fits_ports(want: Iterable[HostPort], in_use: Iterable[PodPorts]) -> bool:
    """``fitsPorts``: none of ``want`` conflicts with the ports the given pods hold."""
    used = {p for pod in in_use for p in pod}
    return not any(_conflict(w, used) for w in want)


@final
class NodePorts:
    """Rejects nodes where a requested hostPort is already taken."""

    def __init__(self, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the host ports."""
        return sign.signed((sign.HOST_PORTS_SIGNER, sign.host_ports_signer(pod)))

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP when the pod asks for no host port."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        want = host_ports(pod)
        if not want:
            return None, SKIP
        state.write(_PRE_FILTER, _State(want))
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE when any wanted (ip, protocol, port) is in use on the node."""
        st = state.try_read(_PRE_FILTER)
        if st is None:  # getPreFilterState: PreFilter did not run (a deferred resize skips)
            if self._resize_preemption and is_pod_resize_deferred(pod):
                return OK
            return Status(Code.ERROR, (f'reading "{_PRE_FILTER.name}" from cycleState: not found',), NAME)
        if not node_info.pods_with_ports:
            return OK
        want = st.want
        held = (p.ports for p in node_info.pods_with_ports.values())
        return OK if fits_ports(want, held) else _REJECT

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """An assigned pod with conflicting ports deleted, or a node added."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE), _pod_deleted
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD), None),
        )


def _pod_deleted(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if old is None:
        return QueueingHint.QUEUE
    if not old["spec"].get("nodeName") and not (old.get("status") or {}).get("nominatedNodeName"):
        return QueueingHint.QUEUE_SKIP
    freed = host_ports(old)
    if not freed:
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE_SKIP if fits_ports(host_ports(pod), [freed]) else QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return NodePorts(resize_preemption=gate)


_: type[FilterPlugin] = NodePorts
_f: type[PreFilterPlugin] = NodePorts
_e: type[EnqueueExtensions] = NodePorts
