"""Upstream ``backoff_utils_test.go`` (``TestNewBackoffRecord``, ``TestGetFinishedTime``,
``TestGetRemainingBackoffTime``) against ``reference_impl/controllers/job/backoff.py``, and
``job_controller_test.go`` ``TestJobBackoffForOnFailure`` and
``TestJobBackoffOnRestartPolicyNever`` (one sync per row), v1.37.2.

Wire timestamps have second precision, so upstream's millisecond offsets between finish
times are written as the same number of seconds; only their order matters.
"""

from __future__ import annotations

from typing import Any

import pytest
from job_sync_harness import add_pod, build_sync_harness, conditions, new_job, store_job

from reference_impl.clock import Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.job.backoff import (
    BackoffRecord,
    finished_time,
    new_backoff_record,
    remaining_for_failures,
)
from reference_impl.errors import Invalid

Obj = dict[str, Any]
T0 = parse_rfc3339("2009-11-10T23:00:00Z")  # defaultTestTime


def _at(offset: int) -> str:
    return rfc3339(Instant(T0 + seconds(offset)))


def _finished_pod(offset: int) -> Obj:
    return {
        "metadata": {},
        "status": {"containerStatuses": [{"state": {"terminated": {"finishedAt": _at(offset)}}}]},
    }


# name: (old record (failures, last offset or None) or None, succeeded offsets, failed offsets,
#        want (failures, last offset or None))
RECORD_ROWS: dict[str, tuple[tuple[int, int | None] | None, list[int], list[int], tuple[int, int | None]]] = {
    "Empty backoff store and one new failure": (None, [], [0], (1, 0)),
    "Empty backoff store and two new failures": (None, [], [0, -1], (2, 0)),
    "Empty backoff store, two failures followed by success": (None, [0], [-2, -1], (0, None)),
    "Empty backoff store, two failures, one success and two more failures": (
        None, [-2], [0, -4, -3, -1], (2, 0)
    ),
    "Backoff store having failure count 2 and one new failure": ((2, None), [], [0], (3, 0)),
    "Empty backoff store with success and failure at same timestamp": (None, [0], [0], (0, None)),
    "Empty backoff store with no success/failure": (None, [], [], (0, None)),
    "Empty backoff store with one success": (None, [0], [], (0, None)),
}


@pytest.mark.parametrize(
    ("old", "succeeded", "failed", "want"), [pytest.param(*r, id=n) for n, r in RECORD_ROWS.items()]
)
def test_new_backoff_record(
    old: tuple[int, int | None] | None,
    succeeded: list[int],
    failed: list[int],
    want: tuple[int, int | None],
) -> None:
    prior = None
    if old is not None:
        prior = BackoffRecord(old[0], None if old[1] is None else Instant(T0 + seconds(old[1])))
    got = new_backoff_record(prior, [_finished_pod(o) for o in succeeded], [_finished_pod(o) for o in failed])
    assert got == BackoffRecord(want[0], None if want[1] is None else Instant(T0 + seconds(want[1])))


def _terminated(offset: int | None) -> Obj:
    return {"state": {"terminated": {} if offset is None else {"finishedAt": _at(offset)}}}


RUNNING: Obj = {"state": {"running": {}}}

FINISHED_ROWS: dict[str, tuple[Obj, int]] = {
    "Pod with multiple containers and all containers terminated": (
        {"metadata": {}, "status": {"containerStatuses": [_terminated(-1), _terminated(0), _terminated(-2)]}},
        0,
    ),
    "Pod with multiple containers; two containers in terminated state and one in running state; fallback to deletionTimestamp": (
        {"metadata": {"deletionTimestamp": _at(0)},
         "status": {"containerStatuses": [_terminated(-1), RUNNING, _terminated(-2)]}},
        0,
    ),
    "fallback to deletionTimestamp": (
        {"metadata": {"deletionTimestamp": _at(0)}, "status": {"containerStatuses": [RUNNING]}},
        0,
    ),
    "fallback to deletionTimestamp, decremented by grace period": (
        {"metadata": {"deletionTimestamp": _at(0), "deletionGracePeriodSeconds": 30},
         "status": {"containerStatuses": [RUNNING]}},
        -30,
    ),
    "fallback to PodReady.LastTransitionTime when status of the condition is False": (
        {"metadata": {},
         "status": {"containerStatuses": [_terminated(None)],
                    "conditions": [{"type": "Ready", "status": "False", "reason": "PodFailed",
                                    "lastTransitionTime": _at(0)}]}},
        0,
    ),
    "skip fallback to PodReady.LastTransitionTime when status of the condition is True": (
        {"metadata": {"deletionTimestamp": _at(0)},
         "status": {"containerStatuses": [_terminated(None)],
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": _at(-30)}]}},
        0,
    ),
    "fallback to creationTimestamp": (
        {"metadata": {"creationTimestamp": _at(0)}, "status": {"containerStatuses": [_terminated(None)]}},
        0,
    ),
    "Pod with sidecar container and all containers terminated": (
        {"metadata": {},
         "spec": {"initContainers": [{"name": "sidecar", "restartPolicy": "Always"}]},
         "status": {"containerStatuses": [_terminated(-1)],
                    "initContainerStatuses": [{"name": "sidecar", **_terminated(0)}]}},
        0,
    ),
}


@pytest.mark.parametrize(("pod", "want"), [pytest.param(*r, id=n) for n, r in FINISHED_ROWS.items()])
def test_get_finished_time(pod: Obj, want: int) -> None:
    assert finished_time(pod) == Instant(T0 + seconds(want))


# name: (failures, last failure set, now offset, default, max, want) in seconds
REMAINING_ROWS: dict[str, tuple[int, bool, int, int, int, int]] = {
    "no failures": (0, False, 0, 5, 700, 0),
    "one failure; current time and failure time are same": (1, True, 0, 5, 700, 5),
    "one failure; current time == 1 second + failure time": (1, True, 1, 5, 700, 4),
    "one failure; current time == expected backoff time": (1, True, 5, 5, 700, 0),
    "one failure; current time == expected backoff time + 1 Second": (1, True, 6, 5, 700, 0),
    "three failures; current time and failure time are same": (3, True, 0, 5, 700, 20),
    "eight failures; current time and failure time are same; backoff not exceeding maxBackoff": (
        8, True, 0, 5, 700, 640
    ),
    "nine failures; current time and failure time are same; backoff exceeding maxBackoff": (
        9, True, 0, 5, 700, 700
    ),
}


@pytest.mark.parametrize(
    ("failures", "has_last", "now", "default", "maximum", "want"),
    [pytest.param(*r, id=n) for n, r in REMAINING_ROWS.items()],
)
def test_get_remaining_backoff_time(
    failures: int, has_last: bool, now: int, default: int, maximum: int, want: int
) -> None:
    last = T0 if has_last else None
    got = remaining_for_failures(
        failures, last, Instant(T0 + seconds(now)), default=seconds(default), maximum=seconds(maximum)
    )
    assert got == seconds(want)


# -- TestJobBackoffForOnFailure / TestJobBackoffOnRestartPolicyNever -----------------------

FT = ("FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
FAILED = ("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
SUSPENDED = ("Suspended", "True", "JobSuspended", "Job suspended")
DONE = [
    ("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
    ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
]

# name: (parallelism, completions, backoffLimit, suspend, restartCounts, podPhase,
#        expectedActive, expectedSucceeded, expectedFailed, expectedConditions)
ON_FAILURE_ROWS: dict[str, tuple[Any, ...]] = {
    "backoffLimit 0 should have 1 pod active": (1, 1, 0, False, [0], "Running", 1, 0, 0, []),
    "backoffLimit 1 with restartCount 0 should have 1 pod active": (1, 1, 1, False, [0], "Running", 1, 0, 0, []),
    "backoffLimit 1 with restartCount 1 and podRunning should have 0 pod active": (
        1, 1, 1, False, [1], "Running", 0, 0, 1, [FT]
    ),
    "backoffLimit 1 with restartCount 1 and podPending should have 0 pod active": (
        1, 1, 1, False, [1], "Pending", 0, 0, 1, [FT]
    ),
    "too many job failures with podRunning - single pod": (1, 5, 2, False, [2], "Running", 0, 0, 1, [FT]),
    "too many job failures with podPending - single pod": (1, 5, 2, False, [2], "Pending", 0, 0, 1, [FT]),
    "too many job failures with podPending - multiple pods": (
        2, 5, 2, False, [1, 1], "Pending", 0, 0, 2, [FT]
    ),
    "not enough failures": (2, 5, 3, False, [1, 1], "Running", 2, 0, 0, []),
    "suspending a job": (2, 4, 6, True, [1, 1], "Running", 0, 0, 0, [SUSPENDED]),
    "finished job": (2, 4, 6, True, [1, 1, 2, 0], "Succeeded", 0, 4, 0, DONE),
    "finished job; JobManagedBy enabled": (2, 4, 6, True, [1, 1, 2, 0], "Succeeded", 0, 4, 0, DONE),
    "too many job failures with podRunning - multiple pods": (
        2, 5, 2, False, [1, 1], "Running", 0, 0, 2, [FT]
    ),
    "too many job failures with podRunning - multiple pods; JobManagedBy enabled": (
        2, 5, 2, False, [1, 1], "Running", 0, 0, 2, [FT]
    ),
}


def _status_of(h: Any) -> Obj:
    return dict(h.job().get("status") or {})


@pytest.mark.parametrize(
    ("par", "comp", "limit", "suspend", "restarts", "phase", "exp_active", "exp_succeeded",
     "exp_failed", "exp_conditions"),
    [pytest.param(*r, id=n) for n, r in ON_FAILURE_ROWS.items()],
)
def test_job_backoff_for_on_failure(
    par: int, comp: int, limit: int, suspend: bool, restarts: list[int], phase: str,
    exp_active: int, exp_succeeded: int, exp_failed: int, exp_conditions: list[Any],
) -> None:
    h = build_sync_harness()
    job = new_job(par, comp, limit)
    job["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    job["spec"]["suspend"] = suspend
    job = store_job(h, job)
    for n in restarts:
        cs = {"name": "c", "image": "foo/bar", "ready": False, "restartCount": n, "state": {"waiting": {}}}
        add_pod(h, job, phase, statuses=[cs])

    err = h.sync()

    # The status as last written (upstream's updateStatusHandler sees the same).
    status = h.spy.statuses[-1]
    if suspend and exp_succeeded:
        # A suspended Job (completions > 0) never got a startTime, and the apiserver refuses
        # it finished without one (RejectFinishedJobWithoutStartTime, as upstream's
        # strategy); upstream's fake status handler stores it regardless.
        assert isinstance(err, Invalid) and "startTime is required for finished job" in str(err)
    else:
        assert err is None
        assert status == _status_of(h)
    assert status.get("active", 0) == exp_active
    assert status.get("succeeded", 0) == exp_succeeded
    assert status.get("failed", 0) == exp_failed
    assert conditions(status) == exp_conditions


# name: (parallelism, completions, backoffLimit, activePodsPhase, activePods, failedPods,
#        expectedActive, expectedSucceeded, expectedFailed, expectedConditions)
NEVER_ROWS: dict[str, tuple[Any, ...]] = {
    "not enough failures with backoffLimit 0 - single pod": (1, 1, 0, "Running", 1, 0, 1, 0, 0, []),
    "not enough failures with backoffLimit 1 - single pod": (1, 1, 1, "", 0, 1, 1, 0, 1, []),
    "too many failures with backoffLimit 1 - single pod": (1, 1, 1, "", 0, 2, 0, 0, 2, [FT, FAILED]),
    "not enough failures with backoffLimit 6 - multiple pods": (2, 2, 6, "Running", 1, 6, 2, 0, 6, []),
    "too many failures with backoffLimit 6 - multiple pods": (2, 2, 6, "", 0, 7, 0, 0, 7, [FT, FAILED]),
}


@pytest.mark.parametrize(
    ("par", "comp", "limit", "active_phase", "active", "failed", "exp_active", "exp_succeeded",
     "exp_failed", "exp_conditions"),
    [pytest.param(*r, id=n) for n, r in NEVER_ROWS.items()],
)
def test_job_backoff_on_restart_policy_never(
    par: int, comp: int, limit: int, active_phase: str, active: int, failed: int,
    exp_active: int, exp_succeeded: int, exp_failed: int, exp_conditions: list[Any],
) -> None:
    h = build_sync_harness()
    job = store_job(h, new_job(par, comp, limit))
    for _ in range(failed):
        add_pod(h, job, "Failed")
    for _ in range(active):
        add_pod(h, job, active_phase)

    assert h.sync() is None

    status = _status_of(h)
    assert status.get("active", 0) == exp_active
    assert status.get("succeeded", 0) == exp_succeeded
    assert status.get("failed", 0) == exp_failed
    assert conditions(status) == exp_conditions
