"""The pod garbage collector (``pkg/controller/podgc/gc_controller.go``).

``gc`` is upstream's 20 s pass, in upstream's order:

- ``gcTerminated``: past ``terminatedPodThreshold`` terminal pods (0 turns it off), the
  oldest are deleted, evicted ones first (``byEvictionAndCreationTimestamp``);
- ``gcTerminating``: a terminating pod on a node that is not Ready and carries the
  ``node.kubernetes.io/out-of-service`` taint (any effect: ``TaintKeyExists``);
- ``gcOrphaned``: a pod bound to a node the lister lacks puts the node in quarantine for
  40 s; a node still missing (a live GET) after it has its pods deleted, with the
  ``DisruptionTarget`` condition ``DeletionByPodGC``;
- ``gcUnscheduledTerminating``: a terminating pod that was never scheduled.

Each deletion is ``markFailedAndDeletePodWithCondition``: a pod not yet Succeeded or
Failed is first patched to Failed (with the condition, if any), then deleted with grace 0.
Rather than ticking every 20 s, the reference wakes a pass when something may need one:
at the next tick after an event (a missing node, a terminal or unscheduled terminating
pod), when a quarantine ends, and at once for the out-of-service taint.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import condition
from reference_impl.api.well_known_taints import TAINT_NODE_OUT_OF_SERVICE
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Instant, rfc3339, seconds
from reference_impl.controllers.node_lifecycle import ready_status
from reference_impl.errors import Conflict, NotFound

__all__ = ["GC_PERIOD_S", "QUARANTINE_S", "TERMINATED_POD_THRESHOLD", "PodGCController"]

Obj = dict[str, Any]
GC_PERIOD_S: Final = 20.0
QUARANTINE_S: Final = 40.0
TERMINATED_POD_THRESHOLD: Final = 12500  # kube-controller-manager's --terminated-pod-gc-threshold
_TERMINAL: Final = ("Succeeded", "Failed")
_ORPHAN_CONDITION: Final = {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                            "message": "PodGC: node no longer exists"}  # fmt: skip


def is_pod_terminated(pod: Obj) -> bool:
    """``isPodTerminated``: any phase but Pending, Running and Unknown (an empty one too)."""
    return (pod.get("status") or {}).get("phase") not in ("Pending", "Running", "Unknown")


def _eviction_order(pod: Obj) -> tuple[bool, str, str]:
    """``byEvictionAndCreationTimestamp``: evicted pods first, then oldest, then by name."""
    st = pod.get("status") or {}
    evicted = st.get("phase") == "Failed" and st.get("reason") == "Evicted"
    meta = pod["metadata"]
    return (not evicted, str(meta.get("creationTimestamp") or ""), str(meta["name"]))


class PodGCController:
    """Force-deletes terminated, orphaned and stuck terminating pods."""

    name: Final = "pod-garbage-collector-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext, terminated_pod_threshold: int = TERMINATED_POD_THRESHOLD) -> None:
        self._ctx = ctx
        self._nodes = ctx.informers.informer("v1", "Node")
        self._pods = ctx.informers.informer("v1", "Pod")
        self.terminated_pod_threshold = terminated_pod_threshold
        self.quarantine = seconds(QUARANTINE_S)
        self._quarantined: dict[str, Instant] = {}  # nodeQueue: node -> when it is due
        self._terminated: set[str] = set()  # keys of terminal pods, to spot the threshold
        self._next_pass: Instant | None = None
        self._started = False  # a collector that is not started runs only the passes it is asked to

    def start(self) -> None:
        """Watch nodes and pods."""
        self._started = True
        self._nodes.add_handler(self._on_node)
        self._pods.add_handler(self._on_pod)
        for pod in self._pods.items():
            self._note_pod(pod)

    # -- wake-ups -----------------------------------------------------------------------

    def _on_node(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":
            self._wake(seconds(GC_PERIOD_S))
        elif self._out_of_service(ev.obj):
            self.gc_terminating(self._sorted_pods())

    def _on_pod(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":
            self._terminated.discard(object_key(ev.obj))
            return
        self._note_pod(ev.obj)
        node = self._nodes.get(str(ev.obj["spec"].get("nodeName") or ""))
        if node is not None and ev.obj["metadata"].get("deletionTimestamp") and self._out_of_service(node):
            self.gc_terminating([ev.obj])

    def _note_pod(self, pod: Obj) -> None:
        key = object_key(pod)
        node = pod["spec"].get("nodeName")
        if is_pod_terminated(pod):
            self._terminated.add(key)
        else:
            self._terminated.discard(key)
        due = (
            (node and self._nodes.get(str(node)) is None)
            or (not node and pod["metadata"].get("deletionTimestamp"))
            or 0 < self.terminated_pod_threshold < len(self._terminated)
        )
        if due:
            self._wake(seconds(GC_PERIOD_S))

    def _wake(self, delay: Duration) -> None:
        """Run a pass after ``delay`` unless one is already due by then."""
        at = Instant(self._ctx.clock.now() + delay)
        if self._next_pass is not None and self._next_pass <= at:
            return
        self._next_pass = at
        self._ctx.clock.call_at(at, lambda: self._pass(at))

    def _pass(self, at: Instant) -> None:
        if self._next_pass != at:
            return  # superseded by an earlier pass
        self._next_pass = None
        self.gc()

    # -- the pass -----------------------------------------------------------------------

    def _sorted_pods(self) -> list[Obj]:
        return sorted(self._pods.items(), key=object_key)

    def gc(self) -> None:
        """``gc``: one pass of the four collectors over the listers' pods."""
        pods = self._sorted_pods()
        if self.terminated_pod_threshold > 0:
            self.gc_terminated(pods)
        self.gc_terminating(pods)
        self.gc_orphaned(pods)
        self.gc_unscheduled_terminating(pods)
        if self._quarantined and self._started:
            self._wake(Duration(max(0, min(self._quarantined.values()) - self._ctx.clock.now())))

    def gc_terminated(self, pods: list[Obj]) -> None:
        """``gcTerminated``: delete the terminal pods beyond the threshold."""
        terminated = [p for p in pods if is_pod_terminated(p)]
        excess = len(terminated) - self.terminated_pod_threshold
        for pod in sorted(terminated, key=_eviction_order)[: max(0, excess)]:
            self._mark_failed_and_delete(pod, None, "terminated")

    @staticmethod
    def _out_of_service(node: Obj) -> bool:
        taints = (node.get("spec") or {}).get("taints") or []
        return ready_status(node) != "True" and any(t.get("key") == TAINT_NODE_OUT_OF_SERVICE for t in taints)

    def gc_terminating(self, pods: list[Obj]) -> None:
        """``gcTerminating``: terminating pods of not-Ready, out-of-service nodes."""
        doomed = []
        for pod in pods:
            if not pod["metadata"].get("deletionTimestamp"):
                continue
            node = self._nodes.get(str(pod["spec"].get("nodeName") or ""))
            if node is not None and self._out_of_service(node):
                doomed.append(pod)
        for pod in sorted(doomed, key=_eviction_order):
            self._mark_failed_and_delete(pod, None, "out-of-service")

    def gc_orphaned(self, pods: list[Obj]) -> None:
        """``gcOrphaned`` and ``discoverDeletedNodes``."""
        now = self._ctx.clock.now()
        for pod in pods:
            node = str(pod["spec"].get("nodeName") or "")
            if node and self._nodes.get(node) is None and node not in self._quarantined:
                self._quarantined[node] = Instant(now + self.quarantine)
        deleted = set()
        for node, due in sorted(self._quarantined.items()):
            if due > now:
                continue
            del self._quarantined[node]
            if self._nodes.get(node) is None and self._ctx.server.try_get("v1", "Node", node) is None:
                deleted.add(node)
        for pod in pods:
            if pod["spec"].get("nodeName") in deleted:
                self._mark_failed_and_delete(pod, _ORPHAN_CONDITION, "orphaned")

    def gc_unscheduled_terminating(self, pods: list[Obj]) -> None:
        """``gcUnscheduledTerminating``: terminating pods that no node ever took."""
        for pod in pods:
            if pod["metadata"].get("deletionTimestamp") and not pod["spec"].get("nodeName"):
                self._mark_failed_and_delete(pod, None, "unscheduled-terminating")

    def _mark_failed_and_delete(self, pod: Obj, cond: Obj | None, why: str) -> None:
        """``markFailedAndDeletePodWithCondition``: Failed first (unless terminal), then
        a delete with grace 0; the pod's uid guards both."""
        meta = pod["metadata"]
        ns, name, uid = meta.get("namespace", "default"), meta["name"], meta.get("uid")
        server = self._ctx.server
        try:
            if (pod.get("status") or {}).get("phase") not in _TERMINAL:
                live = server.get("v1", "Pod", name, ns)
                if live["metadata"].get("uid") != uid:
                    return
                server.update_status({**live, "status": self._failed_status(live, cond)})
            server.delete("v1", "Pod", name, ns, grace_period_seconds=0, uid=uid)
        except (NotFound, Conflict):
            return
        self._ctx.trace.record(self.name, "force-delete", f"{ns}/{name}", why)

    def _failed_status(self, pod: Obj, cond: Obj | None) -> Obj:
        status = dict(pod.get("status") or {})
        status["phase"] = "Failed"
        gen = pod["metadata"].get("generation")
        if gen:
            status["observedGeneration"] = int(gen)  # PodObservedGenerationTracking is GA
        if cond is not None:
            # UpdatePodCondition: the new condition replaces an old one of its type whole.
            new = dict(cond)
            if gen:
                new["observedGeneration"] = int(gen)
            old = condition(pod, str(cond["type"]))
            same = old is not None and old.get("status") == new["status"]
            new["lastTransitionTime"] = (old or {}).get("lastTransitionTime") if same else rfc3339(
                self._ctx.clock.now()
            )
            conds = list(status.get("conditions") or [])
            status["conditions"] = [*conds, new] if old is None else [
                new if c.get("type") == cond["type"] else c for c in conds
            ]
        return status
