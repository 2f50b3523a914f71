"""Schedule arithmetic and Job templating of the CronJob controller
(``pkg/controller/cronjob/utils.go``).

Times are aware datetimes (UTC unless a zone applies); CronJob timestamps are RFC 3339.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from enum import IntEnum
from typing import Any, Final

from reference_impl.controllers.cronjob.schedule import Schedule, load_location

__all__ = [
    "NEXT_SCHEDULE_DELTA",
    "UTC",
    "SCHEDULED_TIMESTAMP_ANNOTATION",
    "MissedSchedules",
    "by_job_start_time",
    "delete_from_active_list",
    "format_rfc3339",
    "get_job_from_template2",
    "get_job_name",
    "in_active_list",
    "in_active_list_by_name",
    "load_location",
    "most_recent_schedule_time",
    "next_schedule_time",
    "next_schedule_time_duration",
    "parse_time",
]

Obj = dict[str, Any]
NEXT_SCHEDULE_DELTA: Final = timedelta(milliseconds=100)  # nextScheduleDelta
SCHEDULED_TIMESTAMP_ANNOTATION: Final = "batch.kubernetes.io/cronjob-scheduled-timestamp"
GO_ZERO_TIME: Final = "0001-01-01T00:00:00Z"  # an unset metav1.Time
Recorder = Callable[[str, str, str], None]  # (type, reason, message)


class MissedSchedules(IntEnum):
    """``missedSchedulesType``."""

    NONE = 0
    FEW = 1
    MANY = 2


def parse_time(text: str) -> datetime:
    """An RFC 3339 timestamp as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_rfc3339(t: datetime) -> str:
    """Go's ``time.RFC3339`` layout: ``Z`` for UTC, else the numeric offset."""
    off = t.utcoffset()
    base = (
        f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    )
    if not off:
        return base + "Z"
    mins = int(off.total_seconds()) // 60
    sign = "+" if mins >= 0 else "-"
    mins = abs(mins)
    return f"{base}{sign}{mins // 60:02d}:{mins % 60:02d}"


def in_active_list(cj: Obj, uid: str) -> bool:
    """``inActiveList``."""
    return any(r.get("uid") == uid for r in cj.get("status", {}).get("active") or [])


def in_active_list_by_name(cj: Obj, name: str, namespace: str) -> bool:
    """``inActiveListByName``."""
    return any(
        r.get("name") == name and r.get("namespace") == namespace
        for r in cj.get("status", {}).get("active") or []
    )


def delete_from_active_list(cj: Obj, uid: str) -> None:
    """``deleteFromActiveList``."""
    status = cj.setdefault("status", {})
    status["active"] = [r for r in status.get("active") or [] if r.get("uid") != uid]


def most_recent_schedule_time(
    cj: Obj, now: datetime, schedule: Schedule, include_sds: bool
) -> tuple[datetime, datetime | None, MissedSchedules]:
    """``mostRecentScheduleTime``: (earliest time considered, the latest activation at or
    before ``now`` or None, how many were missed). ValueError when two activations are
    less than a second apart (a "rogue" schedule that never fires has no t1/t2)."""
    earliest = parse_time(cj.get("metadata", {}).get("creationTimestamp") or GO_ZERO_TIME)
    missed = MissedSchedules.NONE
    last = cj.get("status", {}).get("lastScheduleTime")
    if last:
        earliest = parse_time(last)
    sds = cj.get("spec", {}).get("startingDeadlineSeconds")
    if include_sds and sds is not None:
        deadline = now - timedelta(seconds=int(sds))
        if deadline > earliest:
            earliest = deadline
    t1 = schedule.next(earliest)
    t2 = schedule.next(t1) if t1 is not None else None
    # Go's zero time is before every real time: a schedule that never fires has now >= t1
    if t1 is not None and now < t1:
        return earliest, None, missed
    if t1 is not None and t2 is not None and now < t2:
        return earliest, t1, missed
    between = _round_seconds(t2 - t1) if t1 is not None and t2 is not None else 0
    if between < 1:
        raise ValueError("time difference between two schedules is less than 1 second")
    assert t1 is not None
    elapsed = int((now - t1).total_seconds())
    n_missed = elapsed // between + 1
    most_recent: datetime | None = None
    t = schedule.next(t1 + timedelta(seconds=(n_missed - 2) * between))
    while t is not None and t <= now:
        most_recent = t
        t = schedule.next(t)
    if n_missed > 100:
        missed = MissedSchedules.MANY
    elif n_missed > 0:
        missed = MissedSchedules.FEW
    return earliest, most_recent, missed


def _round_seconds(d: timedelta) -> int:
    # Duration.Round(time.Second): halves away from zero
    us = d // timedelta(microseconds=1)
    q, r = divmod(us, 1_000_000)
    return q + (1 if r >= 500_000 else 0)


def next_schedule_time_duration(cj: Obj, now: datetime, schedule: Schedule) -> timedelta:
    """``nextScheduleTimeDuration``: how long until the next activation after the most
    recent one (or after now), plus ``nextScheduleDelta``."""
    try:
        earliest, most_recent, missed = most_recent_schedule_time(cj, now, schedule, False)
    except ValueError:
        most_recent = now
    else:
        if most_recent is None:
            most_recent = earliest if missed == MissedSchedules.NONE else now
    nxt = schedule.next(most_recent)
    if nxt is None:  # Go: the zero time, so a hugely negative duration; clamp to "now"
        return NEXT_SCHEDULE_DELTA
    return nxt + NEXT_SCHEDULE_DELTA - now


def next_schedule_time(
    cj: Obj, now: datetime, schedule: Schedule, record: Recorder
) -> datetime | None:
    """``nextScheduleTime``: the activation to start now, or None; records
    "TooManyMissedTimes" past 100 misses. Raises the schedule error, as upstream."""
    _, most_recent, missed = most_recent_schedule_time(cj, now, schedule, True)
    if most_recent is None or most_recent > now:
        return None
    if missed == MissedSchedules.MANY:
        record(
            "Warning",
            "TooManyMissedTimes",
            "too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
            "or check clock skew",
        )
    return most_recent


def get_job_name(cj: Obj, scheduled: datetime) -> str:
    """``getJobName``: ``<cronjob>-<scheduled Unix minutes>``."""
    return f"{cj['metadata']['name']}-{int(scheduled.timestamp()) // 60}"


def get_job_from_template2(cj: Obj, scheduled: datetime) -> Obj:
    """``getJobFromTemplate2``: the Job for one activation, controlled by the CronJob,
    annotated with the scheduled time in the CronJob's zone. ValueError on a bad zone."""
    tmpl = cj["spec"].get("jobTemplate", {})
    tmeta = tmpl.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    annotations = dict(tmeta.get("annotations") or {})
    loc = load_location(cj["spec"].get("timeZone") or "")
    annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = format_rfc3339(scheduled.astimezone(loc))
    meta = cj["metadata"]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": get_job_name(cj, scheduled),
            "namespace": meta.get("namespace"),
            "labels": labels,
            "annotations": annotations,
            "creationTimestamp": format_rfc3339(scheduled.astimezone(UTC)),
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "CronJob",
                    "name": meta["name"],
                    "uid": meta.get("uid"),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": copy.deepcopy(tmpl.get("spec") or {}),
    }


def _start_cmp(a: Obj, b: Obj) -> int:
    # byJobStartTime.Less: jobs with a start time first, oldest first, then by name
    sa = a.get("status", {}).get("startTime")
    sb = b.get("status", {}).get("startTime")
    if sa is None and sb is not None:
        return 1
    if sa is not None and sb is None:
        return -1
    ta = parse_time(sa) if sa else None
    tb = parse_time(sb) if sb else None
    if ta == tb:
        na, nb = a["metadata"]["name"], b["metadata"]["name"]
        return -1 if na < nb else (1 if na > nb else 0)
    assert ta is not None and tb is not None
    return -1 if ta < tb else 1


def by_job_start_time(jobs: list[Obj]) -> list[Obj]:
    """``sort.Sort(byJobStartTime(...))``, as a new list."""
    return sorted(jobs, key=functools.cmp_to_key(_start_cmp))
