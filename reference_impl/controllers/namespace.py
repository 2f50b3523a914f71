"""The namespace controller (``pkg/controller/namespace/deletion/namespaced_resources_deleter.go``).

A Terminating namespace has every namespaced object of every served, stored kind
deleted. Bound pods are deleted gracefully and stay until their kubelet confirms;
objects with finalizers stay until those are removed. While content remains the
namespace carries ``NamespaceContentRemaining`` (and ``NamespaceFinalizersRemaining``);
once nothing is left the controller calls the ``namespaces/finalize`` subresource.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import set_condition
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import rfc3339, seconds
from reference_impl.controllers.served import served_kinds
from reference_impl.errors import Conflict, NotFound

__all__ = ["NamespaceController"]

Obj = dict[str, Any]
# How long to wait before re-checking a namespace whose content is still going away, as a
# fallback: deletions of its content also requeue it at once.
RECHECK_SECONDS: Final = 5.0


class NamespaceController:
    """Empties Terminating namespaces, then finalizes them."""

    name: Final = "namespace-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self._kinds: list[ResourceInfo] = []
        self._terminating: set[str] = set()
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)

    def start(self) -> None:
        """Watch namespaces, and deletions inside Terminating ones."""
        self._kinds = served_kinds(self._ctx.gates, namespaced=True)
        inf = self._ctx.informers.informer("v1", "Namespace")
        inf.add_handler(self._on_namespace)
        for ns in inf.items():
            if ns["metadata"].get("deletionTimestamp"):
                self._mark(str(ns["metadata"]["name"]))
        self._server.add_event_handler(self._on_any)

    def _mark(self, name: str) -> None:
        self._terminating.add(name)
        self._queue.add(name)

    def _on_namespace(self, ev: ObjectEvent) -> None:
        name = str(ev.obj["metadata"]["name"])
        if ev.type == "DELETED":
            self._terminating.discard(name)
        elif ev.obj["metadata"].get("deletionTimestamp"):
            self._mark(name)

    def _on_any(self, ev: ObjectEvent) -> None:
        ns = ev.obj["metadata"].get("namespace")
        if ev.type == "DELETED" and ns in self._terminating:
            self._queue.add(str(ns))

    def _sync(self, name: str) -> None:
        ns = self._server.try_get("v1", "Namespace", name)
        if ns is None or not ns["metadata"].get("deletionTimestamp"):
            return
        if not (ns.get("spec") or {}).get("finalizers"):
            return  # finalized already; the apiserver removes it once metadata finalizers go
        remaining, finalizers = self._delete_content(name)
        if remaining:
            self._set_conditions(ns, remaining, finalizers)
            self._queue.add_after(name, seconds(RECHECK_SECONDS))
            return
        self._ctx.trace.record(self.name, "finalize", f"Namespace/{name}")
        self._server.finalize_namespace(name)

    def _delete_content(self, namespace: str) -> tuple[int, int]:
        """Delete everything in ``namespace``; count what is left and what has finalizers."""
        remaining = with_finalizers = 0
        for info in self._kinds:
            for obj in self._server.list(info.api_version, info.kind, namespace):
                meta = obj["metadata"]
                if not meta.get("deletionTimestamp"):
                    self._delete(info, obj)
                if self._server.try_get(info.api_version, info.kind, meta["name"], namespace):
                    remaining += 1
                    with_finalizers += bool(meta.get("finalizers"))
        return remaining, with_finalizers

    def _delete(self, info: ResourceInfo, obj: Obj) -> None:
        meta = obj["metadata"]
        try:
            self._server.delete(
                info.api_version, info.kind, meta["name"], meta.get("namespace"), uid=meta["uid"]
            )
        except (NotFound, Conflict):
            pass

    def _set_conditions(self, ns: Obj, remaining: int, finalizers: int) -> None:
        status = dict(ns.get("status") or {})
        status["conditions"] = [dict(c) for c in status.get("conditions") or []]
        now = rfc3339(self._ctx.clock.now())
        changed = set_condition(
            status,
            {
                "type": "NamespaceContentRemaining",
                "status": "True",
                "reason": "SomeResourcesRemain",
                "message": f"Some resources are remaining: {remaining} objects",
            },
            now,
        )
        fin = {
            "type": "NamespaceFinalizersRemaining",
            "status": "True" if finalizers else "False",
            "reason": "SomeFinalizersRemain" if finalizers else "ContentHasNoFinalizers",
            "message": f"Some content has finalizers: {finalizers} objects"
            if finalizers
            else "All content-preserving finalizers finished",
        }
        changed |= set_condition(status, fin, now)
        if changed:
            self._server.update_status({**ns, "status": status})
