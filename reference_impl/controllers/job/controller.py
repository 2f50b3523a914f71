"""The Job controller (``pkg/controller/job/job_controller.go``).

Each sync counts finished pods through the tracking finalizer, decides whether the Job
has met its success criteria or a failure target (backoffLimit, activeDeadlineSeconds),
creates or deletes pods to match parallelism (NonIndexed or Indexed), honours
``suspend`` and writes status. Terminal conditions (Complete, Failed) follow their
interim ones (SuccessCriteriaMet, FailureTarget) once no pod is still terminating.
Status writing lives in ``status.py``; the Workload integration in ``../job_workload.py``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.controller_utils import (
    ControllerExpectations,
    controller_ref,
    deletion_rank,
    is_pod_active,
)
from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job import tracking
from reference_impl.controllers.job.indexed_job_utils import index_of, parse_indexes
from reference_impl.controllers.job.pods import new_pod, pending_indexes, wanted_active
from reference_impl.controllers.job.status import JobStatusWriter
from reference_impl.controllers.job_workload import ensure_job_workload
from reference_impl.errors import Conflict, Forbidden, NotFound

__all__ = ["JobController"]

Obj = dict[str, Any]
# backoff_utils.go: DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff.
DEFAULT_BACKOFF: Final = seconds(10)
MAX_BACKOFF: Final = seconds(360)


@dataclass(slots=True)
class _Backoff:
    """Failures since the last success, and when the last one happened (``backoffRecord``)."""

    failures: int = 0
    last_failure: Instant = Instant(0)
    seen: set[str] = field(default_factory=set)


class JobController:
    """Runs Jobs to completion."""

    name: Final = "job-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)
        self._orphans = WorkQueue(ctx.clock, self._release_orphan, name="job-orphan-pods")
        self._expectations = ControllerExpectations()
        self._backoff: dict[str, _Backoff] = {}
        self._jobs: SharedInformer | None = None
        self._pods: SharedInformer | None = None
        self._groups: dict[str, str] = {}  # Job key -> its PodGroup (WorkloadWithJob)
        self._status = JobStatusWriter(ctx.server, self._newly_finished, self._completed)

    def start(self) -> None:
        """Register Job and Pod informers; queue every Job."""
        self._jobs = self._ctx.informers.informer("batch/v1", "Job")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._jobs.add_handler(self._on_job)
        self._pods.add_handler(self._on_pod)
        for job in self._jobs.items():
            self._queue.add(object_key(job))

    def _on_job(self, ev: ObjectEvent) -> None:
        key = object_key(ev.obj)
        if ev.type == "DELETED":
            self._expectations.forget(key)
            self._backoff.pop(key, None)
            self._groups.pop(key, None)
        self._queue.add(key)

    def _on_pod(self, ev: ObjectEvent) -> None:
        ref = controller_ref(ev.obj)
        if ref is None or ref.get("kind") != "Job":
            return
        assert self._jobs is not None
        key = f"{ev.obj['metadata'].get('namespace')}/{ref['name']}"
        if ev.type == "ADDED":
            self._expectations.creation_observed(key)
        job = self._jobs.get(key)
        if job is None or job["metadata"].get("uid") != ref.get("uid"):
            if ev.type != "DELETED" and tracking.has_tracking_finalizer(ev.obj):
                self._orphans.add(object_key(ev.obj))  # its Job is gone: nobody else will
            return
        self._queue.add(key)

    def _release_orphan(self, key: str) -> None:
        assert self._pods is not None
        pod = self._pods.get(key)
        if pod is not None and tracking.has_tracking_finalizer(pod):
            self._server.update(tracking.remove_finalizer(pod))

    def ensure_workload(self, job: Obj, pods: list[Obj]) -> str | None:
        """KEP-5547 (gate WorkloadWithJob): create, discover or resize the Job's Workload
        and PodGroup before its pods; the PodGroup's name, or None."""
        gates = self._ctx.gates
        if not (gates.get("WorkloadWithJob", False) and gates.get("GenericWorkload", False)):
            return None
        group = ensure_job_workload(self._server, job, pods)
        if group is None:
            self._groups.pop(object_key(job), None)
        else:
            self._groups[object_key(job)] = group
        return group

    # -- sync -------------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._jobs is not None
        cached = self._jobs.get(key)
        if cached is None:
            return
        job = copy.deepcopy(cached)
        status: Obj = copy.deepcopy(job.get("status") or {})
        managed_by = job["spec"].get("managedBy")
        if managed_by not in (None, "kubernetes.io/job-controller"):
            return  # another controller owns this Job (JobManagedBy)
        pods = self._owned_pods(job)
        if jc.is_finished(status):
            self._status.remove_finalizers([p for p in pods if tracking.has_tracking_finalizer(p)])
            return
        self.ensure_workload(job, pods)  # also carries a minCount change to the PodGroup
        now = self._ctx.clock.now()
        new_s, new_f = self._newly_finished(job, status, pods)
        self._note_backoff(key, pods, new_s, new_f, job)
        finished = self._finished_condition(job, status, pods, new_s, new_f, now)
        self._manage(key, job, status, pods, finished, now)
        pods = self._owned_pods(job)
        self._status.flush(job, status, pods, finished, now)

    def _owned_pods(self, job: Obj) -> list[Obj]:
        assert self._pods is not None
        ns, uid = job["metadata"].get("namespace"), job["metadata"]["uid"]
        return [
            p
            for p in self._pods.items()
            if p["metadata"].get("namespace") == ns and (controller_ref(p) or {}).get("uid") == uid
        ]

    def _newly_finished(
        self, job: Obj, status: Obj, pods: list[Obj]
    ) -> tuple[list[Obj], list[Obj]]:
        us, uf = tracking.uncounted(status)
        seen = set(us) | set(uf)
        completions = int(job["spec"].get("completions") or 0)
        indexed = job["spec"].get("completionMode") == "Indexed"
        new_s, new_f = [], []
        for p in pods:
            uid = p["metadata"]["uid"]
            if not tracking.has_tracking_finalizer(p) or uid in seen:
                continue
            ix = index_of(p)
            if indexed and (ix is None or ix >= completions):
                continue
            if tracking.phase(p) == "Succeeded":
                new_s.append(p)
            elif tracking.is_pod_failed(p, job):
                new_f.append(p)
        return new_s, new_f

    def _note_backoff(
        self, key: str, pods: list[Obj], new_s: list[Obj], new_f: list[Obj], job: Obj
    ) -> None:
        rec = self._backoff.setdefault(key, _Backoff())
        if any(p["metadata"]["uid"] not in rec.seen for p in new_s):
            rec.failures = 0
        for p in new_f:
            if p["metadata"]["uid"] not in rec.seen:
                rec.failures += 1
                rec.last_failure = self._ctx.clock.now()
        rec.seen.update(p["metadata"]["uid"] for p in new_s + new_f)

    def _counts(self, job: Obj, status: Obj, new_s: list[Obj], new_f: list[Obj]) -> tuple[int, int]:
        us, uf = tracking.uncounted(status)
        succeeded = int(status.get("succeeded", 0)) + len(us) + len(new_s)
        failed = int(status.get("failed", 0)) + len(uf) + len(new_f)
        return succeeded, failed

    def _completed(self, job: Obj, status: Obj, pods: list[Obj]) -> set[int]:
        completions = int(job["spec"].get("completions") or 0)
        done = parse_indexes(status.get("completedIndexes"), completions)
        for p in pods:
            ix = index_of(p)
            if tracking.phase(p) == "Succeeded" and ix is not None and ix < completions:
                done.add(ix)
        return done

    def _finished_condition(
        self,
        job: Obj,
        status: Obj,
        pods: list[Obj],
        new_s: list[Obj],
        new_f: list[Obj],
        now: Instant,
    ) -> jc.FinishedCondition | None:
        prior = jc.interim_of(status)
        if prior is not None:
            return prior
        succeeded, failed = self._counts(job, status, new_s, new_f)
        spec = job["spec"]
        if failed > int(spec.get("backoffLimit", 6)):
            return jc.failed(
                jc.BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit"
            )
        if self._past_deadline(job, status, now):
            return jc.failed(jc.DEADLINE_EXCEEDED, "Job was active longer than specified deadline")
        active = [p for p in pods if is_pod_active(p)]
        completions = spec.get("completions")
        if spec.get("completionMode") == "Indexed":
            done = len(self._completed(job, status, pods)) >= int(completions or 0)
        elif completions is None:
            done = succeeded > 0 and not active
        else:
            done = succeeded >= int(completions)
        return jc.succeeded() if done else None

    def _past_deadline(self, job: Obj, status: Obj, now: Instant) -> bool:
        ads = job["spec"].get("activeDeadlineSeconds")
        if ads is None or not status.get("startTime") or job["spec"].get("suspend"):
            return False
        end = parse_rfc3339(str(status["startTime"])) + seconds(int(ads))
        if now >= end:
            return True
        self._queue.add_after(object_key(job), Duration(end - now))
        return False

    # -- manageJob ------------------------------------------------------------------------

    def _manage(
        self,
        key: str,
        job: Obj,
        status: Obj,
        pods: list[Obj],
        finished: jc.FinishedCondition | None,
        now: Instant,
    ) -> None:
        active = [p for p in pods if is_pod_active(p)]
        stamp = rfc3339(now)
        if finished is not None:
            self._delete_pods(key, active)  # a finished Job keeps no pod running
            jc.ensure_condition(
                status, finished.interim, "True", finished.reason, finished.message, stamp
            )
            return
        if job["spec"].get("suspend"):
            self._delete_pods(key, active)
            if jc.ensure_condition(
                status, "Suspended", "True", "JobSuspended", "Job suspended", stamp
            ):
                status.pop("startTime", None)  # activeDeadlineSeconds restarts on resume
            return
        if (jc.find(status, "Suspended") or {}).get("status") == "True":
            jc.ensure_condition(status, "Suspended", "False", "JobResumed", "Job resumed", stamp)
            status["startTime"] = stamp
        status.setdefault("startTime", stamp)
        if not self._expectations.satisfied(key):
            return
        self._reconcile_active(key, job, status, pods, active)

    def _reconcile_active(
        self, key: str, job: Obj, status: Obj, pods: list[Obj], active: list[Obj]
    ) -> None:
        new_s, _ = self._newly_finished(job, status, pods)
        succeeded = (
            int(status.get("succeeded", 0)) + len(tracking.uncounted(status)[0]) + len(new_s)
        )
        indexed = job["spec"].get("completionMode") == "Indexed"
        if indexed:
            done = self._completed(job, status, pods)
            succeeded = len(done)
        want = wanted_active(job, succeeded)
        if len(active) > want:
            self._delete_pods(key, sorted(active, key=deletion_rank)[: len(active) - want])
            return
        n = want - len(active)
        if job["spec"].get("podReplacementPolicy") == "Failed":
            n -= sum(
                1
                for p in pods
                if p["metadata"].get("deletionTimestamp")
                and tracking.phase(p) not in ("Succeeded", "Failed")
            )
        if n <= 0 or self._in_backoff(key):
            return
        indexes: list[int | None] = (
            list(pending_indexes(job, done, active)[:n]) if indexed else [None] * n
        )
        self._create_pods(key, job, indexes)

    def _in_backoff(self, key: str) -> bool:
        rec = self._backoff.get(key)
        if rec is None or rec.failures == 0:
            return False
        delay = min(DEFAULT_BACKOFF * 2 ** (rec.failures - 1), MAX_BACKOFF)
        due = rec.last_failure + delay
        now = self._ctx.clock.now()
        if now >= due:
            return False
        self._queue.add_after(key, Duration(due - now))
        return True

    def _create_pods(self, key: str, job: Obj, indexes: list[int | None]) -> None:
        self._expectations.expect(key, adds=len(indexes))
        group = self._groups.get(key)
        for ix in indexes:
            manifest = new_pod(job, ix)
            if group is not None:
                manifest["spec"]["schedulingGroup"] = {"podGroupName": group}
            try:
                pod = self._server.create(manifest)
            except Forbidden:
                self._expectations.creation_observed(key)
                continue
            self._ctx.trace.record(self.name, "create-pod", object_key(pod), key)

    def _delete_pods(self, key: str, pods: list[Obj]) -> None:
        for p in pods:
            meta = p["metadata"]
            self._ctx.trace.record(self.name, "delete-pod", object_key(p), key)
            try:
                self._server.delete("v1", "Pod", meta["name"], meta["namespace"], uid=meta["uid"])
            except (NotFound, Conflict):
                pass
