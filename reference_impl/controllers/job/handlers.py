"""The Job controller's informer handlers and orphan-pod cleanup (``job_controller.go``
``addPod``, ``updatePod``, ``deletePod``, ``addJob``, ``updateJob``, ``deleteJob``,
``syncOrphanPod`` and ``handleSingleOrphanPod``).

Pod events and Job status writes wake the Job after SyncJobBatchPeriod (so a burst costs
one sync); new Jobs and spec changes at once. Finalizer removals are observed by pod uid
(``finalizerExpectations``). A pod holding the tracking finalizer that no running Job
will release (orphaned, its Job gone or finished) loses it through the orphan queue.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import APIServer, ObjectEvent
from reference_impl.clock import Duration, parse_rfc3339, seconds
from reference_impl.controllers.controller_utils import (
    ControllerExpectations,
    controller_ref,
    sorted_by_key,
)
from reference_impl.controllers.job import tracking
from reference_impl.controllers.job.backoff import BackoffRecord
from reference_impl.controllers.job.metrics import JobMetrics
from reference_impl.controllers.job.tracking_utils import (
    UIDTrackingExpectations,
    record_finished_pod_with_tracking_finalizer,
)
from reference_impl.controllers.job.util import is_job_finished
from reference_impl.errors import ApiError, NotFound

__all__ = ["SYNC_JOB_BATCH_PERIOD", "JobEventHandlers"]

Obj = dict[str, Any]
SYNC_JOB_BATCH_PERIOD: Final = seconds(1)  # SyncJobBatchPeriod
ORPHAN_SELECTOR_PREFIX: Final = "selector:"  # orphanPodKey of OrphanPodKeyKindSelector


class JobEventHandlers:
    """The event side of ``JobController`` (which owns these attributes)."""

    _ctx: ComponentContext
    _server: APIServer
    _queue: WorkQueue
    _orphans: WorkQueue
    _expectations: ControllerExpectations
    _finalizer_expectations: UIDTrackingExpectations
    _orphan_selectors: dict[str, tuple[str, Obj]]
    _backoff: dict[str, BackoffRecord]
    _groups: dict[str, Obj]
    _jobs: SharedInformer | None
    _pods: SharedInformer | None
    metrics: JobMetrics

    def _on_job(self, ev: ObjectEvent) -> None:
        """``addJob``, ``updateJob`` and ``deleteJob``."""
        job = ev.obj
        key = object_key(job)
        if ev.type == "DELETED":
            self._queue.add(key)
            self._enqueue_label_selector(job)
            # A replacement with the same name starts clean.
            self._expectations.forget(key)
            self._backoff.pop(key, None)
            self._groups.pop(key, None)
            return
        if ev.type == "ADDED" or ev.old is None:
            self._queue.add(key)
            return
        if is_job_finished(job):
            self._enqueue_label_selector(job)  # a backup: syncJob keeps no finalizer
            return
        old = ev.old
        if job["metadata"].get("generation") == old["metadata"].get("generation"):
            self._enqueue_batched(key)  # a status write
        else:
            self._queue.add(key)  # a spec change syncs at once
        start = (job.get("status") or {}).get("startTime")
        ads = job["spec"].get("activeDeadlineSeconds")
        if start and ads is not None and old["spec"].get("activeDeadlineSeconds") != ads:
            end = parse_rfc3339(str(start)) + seconds(int(ads))
            self._queue.add_after(key, Duration(end - self._ctx.clock.now()))

    def _resolve_controller_ref(self, namespace: str | None, ref: Obj) -> Obj | None:
        """``resolveControllerRef``: the cached Job a controller reference names, if its
        kind is Job and its uid matches."""
        assert self._jobs is not None
        if ref.get("kind") != "Job":
            return None
        job = self._jobs.get(f"{namespace}/{ref.get('name')}")
        if job is None or job["metadata"].get("uid") != ref.get("uid"):
            return None
        return job

    def get_pod_jobs(self, pod: Obj) -> list[Obj]:
        """``getPodJobs`` (``GetPodJobs``): the cached Jobs of the pod's namespace whose
        selector matches its labels; none for a pod without labels."""
        assert self._jobs is not None
        labels = pod["metadata"].get("labels")
        if not labels:
            return []
        ns = pod["metadata"].get("namespace")
        return [
            j
            for j in sorted_by_key(self._jobs.items())
            if j["metadata"].get("namespace") == ns
            and selector_from_label_selector(j["spec"].get("selector")).matches(labels)
        ]

    def _enqueue_batched(self, key: str) -> None:
        """``enqueueSyncJobBatched``: pod events and status writes wait SyncJobBatchPeriod,
        so a burst of them costs one sync."""
        self._queue.add_after(key, SYNC_JOB_BATCH_PERIOD)

    def _enqueue_orphan(self, pod: Obj) -> None:
        self._orphans.add(object_key(pod))

    def orphan_selector_key(self, namespace: str, selector: Obj | None) -> str:
        """The orphan-queue key of every pod ``selector`` matches in ``namespace``
        (``orphanPodKey`` of kind ``OrphanPodKeyKindSelector``)."""
        key = f"{ORPHAN_SELECTOR_PREFIX}{namespace}/{selector_from_label_selector(selector)}"
        self._orphan_selectors[key] = (namespace, selector or {})
        return key

    def _enqueue_label_selector(self, job: Obj) -> None:
        """``enqueueLabelSelector``: every pod the Job's selector matches is checked for a
        tracking finalizer nobody will remove."""
        ns = str(job["metadata"].get("namespace"))
        self._orphans.add(self.orphan_selector_key(ns, job["spec"].get("selector")))

    def _on_pod(self, ev: ObjectEvent) -> None:
        """``addPod``, ``updatePod`` and ``deletePod``."""
        pod, old = ev.obj, ev.old
        if ev.type == "DELETED":
            record_finished_pod_with_tracking_finalizer(self.metrics, pod, None)
            self._delete_pod(pod, final=True)
            return
        record_finished_pod_with_tracking_finalizer(self.metrics, old if ev.type != "ADDED" else None, pod)
        if ev.type == "ADDED" or old is None:
            self._add_pod(pod)
            return
        meta = pod["metadata"]
        if meta.get("resourceVersion") == old["metadata"].get("resourceVersion"):
            return  # a resync
        if meta.get("deletionTimestamp"):
            # Graceful deletion: the Job may replace the pod before the kubelet removes it.
            self._delete_pod(pod, final=False)
            return
        finalizer_removed = not tracking.has_tracking_finalizer(pod)
        cur_ref, old_ref = controller_ref(pod), controller_ref(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            job = self._resolve_controller_ref(old["metadata"].get("namespace"), old_ref)
            if job is not None:
                if finalizer_removed:
                    self._finalizer_expectations.finalizer_removal_observed(
                        object_key(job), meta["uid"]
                    )
                self._enqueue_batched(object_key(job))
        if cur_ref is not None:
            job = self._resolve_controller_ref(meta.get("namespace"), cur_ref)
            if job is None:
                return
            if finalizer_removed:
                self._finalizer_expectations.finalizer_removal_observed(object_key(job), meta["uid"])
            self._enqueue_batched(object_key(job))
            return
        if tracking.has_tracking_finalizer(pod):
            self._enqueue_orphan(pod)
        if ref_changed or meta.get("labels") != old["metadata"].get("labels"):
            for job in self.get_pod_jobs(pod):
                self._enqueue_batched(object_key(job))

    def _add_pod(self, pod: Obj) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            # After a restart a pod may first appear already deleting: not a creation.
            self._delete_pod(pod, final=False)
            return
        ref = controller_ref(pod)
        if ref is not None:
            job = self._resolve_controller_ref(pod["metadata"].get("namespace"), ref)
            if job is None:
                return
            self._expectations.creation_observed(object_key(job))
            self._enqueue_batched(object_key(job))
            return
        if tracking.has_tracking_finalizer(pod):
            self._enqueue_orphan(pod)
        for job in self.get_pod_jobs(pod):  # someone may adopt it; not a creation
            self._enqueue_batched(object_key(job))

    def _delete_pod(self, pod: Obj, final: bool) -> None:
        ref = controller_ref(pod)
        has_finalizer = tracking.has_tracking_finalizer(pod)
        job = None if ref is None else self._resolve_controller_ref(
            pod["metadata"].get("namespace"), ref
        )
        if job is None or is_job_finished(job):
            if has_finalizer:
                self._enqueue_orphan(pod)  # syncJob will not remove it
            return
        key = object_key(job)
        self._expectations.deletion_observed(key)
        if final or not has_finalizer:
            self._finalizer_expectations.finalizer_removal_observed(key, pod["metadata"]["uid"])
        self._enqueue_batched(key)

    def _release_orphan(self, key: str) -> None:
        """``syncOrphanPod``: one pod by key, or every pod a selector matches."""
        assert self._pods is not None
        if key.startswith(ORPHAN_SELECTOR_PREFIX):
            ns, sel = self._orphan_selectors.pop(key)  # a later enqueue registers it again
            selector = selector_from_label_selector(sel)
            # podStore.Pods(ns).List(selector): filter before sorting, not every pod
            in_ns = (p for p in self._pods.items() if p["metadata"].get("namespace") == ns)
            matching = (p for p in in_ns if selector.matches(p["metadata"].get("labels") or {}))
            for pod in sorted_by_key(matching):
                try:
                    self._handle_single_orphan_pod(pod)
                except ApiError:
                    self._orphans.add_rate_limited(object_key(pod))  # retried on its own
            return
        cached = self._pods.get(key)
        if cached is not None:  # else the orphan was deleted
            self._handle_single_orphan_pod(cached)

    def _handle_single_orphan_pod(self, pod: Obj) -> None:
        """``handleSingleOrphanPod``: drop the tracking finalizer unless a running Job
        (or a controller other than a batch/v1 Job, or an external Job manager) owns it."""
        ref = controller_ref(pod)
        if ref is not None:
            if ref.get("kind") != "Job" or ref.get("apiVersion") != "batch/v1":
                return
            job = self._resolve_controller_ref(pod["metadata"].get("namespace"), ref)
            if job is not None:
                if job["spec"].get("managedBy") not in (None, "kubernetes.io/job-controller"):
                    return
                if not is_job_finished(job):
                    return  # adopted
        if not tracking.has_tracking_finalizer(pod):
            return
        try:
            self._server.update(tracking.remove_finalizer(pod))
        except NotFound:
            pass
