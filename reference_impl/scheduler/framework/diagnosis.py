"""Models the FitError and Diagnosis of pkg/scheduler/framework/types.go.

The message is upstream's, byte for byte: ``0/3 nodes are available: 1 Insufficient cpu,
2 node(s) had untolerated taint(s).`` followed by the PostFilter (preemption)
message when a PostFilter plugin gave one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from reference_impl.scheduler.framework.interface import Code, Status

__all__ = ["Diagnosis", "FitError", "NodeToStatus"]

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


@dataclass(slots=True)
class NodeToStatus:
    """Statuses of rejected nodes, plus one status for nodes never tried (``NodeToStatus``)."""

    statuses: dict[str, Status] = field(default_factory=dict)
    absent: Status = field(
        default_factory=lambda: Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    )

    def set(self, node_name: str, status: Status) -> None:
        """Record why ``node_name`` was rejected."""
        self.statuses[node_name] = status

    def get(self, node_name: str) -> Status:
        """The recorded status, or the absent-nodes status."""
        return self.statuses.get(node_name, self.absent)

    def node_names(self) -> Iterable[str]:
        """Nodes with an explicit status, sorted."""
        return sorted(self.statuses)

    def __len__(self) -> int:
        return len(self.statuses)


@dataclass(slots=True)
class Diagnosis:
    """Why a cycle found no node: per-node statuses and the plugins that rejected."""

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status) -> None:
        """Remember which plugin rejected, for queueing hints."""
        if not status.plugin:
            return
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)
        elif status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)


@dataclass(slots=True)
class FitError:
    """No node fits the pod; ``message()`` is upstream's ``FitError.Error()``."""

    num_all_nodes: int
    diagnosis: Diagnosis

    def message(self) -> str:
        """``0/N nodes are available: <histogram>. <post-filter message>.``"""
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        d = self.diagnosis
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            counts: dict[str, int] = {}
            for status in d.node_to_status.statuses.values():
                for reason in status.reasons:
                    counts[reason] = counts.get(reason, 0) + 1
            missing = self.num_all_nodes - len(d.node_to_status)
            if missing > 0:
                for reason in d.node_to_status.absent.reasons:
                    counts[reason] = counts.get(reason, 0) + missing
            histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
            if histogram:
                msg += f" {', '.join(histogram)}."
        if d.post_filter_msg:  # it brings its own full stop ("preemption: 0/3 ... .")
            msg += f" {d.post_filter_msg}"
        return msg
