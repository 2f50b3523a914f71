"""Models pkg/controller/scheduling/podgroupprotection (needs GenericWorkload).

The PodGroupProtection admission plugin stamps ``scheduling.k8s.io/podgroup-protection``
on every new PodGroup. Once a PodGroup is being deleted, this controller removes the
finalizer as soon as no *active* pod (phase neither Succeeded nor Failed) in its namespace
names it in ``spec.schedulingGroup.podGroupName``; until then the PodGroup stays, with a
deletionTimestamp, so the scheduler and the kubelet keep seeing the group of running pods.
It reacts to PodGroup events and to pods that go away or reach a terminal phase.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from reference_impl.apiserver.admission.podgroup_protection import PODGROUP_PROTECTION_FINALIZER
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.errors import NotFound

__all__ = [
    "PodGroupProtectionController",
    "active_pod_scheduling_group_keys",
    "get_pod",
    "has_active_pods",
    "is_deletion_candidate",
    "is_pod_terminated",
    "pod_group_keys_for_pod_change",
]

Obj = dict[str, Any]
POD_GROUP_API: Final = "scheduling.k8s.io/v1beta1"


def _group_of(pod: Mapping[str, Any]) -> str | None:
    """``<namespace>/<podGroupName>`` of the group a pod names, or None."""
    name = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return f"{pod['metadata'].get('namespace', '')}/{name}" if name else None


def is_pod_terminated(pod: Mapping[str, Any]) -> bool:
    """``isPodTerminated``: phase Succeeded or Failed."""
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def get_pod(obj: object) -> Obj | None:
    """``getPod``: the pod of an event, None for no object or another kind (informer
    tombstones are not modelled: a DELETED event carries the last state itself)."""
    if isinstance(obj, dict) and obj.get("kind", "Pod") == "Pod" and "metadata" in obj:
        return obj
    return None


def is_deletion_candidate(pg: Mapping[str, Any]) -> bool:
    """``protectionutil.IsDeletionCandidate``: being deleted and holding the finalizer."""
    meta = pg["metadata"]
    return bool(meta.get("deletionTimestamp")) and PODGROUP_PROTECTION_FINALIZER in (
        meta.get("finalizers") or ()
    )


def active_pod_scheduling_group_keys(pod: Mapping[str, Any]) -> list[str]:
    """The ``activePodSchedulingGroup`` index function: a non-terminated pod's group."""
    key = None if is_pod_terminated(pod) else _group_of(pod)
    return [key] if key else []


def has_active_pods(pg: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]) -> bool:
    """``hasActivePods``: some non-terminated pod names the PodGroup."""
    key = f"{pg['metadata'].get('namespace', '')}/{pg['metadata']['name']}"
    return any(key in active_pod_scheduling_group_keys(p) for p in pods)


def pod_group_keys_for_pod_change(old: object, new: object) -> list[str]:
    """``handlePodChange``: the groups to requeue, in order. Only a pod that finished,
    went away, or was replaced under the same name (a masked delete) can free one."""
    new_pod, old_pod = get_pod(new), get_pod(old)
    pods: list[Obj] = []
    if new_pod is not None and is_pod_terminated(new_pod):
        pods.append(new_pod)
    if new_pod is not None and old_pod is not None:
        if old_pod["metadata"].get("uid") != new_pod["metadata"].get("uid"):
            pods.append(old_pod)
    if new_pod is None and old_pod is not None:
        pods.append(old_pod)
    return [k for k in map(_group_of, pods) if k]


class PodGroupProtectionController:
    """Releases a deleted PodGroup once no active pod references it."""

    name: Final = "podgroup-protection-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="podgroupprotection",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._groups: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to PodGroups and pods (only with GenericWorkload, as upstream)."""
        if not self._ctx.gates["GenericWorkload"]:
            return
        self._groups = self._ctx.informers.informer(POD_GROUP_API, "PodGroup")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._groups.add_handler(self._on_group)
        self._pods.add_handler(self._on_pod)
        for pg in self._groups.items():
            self.handle_pod_group_update(pg)

    def queue_length(self) -> int:
        """Keys waiting in the work queue (for tests, as upstream's ``queue.Len()``)."""
        return len(self._queue)

    def handle_pod_group_update(self, pg: Obj) -> None:
        """``handlePodGroupUpdate`` (add and update; deletes need nothing)."""
        if is_deletion_candidate(pg):
            self._queue.add(object_key(pg))

    def handle_pod_change(self, old: Obj | None, new: Obj | None) -> None:
        """``handlePodChange``; the queue drops a key already waiting."""
        for key in pod_group_keys_for_pod_change(old, new):
            self._queue.add(key)

    def _on_group(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self.handle_pod_group_update(ev.obj)

    def _on_pod(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":
            self.handle_pod_change(ev.obj, None)
        else:
            self.handle_pod_change(ev.old if ev.type == "MODIFIED" else None, ev.obj)

    def _sync(self, key: str) -> None:
        """``processPodGroup``."""
        assert self._groups is not None and self._pods is not None
        pg = self._groups.get(key)
        if pg is None or not is_deletion_candidate(pg):
            return
        if has_active_pods(pg, self._pods.items()):
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
