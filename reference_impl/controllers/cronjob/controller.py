"""The CronJob controller v2 (``pkg/controller/cronjob/cronjob_controllerv2.go``):
informer handlers, the work queue and ``sync``; the decisions live in ``sync.py``.

Each sync cleans up finished Jobs past the history limits, reconciles status.active,
starts the Job due now and requeues the CronJob for its next activation (plus
``nextScheduleDelta``) on the simulated clock.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import EPOCH_UNIX_SECONDS, Duration, Instant
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.cronjob.sync import jobs_for_cronjob, sync, update_cronjob

__all__ = ["CronJobController", "instant_to_datetime"]

Obj = dict[str, Any]
_UNIX_ZERO: Final = datetime(1970, 1, 1, tzinfo=UTC)


def instant_to_datetime(t: Instant) -> datetime:
    """A simulated instant as an aware UTC datetime (microsecond precision)."""
    return _UNIX_ZERO + timedelta(seconds=EPOCH_UNIX_SECONDS, microseconds=t // 1000)


def _duration(d: timedelta) -> Duration:
    return Duration(max(0, d // timedelta(microseconds=1)) * 1000)


class _ServerJobControl:
    """``realJobControl`` / ``realCJControl`` over the reference apiserver."""

    def __init__(self, ctx: ComponentContext) -> None:
        self._server = ctx.server

    def get_job(self, namespace: str, name: str) -> Obj:
        return self._server.get("batch/v1", "Job", name, namespace)

    def create_job(self, namespace: str, job: Obj) -> Obj:
        job = copy.deepcopy(job)
        job["metadata"]["namespace"] = namespace
        job["metadata"].pop("creationTimestamp", None)  # the apiserver stamps its own
        return self._server.create(job)

    def delete_job(self, namespace: str, name: str) -> None:
        self._server.delete("batch/v1", "Job", name, namespace, propagation_policy="Background")

    def get_cronjob(self, namespace: str, name: str) -> Obj:
        return self._server.get("batch/v1", "CronJob", name, namespace)

    def update_status(self, cj: Obj) -> Obj:
        return self._server.update_status(cj)


class CronJobController:
    """Creates Jobs on the CronJobs' schedules."""

    name: Final = "cronjob-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self.sync, name="cronjob",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._control = _ServerJobControl(ctx)
        self._cronjobs: SharedInformer | None = None
        self._jobs: SharedInformer | None = None
        self.events: list[tuple[str, str, str, str]] = []  # (CronJob key, type, reason, message)

    def start(self) -> None:
        """Watch CronJobs and Jobs; queue every CronJob."""
        self._cronjobs = self._ctx.informers.informer("batch/v1", "CronJob")
        self._jobs = self._ctx.informers.informer("batch/v1", "Job")
        self._cronjobs.add_handler(self._on_cronjob)
        self._jobs.add_handler(self._on_job)
        for cj in self._cronjobs.items():
            self._queue.add(object_key(cj))

    def _now(self) -> datetime:
        return instant_to_datetime(self._ctx.clock.now())

    def _recorder(self, key: str) -> Any:
        def record(etype: str, reason: str, message: str) -> None:
            self.events.append((key, etype, reason, message))
            self._ctx.trace.record(self.name, "event", key, f"{reason} {message}")

        return record

    def _on_cronjob(self, ev: ObjectEvent) -> None:
        key = object_key(ev.obj)
        if ev.type == "MODIFIED" and ev.old is not None:
            queue, after = update_cronjob(ev.old, ev.obj, self._now(), self._recorder(key))
            if queue and after > timedelta(0):
                self._queue.add_after(key, _duration(after))
            elif queue:
                self._queue.add(key)
            return
        self._queue.add(key)

    def _resolve(self, job: Obj, ref: Obj | None) -> str | None:
        """``resolveControllerRef``: the key of the CronJob controlling the Job."""
        if ref is None or ref.get("kind") != "CronJob":
            return None
        assert self._cronjobs is not None
        key = f"{job['metadata'].get('namespace')}/{ref.get('name')}"
        cj = self._cronjobs.get(key)
        if cj is None or cj["metadata"].get("uid") != ref.get("uid"):
            return None
        return key

    def _on_job(self, ev: ObjectEvent) -> None:
        # addJob / updateJob / deleteJob: requeue the owning CronJob(s)
        keys = {self._resolve(ev.obj, controller_ref(ev.obj))}
        if ev.type == "MODIFIED" and ev.old is not None:
            keys.add(self._resolve(ev.old, controller_ref(ev.old)))
        for key in sorted(k for k in keys if k is not None):
            self._queue.add(key)

    def sync(self, key: str) -> None:
        """``sync``: cleanup, ``syncCronJob``, one status update, requeue."""
        assert self._cronjobs is not None and self._jobs is not None
        cached = self._cronjobs.get(key)
        if cached is None:
            return
        jobs = jobs_for_cronjob(cached, list(self._jobs.items()))
        after, err = sync(cached, jobs, self._now(), self._control, self._recorder(key))
        if after is not None:
            self._queue.add_after(key, _duration(after))
        elif err is not None:
            raise err  # the queue retries with backoff (AddRateLimited)


