"""Writing a Job's status (``job_controller.go`` ``trackJobStatusAndRemoveFinalizers``).

The sync loop decides; this module records. Newly finished pods are first listed in
``uncountedTerminatedPods`` (Indexed Jobs: ``completedIndexes``) together with any new
interim condition (one status write), their tracking finalizers removed, and only then
moved into ``succeeded``/``failed`` and, once nothing is uncounted or terminating, the
terminal condition added (a second write).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, Final

from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, rfc3339
from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job import pod_failure_policy as pfp
from reference_impl.controllers.job import tracking
from reference_impl.controllers.job.indexed_job_utils import (
    format_intervals,
    has_index,
    index_of,
    total,
    with_ordered_indexes,
)
from reference_impl.controllers.job.sync_ctx import SyncCtx
from reference_impl.controllers.job.tracking_utils import UIDTrackingExpectations
from reference_impl.errors import ApiError, NotFound

__all__ = ["JobStatusWriter", "count_terminating"]

Obj = dict[str, Any]
MAX_UNCOUNTED_PODS: Final = 500  # MaxUncountedPods


class JobStatusWriter:
    """Counts finished pods, releases their finalizers and writes ``/status``."""

    def __init__(
        self, server: APIServer, expectations: UIDTrackingExpectations | None = None
    ) -> None:
        self._server = server
        self.expectations = expectations or UIDTrackingExpectations()

    def track(self, ctx: SyncCtx, now: Instant) -> None:
        """``trackJobStatusAndRemoveFinalizers`` and ``flushUncountedAndRemoveFinalizers``:
        record this sync's outcome in the Job's status (updating ``ctx.job`` in place)."""
        job, status = ctx.job, ctx.status
        completions = int(job["spec"].get("completions") or 0)
        pods = ctx.pods
        if ctx.indexed:  # new indexes are then found in order
            pods = sorted(pods, key=lambda p: -1 if (i := index_of(p)) is None else i)
        in_flight = ctx.expected_rm_finalizers
        with_finalizer = {
            p["metadata"]["uid"]
            for p in pods
            if tracking.has_tracking_finalizer(p) and p["metadata"]["uid"] not in in_flight
        }
        old_s, old_f = (set(u) for u in tracking.uncounted(status))
        clean_uncounted(status, with_finalizer)
        us, uf = tracking.uncounted(status)
        finishing_failed = ctx.finished is not None and ctx.finished.interim != "SuccessCriteriaMet"
        remove: list[Obj] = []
        new_indexes: list[int] = []
        reached_max = False
        for p in pods:
            if not tracking.has_tracking_finalizer(p) or p["metadata"]["uid"] in in_flight:
                continue  # counted in an earlier sync
            considered_failed = tracking.is_pod_failed(p, job)
            if not can_remove_finalizer(ctx, p, considered_failed):
                continue
            remove.append(p)
            uid = p["metadata"]["uid"]
            ix = index_of(p)
            if tracking.phase(p) == "Succeeded" and uid not in old_f:
                if ctx.indexed:
                    # The index is enough to avoid counting a success twice.
                    if ix is not None and ix < completions and not has_index(ctx.prev_succeeded_indexes, ix):
                        new_indexes.append(ix)
                elif uid not in old_s:
                    us.append(uid)
            elif considered_failed or finishing_failed:
                # Once the Job is failing, every unfinished pod counts as failed.
                if uid not in old_f and (not ctx.indexed or (ix is not None and ix < completions)):
                    if pfp.counts_failure(job, p):  # an Ignore rule keeps it uncounted
                        uf.append(uid)
            if len(new_indexes) + len(us) + len(uf) >= MAX_UNCOUNTED_PODS:
                # Keeps the uid lists small and one big Job from starving the others; the
                # status and pod updates bring the Job back for the rest.
                reached_max = True
                break
        tracking.set_uncounted(status, us, uf)
        if ctx.indexed:
            ctx.succeeded_indexes = with_ordered_indexes(ctx.succeeded_indexes, sorted(set(new_indexes)))
            status["succeeded"] = total(ctx.succeeded_indexes)
            text = format_intervals(ctx.succeeded_indexes)
            if text:
                status["completedIndexes"] = text
            else:
                status.pop("completedIndexes", None)
            if ctx.failed_indexes is not None:
                status["failedIndexes"] = format_intervals(ctx.failed_indexes)
            else:
                status.pop("failedIndexes", None)
        status.setdefault("succeeded", 0)
        status.setdefault("failed", 0)
        fin = ctx.finished
        if fin is not None:
            # The interim condition is written before any finalizer is removed.
            stamp = rfc3339(now)
            prior = jc.find(status, fin.interim)
            if prior is None or prior.get("status") != "True":
                jc.ensure_condition(status, fin.interim, "True", fin.reason, fin.message, stamp)
        self.write(job, status)
        with_finalizer -= self.remove_finalizers(remove, ctx.errors, key=ctx.key)
        clean_uncounted(status, with_finalizer)
        us, uf = tracking.uncounted(status)
        if fin is not None and not reached_max and not us and not uf and ctx.terminating == 0:
            # enactJobFinished
            stamp = rfc3339(now)
            jc.ensure_condition(status, fin.terminal, "True", fin.reason, fin.message, stamp)
            if fin.terminal == "Complete":
                status["completionTime"] = stamp
        self.write(job, status)

    def remove_finalizers(
        self,
        pods: Iterable[Obj],
        errors: list[ApiError] | None = None,
        strict: bool = False,
        key: str = "",
    ) -> set[str]:
        """``removeTrackingFinalizerFromPods``: drop the job-tracking finalizer from each
        pod; the uids done (or gone). With the Job's ``key``, each removal is first expected
        (by pod uid) and a failed one no longer is. A failed removal is added to ``errors``
        (raised, with ``strict``)."""
        pods = list(pods)
        if key:
            self.expectations.expect_finalizers_removed(key, [p["metadata"]["uid"] for p in pods])
        done: set[str] = set()
        for p in pods:
            meta = p["metadata"]
            try:
                latest = self._server.get("v1", "Pod", meta["name"], meta["namespace"])
                if tracking.has_tracking_finalizer(latest):
                    self._server.update(tracking.remove_finalizer(latest))
                elif key:  # already gone: no update will come for it
                    self.expectations.finalizer_removal_observed(key, meta["uid"])
            except NotFound:
                if key:  # no update will come for it
                    self.expectations.finalizer_removal_observed(key, meta["uid"])
            except ApiError as err:
                if key:
                    self.expectations.finalizer_removal_observed(key, meta["uid"])
                if strict:
                    raise
                if errors is not None:
                    errors.append(err)
                continue
            done.add(meta["uid"])
        return done

    def write(self, job: Obj, status: Obj) -> None:
        """Write ``status`` when it changed; ``job`` becomes the stored object. Zero
        counters and an empty ``uncountedTerminatedPods`` alone are no change: upstream
        omits them and writes only when it has something to flush."""
        if _significant(status) == _significant(job.get("status") or {}):
            return
        out = self._server.update_status({**job, "status": copy.deepcopy(status)})
        job.clear()
        job.update(out)


def _significant(status: Obj) -> Obj:
    out = {k: v for k, v in status.items() if not (k in ("succeeded", "failed") and v == 0)}
    if not any((out.get("uncountedTerminatedPods") or {}).values()):
        out.pop("uncountedTerminatedPods", None)
    return out


def can_remove_finalizer(ctx: SyncCtx, pod: Obj, considered_failed: bool) -> bool:
    """``canRemoveFinalizer``: the Job is being deleted or has finished, or the pod
    succeeded or is considered failed and not held for its replacement."""
    if ctx.job["metadata"].get("deletionTimestamp") or ctx.finished is not None:
        return True
    if tracking.phase(pod) == "Succeeded":
        return True
    if not considered_failed:
        return False
    # backoffLimitPerIndex: the index's last failed pod waits for its replacement.
    ix = index_of(pod)
    held = None if ix is None else ctx.delayed.get(ix)
    return held is None or held["metadata"]["uid"] != pod["metadata"]["uid"]


def clean_uncounted(status: Obj, with_finalizer: set[str]) -> bool:
    """``cleanUncountedPodsWithoutFinalizers``: move uids whose pods lost the finalizer
    into the counters; whether anything moved."""
    us, uf = tracking.uncounted(status)
    keep_s = [u for u in us if u in with_finalizer]
    keep_f = [u for u in uf if u in with_finalizer]
    if len(keep_s) == len(us) and len(keep_f) == len(uf):
        return False
    status["succeeded"] = int(status.get("succeeded", 0)) + len(us) - len(keep_s)
    status["failed"] = int(status.get("failed", 0)) + len(uf) - len(keep_f)
    tracking.set_uncounted(status, keep_s, keep_f)
    return True


def count_terminating(pods: Iterable[Obj]) -> int:
    """``controller.CountTerminatingPods``: marked for deletion and not yet finished."""
    return sum(
        1
        for p in pods
        if p["metadata"].get("deletionTimestamp")
        and tracking.phase(p) not in ("Succeeded", "Failed")
    )
