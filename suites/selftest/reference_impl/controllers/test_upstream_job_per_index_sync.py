"""Upstream job_controller_test.go TestSyncJobWithJobBackoffLimitPerIndex (k8s.io/kubernetes
v1.37.2): one sync of an Indexed Job with backoffLimitPerIndex, through ``job_pfp_harness``;
and TestTrackJobStatusAndRemoveFinalizers' backoffLimitPerIndex rows, on the status writer.

Its JobManagedBy on/off variants expect the same status. Ready, startTime and
completionTime are not compared, as upstream ignores them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from job_pfp_harness import PodRow, sync_once

from reference_impl.clock import Instant
from reference_impl.controllers.controller_utils import is_pod_active
from reference_impl.controllers.job import per_index as pi
from reference_impl.controllers.job.indexed_job_utils import with_ordered_indexes
from reference_impl.controllers.job.status import JobStatusWriter, count_terminating
from reference_impl.controllers.job.sync_ctx import SyncCtx

Obj = dict[str, Any]
MAX_INT32 = 2**31 - 1
FAILED_INDEXES = (
    ("FailureTarget", "FailedIndexes", "Job has failed indexes"),
    ("Failed", "FailedIndexes", "Job has failed indexes"),
)
MAX_EXCEEDED = (
    (
        "FailureTarget",
        "MaxFailedIndexesExceeded",
        "Job has exceeded the specified maximal number of failed indexes",
    ),
)


def _spec(n: int, backoff: int = MAX_INT32, policy: Obj | None = None, max_failed: int | None = None) -> Obj:
    spec: Obj = {
        "parallelism": n,
        "completions": n,
        "backoffLimit": backoff,
        "completionMode": "Indexed",
        "backoffLimitPerIndex": 1,
    }
    if policy is not None:
        spec["podFailurePolicy"] = policy
    if max_failed is not None:
        spec["maxFailedIndexes"] = max_failed
    return spec


def _pod(index: str, phase: str, count: str) -> PodRow:
    return PodRow({"phase": phase}, index=index, failure_count=count)


def _exit3(index: str, name: str | None = None) -> PodRow:
    cs: Obj = {"state": {"terminated": {"exitCode": 3}}}
    if name is not None:
        cs["name"] = name
    return PodRow({"phase": "Failed", "containerStatuses": [cs]}, index=index, failure_count="0")


def _on3(action: str) -> Obj:
    return {"rules": [{"action": action, "onExitCodes": {"operator": "In", "values": [3]}}]}


def _want(
    active: int = 0,
    succeeded: int = 0,
    failed: int = 0,
    terminating: int = 0,
    completed: str = "",
    failed_ix: str = "",
    conds: tuple[tuple[str, str, str], ...] = (),
) -> Obj:
    return {
        "active": active,
        "succeeded": succeeded,
        "failed": failed,
        "terminating": terminating,
        "completedIndexes": completed,
        "failedIndexes": failed_ix,
        "uncountedTerminatedPods": {},
        "conditions": list(conds),
    }


FAIL_JOB_MSG = "Container x for pod default/mypod-0 failed with exit code 3 matching FailJob rule at index 0"
MAX_FAILED_PODS = [
    _pod("0", "Failed", "1"),
    _pod("1", "Succeeded", "0"),
    _pod("2", "Failed", "1"),
    _pod("3", "Running", "0"),
]
FAILED_PODS = [_pod("0", "Failed", "1"), _pod("1", "Succeeded", "0")]

ROWS = [
    pytest.param(
        _spec(2),
        [_pod("0", "Failed", "0"), _pod("0", "Succeeded", "1"), _pod("1", "Succeeded", "0")],
        _want(
            succeeded=2,
            failed=1,
            completed="0,1",
            conds=(
                ("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"),
                ("Complete", "CompletionsReached", "Reached expected number of succeeded pods"),
            ),
        ),
        id="successful job after a single failure within index",
    ),
    pytest.param(
        _spec(2),
        [_pod("0", "Failed", "0")],
        _want(active=2),
        id="single failed pod, not counted as the replacement pod creation is delayed",
    ),
    pytest.param(
        _spec(2),
        [_pod("0", "Failed", "0"), _pod("0", "Pending", "1")],
        _want(active=2, failed=1),
        id="single failed pod replaced already",
    ),
    pytest.param(
        _spec(2),
        [
            _pod("0", "Running", "0"),
            PodRow(
                {
                    "phase": "Failed",
                    "containerStatuses": [
                        {"name": "x", "state": {"terminated": {"exitCode": 0, "finishedAt": "@now"}}}
                    ],
                },
                index="1",
                failure_count="0",
            ),
        ],
        _want(active=1),
        id="replacement pod creation delayed by per-index backoff while another index runs",
    ),
    pytest.param(
        _spec(2),
        [_pod("0", "Failed", "1")],
        _want(active=1, failed=1, failed_ix="0"),
        id="single failed index due to exceeding the backoff limit per index, the job continues",
    ),
    pytest.param(
        _spec(2, policy=_on3("FailIndex")),
        [_exit3("0")],
        _want(active=1, failed=1, failed_ix="0"),
        id="single failed index due to FailIndex action, the job continues",
    ),
    pytest.param(
        _spec(2, backoff=6, policy=_on3("FailJob")),
        [_exit3("0", "x")],
        _want(
            failed=1,
            conds=(("FailureTarget", "PodFailurePolicy", FAIL_JOB_MSG), ("Failed", "PodFailurePolicy", FAIL_JOB_MSG)),
        ),
        id="job failed index due to FailJob action",
    ),
    pytest.param(
        _spec(2, backoff=6, policy=_on3("Ignore")),
        [_exit3("0", "x")],
        _want(active=2),
        id="job pod failure ignored due to matching Ignore action",
    ),
    pytest.param(
        _spec(2, backoff=1),
        [_pod("0", "Failed", "0"), _pod("1", "Failed", "0")],
        _want(
            failed=2,
            conds=(
                ("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
                ("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
            ),
        ),
        id="job failed due to exceeding backoffLimit before backoffLimitPerIndex",
    ),
    pytest.param(
        _spec(2),
        FAILED_PODS,
        _want(succeeded=1, failed=1, completed="1", failed_ix="0", conds=FAILED_INDEXES),
        id="job failed due to failed indexes",
    ),
    pytest.param(
        _spec(4, max_failed=1),
        MAX_FAILED_PODS,
        _want(succeeded=1, failed=3, terminating=1, completed="1", failed_ix="0,2", conds=MAX_EXCEEDED),
        id="job failed due to exceeding max failed indexes",
    ),
    pytest.param(
        _spec(2),
        FAILED_PODS,
        _want(succeeded=1, failed=1, completed="1", failed_ix="0", conds=FAILED_INDEXES),
        id="job failed due to failed indexes; JobManagedBy disabled",
    ),
    pytest.param(
        _spec(2),
        FAILED_PODS,
        _want(succeeded=1, failed=1, completed="1", failed_ix="0", conds=FAILED_INDEXES),
        id="job failed due to failed indexes; JobManagedBy enabled",
    ),
    pytest.param(
        _spec(4, max_failed=1),
        MAX_FAILED_PODS,
        _want(succeeded=1, failed=3, terminating=1, completed="1", failed_ix="0,2", conds=MAX_EXCEEDED),
        id="job failed due to exceeding max failed indexes; JobManagedBy disabled",
    ),
    pytest.param(
        _spec(4, max_failed=1),
        MAX_FAILED_PODS,
        _want(succeeded=1, failed=3, terminating=1, completed="1", failed_ix="0,2", conds=MAX_EXCEEDED),
        id="job failed due to exceeding max failed indexes; JobManagedBy enabled",
    ),
]


@pytest.mark.parametrize(("spec", "pods", "want"), ROWS)
def test_sync_job_with_backoff_limit_per_index(spec: Obj, pods: list[PodRow], want: Obj) -> None:
    st = sync_once(spec, pods).status
    got = {
        "active": st.get("active", 0),
        "succeeded": st.get("succeeded", 0),
        "failed": st.get("failed", 0),
        "terminating": st.get("terminating"),
        "completedIndexes": st.get("completedIndexes", ""),
        "failedIndexes": st.get("failedIndexes"),
        "uncountedTerminatedPods": st.get("uncountedTerminatedPods"),
        "conditions": [
            (c["type"], c["reason"], c["message"])
            for c in st.get("conditions") or []
            if c["status"] == "True"
        ],
    }
    assert all(c["status"] == "True" for c in st.get("conditions") or [])
    assert got == want


class _TrackSpy:
    """The server as ``JobStatusWriter`` sees it: status writes and finalizer removals are
    recorded, as upstream's updateStatusHandler and FakePodControl record them."""

    def __init__(self, pods: list[Obj]) -> None:
        self.pods = {p["metadata"]["name"]: p for p in pods}
        self.updates: list[Obj] = []
        self.patches = 0

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        return self.pods[name]

    def update(self, obj: Obj) -> Obj:
        self.patches += 1
        return obj

    def update_status(self, job: Obj) -> Obj:
        self.updates.append(copy.deepcopy(job["status"]))
        return job


def _track_pod(uid: str, phase: str, count: str) -> Obj:
    ann = {"batch.kubernetes.io/job-completion-index": "1", pi.INDEX_FAILURE_COUNT: count}
    meta = {"name": uid, "namespace": "default", "uid": uid, "annotations": ann}
    meta["finalizers"] = ["batch.kubernetes.io/job-tracking"]
    return {"metadata": meta, "spec": {}, "status": {"phase": phase}}


def _update(active: int = 0, failed: int = 0, uncounted_failed: tuple[str, ...] = (), failed_ix: str = "") -> Obj:
    u: Obj = {"failed": list(uncounted_failed)} if uncounted_failed else {}
    return {"active": active, "failed": failed, "uncounted": u, "failedIndexes": failed_ix}


@pytest.mark.parametrize(
    ("pods", "active", "want_updates", "want_rm"),
    [
        pytest.param(
            [_track_pod("a", "Failed", "0")],
            0,
            [_update()],
            0,
            id="indexed job with a failed pod with delayed finalizer removal; the pod is not counted",
        ),
        pytest.param(
            [_track_pod("a1", "Failed", "0"), _track_pod("a2", "Running", "1")],
            1,
            [_update(1, uncounted_failed=("a1",)), _update(1, failed=1)],
            1,
            id="indexed job with a failed pod which is recreated by a running pod; the pod is counted",
        ),
        pytest.param(
            [_track_pod("a", "Failed", "1")],
            0,
            [_update(uncounted_failed=("a",), failed_ix="1"), _update(failed=1, failed_ix="1")],
            1,
            id="indexed job with a failed pod for a failed index; the pod is counted",
        ),
    ],
)
def test_track_job_status_and_remove_finalizers_per_index(
    pods: list[Obj], active: int, want_updates: list[Obj], want_rm: int
) -> None:
    """job_controller_test.go TestTrackJobStatusAndRemoveFinalizers, its
    backoffLimitPerIndex rows (completions 6, backoffLimitPerIndex 1)."""
    spec = {"completionMode": "Indexed", "completions": 6, "backoffLimitPerIndex": 1}
    status: Obj = {"active": active} if active else {}
    job: Obj = {"metadata": {"name": "foobar", "namespace": "default"}, "spec": spec, "status": copy.deepcopy(status)}
    ctx = SyncCtx(
        job=job,
        status=status,
        pods=pods,
        active_pods=[p for p in pods if is_pod_active(p)],
        active=active,
        ready=0,
        terminating=count_terminating(pods),
        indexed=True,
    )
    failed = pi.calculate_failed_indexes(job, status, pods)
    ctx.failed_indexes = with_ordered_indexes([], sorted(failed))
    ctx.delayed = pi.pods_with_delayed_deletion(job, pods, set(), failed)
    spy = _TrackSpy(pods)
    JobStatusWriter(spy).track(ctx, Instant(0))  # type: ignore[arg-type]
    got = [
        {
            "active": u.get("active", 0),
            "failed": u.get("failed", 0),
            "uncounted": u.get("uncountedTerminatedPods"),
            "failedIndexes": u.get("failedIndexes"),
        }
        for u in spy.updates
    ]
    assert got == want_updates
    assert all(u.get("succeeded", 0) == 0 and not u.get("conditions") for u in spy.updates)
    assert spy.patches == want_rm
