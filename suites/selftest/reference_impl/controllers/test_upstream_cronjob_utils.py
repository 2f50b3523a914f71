"""Upstream ``pkg/controller/cronjob/utils_test.go`` (v1.37.2), row by row, against
``reference_impl.controllers.cronjob.utils`` and the cron parser."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from reference_impl.controllers.cronjob import utils as cu
from reference_impl.controllers.cronjob.schedule import parse_standard

Obj = dict[str, Any]
TOP = datetime(2016, 5, 19, 10, 0, 0, tzinfo=UTC)  # topOfTheHour
DELTA = cu.NEXT_SCHEDULE_DELTA


def _at(d: timedelta) -> datetime:
    """``deltaTimeAfterTopOfTheHour``."""
    return TOP + d


def _ts(t: datetime) -> str:
    return cu.format_rfc3339(t)


def _cj(schedule: str, created: datetime, last: datetime | None = None, **spec: Any) -> Obj:
    cj: Obj = {
        "metadata": {"name": "mycronjob", "namespace": "default", "creationTimestamp": _ts(created)},
        "spec": {"schedule": schedule, **spec},
        "status": {},
    }
    if last is not None:
        cj["status"]["lastScheduleTime"] = _ts(last)
    return cj


# -- TestGetJobFromTemplate2 -------------------------------------------------------------


@pytest.mark.parametrize(
    ("tz", "annotations", "expected", "n"),
    [
        pytest.param("UTC", {"x": "y"}, "2016-05-19T10:00:00Z", 2,
                     id="UTC timezone and one annotation"),
        pytest.param(None, {"x": "y"}, "2016-05-19T10:00:00Z", 2,
                     id="nil timezone and one annotation"),
        pytest.param("Europe/Rome", {"x": "y", "z": "x"}, "2016-05-19T12:00:00+02:00", 3,
                     id="correct timezone and multiple annotation"),
    ],
)  # fmt: skip
def test_get_job_from_template2(
    tz: str | None, annotations: dict[str, str], expected: str, n: int
) -> None:
    """``TestGetJobFromTemplate2``."""
    cj: Obj = {
        "metadata": {"name": "mycronjob", "namespace": "snazzycats", "uid": "1a2b3c"},
        "spec": {
            "schedule": "* * * * ?",
            "concurrencyPolicy": "Allow",
            "jobTemplate": {
                "metadata": {"labels": {"a": "b"}, "annotations": annotations},
                "spec": {
                    "activeDeadlineSeconds": 1,
                    "manualSelector": False,
                    "template": {
                        "metadata": {"labels": {"foo": "bar"}},
                        "spec": {"containers": [{"image": "foo/bar"}]},
                    },
                },
            },
        },
    }
    if tz is not None:
        cj["spec"]["timeZone"] = tz
    job = cu.get_job_from_template2(cj, TOP)
    assert job["metadata"]["name"].startswith("mycronjob-")
    assert job["metadata"]["name"] == f"mycronjob-{int(TOP.timestamp()) // 60}"
    assert len(job["metadata"]["labels"]) == 1
    assert len(job["metadata"]["annotations"]) == n
    assert job["metadata"]["annotations"][cu.SCHEDULED_TIMESTAMP_ANNOTATION] == expected
    ref = job["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["uid"], ref["controller"]) == ("CronJob", "1a2b3c", True)
    assert job["spec"]["activeDeadlineSeconds"] == 1


# -- TestNextScheduleTime (its eight cases, in order: each builds on the previous CronJob) --

T1 = TOP
T2 = _at(timedelta(hours=1))
HOURLY = "0 * * * ?"


def _record_none(*_: str) -> None:
    pass


NEXT_SCHEDULE_TIME_ROWS = [
    # (created, last, sds, now, schedule, expected ("none", "error" or a time / "some"))
    pytest.param(T1 - timedelta(minutes=10), None, None, T1 - timedelta(minutes=7), HOURLY,
                 None, id="Case 1: no known start times, and none needed yet"),
    pytest.param(T1 - timedelta(minutes=10), None, None, T1 + timedelta(seconds=2), HOURLY,
                 T1, id="Case 2: no known start times, and one needed"),
    pytest.param(T1 - timedelta(minutes=10), T1, None, T1 + timedelta(minutes=2), HOURLY,
                 None, id="Case 3: known LastScheduleTime, no start needed"),
    pytest.param(T1 - timedelta(minutes=10), T1, None, T2 + timedelta(minutes=5), HOURLY,
                 T2, id="Case 4: known LastScheduleTime, a start needed"),
    pytest.param(T1 - timedelta(hours=2), T1 - timedelta(hours=1), None,
                 T2 + timedelta(minutes=5), HOURLY, T2,
                 id="Case 5: known LastScheduleTime, two starts needed"),
    pytest.param(T1 - timedelta(hours=2), T1 - timedelta(hours=1), None,
                 T2 + timedelta(days=10), HOURLY, "some",
                 id="Case 6: now is way way ahead of last start time, and there is no deadline"),
    pytest.param(T1 - timedelta(hours=2), T1 - timedelta(hours=1), 2 * 60 * 60,
                 T2 + timedelta(days=10), HOURLY, "some",
                 id="Case 7: now is way way ahead of last start time, but there is a short deadline"),
    pytest.param(T1 + timedelta(seconds=10), None, 2 * 60 * 60, _at(timedelta(hours=1)),
                 "59 23 31 2 *", "error",
                 id="Case 8: ensure the error from mostRecentScheduleTime gets populated up"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("created", "last", "sds", "now", "schedule", "expected"), NEXT_SCHEDULE_TIME_ROWS
)
def test_next_schedule_time(
    created: datetime,
    last: datetime | None,
    sds: int | None,
    now: datetime,
    schedule: str,
    expected: datetime | str | None,
) -> None:
    """``TestNextScheduleTime``."""
    cj = _cj(HOURLY, created, last)
    if sds is not None:
        cj["spec"]["startingDeadlineSeconds"] = sds
    sched = parse_standard(schedule)
    if expected == "error":
        with pytest.raises(ValueError, match="less than 1 second"):
            cu.next_schedule_time(cj, now, sched, _record_none)
        return
    got = cu.next_schedule_time(cj, now, sched, _record_none)
    if expected is None:
        assert got is None
    elif expected == "some":
        assert got is not None
    else:
        assert got == expected


# -- TestByJobStartTime ------------------------------------------------------------------

_NOW = "2018-01-01T02:03:04Z"
_LATER = "2019-01-01T02:03:04Z"


def _job(name: str, start: str | None) -> Obj:
    status = {} if start is None else {"startTime": start}
    return {"metadata": {"name": name}, "status": status}


A_NIL, B_NIL = _job("a", None), _job("b", None)
A_SET, B_SET, A_LATER = _job("a", _NOW), _job("b", _NOW), _job("a", _LATER)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param([B_NIL, A_NIL], [A_NIL, B_NIL], id="both have nil start times"),
        pytest.param([A_NIL, B_SET], [B_SET, A_NIL], id="only the first has a nil start time"),
        pytest.param([A_SET, B_NIL], [A_SET, B_NIL], id="only the second has a nil start time"),
        pytest.param([B_SET, A_SET], [A_SET, B_SET], id="both have non-nil, equal start time"),
        pytest.param([A_LATER, B_SET], [B_SET, A_LATER],
                     id="both have non-nil, different start time"),
    ],
)  # fmt: skip
def test_by_job_start_time(given: list[Obj], expected: list[Obj]) -> None:
    """``TestByJobStartTime``."""
    got = cu.by_job_start_time(given)
    assert [id(j) for j in got] == [id(j) for j in expected]


# -- TestMostRecentScheduleTime ----------------------------------------------------------

H, M, S = timedelta(hours=1), timedelta(minutes=1), timedelta(seconds=1)
FEW, MANY, NONE = cu.MissedSchedules.FEW, cu.MissedSchedules.MANY, cu.MissedSchedules.NONE

MOST_RECENT_ROWS = [
    # (schedule, created, last, sds, includeSDS, now, recent, earliest, missed, wantErr)
    pytest.param("0 * * * *", TOP, None, None, False, TOP + 30 * S, None, TOP, NONE, False,
                 id="now before next schedule"),
    pytest.param("0 * * * *", TOP, None, None, False, TOP + 61 * M, _at(60 * M), TOP, NONE,
                 False, id="now just after next schedule"),
    pytest.param("0 * * * *", _at(10 * S), None, None, False, _at(301 * M), _at(300 * M),
                 _at(10 * S), FEW, False, id="missed 5 schedules"),
    pytest.param("30 6-16/4 * * 1-5", TOP, _at(30 * M), None, False, _at(24 * H + 31 * M),
                 _at(24 * H + 30 * M), _at(30 * M), FEW, False, id="complex schedule"),
    pytest.param("30 10,11,12 * * 1-5", TOP, _at(30 * M), None, False, _at(30 * H + 30 * M),
                 None, _at(30 * M), FEW, False, id="another complex schedule"),
    pytest.param("30 6-16/4 * * 1-5", TOP, _at(30 * M), None, False, _at(96 * H + 31 * M),
                 _at(96 * H + 30 * M), _at(30 * M), FEW, False,
                 id="complex schedule with longer diff between executions"),
    pytest.param("30 6-16/4 * * 1-5", TOP, None, None, False, _at(24 * H + 31 * M),
                 _at(24 * H + 30 * M), TOP, FEW, False,
                 id="complex schedule with shorter diff between executions"),
    pytest.param("@every 1h", _at(-59 * M), _at(1 * M), 10, False, _at(7 * 24 * H),
                 _at(6 * 24 * H + 23 * H + 1 * M), _at(1 * M), MANY, False,
                 id="@every schedule"),
    pytest.param("59 23 31 2 *", _at(10 * S), None, None, False, _at(1 * H), None, None, NONE,
                 True, id="rogue cronjob"),
    pytest.param("0 * * * *", TOP, TOP, None, False, _at(30 * S), None, TOP, NONE, False,
                 id="earliestTime being CreationTimestamp and LastScheduleTime"),
    pytest.param("*/5 * * * *", TOP, _at(30 * M), None, False, _at(31 * M), None, _at(30 * M),
                 NONE, False, id="earliestTime being LastScheduleTime"),
    pytest.param("*/5 * * * *", TOP, _at(30 * M), 60, False, _at(31 * M), None, _at(30 * M),
                 NONE, False,
                 id="earliestTime being LastScheduleTime (within StartingDeadlineSeconds)"),
    pytest.param("*/5 * * * *", TOP, _at(30 * M), 60, True, _at(32 * M), None, _at(31 * M),
                 NONE, False,
                 id="earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("schedule", "created", "last", "sds", "include_sds", "now", "recent", "earliest",
     "missed", "want_err"),
    MOST_RECENT_ROWS,
)  # fmt: skip
def test_most_recent_schedule_time(
    schedule: str,
    created: datetime,
    last: datetime | None,
    sds: int | None,
    include_sds: bool,
    now: datetime,
    recent: datetime | None,
    earliest: datetime | None,
    missed: cu.MissedSchedules,
    want_err: bool,
) -> None:
    """``TestMostRecentScheduleTime``."""
    cj = _cj(schedule, created, last)
    if sds is not None:
        cj["spec"]["startingDeadlineSeconds"] = sds
    sched = parse_standard(schedule)
    if want_err:
        with pytest.raises(ValueError):
            cu.most_recent_schedule_time(cj, now, sched, include_sds)
        return
    got_earliest, got_recent, got_missed = cu.most_recent_schedule_time(
        cj, now, sched, include_sds
    )
    assert got_earliest == earliest
    assert got_recent == recent
    assert got_missed == missed


# -- TestNextScheduleTimeDuration --------------------------------------------------------


@pytest.mark.parametrize(
    ("schedule", "last", "now", "expected"),
    [
        pytest.param("30 6-16/4 * * 1-5", _at(30 * M), _at(24 * H + 31 * M),
                     3 * H + 59 * M + DELTA, id="complex schedule skipping weekend"),
        pytest.param("30 10,11,12 * * 1-5", _at(30 * M), _at(30 * H + 30 * M), 66 * H + DELTA,
                     id="another complex schedule skipping weekend"),
        pytest.param("0 12 * * 4", _at(2 * H), _at(19 * 24 * H + 1 * H + 30 * M),
                     48 * H + 30 * M + DELTA, id="once a week cronjob, missed two runs"),
        pytest.param("0 12 * * 5", None, _at(6 * H), 20 * H + DELTA,
                     id="no previous run of a cronjob"),
    ],
)  # fmt: skip
def test_next_schedule_time_duration(
    schedule: str, last: datetime | None, now: datetime, expected: timedelta
) -> None:
    """``TestNextScheduleTimeDuration``."""
    cj = _cj(schedule, TOP, last)
    got = cu.next_schedule_time_duration(cj, now, parse_standard(schedule))
    assert got >= timedelta(0)
    assert got == expected


# -- the parser against robfig/cron's documented semantics (no upstream table) ------------


@pytest.mark.parametrize(
    ("spec", "after", "expected"),
    [
        pytest.param("@hourly", TOP, _at(H), id="hourly"),
        pytest.param("@daily", TOP, datetime(2016, 5, 20, tzinfo=UTC), id="daily"),
        pytest.param("@weekly", TOP, datetime(2016, 5, 22, tzinfo=UTC), id="weekly sunday"),
        pytest.param("0 0 1,15 * mon", TOP, datetime(2016, 5, 23, tzinfo=UTC),
                     id="dom or dow when both restricted"),
        pytest.param("0 0 */2 * mon", TOP, datetime(2016, 5, 21, tzinfo=UTC),
                     id="a stepped star is a restriction"),
        pytest.param("0 0 * * mon", TOP, datetime(2016, 5, 23, tzinfo=UTC),
                     id="dom star means dow only"),
        pytest.param("TZ=Europe/Rome 0 9 * * *", TOP,
                     datetime(2016, 5, 20, 9, tzinfo=ZoneInfo("Europe/Rome")), id="TZ prefix"),
        pytest.param("CRON_TZ=America/New_York 30 2 * * *", datetime(2016, 3, 12, 12, tzinfo=UTC),
                     datetime(2016, 3, 14, 6, 30, tzinfo=UTC), id="DST gap skipped"),
        pytest.param("59 23 31 2 *", TOP, None, id="never"),
    ],
)  # fmt: skip
def test_schedule_next(spec: str, after: datetime, expected: datetime | None) -> None:
    """``SpecSchedule.Next``."""
    assert parse_standard(spec).next(after) == expected
