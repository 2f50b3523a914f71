"""Upstream ``job_controller_test.go`` ``TestControllerSyncJob``: one sync per row.

The rows are upstream's (v1.37.2); pod names are deterministic instead of random. A
pod-control error is a ServiceUnavailable from the spy (the reference retries any API error).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from job_sync_harness import (
    build_sync_harness,
    conditions,
    new_job,
    set_pods_statuses,
    set_pods_with_indexes,
    store_job,
)

from reference_impl.clock import Instant, rfc3339, seconds
from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job.backoff import BackoffRecord
from reference_impl.errors import ServiceUnavailable

Obj = dict[str, Any]
SCM_DONE = ("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods")
COMPLETE = ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")
FT_BACKOFF = ("FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
FAILED_BACKOFF = ("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
SUSPENDED = ("Suspended", "True", "JobSuspended", "Job suspended")


@dataclass
class Row:
    parallelism: int
    completions: int  # -1: unset
    backoff_limit: int = 0
    deleting: bool = False
    pod_limit: int = 0
    completion_mode: str | None = None
    was_suspended: bool = False
    suspend: bool = False
    pod_replacement_policy: str | None = None
    pod_failure_policy: Obj | None = None
    initial_status: Obj | None = None  # active, succeed, failed, conditions; startTime: now
    backoff_failures: int | None = None  # a backoffRecord whose last failure is now
    controller_error: bool = False
    pending: int = 0
    active: int = 0
    ready: int = 0
    succeeded: int = 0
    failed: int = 0
    terminating: int = 0
    pods_with_indexes: list[tuple[str, str]] = field(default_factory=list)
    fake_expectation: int = 0
    exp_creations: int = 0
    exp_deletions: int = 0
    exp_active: int = 0
    exp_ready: int = 0
    exp_succeeded: int = 0
    exp_completed_idxs: str = ""
    exp_failed: int = 0
    exp_terminating: int = 0
    exp_conditions: list[tuple[str, str, str, str]] = field(default_factory=list)
    exp_created_indexes: set[int] = field(default_factory=set)
    exp_patches: int = 0


ROWS: dict[str, Row] = {
    "job start": Row(2, 5, 6, exp_creations=2, exp_active=2),
    "WQ job start": Row(2, -1, 6, exp_creations=2, exp_active=2),
    "pending pods": Row(2, 5, 6, pending=2, exp_active=2),
    "correct # of pods": Row(3, 5, 6, active=3, ready=2, exp_active=3, exp_ready=2),
    "WQ job: correct # of pods": Row(2, -1, 6, active=2, exp_active=2),
    "too few active pods": Row(
        2, 5, 6, active=1, succeeded=1, exp_creations=1, exp_active=2, exp_succeeded=1, exp_patches=1
    ),
    "WQ job: recreate pods when failed": Row(
        1, -1, 6, active=1, failed=1, pod_replacement_policy="Failed", terminating=1,
        exp_terminating=1, exp_patches=1, exp_failed=1, exp_active=1,
    ),
    "WQ job: turn on PodReplacementPolicy but not set PodReplacementPolicy": Row(
        1, 1, 6, active=1, failed=1, terminating=1, exp_terminating=1, exp_active=1,
        exp_patches=2, exp_failed=2,
    ),
    "WQ job: recreate pods when terminating or failed": Row(
        1, -1, 6, active=1, failed=1, pod_replacement_policy="TerminatingOrFailed",
        terminating=1, exp_terminating=1, exp_active=1, exp_patches=2, exp_failed=2,
    ),
    "more terminating pods than parallelism": Row(
        1, 1, 6, active=2, terminating=4, pod_replacement_policy="Failed",
        exp_terminating=5, exp_active=1, exp_deletions=1, exp_patches=1,
    ),
    "more terminating pods than parallelism; PodFailurePolicy used": Row(
        1, 1, 6, active=2, terminating=4, pod_failure_policy={"rules": []},
        pod_replacement_policy="Failed", exp_terminating=5, exp_active=1, exp_deletions=1,
        exp_patches=1,
    ),
    "too few active pods and active back-off": Row(
        1, 1, 6, backoff_failures=1, initial_status={}, exp_creations=0, exp_active=0
    ),
    "too few active pods and active back-off with running pods": Row(
        2, 2, 6, backoff_failures=1, initial_status={}, active=1, ready=1, exp_active=1,
        exp_ready=1,
    ),
    "too few active pods and no back-offs": Row(
        1, 1, 6, backoff_failures=0, exp_creations=1, exp_active=1
    ),
    "too few active pods with a dynamic job": Row(
        2, -1, 6, active=1, exp_creations=1, exp_active=2
    ),
    "too few active pods, with controller error": Row(
        2, 5, 6, controller_error=True, active=1, succeeded=1, exp_creations=1, exp_active=1,
        exp_patches=1,
    ),
    "too many active pods": Row(
        2, 5, 6, active=3, exp_deletions=1, exp_active=2, exp_patches=1, exp_terminating=1
    ),
    "too many active pods, with controller error": Row(
        2, 5, 6, controller_error=True, active=3, exp_patches=1, exp_active=3
    ),
    "count ready pods when too many active pods": Row(
        2, 5, 6, active=3, ready=3, exp_deletions=1, exp_active=2, exp_patches=1, exp_ready=2,
        exp_terminating=1,
    ),
    "failed + succeed pods: reset backoff delay": Row(
        2, 5, 6, active=1, succeeded=1, failed=1, exp_creations=1, exp_active=2,
        exp_succeeded=1, exp_failed=1, exp_patches=2,
    ),
    "new failed pod": Row(
        2, 5, 6, active=1, failed=1, exp_creations=1, exp_active=2, exp_failed=1, exp_patches=1
    ),
    "no new pod; possible finalizer update of failed pod": Row(
        1, 1, 6, initial_status={"active": 1, "failed": 1}, active=1, exp_active=1, exp_failed=1
    ),
    "only new failed pod with controller error": Row(
        2, 5, 6, controller_error=True, active=1, failed=1, exp_creations=1, exp_active=1,
        exp_patches=1,
    ),
    "job finish": Row(
        2, 5, 6, succeeded=5, exp_succeeded=5, exp_conditions=[SCM_DONE, COMPLETE], exp_patches=5
    ),
    "WQ job finishing": Row(
        2, -1, 6, active=1, succeeded=1, exp_active=1, exp_succeeded=1, exp_patches=1
    ),
    "WQ job all finished": Row(
        2, -1, 6, succeeded=2, exp_succeeded=2, exp_conditions=[SCM_DONE, COMPLETE], exp_patches=2
    ),
    "WQ job all finished despite one failure": Row(
        2, -1, 6, succeeded=1, failed=1, exp_succeeded=1, exp_failed=1,
        exp_conditions=[SCM_DONE, COMPLETE], exp_patches=2,
    ),
    "more active pods than parallelism": Row(
        2, 5, 6, active=10, exp_deletions=8, exp_active=2, exp_patches=8, exp_terminating=8
    ),
    "more active pods than remaining completions": Row(
        3, 4, 6, active=3, succeeded=2, exp_deletions=1, exp_active=2, exp_succeeded=2,
        exp_patches=3, exp_terminating=1,
    ),
    "status change": Row(
        2, 5, 6, active=2, succeeded=2, exp_active=2, exp_succeeded=2, exp_patches=2
    ),
    "deleting job": Row(
        2, 5, 6, deleting=True, pending=1, active=1, succeeded=1, exp_active=2,
        exp_succeeded=1, exp_patches=3,
    ),
    "limited pods": Row(100, 200, 6, pod_limit=10, exp_creations=10, exp_active=10),
    "too many job failures": Row(
        2, 5, deleting=True, failed=1, exp_failed=1,
        exp_conditions=[FT_BACKOFF, FAILED_BACKOFF], exp_patches=1,
    ),
    "job failures, unsatisfied expectations": Row(
        2, 5, deleting=True, failed=1, fake_expectation=1, exp_failed=1, exp_patches=1
    ),
    "indexed job start": Row(
        2, 5, 6, completion_mode="Indexed", exp_creations=2, exp_active=2,
        exp_created_indexes={0, 1},
    ),
    "indexed job with some pods deleted, podReplacementPolicy Failed": Row(
        2, 5, 6, completion_mode="Indexed", exp_creations=1, exp_active=1,
        exp_created_indexes={0}, pod_replacement_policy="Failed", terminating=1,
        exp_terminating=1,
    ),
    "indexed job with some pods deleted, podReplacementPolicy TerminatingOrFailed": Row(
        2, 5, 6, completion_mode="Indexed", exp_creations=2, exp_active=2,
        exp_created_indexes={0, 1}, pod_replacement_policy="TerminatingOrFailed",
        terminating=1, exp_terminating=1, exp_patches=1,
    ),
    "indexed job completed": Row(
        2, 3, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("1", "Succeeded"), ("2", "Succeeded")],
        exp_succeeded=3, exp_failed=1, exp_completed_idxs="0-2",
        exp_conditions=[SCM_DONE, COMPLETE], exp_patches=4,
    ),
    "indexed job failed": Row(
        2, 3, 0, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("2", "Running")],
        exp_succeeded=1, exp_failed=2, exp_completed_idxs="0", exp_conditions=[FT_BACKOFF],
        exp_patches=3, exp_terminating=1, exp_deletions=1,
    ),
    "count terminating pods when indexed job fails": Row(
        2, 3, 0, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("2", "Running")],
        exp_succeeded=1, exp_failed=2, exp_completed_idxs="0", exp_conditions=[FT_BACKOFF],
        exp_patches=3, exp_deletions=1, exp_terminating=1,
    ),
    "count ready pods when job fails": Row(
        2, 3, 0, active=2, ready=2, failed=1, exp_failed=3, exp_conditions=[FT_BACKOFF],
        exp_patches=3, exp_deletions=2, exp_terminating=2,
    ),
    "indexed job repeated completed index": Row(
        2, 3, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Succeeded"), ("1", "Succeeded")],
        exp_creations=1, exp_active=1, exp_succeeded=2, exp_completed_idxs="0,1",
        exp_created_indexes={2}, exp_patches=3,
    ),
    "indexed job some running and completed pods": Row(
        8, 20, 6, completion_mode="Indexed",
        pods_with_indexes=[
            ("0", "Running"), ("2", "Succeeded"), ("3", "Pending"), ("4", "Succeeded"),
            ("5", "Succeeded"), ("7", "Succeeded"), ("8", "Succeeded"), ("9", "Succeeded"),
        ],
        exp_creations=6, exp_active=8, exp_succeeded=6, exp_completed_idxs="2,4,5,7-9",
        exp_created_indexes={1, 6, 10, 11, 12, 13}, exp_patches=6,
    ),
    "indexed job some failed pods": Row(
        3, 4, 6, completion_mode="Indexed",
        pods_with_indexes=[("0", "Failed"), ("1", "Pending"), ("2", "Failed")],
        exp_creations=2, exp_active=3, exp_failed=2, exp_created_indexes={0, 2}, exp_patches=2,
    ),
    "indexed job some pods without index": Row(
        2, 5, 6, completion_mode="Indexed", active=1, succeeded=1, failed=1,
        pods_with_indexes=[
            ("invalid", "Running"), ("invalid", "Succeeded"), ("invalid", "Failed"),
            ("invalid", "Pending"), ("0", "Succeeded"), ("1", "Running"), ("2", "Running"),
        ],
        exp_deletions=3, exp_active=2, exp_succeeded=1, exp_completed_idxs="0",
        exp_patches=8, exp_terminating=3,
    ),
    "indexed job repeated indexes": Row(
        5, 5, 6, completion_mode="Indexed", succeeded=1, failed=1,
        pods_with_indexes=[
            ("invalid", "Running"), ("0", "Succeeded"), ("1", "Running"), ("2", "Running"),
            ("2", "Pending"),
        ],
        exp_deletions=2, exp_active=2, exp_succeeded=1, exp_completed_idxs="0",
        exp_patches=5, exp_terminating=2,
    ),
    "indexed job with indexes outside of range": Row(
        2, 5, 6, completion_mode="Indexed",
        pods_with_indexes=[
            ("0", "Succeeded"), ("5", "Running"), ("6", "Succeeded"), ("7", "Pending"),
            ("8", "Failed"),
        ],
        exp_succeeded=1, exp_deletions=2, exp_completed_idxs="0", exp_active=0,
        exp_patches=5, exp_terminating=2,
    ),
    "suspending a job with satisfied expectations": Row(
        2, 4, 6, suspend=True, active=2, exp_deletions=2, exp_conditions=[SUSPENDED],
        exp_patches=2, exp_terminating=2,
    ),
    "suspending a job with satisfied expectations; PodReplacementPolicy enabled": Row(
        2, 4, 6, suspend=True, active=2, exp_deletions=2, exp_conditions=[SUSPENDED],
        exp_patches=2, exp_terminating=2,
    ),
    "count ready pods when suspending a job with satisfied expectations": Row(
        2, 4, 6, suspend=True, active=2, ready=2, exp_deletions=2, exp_conditions=[SUSPENDED],
        exp_patches=2, exp_terminating=2,
    ),
    "suspending a job with unsatisfied expectations": Row(
        2, 4, 6, suspend=True, active=3, fake_expectation=-1, exp_active=3
    ),
    "count ready pods when suspending a job with unsatisfied expectations": Row(
        2, 4, 6, suspend=True, active=3, ready=3, fake_expectation=-1, exp_active=3, exp_ready=3
    ),
    "suspending a job with unsatisfied expectations; PodReplacementPolicy enabled": Row(
        2, 4, 6, suspend=True, active=3, fake_expectation=-1, exp_active=3
    ),
    "resuming a suspended job": Row(
        2, 4, 6, was_suspended=True, exp_creations=2, exp_active=2,
        exp_conditions=[("Suspended", "False", "JobResumed", "Job resumed")],
    ),
    "suspending a deleted job": Row(
        2, 4, 6, suspend=True, deleting=True, active=2, exp_active=2, exp_patches=2
    ),
    "FailureTarget=False condition added manually is ignored": Row(
        1, 1, active=1, ready=1,
        initial_status={"active": 1, "conditions": [("FailureTarget", "False", "ConditionAddedManually", "Testing")]},
        exp_active=1, exp_ready=1,
        exp_conditions=[("FailureTarget", "False", "ConditionAddedManually", "Testing")],
    ),
    "SuccessCriteriaMet=False condition added manually is ignored": Row(
        1, 1, active=1, ready=1,
        initial_status={"active": 1, "conditions": [("SuccessCriteriaMet", "False", "ConditionAddedManually", "Testing")]},
        exp_active=1, exp_ready=1,
        exp_conditions=[("SuccessCriteriaMet", "False", "ConditionAddedManually", "Testing")],
    ),
    "backoff limit exceeded; JobManagedBy enabled": Row(
        2, 3, 0, completion_mode="Indexed",
        pods_with_indexes=[("0", "Succeeded"), ("1", "Failed"), ("2", "Running")],
        exp_succeeded=1, exp_failed=2, exp_completed_idxs="0", exp_conditions=[FT_BACKOFF],
        exp_patches=3, exp_terminating=1, exp_deletions=1,
    ),
}


def _initial_status(h: Any, row: Row) -> Obj | None:
    if row.initial_status is None and not row.was_suspended:
        return None
    init = row.initial_status or {}
    status: Obj = {}
    if row.initial_status is not None:
        status = {
            "startTime": h.now(),
            "active": init.get("active", 0),
            "succeeded": init.get("succeed", 0),
            "failed": init.get("failed", 0),
        }
    conds = [
        {"type": t, "status": s, "reason": r, "message": m, "lastProbeTime": h.now(), "lastTransitionTime": h.now()}
        for t, s, r, m in init.get("conditions", [])
    ]
    if row.was_suspended:
        conds.append(
            {"type": "Suspended", "status": "True", "reason": "JobSuspended", "message": "Job suspended",
             "lastProbeTime": h.now(), "lastTransitionTime": h.now()}
        )
    if conds:
        status["conditions"] = conds
    return status


@pytest.mark.parametrize("row", [pytest.param(r, id=n) for n, r in ROWS.items()])
def test_controller_sync_job(row: Row) -> None:
    h = build_sync_harness()
    job = new_job(
        row.parallelism, None if row.completions < 0 else row.completions, row.backoff_limit,
        row.completion_mode,
    )
    job["spec"]["suspend"] = row.suspend
    if row.pod_replacement_policy:
        job["spec"]["podReplacementPolicy"] = row.pod_replacement_policy
    if row.pod_failure_policy is not None:
        job["spec"]["podFailurePolicy"] = row.pod_failure_policy
    job = store_job(h, job, _initial_status(h, row), deleting=row.deleting)
    set_pods_statuses(h, job, row.pending, row.active, row.succeeded, row.failed, row.terminating, row.ready)
    set_pods_with_indexes(h, job, row.pods_with_indexes)
    key = h.key()
    if row.backoff_failures is not None:
        h.ctrl._backoff[key] = BackoffRecord(row.backoff_failures, h.clock.now())
    if row.fake_expectation > 0:
        h.ctrl._expectations.expect(key, adds=row.fake_expectation)
    elif row.fake_expectation < 0:
        h.ctrl._expectations.expect(key, dels=-row.fake_expectation)
    if row.controller_error:
        h.spy.err = ServiceUnavailable("fake error")
    h.spy.create_limit = row.pod_limit

    err = h.sync()

    if row.controller_error or (row.pod_limit and h.spy.create_calls > row.pod_limit):
        assert err is not None
    else:
        assert err is None
    assert len(h.spy.templates) == row.exp_creations
    indexed = row.completion_mode == "Indexed"
    got_indexes = set()
    for t in h.spy.templates:
        ref = t["metadata"]["ownerReferences"][0]
        assert (ref["apiVersion"], ref["kind"], ref["name"], ref["uid"], ref["controller"]) == (
            "batch/v1", "Job", "foobar", job["metadata"]["uid"], True
        )
        if indexed:
            ix = int(t["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"])
            got_indexes.add(ix)
            assert t["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == str(ix)
            assert t["spec"]["hostname"] == f"foobar-{ix}"
            assert t["metadata"]["generateName"] == f"foobar-{ix}-"
            assert t["spec"]["containers"][0]["env"] == [  # checkJobCompletionEnvVariable
                {
                    "name": "JOB_COMPLETION_INDEX",
                    "valueFrom": {
                        "fieldRef": {
                            "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"
                        }
                    },
                }
            ]
        else:
            assert not t["spec"].get("hostname")
    if indexed:
        assert got_indexes == row.exp_created_indexes
    assert len(h.spy.deleted) == row.exp_deletions
    status = h.job()["status"]
    assert status.get("active", 0) == row.exp_active
    assert status.get("ready") == row.exp_ready
    assert status.get("succeeded", 0) == row.exp_succeeded
    assert status.get("completedIndexes", "") == row.exp_completed_idxs
    assert status.get("failed", 0) == row.exp_failed
    assert status.get("terminating") == row.exp_terminating
    if row.suspend:
        assert not status.get("startTime")
    else:
        assert status.get("startTime")
    assert conditions(status) == row.exp_conditions
    assert len(h.spy.patches) == row.exp_patches


# -- TestSyncJobPastDeadline --------------------------------------------------------------

FT_DEADLINE = ("FailureTarget", "True", "DeadlineExceeded", "Job was active longer than specified deadline")
FAILED_DEADLINE = ("Failed", "True", "DeadlineExceeded", "Job was active longer than specified deadline")
_EMULATED_134 = (
    "runs at emulation version 1.34, where MutableSchedulingDirectivesForSuspendedJobs is off "
    "and suspending keeps startTime; the reference models 1.37 (gate on, startTime cleared) "
    "and has no such gate to turn off"
)

# name: (parallelism, completions, activeDeadlineSeconds, startTime (seconds ago),
#        backoffLimit, suspend, active, succeeded, failed,
#        expectedDeletions, expectedSucceeded, expectedFailed, expectedConditions)
DEADLINE_ROWS: dict[str, tuple[Any, ...]] = {
    "activeDeadlineSeconds less than single pod execution": (
        1, 1, 10, 15, 6, False, 1, 0, 0, 1, 0, 1, [FT_DEADLINE]
    ),
    "activeDeadlineSeconds bigger than single pod execution": (
        1, 2, 10, 15, 6, False, 1, 1, 0, 1, 1, 1, [FT_DEADLINE]
    ),
    "activeDeadlineSeconds times-out before any pod starts": (
        1, 1, 10, 10, 6, False, 0, 0, 0, 0, 0, 0, [FT_DEADLINE, FAILED_DEADLINE]
    ),
    "activeDeadlineSeconds with backofflimit reach": (
        1, 1, 1, 10, 0, False, 0, 0, 1, 0, 0, 1, [FT_BACKOFF, FAILED_BACKOFF]
    ),
    "activeDeadlineSeconds is not triggered when Job is suspended": (
        1, 2, 10, 15, 6, True, 0, 0, 0, 0, 0, 0, [SUSPENDED]
    ),
    "activeDeadlineSeconds exceeded": (1, 2, 10, 15, 6, False, 1, 1, 0, 1, 1, 1, [FT_DEADLINE]),
    "activeDeadlineSeconds exceeded; JobManagedBy enabled": (
        1, 2, 10, 15, 6, False, 1, 1, 0, 1, 1, 1, [FT_DEADLINE]
    ),
    "activeDeadlineSeconds exceeded and backofflimit reached; JobManagedBy enabled": (
        1, 1, 1, 10, 0, False, 0, 0, 1, 0, 0, 1, [FT_BACKOFF, FAILED_BACKOFF]
    ),
}


def _deadline_params() -> list[Any]:
    out = []
    for name, row in DEADLINE_ROWS.items():
        marks = [pytest.mark.skip(reason=_EMULATED_134)] if row[5] else []
        out.append(pytest.param(*row, id=name, marks=marks))
    return out


@pytest.mark.parametrize(
    ("par", "comp", "ads", "start_ago", "backoff", "suspend", "active", "succeeded", "failed",
     "exp_del", "exp_succeeded", "exp_failed", "exp_conditions"),
    _deadline_params(),
)
def test_sync_job_past_deadline(
    par: int, comp: int, ads: int, start_ago: int, backoff: int, suspend: bool, active: int,
    succeeded: int, failed: int, exp_del: int, exp_succeeded: int, exp_failed: int,
    exp_conditions: list[tuple[str, str, str, str]],
) -> None:
    h = build_sync_harness()
    h.clock.run_until(Instant(h.clock.now() + seconds(3600)))  # room for a start in the past
    job = new_job(par, comp, backoff)
    job["spec"]["activeDeadlineSeconds"] = ads
    job["spec"]["suspend"] = suspend
    start = rfc3339(Instant(h.clock.now() - seconds(start_ago)))
    job = store_job(h, job, {"startTime": start})
    set_pods_statuses(h, job, 0, active, succeeded, failed)

    assert h.sync() is None

    assert h.spy.templates == []
    assert len(h.spy.deleted) == exp_del
    status = h.job()["status"]
    assert status.get("active", 0) == 0
    assert status.get("succeeded", 0) == exp_succeeded
    assert status.get("failed", 0) == exp_failed
    assert status.get("startTime")
    assert conditions(status) == exp_conditions


def test_single_job_failed_condition() -> None:
    """``TestSingleJobFailedCondition``: a Failed=False condition becomes the one Failed=True."""
    h = build_sync_harness()
    h.clock.run_until(Instant(h.clock.now() + seconds(3600)))
    job = new_job(1, 1, 6)
    job["spec"]["activeDeadlineSeconds"] = 10
    status = {
        "startTime": rfc3339(Instant(h.clock.now() - seconds(15))),
        "conditions": [
            {"type": "Failed", "status": "False", "reason": "DeadlineExceeded",
             "message": "Job was active longer than specified deadline",
             "lastProbeTime": h.now(), "lastTransitionTime": h.now()}
        ],
    }
    store_job(h, job, status)

    assert h.sync() is None

    assert h.spy.deleted == []
    failed = [c for c in h.job()["status"]["conditions"] if c["type"] == "Failed"]
    assert [c["status"] for c in failed] == ["True"]


def test_sync_job_complete() -> None:
    """``TestSyncJobComplete``: syncing a Complete Job leaves its conditions alone. (The
    apiserver refuses Complete without SuccessCriteriaMet, which upstream's fake client
    stores; so both are recorded and both must stay.)"""
    h = build_sync_harness()
    status = {
        "conditions": [
            {"type": t, "status": "True", "reason": "", "message": "",
             "lastProbeTime": h.now(), "lastTransitionTime": h.now()}
            for t in ("SuccessCriteriaMet", "Complete")
        ],
        "succeeded": 1,
        "completionTime": h.now(),
        "startTime": h.now(),
    }
    store_job(h, new_job(1, 1, 6), status)

    assert h.sync() is None

    assert h.job()["status"]["conditions"] == status["conditions"]


# -- TestEnsureJobConditions --------------------------------------------------------------

C = tuple[str, str, str]  # (type, status, reason); message ""
ENSURE_ROWS: dict[str, tuple[list[C], str, str, list[C], bool]] = {
    "append true condition": ([], "True", "foo", [("Suspended", "True", "foo")], True),
    "append false condition": ([], "False", "foo", [], False),
    "update true condition reason": (
        [("Suspended", "True", "foo")], "True", "bar", [("Suspended", "True", "bar")], True
    ),
    "update true condition status": (
        [("Suspended", "True", "foo")], "False", "foo", [("Suspended", "False", "foo")], True
    ),
    "update false condition status": (
        [("Suspended", "False", "foo")], "True", "foo", [("Suspended", "True", "foo")], True
    ),
    "condition already exists": (
        [("Suspended", "True", "foo")], "True", "foo", [("Suspended", "True", "foo")], False
    ),
}


@pytest.mark.parametrize(
    ("have", "want_status", "want_reason", "expect", "expect_update"),
    [pytest.param(*r, id=n) for n, r in ENSURE_ROWS.items()],
)
def test_ensure_job_conditions(
    have: list[C], want_status: str, want_reason: str, expect: list[C], expect_update: bool
) -> None:
    stamp = "2026-09-01T00:00:00Z"
    status: Obj = {
        "conditions": [
            {"type": t, "status": s, "reason": r, "message": "", "lastProbeTime": stamp,
             "lastTransitionTime": stamp}
            for t, s, r in have
        ]
    }
    updated = jc.ensure_condition(status, "Suspended", want_status, want_reason, "", stamp)
    assert updated is expect_update
    assert [(c["type"], c["status"], c["reason"]) for c in status.get("conditions") or []] == expect
