"""Models pkg/scheduler/eventhandlers.go: informer events into the cache and the queue.

Handlers run synchronously inside apiserver writes, so they only update the cache and
move pods between sub-queues; scheduling itself always happens on a later clock event.
With InPlacePodVerticalScalingSchedulerPreemption a bound pod whose resize is deferred is
queued too (``addPod``/``updatePod``/``deletePod``); events about it stay AssignedPod ones.
Pods of this scheduler enter, change in and leave their pod group's state in the cache
(``AddPodGroupMember`` and friends) where upstream's handlers call it; the PodGroup and
CompositePodGroup informers feed the cache and the queue's forest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from reference_impl.apiserver.server import ObjectEvent
from reference_impl.scheduler.framework.events import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    NODE_ADD,
    node_update_events,
    pod_update_events,
)
from reference_impl.scheduler.framework.interface import ActionType, ClusterEvent, EventResource
from reference_impl.scheduler.framework.types import pod_key

if TYPE_CHECKING:
    from reference_impl.scheduler.scheduler import Scheduler

__all__ = ["EventHandlers"]

Obj = dict[str, Any]
_TERMINAL: Final = ("Succeeded", "Failed")
R = EventResource
# ``addAllEventHandlers``' storage informers, each watched only if a plugin registered it.
STORAGE_KINDS: Final = (
    (R.PERSISTENT_VOLUME_CLAIM, "v1", "PersistentVolumeClaim"),
    (R.PERSISTENT_VOLUME, "v1", "PersistentVolume"),
    (R.STORAGE_CLASS, "storage.k8s.io/v1", "StorageClass"),
    (R.CSI_NODE, "storage.k8s.io/v1", "CSINode"),
    (R.CSI_DRIVER, "storage.k8s.io/v1", "CSIDriver"),
    (R.CSI_STORAGE_CAPACITY, "storage.k8s.io/v1", "CSIStorageCapacity"),
    (R.VOLUME_ATTACHMENT, "storage.k8s.io/v1", "VolumeAttachment"),
)
_LABELS: Final = {"ADDED": (ActionType.ADD, "Add"), "MODIFIED": (ActionType.UPDATE_OTHER, "Update"),
                  "DELETED": (ActionType.DELETE, "Delete")}


def _assigned(pod: Obj | None) -> bool:
    return pod is not None and bool(pod["spec"].get("nodeName"))


def _priority(pod: Obj) -> int:
    return int(pod["spec"].get("priority") or 0)  # corev1helpers.PodPriority: nil is 0


def _nominated(pod: Obj) -> str:
    return str((pod.get("status") or {}).get("nominatedNodeName") or "")


def _deleting(pod: Obj) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def _same_version(old: Obj, new: Obj) -> bool:
    rv = old["metadata"].get("resourceVersion")
    return rv is not None and rv == new["metadata"].get("resourceVersion")


def _terminal(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in _TERMINAL


class EventHandlers:
    """``addAllEventHandlers``: one handler per informer."""

    def __init__(self, sched: Scheduler) -> None:
        self._s = sched

    def _ours(self, pod: Obj) -> bool:
        """``responsibleForPod``: the scheduler name alone."""
        return bool(pod["spec"].get("schedulerName") == self._s.profile.scheduler_name)

    def _responsible(self, pod: Obj) -> bool:
        return (
            pod["spec"].get("schedulerName") == self._s.profile.scheduler_name
            and not pod["metadata"].get("deletionTimestamp")
        )

    def _pod_events(self, resource: EventResource, old: Obj, new: Obj) -> list[ClusterEvent]:
        dra = self._s.features.enable_dynamic_resource_allocation
        return pod_update_events(resource, old, new, dra=dra)

    def on_node(self, ev: ObjectEvent) -> None:
        """Node add/update/delete: keep the cache current and requeue what might now fit."""
        cache, queue = self._s.cache, self._s.queue
        if ev.type == "DELETED":
            cache.remove_node(ev.obj)
        elif ev.type == "ADDED" or ev.old is None:
            cache.add_node(ev.obj)
            queue.move_all_to_active_or_backoff(NODE_ADD, None, ev.obj)
        else:
            cache.update_node(ev.obj)
            for event in node_update_events(ev.old, ev.obj):
                queue.move_all_to_active_or_backoff(event, ev.old, ev.obj)

    def start_storage(self) -> None:
        """Watch the storage kinds some plugin registered (a wildcard counts for all)."""
        fw = self._s.framework
        wanted = {r.event.resource for p in fw.plugins for r in fw.events_for(p.name())}
        for resource, api_version, kind in STORAGE_KINDS:
            if resource in wanted or R.WILDCARD in wanted:
                informer = self._s.ctx.informers.informer(api_version, kind)
                informer.add_handler(self._storage_handler(resource))

    def _storage_handler(self, resource: EventResource) -> Callable[[ObjectEvent], None]:
        """``buildEvtResHandler``: an add, update or delete of the kind requeues pods."""
        def handle(ev: ObjectEvent) -> None:
            old = ev.obj if ev.type == "DELETED" else ev.old
            new = None if ev.type == "DELETED" else ev.obj
            action, label = _LABELS["ADDED" if ev.old is None and new is not None else ev.type]
            event = ClusterEvent(resource, action, f"{resource.value}{label}")
            self._s.queue.move_all_to_active_or_backoff(event, old, new)
        return handle

    def on_pod(self, ev: ObjectEvent) -> None:
        """Route pod events by assignment: assigned pods feed the cache, others the queue.
        Upstream's pod informer lists and watches with ``status.phase!=Succeeded,
        status.phase!=Failed`` (scheduler.go): a terminal pod is never seen, and a pod
        turning terminal arrives as a delete of its previous version."""
        new = None if ev.type == "DELETED" else ev.obj
        old = ev.obj if ev.type == "DELETED" else ev.old
        if old is not None and _terminal(old):
            old = None
        if new is not None and _terminal(new):
            new = None
        if new is None and old is None:
            return
        if _assigned(new):
            assert new is not None
            if not _assigned(old):
                self._unassigned_gone(old or new, binding=True)
            self._deferred_changed(old if _assigned(old) else None, new)
            self._assigned_changed(old if _assigned(old) else None, new)
        elif _assigned(old):
            assert old is not None
            self._assigned_gone(old)
            self._deferred_changed(old, None)
        elif new is None:
            assert old is not None
            self._unassigned_gone(old)
        else:
            self._unassigned_changed(old, new)

    def _deferred_changed(self, old: Obj | None, new: Obj | None) -> None:
        """KEP-5836: a bound pod is queued while its resize is deferred, and only then."""
        features, queue = self._s.features, self._s.queue
        pod = new if new is not None else old
        assert pod is not None
        if pod["spec"].get("schedulerName") != self._s.profile.scheduler_name:
            return
        was = old is not None and features.defers(old)
        now = new is not None and features.defers(new)
        if now and not was:
            self._s.cache.add_pod_group_member(pod)  # addPodToSchedulingQueue
            queue.add(pod)
        elif was and not now:
            queue.delete(pod)
            self._s.cache.remove_pod_group_member(pod)  # deletePodFromSchedulingQueue
        elif was and now:
            assert old is not None
            queue.update(old, pod, self._pod_events(EventResource.ASSIGNED_POD, old, pod))

    def _assigned_changed(self, old: Obj | None, new: Obj) -> None:
        cache, queue = self._s.cache, self._s.queue
        if old is None:
            cache.add_pod(new)
            queue.move_all_to_active_or_backoff(ASSIGNED_POD_ADD, None, new)
            return
        cache.update_pod(new)
        for event in self._pod_events(EventResource.ASSIGNED_POD, old, new):
            queue.move_all_to_active_or_backoff(event, old, new)

    def _assigned_gone(self, old: Obj) -> None:
        self._s.cache.remove_pod(old)
        self._s.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, old, None)

    def _unassigned_changed(self, old: Obj | None, new: Obj) -> None:
        queue = self._s.queue
        if old is not None and _same_version(old, new):
            return  # ``updatePodInSchedulingQueue`` drops identical objects (#96071)
        if self._ours(new if old is None else old):
            if old is None:
                self._s.cache.add_pod_group_member(new)  # addPodToSchedulingQueue
            else:
                self._s.cache.update_pod_group_member(old, new)
        if old is not None and self._s.cache.is_assumed(pod_key(new)):
            # ``updatePodInSchedulingQueue``: an assumed pod belongs to its binding cycle;
            # only the start of its deletion matters.
            if _deleting(new) and not _deleting(old):
                self._assumed_deleted(new)
            return
        if not self._responsible(new):
            queue.delete(new)
            self._s.reject_waiting(pod_key(new), "pod is being deleted")
        elif old is None:
            queue.add(new)
        else:
            # The queued pod's own update: TargetPod events (``PriorityQueue.Update``).
            queue.update(old, new, self._pod_events(EventResource.TARGET_POD, old, new))
            if _nominated(old) and _nominated(old) != _nominated(new):
                self._nomination_gone(old)
        if old is None and self._ours(new) and self._s.features.enable_generic_workload:
            # After AddPodGroupMember, as addPodToSchedulingQueue: hints count the new pod.
            self._s.workload.pod_added(new)

    def _unassigned_gone(self, pod: Obj, *, binding: bool = False) -> None:
        """``deletePodFromSchedulingQueue``; a binding is no removal from the cluster."""
        self._s.queue.delete(pod)
        if binding:
            return
        if self._s.cache.is_assumed(pod_key(pod)):
            self._assumed_deleted(pod)
            return
        self._s.cache.remove_pod_group_member(pod)  # an assumed one leaves in RemoveAssumedPod
        self._s.reject_waiting(pod_key(pod), "pod was deleted")
        if _nominated(pod):
            self._nomination_gone(pod)

    def _assumed_deleted(self, pod: Obj) -> None:
        """``handleAssumedPodDeletion``: a pod waiting at Permit is rejected (its binding
        cycle forgets it); otherwise its room is freed now, not when the binding fails."""
        key = pod_key(pod)
        node = self._s.cache.assumed_node(key)
        if not self._s.reject_waiting(key, "pod is being deleted"):
            self._s.cache.remove_assumed_pod(key)
        old = {**pod, "spec": {**pod["spec"], "nodeName": node}}
        self._s.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, old, None)

    def _nomination_gone(self, old: Obj) -> None:
        """``hasNominatedNodeNameChanged``/``deletePodFromSchedulingQueue``: lower or equal
        priority pods treated the nominated pod as placed, so they may fit now."""
        prio = _priority(old)
        self._s.queue.move_all_to_active_or_backoff(
            ASSIGNED_POD_DELETE, old, None, lambda p: _priority(p) <= prio
        )

    # -- PodGroup and CompositePodGroup informers ------------------------------------------

    def on_pod_group(self, ev: ObjectEvent) -> None:
        """``addPodGroup``/``updatePodGroup``/``deletePodGroup``: the cache, then the
        queue's forest, then a PodGroup event."""
        cache, queue = self._s.cache, self._s.queue
        if ev.type == "DELETED":
            cache.remove_pod_group(ev.obj)
            queue.delete_pod_group(ev.obj)
            queue.move_all_to_active_or_backoff(
                ClusterEvent(R.POD_GROUP, ActionType.DELETE), ev.obj, None)
            return
        if ev.type == "ADDED":
            cache.add_pod_group(ev.obj)
            queue.add_pod_group(ev.obj)
            action = ActionType.ADD
        else:
            if ev.old is not None and _same_version(ev.old, ev.obj):
                return
            cache.update_pod_group(ev.old or ev.obj, ev.obj)
            queue.update_pod_group(ev.obj)
            action = ActionType.UPDATE
        queue.move_all_to_active_or_backoff(ClusterEvent(R.POD_GROUP, action), ev.old, ev.obj)

    def on_composite_pod_group(self, ev: ObjectEvent) -> None:
        """``addCompositePodGroup``/``updateCompositePodGroup``/``deleteCompositePodGroup``:
        the cache, then the queue's forest. The requeue is a PodGroup update here, which
        GangScheduling's hint tells apart (there is no CompositePodGroup event resource);
        a delete is a PodGroup delete."""
        cache, queue = self._s.cache, self._s.queue
        if ev.type == "DELETED":
            cache.remove_composite_pod_group(ev.obj)
            queue.delete_composite_pod_group(ev.obj)
            queue.move_all_to_active_or_backoff(
                ClusterEvent(R.POD_GROUP, ActionType.DELETE), ev.obj, None)
            return
        if ev.type == "ADDED":
            cache.add_composite_pod_group(ev.obj)
            queue.add_composite_pod_group(ev.obj)
        else:
            if ev.old is not None and _same_version(ev.old, ev.obj):
                return
            cache.update_composite_pod_group(ev.old or ev.obj, ev.obj)
            queue.update_composite_pod_group(ev.obj)
        event = ClusterEvent(R.POD_GROUP, ActionType.UPDATE)
        queue.move_all_to_active_or_backoff(event, ev.old, ev.obj)
