"""Models pkg/scheduler/framework/plugins/nodename/node_name.go."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.cycle_state import CycleState
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
    Status,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names

__all__ = ["ERR_REASON", "NAME", "NodeName", "new"]

Obj = dict[str, Any]
NAME: Final = names.NODE_NAME
ERR_REASON: Final = "node(s) didn't match the requested node name"
_SKIP: Final = SKIP
_REJECT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,), NAME)


@final
class NodeName:
    """A pod that names a node in ``spec.nodeName`` fits only that node."""

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: spec.nodeName."""
        return sign.signed((sign.NODE_NAME_SIGNER, pod["spec"].get("nodeName") or ""))

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Only the named node is a candidate (a deferred resize's own node, KEP-5836).

        Deviation: upstream returns no result (not SKIP) without spec.nodeName; skipping is
        equivalent, as this Filter can never reject such a pod, and keeps a no-op call out
        of the per-node loop.
        """
        wanted = pod["spec"].get("nodeName")
        return (PreFilterResult(frozenset((wanted,))), OK) if wanted else (None, _SKIP)

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Reject every node but the named one."""
        wanted = pod["spec"].get("nodeName")
        return _REJECT if wanted and wanted != node_info.name else OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A node appearing; upstream has no hint (the pod retries after backoff anyway)."""
        return (ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),)


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    return NodeName()


_: type[FilterPlugin] = NodeName
_e: type[EnqueueExtensions] = NodeName
_f: type[PreFilterPlugin] = NodeName
