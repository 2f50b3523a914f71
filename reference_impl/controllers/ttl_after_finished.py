"""The TTL-after-finished controller (``pkg/controller/ttlafterfinished``).

A finished Job (condition Complete or Failed True) with ``spec.ttlSecondsAfterFinished``
is deleted once that many seconds have passed since the condition's
``lastTransitionTime``. Before deleting, ``processJob`` re-reads the Job from the
apiserver (the TTL may have been changed or the Job replaced), then deletes it with
propagationPolicy Foreground and a UID precondition. A Job not yet expired is requeued
after the time left.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import Duration, Instant, parse_rfc3339
from reference_impl.controllers.job.util import is_job_finished
from reference_impl.errors import NotFound

__all__ = ["TTLAfterFinishedController", "needs_cleanup", "time_left"]

Obj = dict[str, Any]
_NS: Final = 1_000_000_000


def needs_cleanup(job: Obj) -> bool:
    """``needsCleanup``: the Job has a TTL and has finished."""
    return job.get("spec", {}).get("ttlSecondsAfterFinished") is not None and is_job_finished(job)


def _job_finish_time(job: Obj) -> Instant:
    """``jobFinishTime``: the first terminal condition's lastTransitionTime."""
    meta = job.get("metadata", {})
    for c in job.get("status", {}).get("conditions") or []:
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            stamp = c.get("lastTransitionTime")
            if not stamp:
                raise ValueError(
                    "unable to find the time when the Job "
                    f"{meta.get('namespace')}/{meta.get('name')} finished"
                )
            return parse_rfc3339(str(stamp))
    raise ValueError(
        f"unable to find the status of the finished Job {meta.get('namespace')}/{meta.get('name')}"
    )


def time_left(job: Obj, since: Instant) -> tuple[Duration, Instant]:
    """``timeLeft`` (with ``getFinishAndExpireTime``): the TTL remaining at ``since``
    (negative once expired) and the expiry instant; ValueError when the Job should not
    be cleaned up or its finish time is unknown."""
    if not needs_cleanup(job):
        meta = job.get("metadata", {})
        raise ValueError(
            f"job {meta.get('namespace')}/{meta.get('name')} should not be cleaned up"
        )
    finish_at = _job_finish_time(job)
    expire_at = Instant(finish_at + int(job["spec"]["ttlSecondsAfterFinished"]) * _NS)
    return Duration(expire_at - since), expire_at


class TTLAfterFinishedController:
    """Deletes finished Jobs whose ttlSecondsAfterFinished has passed."""

    name: Final = "ttl-after-finished-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self.process_job, name="ttl_jobs_to_delete",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._jobs: SharedInformer | None = None
        self.deleted: list[str] = []  # keys deleted, in order (for tests and traces)

    def start(self) -> None:
        """Watch Jobs (add and update only, as upstream); queue the finished ones."""
        self._jobs = self._ctx.informers.informer("batch/v1", "Job")
        self._jobs.add_handler(self._on_job)
        for job in self._jobs.items():
            self._maybe_enqueue(job)

    def _on_job(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":  # upstream registers no DeleteFunc
            self._maybe_enqueue(ev.obj)

    def _maybe_enqueue(self, job: Obj) -> None:
        # addJob / updateJob
        if not job["metadata"].get("deletionTimestamp") and needs_cleanup(job):
            self._queue.add(object_key(job))

    def _process_ttl(self, job: Obj) -> Instant | None:
        """``processTTL``: the expiry when the Job is due now, else None (requeued after
        the time left when it still needs cleanup)."""
        if job["metadata"].get("deletionTimestamp") or not needs_cleanup(job):
            return None
        left, expire_at = time_left(job, self._ctx.clock.now())
        if left <= 0:
            return expire_at
        self._queue.add_after(object_key(job), left)
        return None

    def process_job(self, key: str) -> None:
        """``processJob``: check the cached Job, then the fresh one, then delete it."""
        assert self._jobs is not None
        job = self._jobs.get(key)
        if job is None:
            return
        try:
            if self._process_ttl(job) is None:
                return
        except ValueError:
            return  # a finished Job without a finish time: upstream logs and retries
        ns, _, name = key.partition("/")
        fresh = self._ctx.server.try_get("batch/v1", "Job", name, ns)
        if fresh is None:
            return
        try:
            if self._process_ttl(fresh) is None:
                return
        except ValueError:
            return
        try:
            self._ctx.server.delete(
                "batch/v1",
                "Job",
                name,
                ns,
                propagation_policy="Foreground",
                uid=fresh["metadata"].get("uid"),
            )
        except NotFound:
            return
        self.deleted.append(key)
        self._ctx.trace.record(self.name, "Deleted", key)
