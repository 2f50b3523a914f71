"""The Job controller (``pkg/controller/job/job_controller.go``).

Each sync (``syncJob``) counts the pods as listed at its start, decides whether the Job
has met its success criteria (completions or, for Indexed Jobs, ``successPolicy``) or a
failure target (backoffLimit, activeDeadlineSeconds), and otherwise creates or deletes
pods to match parallelism (``manageJob``: NonIndexed or Indexed) and honours
``suspend``. Terminal conditions (Complete, Failed) follow their interim ones
(SuccessCriteriaMet, FailureTarget) once no pod is still terminating. Status writing
lives in ``status.py``; the informer handlers and orphan cleanup in ``handlers.py``;
the Workload integration in ``../job_workload.py``.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.workqueue_rate import ItemExponentialFailureRateLimiter
from reference_impl.clock import Duration, Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.controller_utils import (
    ControllerExpectations,
    claim_objects,
    controller_ref,
    deletion_rank,
    fresh_owner,
    is_pod_active,
    is_pod_ready,
    owner_reference,
    recheck_deletion_timestamp,
    sorted_by_key,
)
from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job import per_index, tracking
from reference_impl.controllers.job import pod_failure_policy as pfp
from reference_impl.controllers.job.backoff import BackoffRecord, new_backoff_record
from reference_impl.controllers.job.handlers import JobEventHandlers
from reference_impl.controllers.job.indexed_job_utils import (
    append_duplicated_index_pods_for_removal,
    calculate_succeeded_indexes,
    first_pending_indexes,
    index_of,
    total,
)
from reference_impl.controllers.job.metrics import JobMetrics
from reference_impl.controllers.job.pods import new_pod
from reference_impl.controllers.job.status import JobStatusWriter, count_terminating
from reference_impl.controllers.job.success_policy import SUCCESS_POLICY, match_success_policy
from reference_impl.controllers.job.sync_ctx import SyncCtx
from reference_impl.controllers.job.tracking_utils import UIDTrackingExpectations
from reference_impl.controllers.job_workload import (
    ensure_workload_and_pod_group,
    pod_group_owner_reference,
)
from reference_impl.controllers.serviceaccounts import terminating
from reference_impl.errors import ApiError, Forbidden, NotFound

__all__ = ["JobController"]

Obj = dict[str, Any]
MAX_POD_CREATE_DELETE_PER_SYNC: Final = 500  # MaxPodCreateDeletePerSync
SLOW_START_INITIAL_BATCH_SIZE: Final = 1  # controller.SlowStartInitialBatchSize
DEFAULT_JOB_API_BACKOFF: Final = seconds(1)  # DefaultJobApiBackOff
MAX_JOB_API_BACKOFF: Final = seconds(60)  # MaxJobApiBackOff


def _api_backoff() -> ItemExponentialFailureRateLimiter:
    """The Job queues' rate limiter: a failed sync is retried after 1 s doubling to 1 min."""
    return ItemExponentialFailureRateLimiter(DEFAULT_JOB_API_BACKOFF, MAX_JOB_API_BACKOFF)


class JobController(JobEventHandlers):
    """Runs Jobs to completion."""

    name: Final = "job-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._server = ctx.server
        # NewTypedItemExponentialFailureRateLimiter(DefaultJobApiBackOff, MaxJobApiBackOff)
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name, rate_limiter=_api_backoff())
        self._orphans = WorkQueue(ctx.clock, self._release_orphan, name="job-orphan-pods",
                                  rate_limiter=_api_backoff())
        self._expectations = ControllerExpectations(clock=ctx.clock.now)  # expires (ExpectationsTimeout)
        self._finalizer_expectations = UIDTrackingExpectations()  # finalizerExpectations
        self._orphan_selectors: dict[str, tuple[str, Obj]] = {}  # selector key -> (ns, selector)
        self._backoff: dict[str, BackoffRecord] = {}
        self._jobs: SharedInformer | None = None
        self._pods: SharedInformer | None = None
        self._groups: dict[str, Obj] = {}  # Job key -> its PodGroup (WorkloadWithJob)
        self.events: list[tuple[str, str, str, str]] = []  # (Job key, type, reason, message)
        self.metrics = JobMetrics()  # this controller's counters (job/metrics)
        self._status = JobStatusWriter(ctx.server, self._finalizer_expectations)

    def start(self) -> None:
        """Register Job and Pod informers; queue every Job."""
        self._jobs = self._ctx.informers.informer("batch/v1", "Job")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._jobs.add_handler(self._on_job)
        self._pods.add_handler(self._on_pod)
        for job in self._jobs.items():
            self._queue.add(object_key(job))

    def ensure_workload(self, job: Obj, pods: list[Obj]) -> Obj | None:
        """KEP-5547 (gate WorkloadWithJob): create, discover or resize the Job's Workload
        and PodGroup before its pods (``ensureWorkloadAndPodGroup``); the PodGroup, or
        None. An error fails the sync before any pod is made, as upstream."""
        gates = self._ctx.gates
        key = object_key(job)
        self._groups.pop(key, None)
        if not (gates["WorkloadWithJob"] and gates["GenericWorkload"]):
            return None

        def record(kind: str, reason: str, message: str) -> None:
            self.events.append((key, kind, reason, message))
            self._ctx.trace.record(self.name, "event", key, f"{reason} {message}")

        _, group = ensure_workload_and_pod_group(self._server, job, pods, record)
        if group is not None:
            self._groups[key] = group
        return group

    # -- syncJob ----------------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._jobs is not None
        cached = self._jobs.get(key)
        if cached is None:
            self._expectations.forget(key)
            self._finalizer_expectations.delete_expectations(key)
            self._backoff.pop(key, None)
            return
        job = copy.deepcopy(cached)
        managed_by = job["spec"].get("managedBy")
        if managed_by not in (None, "kubernetes.io/job-controller"):
            return  # another controller owns this Job (JobManagedBy)
        status: Obj = copy.deepcopy(job.get("status") or {})
        if jc.is_finished(status):
            self._backoff.pop(key, None)
            pods = self._owned_pods(job)
            self._status.remove_finalizers([p for p in pods if tracking.has_tracking_finalizer(p)])
            return
        # Expectations are read before the pods are listed, so a pod arriving in between
        # only defers the work to the next sync.
        satisfied = self._expectations.satisfied(key)
        pods = self.get_pods_for_job(job)
        self.ensure_workload(job, pods)  # also carries a minCount change to the PodGroup
        now = self._ctx.clock.now()
        ctx = self._new_ctx(job, status, pods)
        new_s, new_f = self.newly_finished(ctx)
        us, uf = tracking.uncounted(status)
        ctx.succeeded = int(status.get("succeeded", 0)) + len(new_s) + len(us)
        # nonIgnoredFailedPodsCount: failures an Ignore rule matched do not count
        counted_f = sum(1 for p in new_f if pfp.counts_failure(job, p))
        ctx.failed = int(status.get("failed", 0)) + counted_f + len(uf)
        if not status.get("startTime") and not job["spec"].get("suspend"):
            status["startTime"] = rfc3339(now)
        ctx.backoff = new_backoff_record(self._backoff.get(key), new_s, new_f)
        ctx.finished = self._finished_condition(key, ctx, now)
        if ctx.indexed:
            ctx.prev_succeeded_indexes, ctx.succeeded_indexes = calculate_succeeded_indexes(
                {**job, "status": status}, pods
            )
            ctx.succeeded = total(ctx.succeeded_indexes)
            per_index.evaluate(ctx)  # backoffLimitPerIndex: failedIndexes, held pods
            if ctx.finished is None:
                msg, met = match_success_policy(
                    job["spec"].get("successPolicy"),
                    int(job["spec"].get("completions") or 0),
                    ctx.succeeded_indexes,
                )
                if met:
                    ctx.finished = jc.succeeded(SUCCESS_POLICY, msg)
        stamp = rfc3339(now)
        if ctx.finished is not None:
            # A finished Job keeps no pod running; their finalizers go in the tracking step.
            deleted, deleted_ready = self._delete_pods(key, ctx.active_pods, False, ctx.errors)
            if deleted != ctx.active or not satisfied:
                ctx.finished = None  # pods may remain that the informer has not shown yet
            ctx.active -= deleted
            ctx.terminating += deleted
            ctx.ready -= deleted_ready
        else:
            managed = False
            if satisfied and not job["metadata"].get("deletionTimestamp"):
                self._manage(key, ctx, now)
                managed = True
            completions = job["spec"].get("completions")
            if completions is None:
                # A work-queue Job is done once any pod succeeded and none is left.
                complete = ctx.succeeded > 0 and ctx.active == 0
            else:
                complete = ctx.succeeded >= int(completions) and ctx.active == 0
            if complete:
                ctx.finished = jc.succeeded()
            elif managed:
                self._suspend_condition(job, status, stamp)
        status["active"] = ctx.active
        status["ready"] = ctx.ready
        status["terminating"] = ctx.terminating
        self._status.track(ctx, now)
        self._backoff[key] = ctx.backoff
        if ctx.errors:
            raise ctx.errors[0]  # the queue retries the Job with back-off

    def _new_ctx(self, job: Obj, status: Obj, pods: list[Obj]) -> SyncCtx:
        active = [p for p in pods if is_pod_active(p)]
        key = object_key(job)
        return SyncCtx(
            key=key,
            expected_rm_finalizers=self._finalizer_expectations.get_expected_uids(key),
            job=job,
            status=status,
            pods=pods,
            active_pods=active,
            active=len(active),
            ready=sum(1 for p in active if is_pod_ready(p)),
            terminating=count_terminating(pods),
            indexed=job["spec"].get("completionMode") == "Indexed",
        )

    def _owned_pods(self, job: Obj) -> list[Obj]:
        assert self._pods is not None
        ns, uid = job["metadata"].get("namespace"), job["metadata"]["uid"]
        return [
            p
            for p in self._pods.items()
            if p["metadata"].get("namespace") == ns and (controller_ref(p) or {}).get("uid") == uid
        ]

    def get_pods_for_job(self, job: Obj) -> list[Obj]:
        """``getPodsForJob``: the pods the Job controls and selects, adopting matching
        orphans (owner reference and tracking finalizer added) and releasing controlled
        pods it no longer selects (both removed); nothing changes while it is deleting."""
        assert self._pods is not None
        pods = self._pods
        uid = job["metadata"]["uid"]

        def adopt(pod: Obj) -> Obj:
            meta = dict(pod["metadata"])
            meta["ownerReferences"] = [*(meta.get("ownerReferences") or []), owner_reference(job)]
            if not tracking.has_tracking_finalizer(pod):
                meta["finalizers"] = [*(meta.get("finalizers") or []), tracking.JOB_TRACKING_FINALIZER]
            self._server.update({**pod, "metadata": meta})
            return pods.get(object_key(pod)) or {**pod, "metadata": meta}

        def release(pod: Obj) -> None:
            meta = dict(tracking.remove_finalizer(pod)["metadata"])
            refs = [r for r in meta.get("ownerReferences") or [] if r.get("uid") != uid]
            meta["ownerReferences"] = refs
            if not refs:
                del meta["ownerReferences"]
            self._server.update({**pod, "metadata": meta})

        recheck = recheck_deletion_timestamp(fresh_owner(self._server, job))
        return claim_objects(job, sorted_by_key(pods.items()), adopt, release, can_adopt=recheck)

    def newly_finished(self, ctx: SyncCtx) -> tuple[list[Obj], list[Obj]]:
        """``getNewFinishedPods``: succeeded and failed pods still holding the tracking
        finalizer and not yet in ``uncountedTerminatedPods`` (Indexed: valid index only)."""
        us, uf = (set(u) for u in tracking.uncounted(ctx.status))
        completions = int(ctx.job["spec"].get("completions") or 0)
        new_s, new_f = [], []
        for p in ctx.pods:
            uid = p["metadata"]["uid"]
            if not tracking.has_tracking_finalizer(p) or uid in ctx.expected_rm_finalizers:
                continue
            if ctx.indexed and ((ix := index_of(p)) is None or ix >= completions):
                continue
            if tracking.phase(p) == "Succeeded" and uid not in us:
                new_s.append(p)
            if tracking.is_pod_failed(p, ctx.job) and uid not in uf:
                new_f.append(p)
        return new_s, new_f

    def _finished_condition(
        self, key: str, ctx: SyncCtx, now: Instant
    ) -> jc.FinishedCondition | None:
        prior = jc.interim_of(ctx.status)
        if prior is not None:
            return prior
        fail_job = pfp.fail_job_message(ctx.job, ctx.pods)  # a FailJob rule matched
        if fail_job is not None:
            return jc.failed(pfp.POD_FAILURE_POLICY, fail_job)
        spec = ctx.job["spec"]
        if ctx.failed > int(spec.get("backoffLimit", 6)) or past_backoff_limit_on_failure(
            ctx.job, ctx.pods
        ):
            return jc.failed(
                jc.BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit"
            )
        ads = spec.get("activeDeadlineSeconds")
        start = ctx.status.get("startTime")
        if ads is None or not start or spec.get("suspend"):
            return None
        end = parse_rfc3339(str(start)) + seconds(int(ads))
        if now >= end:  # pastActiveDeadline
            return jc.failed(jc.DEADLINE_EXCEEDED, "Job was active longer than specified deadline")
        self._queue.add_after(key, Duration(end - now))
        return None

    def _suspend_condition(self, job: Obj, status: Obj, stamp: str) -> None:
        if job["spec"].get("suspend"):
            if jc.ensure_condition(
                status, "Suspended", "True", "JobSuspended", "Job suspended", stamp
            ):
                status.pop("startTime", None)  # activeDeadlineSeconds restarts on resume
        elif jc.ensure_condition(status, "Suspended", "False", "JobResumed", "Job resumed", stamp):
            status["startTime"] = stamp

    # -- manageJob ------------------------------------------------------------------------

    def _manage(self, key: str, ctx: SyncCtx, now: Instant) -> None:
        """``manageJob``: delete or (never in the same sync) create pods, updating the
        counters in ``ctx``."""
        job = ctx.job
        spec = job["spec"]
        if spec.get("suspend"):
            self._delete_job_pods(key, ctx, active_pods_for_removal(job, ctx.active_pods, ctx.active))
            return
        parallelism = int(spec.get("parallelism", 1))
        completions = spec.get("completions")
        if completions is None:
            # A work-queue Job leaves whatever runs running once any pod succeeded.
            want = ctx.active if ctx.succeeded > 0 else parallelism
        else:
            want = max(0, min(int(completions) - ctx.succeeded, parallelism))
        rm = active_pods_for_removal(job, ctx.active_pods, max(0, ctx.active - want))
        if rm:
            self._delete_job_pods(key, ctx, rm[:MAX_POD_CREATE_DELETE_PER_SYNC])
            return
        terminating = ctx.terminating if spec.get("podReplacementPolicy") == "Failed" else 0
        diff = want - terminating - ctx.active
        if diff <= 0:
            return
        per_idx = per_index.has_backoff_limit_per_index(job)
        # With backoffLimitPerIndex each index backs off on its own (below).
        wait = Duration(0) if per_idx else ctx.backoff.remaining(now)
        if wait > 0:
            self._queue.add_after(key, wait)
            return
        diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
        indexes: list[int | None] = [None] * diff
        if ctx.indexed:
            indexes = list(
                first_pending_indexes(
                    ctx.succeeded_indexes,
                    ctx.active_pods,
                    diff,
                    int(completions or 0),
                    terminating=[p for p in ctx.pods if _terminating(p)] if terminating else (),
                    failed=ctx.failed_indexes,
                )
            )
            if per_idx:
                pending = [i for i in indexes if i is not None]
                ready, wait = per_index.creatable_indexes(now, pending, ctx.delayed)
                if wait > 0:
                    self._queue.add_after(key, wait)
                    return
                indexes = list(ready)
        self._create_pods(key, ctx, indexes)

    def _create_pods(self, key: str, ctx: SyncCtx, indexes: list[int | None]) -> None:
        """Create in slow-start batches (1, 2, 4, ...); a batch with a failed create
        ends the round, and the pods not tried are no longer expected."""
        self._expectations.expect_creations(key, len(indexes))
        ctx.active += len(indexes)
        group = self._groups.get(key)
        batch = min(len(indexes), SLOW_START_INITIAL_BATCH_SIZE)
        while indexes:
            failures = len(ctx.errors)
            for ix in indexes[:batch]:
                manifest = new_pod(ctx.job, ix)
                if ix is not None and per_index.has_backoff_limit_per_index(ctx.job):
                    replaced = ctx.delayed.get(ix)
                    per_index.add_index_failure_count_annotation(manifest, ctx.job, replaced)
                if group is not None:
                    meta = manifest["metadata"]
                    pg_name = group["metadata"]["name"]
                    manifest["spec"]["schedulingGroup"] = {"podGroupName": pg_name}
                    meta["ownerReferences"] = [
                        *(meta.get("ownerReferences") or []),
                        pod_group_owner_reference(group),
                    ]
                try:
                    pod = self._server.create(manifest)
                except ApiError as err:
                    if not (isinstance(err, Forbidden) and terminating(err)):
                        # Upstream ignores a terminating namespace: still expected, counted.
                        self._expectations.creation_observed(key)
                        ctx.active -= 1
                        ctx.errors.append(err)
                    continue
                self._ctx.trace.record(self.name, "create-pod", object_key(pod), key)
            indexes = indexes[batch:]
            if len(ctx.errors) > failures and indexes:
                ctx.active -= len(indexes)
                self._expectations.lower_expectations(key, len(indexes), 0)
                return
            batch = min(2 * batch, len(indexes))

    def _delete_job_pods(self, key: str, ctx: SyncCtx, pods: list[Obj]) -> None:
        """``deleteJobPods``: drop each pod's tracking finalizer, then delete it."""
        self._expectations.expect_deletions(key, len(pods))
        deleted, deleted_ready = self._delete_pods(key, pods, True, ctx.errors)
        ctx.active -= deleted
        ctx.terminating += deleted
        ctx.ready -= deleted_ready

    def _delete_pods(
        self, key: str, pods: list[Obj], expect: bool, errors: list[ApiError]
    ) -> tuple[int, int]:
        """Delete ``pods`` (with ``expect``, after removing their tracking finalizer, as
        ``deleteJobPods``; else keeping it, as ``deleteActivePods``); returns how many
        were deleted and how many of those were ready."""
        deleted = ready = 0
        for p in pods:
            meta = p["metadata"]
            self._ctx.trace.record(self.name, "delete-pod", object_key(p), key)
            try:
                if expect and tracking.has_tracking_finalizer(p):
                    self._status.remove_finalizers([p], strict=True, key=key)
                self._server.delete("v1", "Pod", meta["name"], meta["namespace"], uid=meta["uid"])
            except NotFound:
                if expect:
                    self._expectations.deletion_observed(key)
            except ApiError as err:
                if expect:
                    self._expectations.deletion_observed(key)
                errors.append(err)
                continue
            deleted += 1
            ready += 1 if is_pod_ready(p) else 0
        return deleted, ready


def _terminating(pod: Obj) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp")) and tracking.phase(pod) not in (
        "Succeeded",
        "Failed",
    )


def active_pods_for_removal(job: Obj, pods: list[Obj], rm_at_least: int) -> list[Obj]:
    """``activePodsForRemoval``: Indexed Jobs first drop pods with a missing, invalid or
    repeated index; then the best candidates in ``ActivePods`` order."""
    rm: list[Obj] = []
    left = pods
    if job["spec"].get("completionMode") == "Indexed":
        rm, left = append_duplicated_index_pods_for_removal(
            [], [], pods, int(job["spec"].get("completions") or 0)
        )
    if len(rm) < rm_at_least:
        rm += sorted(left, key=deletion_rank)[: rm_at_least - len(rm)]
    return rm


def past_backoff_limit_on_failure(job: Obj, pods: list[Obj]) -> bool:
    """``pastBackoffLimitOnFailure``: with restartPolicy OnFailure, the restarts of
    running and pending pods' containers reach backoffLimit (exceed it when 0)."""
    if job["spec"]["template"]["spec"].get("restartPolicy") != "OnFailure":
        return False
    restarts = 0
    for p in pods:
        if tracking.phase(p) in ("Running", "Pending"):
            st = p.get("status") or {}
            for cs in [*(st.get("initContainerStatuses") or []), *(st.get("containerStatuses") or [])]:
                restarts += int(cs.get("restartCount", 0))
    limit = int(job["spec"].get("backoffLimit", 6))
    return restarts > 0 if limit == 0 else restarts >= limit
