"""Taint-based eviction (``pkg/controller/tainteviction``): NoExecute node taints.

A pod on a node with a NoExecute taint it does not tolerate is deleted at once. When
every such taint is tolerated, the smallest ``tolerationSeconds`` of the tolerations used
decides: the pod is deleted that long after the controller first saw it tainted (no
seconds: tolerated forever). A taint removed in time cancels the eviction. Eviction adds
the ``DisruptionTarget`` condition (``DeletionByTaintManager``) and deletes gracefully.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import set_condition
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Instant, Timer, rfc3339, seconds
from reference_impl.dra.taints import tolerates
from reference_impl.errors import Conflict, NotFound

__all__ = ["TaintEvictionController", "min_toleration_seconds"]

Obj = dict[str, Any]
REASON: Final = "DeletionByTaintManager"


def min_toleration_seconds(taints: list[Obj], tolerations: list[Obj]) -> float | None:
    """0 when a taint is untolerated, the smallest seconds of the used tolerations, or
    None (forever) when none of them has seconds; ``getMinTolerationTime``."""
    used: list[Obj] = []
    for taint in taints:
        match = [t for t in tolerations if tolerates(t, taint)]
        if not match:
            return 0.0
        used += match
    limits = [int(t["tolerationSeconds"]) for t in used if t.get("tolerationSeconds") is not None]
    if not limits:
        return None
    return float(max(min(limits), 0))


class TaintEvictionController:
    """Deletes pods from nodes whose NoExecute taints they do not (or no longer) tolerate."""

    name: Final = "taint-eviction-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._nodes = ctx.informers.informer("v1", "Node")
        self._pods = ctx.informers.informer("v1", "Pod")
        self._q = WorkQueue(ctx.clock, self._sync, name="tainteviction")
        self._work: dict[str, tuple[Instant, Instant, Timer | None]] = {}  # created, trigger

    def start(self) -> None:
        """Watch nodes and pods."""
        self._nodes.add_handler(self._on_node)
        self._pods.add_handler(self._on_pod)
        for pod in self._pods.items():
            if pod["spec"].get("nodeName"):
                self._q.add(object_key(pod))

    def _on_node(self, ev: ObjectEvent) -> None:
        name = ev.obj["metadata"]["name"]
        for pod in self._pods.items():
            if pod["spec"].get("nodeName") == name:
                self._q.add(object_key(pod))

    def _on_pod(self, ev: ObjectEvent) -> None:
        key = object_key(ev.obj)
        if ev.type == "DELETED":
            self._cancel(key)
        elif ev.obj["spec"].get("nodeName"):
            self._q.add(key)

    def _cancel(self, key: str) -> None:
        work = self._work.pop(key, None)
        if work is not None and work[2] is not None:
            work[2].cancel()

    def _sync(self, key: str) -> None:
        pod = self._pods.get(key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            self._cancel(key)
            return
        node = self._nodes.get(str(pod["spec"].get("nodeName") or ""))
        taints = [t for t in ((node or {}).get("spec") or {}).get("taints") or []
                  if t.get("effect") == "NoExecute"]  # fmt: skip
        if not taints:
            self._cancel(key)
            return
        wait = min_toleration_seconds(taints, list(pod["spec"].get("tolerations") or []))
        if wait is None:
            self._cancel(key)
            return
        now = self._ctx.clock.now()
        created = now
        old = self._work.get(key)
        if wait > 0 and old is not None:
            created = old[0]
            if Instant(created + seconds(wait)) == old[1] and old[1] > now:
                return  # already scheduled for this trigger
        trigger = Instant(created + seconds(wait))
        self._cancel(key)
        if trigger > now:
            timer = self._ctx.clock.call_at(trigger, lambda: self._q.add(key))
            self._work[key] = (created, trigger, timer)
            return
        self._work[key] = (created, trigger, None)
        self._evict(pod)

    def _evict(self, pod: Obj) -> None:
        meta = pod["metadata"]
        ns, name = meta.get("namespace", "default"), meta["name"]
        server = self._ctx.server
        try:
            latest = server.get("v1", "Pod", name, ns)
            if latest["metadata"].get("uid") != meta.get("uid"):
                return
            status = dict(latest.get("status") or {})
            cond = {"type": "DisruptionTarget", "status": "True", "reason": REASON,
                    "message": "Taint manager: deleting due to NoExecute taint"}  # fmt: skip
            if set_condition(status, cond, rfc3339(self._ctx.clock.now())):
                server.update_status({**latest, "status": status})
            server.delete("v1", "Pod", name, ns, uid=meta.get("uid"))
        except (NotFound, Conflict):
            return
        self._ctx.trace.record(self.name, "evict", f"{ns}/{name}", REASON)
