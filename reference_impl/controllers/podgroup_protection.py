"""Models pkg/controller/scheduling/podgroupprotection (needs GenericWorkload).

The PodGroupProtection admission plugin stamps ``scheduling.k8s.io/podgroup-protection``
on every new PodGroup. Once a PodGroup is being deleted, this controller removes the
finalizer as soon as no *active* pod (phase neither Succeeded nor Failed) in its namespace
names it in ``spec.schedulingGroup.podGroupName``; until then the PodGroup stays, with a
deletionTimestamp, so the scheduler and the kubelet keep seeing the group of running pods.
It reacts to PodGroup events and to pods that go away or reach a terminal phase.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.admission.podgroup_protection import PODGROUP_PROTECTION_FINALIZER
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.errors import NotFound

__all__ = ["PodGroupProtectionController"]

Obj = dict[str, Any]
POD_GROUP_API: Final = "scheduling.k8s.io/v1beta1"


def _group_of(pod: Obj) -> str | None:
    """``<namespace>/<podGroupName>`` of the group a pod names, or None."""
    name = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return f"{pod['metadata'].get('namespace', 'default')}/{name}" if name else None


def _terminated(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _deletion_candidate(pg: Obj) -> bool:
    meta = pg["metadata"]
    return bool(meta.get("deletionTimestamp")) and PODGROUP_PROTECTION_FINALIZER in (
        meta.get("finalizers") or ()
    )


class PodGroupProtectionController:
    """Releases a deleted PodGroup once no active pod references it."""

    name: Final = "podgroup-protection-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="podgroupprotection")
        self._groups: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to PodGroups and pods (only with GenericWorkload, as upstream)."""
        if not self._ctx.gates.get("GenericWorkload", False):
            return
        self._groups = self._ctx.informers.informer(POD_GROUP_API, "PodGroup")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._groups.add_handler(self._on_group)
        self._pods.add_handler(self._on_pod)
        for pg in self._groups.items():
            if _deletion_candidate(pg):
                self._queue.add(object_key(pg))

    def _on_group(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED" and _deletion_candidate(ev.obj):
            self._queue.add(object_key(ev.obj))

    def _on_pod(self, ev: ObjectEvent) -> None:
        # Only a pod that leaves or finishes can let a finalizer go.
        gone = ev.type == "DELETED" or _terminated(ev.obj)
        if ev.old is not None and ev.old["metadata"].get("uid") != ev.obj["metadata"].get("uid"):
            old = _group_of(ev.old)
            if old:
                self._queue.add(old)
        key = _group_of(ev.obj)
        if gone and key:
            self._queue.add(key)

    def _sync(self, key: str) -> None:
        assert self._groups is not None and self._pods is not None
        pg = self._groups.get(key)
        if pg is None or not _deletion_candidate(pg):
            return
        if any(_group_of(p) == key and not _terminated(p) for p in self._pods.items()):
            return  # still in use; a pod event requeues it
        meta = pg["metadata"]
        latest = self._ctx.server.try_get(
            POD_GROUP_API, "PodGroup", meta["name"], meta.get("namespace")
        )
        if latest is None:
            return
        fins = [
            f
            for f in latest["metadata"].get("finalizers") or ()
            if f != PODGROUP_PROTECTION_FINALIZER
        ]
        try:
            self._ctx.server.update(
                {**latest, "metadata": {**latest["metadata"], "finalizers": fins}}
            )
        except NotFound:
            return
        self._ctx.trace.record(self.name, "remove-finalizer", key, "")
