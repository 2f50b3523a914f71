"""Models KEP-5836 (gate InPlacePodVerticalScalingSchedulerPreemption): the scheduler frees
room on a node for an in-place resize that the kubelet deferred.

A bound pod whose ``PodResizePending`` condition has reason ``Deferred`` asks for more than
its node has left. The scheduler's cache already accounts the pod at its new (larger)
requests, so the resize fits exactly when the node is no longer over-committed. The
preemption plugin then picks lower-priority victims on that node only (never elsewhere),
weighing PDBs as upstream's PostFilter does for any pod (a victim that would take a budget
below ``status.disruptionsAllowed`` is spared when another suffices, not otherwise), and
evicts them; the kubelet retries the resize once they are gone. ``Infeasible`` resizes and nodes with
``spec.podPreemptionPolicy.disableResizePreemption`` are left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.meta import condition
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration
from reference_impl.scheduler.framework.types import NodeInfo, pod_key

if TYPE_CHECKING:
    from reference_impl.scheduler.scheduler import Scheduler

__all__ = ["GATE", "ResizePreemption", "overcommitted"]

Obj = dict[str, Any]
GATE: Final = "InPlacePodVerticalScalingSchedulerPreemption"


def _deferred(pod: Obj) -> bool:
    c = condition(pod, "PodResizePending")
    return c is not None and c.get("status") == "True" and c.get("reason") == "Deferred"


def overcommitted(ni: NodeInfo) -> bool:
    """Whether the pods accounted on ``ni`` request more than it can allocate."""
    alloc, used = ni.allocatable, ni.requested
    return (
        used.milli_cpu > alloc.milli_cpu
        or used.memory > alloc.memory
        or used.ephemeral_storage > alloc.ephemeral_storage
        or any(v > alloc.scalar.get(k, 0) for k, v in used.scalar.items())
    )


class ResizePreemption:
    """Watches bound pods for deferred resizes and preempts on their node."""

    def __init__(self, sched: Scheduler) -> None:
        self._s = sched
        self._queued: set[str] = set()

    def start(self) -> None:
        """Subscribe to pod events (the handler only queues; eviction runs on a clock event)."""
        self._s.ctx.informers.informer("v1", "Pod").add_handler(self._on_pod)

    def _on_pod(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED" or not ev.obj["spec"].get("nodeName") or not _deferred(ev.obj):
            return
        key = pod_key(ev.obj)
        if key not in self._queued:
            self._queued.add(key)
            self._s.ctx.clock.call_later(Duration(0), lambda: self._try(key))

    def _try(self, key: str) -> None:
        self._queued.discard(key)
        pod = self._s.ctx.informers.informer("v1", "Pod").get(key)
        if pod is None or pod["metadata"].get("deletionTimestamp") or not _deferred(pod):
            return
        node = pod["spec"]["nodeName"]
        ni = self._s.cache.get(node)
        if ni is None or ni.node is None:
            return
        policy = (ni.node.get("spec") or {}).get("podPreemptionPolicy") or {}
        if policy.get("disableResizePreemption"):
            return
        for plugin in self._s.framework.post_filter:
            preempt = getattr(plugin, "preempt_on_node", None)
            if preempt is not None and preempt(pod, node, lambda: not overcommitted(ni)):
                self._s.ctx.trace.record("scheduler", "ResizePreemption", key, node)
                return
