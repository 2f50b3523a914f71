"""The pod garbage collector (``pkg/controller/podgc``): orphans and out-of-service nodes.

``gcOrphaned``: a pod bound to a node that no longer exists is, after the node has been
missing for the 40 s quarantine (checked on the 20 s GC period), marked ``Failed`` with a
``DisruptionTarget`` condition (``DeletionByPodGC``) and force-deleted. ``gcTerminating``:
a terminating pod on a node that is not Ready and carries the
``node.kubernetes.io/out-of-service`` taint is force-deleted (NodeOutOfServiceVolumeDetach,
GA). Either way the pod is gone, so its ResourceClaims are released and deallocated by the
resource claim controller.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import set_condition
from reference_impl.api.well_known_taints import TAINT_NODE_OUT_OF_SERVICE
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, rfc3339, seconds
from reference_impl.controllers.node_lifecycle import ready_status
from reference_impl.errors import Conflict, NotFound

__all__ = ["PodGCController", "QUARANTINE_S"]

Obj = dict[str, Any]
GC_PERIOD_S: Final = 20.0
QUARANTINE_S: Final = 40.0


class PodGCController:
    """Force-deletes pods of missing nodes and terminating pods of out-of-service nodes."""

    name: Final = "pod-garbage-collector-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._nodes = ctx.informers.informer("v1", "Node")
        self._pods = ctx.informers.informer("v1", "Pod")
        self._pending: set[str] = set()  # node names with a scheduled orphan check

    def start(self) -> None:
        """Watch nodes and pods."""
        self._nodes.add_handler(self._on_node)
        self._pods.add_handler(self._on_pod)
        for pod in self._pods.items():
            self._check_bound(pod)

    def _on_node(self, ev: ObjectEvent) -> None:
        name = str(ev.obj["metadata"]["name"])
        if ev.type == "DELETED":
            self._schedule(name)
        elif self._out_of_service(ev.obj):
            self._gc_terminating(name)

    def _on_pod(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":
            return
        self._check_bound(ev.obj)
        node = self._nodes.get(str(ev.obj["spec"].get("nodeName") or ""))
        if node is not None and self._out_of_service(node):
            self._gc_terminating(str(node["metadata"]["name"]))

    def _check_bound(self, pod: Obj) -> None:
        node = pod["spec"].get("nodeName")
        if node and self._nodes.get(str(node)) is None:
            self._schedule(str(node))

    def _schedule(self, node: str) -> None:
        if node in self._pending:
            return
        self._pending.add(node)
        # Seen missing at one GC tick, confirmed after the quarantine at a later one.
        delay = Duration(seconds(QUARANTINE_S + GC_PERIOD_S))
        self._ctx.clock.call_later(delay, lambda: self._gc_orphaned(node))

    @staticmethod
    def _out_of_service(node: Obj) -> bool:
        taints = (node.get("spec") or {}).get("taints") or []
        return ready_status(node) != "True" and any(
            t.get("key") == TAINT_NODE_OUT_OF_SERVICE and t.get("effect") in ("NoExecute", "NoSchedule")
            for t in taints
        )

    def _gc_orphaned(self, node: str) -> None:
        self._pending.discard(node)
        if self._nodes.get(node) is not None:
            return
        for pod in sorted(self._pods.items(), key=object_key):
            if pod["spec"].get("nodeName") == node:
                self._delete(pod, orphan=True)

    def _gc_terminating(self, node: str) -> None:
        for pod in sorted(self._pods.items(), key=object_key):
            if pod["spec"].get("nodeName") == node and pod["metadata"].get("deletionTimestamp"):
                self._delete(pod, orphan=False)

    def _delete(self, pod: Obj, *, orphan: bool) -> None:
        meta = pod["metadata"]
        ns, name = meta.get("namespace", "default"), meta["name"]
        server = self._ctx.server
        try:
            if orphan:
                status = dict(pod.get("status") or {})
                cond = {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                        "message": "PodGC: node no longer exists"}  # fmt: skip
                set_condition(status, cond, rfc3339(self._ctx.clock.now()))
                if status.get("phase") not in ("Succeeded", "Failed"):
                    status["phase"] = "Failed"
                server.update_status({**pod, "status": status})
            server.delete("v1", "Pod", name, ns, grace_period_seconds=0, uid=meta.get("uid"))
        except (NotFound, Conflict):
            return
        self._ctx.trace.record(self.name, "force-delete", f"{ns}/{name}", node_reason(orphan))


def node_reason(orphan: bool) -> str:
    """What the trace says about a force deletion."""
    return "orphaned" if orphan else "out-of-service"
