"""One CronJob sync, apart from the informers (``pkg/controller/cronjob/cronjob_controllerv2.go``:
``syncCronJob``, ``cleanupFinishedJobs``, ``removeOldestJobs``, ``deleteJob``,
``formatSchedule``).

``JobControl`` is the narrow apiserver surface a sync uses, so the upstream table tests can
drive a sync against fakes, as upstream's ``fakeJobControl`` / ``fakeCJControl`` do.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.cronjob import utils as cu
from reference_impl.controllers.cronjob.schedule import parse_standard
from reference_impl.controllers.serviceaccounts import terminating
from reference_impl.errors import AlreadyExists, ApiError, Forbidden, NotFound

__all__ = [
    "JobControl",
    "cleanup_finished_jobs",
    "format_schedule",
    "SyncResult",
    "jobs_for_cronjob",
    "namespace_terminating",
    "sync",
    "sync_cronjob",
    "update_cronjob",
]

Obj = dict[str, Any]
Recorder = Callable[[str, str, str], None]  # (type, reason, message)


@dataclass
class SyncResult:
    """What ``syncCronJob`` returns: requeue after, whether status changed, the error;
    plus the CronJob as updated."""

    requeue_after: timedelta | None
    update_status: bool
    cronjob: Obj
    error: ApiError | None = None


def namespace_terminating(e: ApiError) -> bool:
    """``errors.HasStatusCause(err, v1.NamespaceTerminatingCause)``."""
    return any(c.reason == "NamespaceTerminating" for c in e.causes) or (
        isinstance(e, Forbidden) and terminating(e)
    )


class JobControl(Protocol):
    """``jobControlInterface`` plus ``cjControlInterface.GetCronJob``."""

    def get_job(self, namespace: str, name: str) -> Obj:
        """The Job; NotFound when absent."""
        ...

    def create_job(self, namespace: str, job: Obj) -> Obj:
        """Create the Job and return it as stored."""
        ...

    def delete_job(self, namespace: str, name: str) -> None:
        """Delete the Job with propagation Background."""
        ...

    def get_cronjob(self, namespace: str, name: str) -> Obj:
        """The CronJob fresh from the apiserver."""
        ...

    def update_status(self, cj: Obj) -> Obj:
        """Write the CronJob's status subresource."""
        ...


def _finished(job: Obj) -> str | None:
    """``getFinishedStatus`` / ``jobutil.FinishedCondition``: "Complete", "Failed" or None."""
    for c in job.get("status", {}).get("conditions") or []:
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return str(c["type"])
    return None


def format_schedule(cj: Obj, record: Recorder | None) -> str:
    """``formatSchedule``: the schedule with a ``TZ=`` prefix for spec.timeZone; warns
    "UnsupportedSchedule" when the schedule names a zone itself."""
    schedule = str(cj["spec"].get("schedule", ""))
    if "TZ" in schedule:
        if record is not None:
            record(
                "Warning",
                "UnsupportedSchedule",
                f"CRON_TZ or TZ used in schedule {_go_quote(schedule)} is not officially "
                "supported, see https://kubernetes.io/docs/concepts/workloads/controllers/"
                "cron-jobs/ for more details",
            )
        return schedule
    tz = cj["spec"].get("timeZone")
    if tz is not None:
        try:
            cu.load_location(tz)
        except ValueError:
            return schedule
        return f"TZ={tz} {schedule}"
    return schedule


def _go_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _delete_job(cj: Obj, job: Obj, jc: JobControl, record: Recorder) -> bool:
    """``deleteJob``: delete, drop from status.active, record "SuccessfulDelete"."""
    meta = job["metadata"]
    try:
        jc.delete_job(meta.get("namespace", ""), meta["name"])
    except ApiError as e:
        record("Warning", "FailedDelete", f"Deleted job: {e}")
        return False
    cu.delete_from_active_list(cj, meta.get("uid", ""))
    record("Normal", "SuccessfulDelete", f"Deleted job {meta['name']}")
    return True


def cleanup_finished_jobs(cj: Obj, jobs: list[Obj], jc: JobControl, record: Recorder) -> bool:
    """``cleanupFinishedJobs``: keep at most the history limits of finished Jobs, deleting
    the oldest by start time (``removeOldestJobs``); whether status changed."""
    spec = cj["spec"]
    failed_limit = spec.get("failedJobsHistoryLimit")
    ok_limit = spec.get("successfulJobsHistoryLimit")
    if failed_limit is None and ok_limit is None:
        return False
    succeeded = [j for j in jobs if _finished(j) == "Complete"]
    failed = [j for j in jobs if _finished(j) == "Failed"]
    update = False
    for group, limit in ((succeeded, ok_limit), (failed, failed_limit)):
        if limit is None or len(group) - int(limit) <= 0:
            continue
        for job in cu.by_job_start_time(group)[: len(group) - int(limit)]:
            if _delete_job(cj, job, jc, record):
                update = True
    return update


def sync_cronjob(
    cj: Obj, jobs: list[Obj], now: datetime, jc: JobControl, record: Recorder
) -> SyncResult:
    """``syncCronJob``: reconcile status.active with the Jobs, then start the Job due now.

    The result's CronJob may be a fresh copy from the apiserver (the "UnexpectedJob"
    re-read); its error is the ApiError upstream returns, alongside the update flag.
    """
    update = False
    ns = cj["metadata"].get("namespace", "")
    children = set()
    for j in jobs:
        uid = j["metadata"].get("uid", "")
        children.add(uid)
        found = cu.in_active_list(cj, uid)
        finished = _finished(j)
        if not found and finished is None:
            try:
                fresh = jc.get_cronjob(ns, cj["metadata"]["name"])
            except ApiError as e:
                return SyncResult(None, update, cj, e)
            if cu.in_active_list(fresh, uid):
                cj = copy.deepcopy(fresh)
                continue
            record(
                "Warning",
                "UnexpectedJob",
                f"Saw a job that the controller did not create or forgot: {j['metadata']['name']}",
            )
        elif finished is not None:
            if found:
                cu.delete_from_active_list(cj, uid)
                record(
                    "Normal",
                    "SawCompletedJob",
                    f"Saw completed job: {j['metadata']['name']}, condition: {finished}",
                )
                update = True
            if finished == "Complete":
                done = j.get("status", {}).get("completionTime")
                status = cj.setdefault("status", {})
                last = status.get("lastSuccessfulTime")
                if last is None:
                    if done is not None:  # Go assigns nil: no field to write
                        status["lastSuccessfulTime"] = done
                    update = True
                elif done is not None and cu.parse_time(done) > cu.parse_time(last):
                    status["lastSuccessfulTime"] = done
                    update = True
    for ref in list(cj.get("status", {}).get("active") or []):
        if ref.get("uid") in children:
            continue
        try:
            jc.get_job(ref.get("namespace", ""), ref.get("name", ""))
        except NotFound:
            record("Normal", "MissingJob", f"Active job went missing: {ref.get('name')}")
            cu.delete_from_active_list(cj, ref.get("uid", ""))
            update = True
        except ApiError as e:
            return SyncResult(None, update, cj, e)
    if cj["metadata"].get("deletionTimestamp"):
        return SyncResult(None, update, cj)
    spec = cj["spec"]
    tz = spec.get("timeZone")
    if tz is not None:
        try:
            cu.load_location(tz)
        except ValueError as e:
            record("Warning", "UnknownTimeZone", f"invalid timeZone: {_go_quote(tz)}: {e}")
            return SyncResult(None, update, cj)
    if spec.get("suspend"):
        return SyncResult(None, update, cj)
    try:
        sched = parse_standard(format_schedule(cj, record))
    except ValueError as e:
        record(
            "Warning",
            "UnparseableSchedule",
            f"unparseable schedule: {_go_quote(str(spec.get('schedule')))} : {e}",
        )
        return SyncResult(None, update, cj)
    try:
        scheduled = cu.next_schedule_time(cj, now, sched, record)
    except ValueError as e:
        record("Warning", "InvalidSchedule", f"invalid schedule: {spec.get('schedule')} : {e}")
        return SyncResult(None, update, cj)
    if scheduled is None:
        return SyncResult(cu.next_schedule_time_duration(cj, now, sched), update, cj)
    sds = spec.get("startingDeadlineSeconds")
    if sds is not None and scheduled + timedelta(seconds=int(sds)) < now:
        record(
            "Warning",
            "MissSchedule",
            f"Missed scheduled time to start a job: {_rfc1123z(scheduled)}",
        )
        return SyncResult(cu.next_schedule_time_duration(cj, now, sched), update, cj)
    last = cj.get("status", {}).get("lastScheduleTime")
    if cu.in_active_list_by_name(cj, cu.get_job_name(cj, scheduled), ns) or (
        last is not None and cu.parse_time(last) == scheduled
    ):
        return SyncResult(cu.next_schedule_time_duration(cj, now, sched), update, cj)
    active = cj.get("status", {}).get("active") or []
    policy = spec.get("concurrencyPolicy", "Allow")
    if policy == "Forbid" and active:
        record(
            "Normal",
            "JobAlreadyActive",
            "Not starting job because prior execution is running and concurrency policy is Forbid",
        )
        return SyncResult(cu.next_schedule_time_duration(cj, now, sched), update, cj)
    if policy == "Replace":
        for ref in list(active):
            try:
                old = jc.get_job(ref.get("namespace", ""), ref.get("name", ""))
            except ApiError as e:
                record("Warning", "FailedGet", f"Get job: {e}")
                return SyncResult(None, update, cj, e)
            if not _delete_job(cj, old, jc, record):
                err = ApiError(f"could not replace job {ns}/{old['metadata']['name']}")
                return SyncResult(None, update, cj, err)
            update = True
    req = cu.get_job_from_template2(cj, scheduled)
    existed = False
    try:
        resp = jc.create_job(ns, req)
    except AlreadyExists:
        existed = True
        try:
            resp = jc.get_job(ns, req["metadata"]["name"])
        except ApiError as e:
            return SyncResult(None, update, cj, e)
        ref = controller_ref(resp)
        if ref is None or ref.get("uid") != cj["metadata"].get("uid"):
            return SyncResult(None, update, cj)
        if cu.in_active_list(cj, resp["metadata"].get("uid", "")):
            return SyncResult(None, update, cj)
    except ApiError as e:
        if namespace_terminating(e):  # no event: the namespace is going away
            return SyncResult(None, update, cj, e)
        record("Warning", "FailedCreate", f"Error creating job: {e}")
        return SyncResult(None, update, cj, e)
    if not existed:
        record("Normal", "SuccessfulCreate", f"Created job {resp['metadata']['name']}")
    status = cj.setdefault("status", {})
    status["active"] = [*(status.get("active") or []), _object_ref(resp)]
    status["lastScheduleTime"] = cu.format_rfc3339(scheduled.astimezone(cu.UTC))
    return SyncResult(cu.next_schedule_time_duration(cj, now, sched), True, cj)


def _object_ref(job: Obj) -> Obj:
    """``ref.GetReference``: the ObjectReference status.active holds."""
    meta = job["metadata"]
    ref: Obj = {
        "kind": "Job",
        "namespace": meta.get("namespace"),
        "name": meta["name"],
        "uid": meta.get("uid"),
        "apiVersion": "batch/v1",
    }
    if meta.get("resourceVersion"):
        ref["resourceVersion"] = meta["resourceVersion"]
    return ref


def _rfc1123z(t: datetime) -> str:
    """Go's ``time.RFC1123Z`` of a UTC time: ``Mon, 02 Jan 2006 15:04:05 -0700``."""
    u = t.astimezone(cu.UTC)
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    return (
        f"{days[u.weekday()]}, {u.day:02d} {months[u.month - 1]} {u.year} "
        f"{u.hour:02d}:{u.minute:02d}:{u.second:02d} +0000"
    )


def jobs_for_cronjob(cj: Obj, jobs: list[Obj]) -> list[Obj]:
    """``getCronJobJobsByIndexer``: the Jobs whose controller reference carries the
    CronJob's UID (upstream indexes by that UID alone)."""
    uid = cj["metadata"].get("uid", "")
    out = []
    for job in jobs:
        ref = controller_ref(job)
        if ref is not None and ref.get("uid", "") == uid:
            out.append(job)
    return out


def sync(
    cached: Obj, jobs: list[Obj], now: datetime, jc: JobControl, record: Recorder
) -> tuple[timedelta | None, ApiError | None]:
    """``ControllerV2.sync`` for one CronJob: cleanup, ``syncCronJob``, at most one status
    update; (requeue after, error). A status-update error wins, as upstream."""
    cj = copy.deepcopy(cached)
    cleaned = cleanup_finished_jobs(cj, jobs, jc, record)
    res = sync_cronjob(cj, jobs, now, jc, record)
    if cleaned or res.update_status:
        try:
            jc.update_status(res.cronjob)
        except ApiError as e:
            return None, e
    if res.requeue_after is not None:
        return res.requeue_after, None
    return None, res.error


def update_cronjob(
    old: Obj, new: Obj, now: datetime, record: Recorder
) -> tuple[bool, timedelta]:
    """``updateCronJob``: (whether to queue the CronJob, after how long). A changed schedule
    or time zone waits for the next activation; an unparseable one is not queued."""
    old_spec, new_spec = old.get("spec", {}), new.get("spec", {})
    if new_spec.get("schedule") != old_spec.get("schedule") or new_spec.get(
        "timeZone"
    ) != old_spec.get("timeZone"):
        try:
            sched = parse_standard(format_schedule(new, None))
        except ValueError:
            record(
                "Warning",
                "UnParseableCronJobSchedule",
                f"unparseable schedule for cronjob: {new_spec.get('schedule', '')}",
            )
            return False, timedelta(0)
        return True, cu.next_schedule_time_duration(new, now, sched)
    return True, timedelta(0)
