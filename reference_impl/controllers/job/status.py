"""Writing a Job's status (``job_controller.go`` ``trackJobStatusAndRemoveFinalizers``).

The sync loop decides; this module records. Newly finished pods are first listed in
``uncountedTerminatedPods`` (one status write), their tracking finalizers removed, and only
then moved into ``succeeded``/``failed`` with the active/ready/terminating counters and,
once nothing is terminating, the terminal condition (a second write).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, rfc3339
from reference_impl.controllers.controller_utils import is_pod_active, is_pod_ready
from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job import tracking
from reference_impl.controllers.job.indexed_job_utils import format_indexes
from reference_impl.errors import NotFound

__all__ = ["JobStatusWriter"]

Obj = dict[str, Any]
# (job, status, pods) -> the pods that newly succeeded and newly failed
NewlyFinished = Callable[[Obj, Obj, list[Obj]], tuple[list[Obj], list[Obj]]]
# (job, status, pods) -> completed indexes
Completed = Callable[[Obj, Obj, list[Obj]], set[int]]


class JobStatusWriter:
    """Counts finished pods, releases their finalizers and writes ``/status``."""

    def __init__(
        self, server: APIServer, newly_finished: NewlyFinished, completed: Completed
    ) -> None:
        self._server = server
        self._newly_finished = newly_finished
        self._completed = completed

    def flush(
        self,
        job: Obj,
        status: Obj,
        pods: list[Obj],
        finished: jc.FinishedCondition | None,
        now: Instant,
    ) -> None:
        """Record this sync's outcome in ``job``'s status (updating ``job`` in place)."""
        new_s, new_f = self._newly_finished(job, status, pods)
        if finished is not None and finished.interim == "FailureTarget":
            # Once failing, every unfinished pod that is left counts as failed.
            new_f += [
                p
                for p in pods
                if tracking.has_tracking_finalizer(p)
                and p not in new_s
                and p not in new_f
                and tracking.phase(p) != "Succeeded"
                and p["metadata"].get("deletionTimestamp")
            ]
        set_counters(status, pods)
        if new_s or new_f:
            us, uf = tracking.uncounted(status)
            tracking.set_uncounted(
                status,
                us + [p["metadata"]["uid"] for p in new_s],
                uf + [p["metadata"]["uid"] for p in new_f],
            )
            self.write(job, status)
            self.remove_finalizers(new_s + new_f)
        us, uf = tracking.uncounted(status)
        status["succeeded"] = int(status.get("succeeded", 0)) + len(us)
        status["failed"] = int(status.get("failed", 0)) + len(uf)
        tracking.set_uncounted(status, [], [])
        if job["spec"].get("completionMode") == "Indexed":
            status["completedIndexes"] = format_indexes(self._completed(job, status, pods))
        if finished is not None and not status.get("active") and not status.get("terminating"):
            stamp = rfc3339(now)
            jc.ensure_condition(
                status, finished.terminal, "True", finished.reason, finished.message, stamp
            )
            if finished.terminal == "Complete":
                status["completionTime"] = stamp
        self.write(job, status)

    def remove_finalizers(self, pods: list[Obj]) -> None:
        """Drop the job-tracking finalizer from each pod that still exists."""
        for p in pods:
            meta = p["metadata"]
            try:
                latest = self._server.get("v1", "Pod", meta["name"], meta["namespace"])
                self._server.update(tracking.remove_finalizer(latest))
            except NotFound:
                pass

    def write(self, job: Obj, status: Obj) -> None:
        """Write ``status`` when it changed; ``job`` becomes the stored object."""
        if status == (job.get("status") or {}):
            return
        out = self._server.update_status({**job, "status": copy.deepcopy(status)})
        job.clear()
        job.update(out)


def set_counters(status: Obj, pods: list[Obj]) -> None:
    """``active``, ``ready`` and ``terminating`` from the pods; zero counts made explicit."""
    active = [p for p in pods if is_pod_active(p)]
    status["active"] = len(active)
    status["ready"] = sum(1 for p in active if is_pod_ready(p))
    status["terminating"] = sum(
        1
        for p in pods
        if p["metadata"].get("deletionTimestamp")
        and tracking.phase(p) not in ("Succeeded", "Failed")
    )
    status.setdefault("succeeded", 0)
    status.setdefault("failed", 0)
