"""Upstream backoffLimitPerIndex helpers (k8s.io/kubernetes v1.37.2, pkg/controller/job):
indexed_job_utils_test.go TestIsIndexFailed, TestCalculateFailedIndexes,
TestGetPodsWithDelayedDeletionPerIndex, TestGetNewIndexFailureCountValue,
TestGetIndexFailureCount and job_controller_test.go
TestGetPodCreationInfoForIndependentIndexes, against ``reference_impl.controllers.job.per_index``."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.clock import Duration, Instant, rfc3339, seconds
from reference_impl.controllers.job import per_index as pi
from reference_impl.controllers.job.indexed_job_utils import parse_indexes

Obj = dict[str, Any]
INDEX = "batch.kubernetes.io/job-completion-index"
TRACKING = "batch.kubernetes.io/job-tracking"
NOW = Instant(seconds(3600))  # the test's fake clock: an hour into the simulation


def _pod(
    uid: str = "x",
    index: str | None = None,
    count: str | None = None,
    phase: str | None = None,
    finalizer: bool = False,
    deleted: Instant | None = None,
    status: Obj | None = None,
) -> Obj:
    """``buildPod()`` with its builder calls as keyword arguments."""
    ann: Obj = {}
    if index is not None:
        ann[INDEX] = index
    if count is not None:
        ann[pi.INDEX_FAILURE_COUNT] = count
    meta: Obj = {"uid": uid, "annotations": ann, "creationTimestamp": rfc3339(Instant(0))}
    if finalizer:
        meta["finalizers"] = [TRACKING]
    if deleted is not None:
        meta["deletionTimestamp"] = rfc3339(deleted)
    st: Obj = dict(status or {})
    if phase is not None:
        st["phase"] = phase
    return {"metadata": meta, "status": st}


def _job(completions: int, per_index: int, policy: Obj | None = None, failed: str | None = None) -> Obj:
    spec: Obj = {"completions": completions, "backoffLimitPerIndex": per_index}
    if policy is not None:
        spec["podFailurePolicy"] = policy
    status: Obj = {} if failed is None else {"failedIndexes": failed}
    return {"spec": spec, "status": status}


def _exit(code: int) -> Obj:
    return {"phase": "Failed", "containerStatuses": [{"state": {"terminated": {"exitCode": code}}}]}


FAIL_INDEX_ON_3 = {
    "rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [3]}}]
}


@pytest.mark.parametrize(
    ("job", "pod", "want"),
    [
        pytest.param(
            _job(2, 0),
            _pod(count="0", phase="Failed", index="0", finalizer=True),
            True,
            id="failed pod exceeding backoffLimitPerIndex, when backoffLimitPerIndex=0",
        ),
        pytest.param(
            _job(2, 1),
            _pod(count="1", phase="Failed", index="1", finalizer=True),
            True,
            id="failed pod exceeding backoffLimitPerIndex, when backoffLimitPerIndex=1",
        ),
        pytest.param(
            _job(2, 1, FAIL_INDEX_ON_3),
            _pod(count="0", status=_exit(3), index="0", finalizer=True),
            True,
            id="matching FailIndex pod failure policy",
        ),
    ],
)
def test_is_index_failed(job: Obj, pod: Obj, want: bool) -> None:
    assert pi.is_index_failed(job, pod) is want


@pytest.mark.parametrize(
    ("job", "pods", "want"),
    [
        pytest.param(
            _job(2, 1),
            [
                _pod(count="0", phase="Failed", index="0", finalizer=True),
                _pod(count="1", phase="Failed", index="1", finalizer=True),
            ],
            {1},
            id="one new index failed",
        ),
        pytest.param(
            _job(2, 0),
            [_pod(count="0", phase="Failed", index="0")],
            set(),
            id="pod without finalizer is ignored",
        ),
        pytest.param(
            _job(2, 0),
            [_pod(count="0", phase="Failed", index="3")],
            set(),
            id="pod outside completions is ignored",
        ),
        pytest.param(
            _job(2, 0, failed="0"),
            [_pod(count="0", phase="Failed", index="1", finalizer=True)],
            {0, 1},
            id="extend the failed indexes",
        ),
        pytest.param(
            _job(2, 0, failed=""),
            [_pod(count="0", phase="Failed", index="1", finalizer=True)],
            {1},
            id="prev failed indexes empty",
        ),
        pytest.param(
            _job(2, 0, failed="9"),
            [_pod(count="0", phase="Failed", index="1", finalizer=True)],
            {1},
            id="prev failed indexes outside the completions",
        ),
    ],
)
def test_calculate_failed_indexes(job: Obj, pods: list[Obj], want: set[int]) -> None:
    assert pi.calculate_failed_indexes(job, job["status"], pods) == want


def _succeeded(job: Obj, pods: list[Obj]) -> set[int]:
    """``calculateSucceededIndexes`` as the upstream test computes it."""
    completions = int(job["spec"]["completions"])
    out = parse_indexes(job["status"].get("completedIndexes"), completions)
    for p in pods:
        ix = p["metadata"]["annotations"].get(INDEX)
        if p["status"].get("phase") == "Succeeded" and ix is not None and int(ix) < completions:
            if TRACKING in (p["metadata"].get("finalizers") or []):
                out.add(int(ix))
    return out


@pytest.mark.parametrize(
    ("job", "pods", "expected_rm", "want"),
    [
        pytest.param(
            _job(3, 1),
            [
                _pod("a", count="0", phase="Failed", index="0", finalizer=True),
                _pod("b", count="1", phase="Failed", index="1", finalizer=True),
                _pod("c", count="0", phase="Failed", index="2", finalizer=True),
            ],
            (),
            ["a", "c"],
            id="failed pods are kept corresponding to non-failed indexes are kept",
        ),
        pytest.param(
            _job(2, 0),
            [_pod("a", count="0", phase="Failed", index="0")],
            (),
            [],
            id="failed pod without finalizer; the pod's deletion is not delayed as it already started",
        ),
        pytest.param(
            _job(2, 0),
            [_pod("a", count="0", phase="Failed", index="0", finalizer=True)],
            ("a",),
            [],
            id="failed pod with expected finalizer removal; the pod's deletion is not delayed as it already started",
        ),
        pytest.param(
            _job(2, 0),
            [_pod("a", count="0", phase="Failed", index="4", finalizer=True)],
            (),
            [],
            id="failed pod with index outside of completions; the pod's deletion is not delayed",
        ),
        pytest.param(
            _job(2, 1),
            [
                _pod("a1", count="0", phase="Failed", index="0", finalizer=True),
                _pod("a2", count="1", phase="Running", index="0", finalizer=True),
            ],
            (),
            [],
            id="failed pod for active index; the pod's deletion is not delayed as it is already replaced",
        ),
        pytest.param(
            _job(2, 1),
            [
                _pod("a1", count="0", phase="Failed", index="0", finalizer=True),
                _pod("a2", count="1", phase="Succeeded", index="0", finalizer=True),
            ],
            (),
            [],
            id="failed pod for succeeded index; the pod's deletion is not delayed as it is already replaced",
        ),
        pytest.param(
            _job(2, 4),
            [
                _pod("a1", count="0", phase="Failed", index="0", finalizer=True),
                _pod("a3", count="2", phase="Failed", index="0", finalizer=True),
                _pod("a2", count="1", phase="Failed", index="0", finalizer=True),
            ],
            (),
            ["a3"],
            id="multiple failed pods for index with different failure count; only the pod with highest failure count is kept",
        ),
        pytest.param(
            _job(2, 4),
            [
                _pod("a1", "0", "1", "Failed", True, Instant(NOW - seconds(1))),
                _pod("a3", "0", "1", "Failed", True, NOW),
                _pod("a2", "0", "1", "Failed", True, Instant(NOW - seconds(2))),
            ],
            (),
            ["a3"],
            id="multiple failed pods for index with different finish times; only the last failed pod is kept",
        ),
    ],
)
def test_pods_with_delayed_deletion_per_index(
    job: Obj, pods: list[Obj], expected_rm: tuple[str, ...], want: list[str]
) -> None:
    failed = pi.calculate_failed_indexes(job, job["status"], pods)
    got = pi.pods_with_delayed_deletion(job, pods, _succeeded(job, pods), failed, expected_rm)
    assert sorted(p["metadata"]["uid"] for p in got.values()) == want


IGNORE_DISRUPTION = {
    "rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    ]
}


@pytest.mark.parametrize(
    ("job", "pod", "want"),
    [
        pytest.param({"spec": {}}, None, (0, 0), id="first pod created"),
        pytest.param(
            {"spec": {}},
            _pod("a", count="0", phase="Failed", index="0", finalizer=True),
            (1, 0),
            id="failed pod being replaced with 0 index failure count",
        ),
        pytest.param(
            {"spec": {}},
            _pod("a", count="3", phase="Failed", index="0", finalizer=True),
            (4, 0),
            id="failed pod being replaced with >0 index failure count",
        ),
        pytest.param(
            {"spec": {"podFailurePolicy": IGNORE_DISRUPTION}},
            _pod(
                "a",
                count="3",
                index="3",
                finalizer=True,
                status={
                    "phase": "Failed",
                    "conditions": [{"type": "DisruptionTarget", "status": "True"}],
                },
            ),
            (3, 1),
            id="failed pod being replaced, matching the ignore rule",
        ),
    ],
)
def test_new_index_failure_count_value(job: Obj, pod: Obj | None, want: tuple[int, int]) -> None:
    assert pi.new_index_failure_counts(job, pod) == want


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param({"metadata": {}}, 0, id="no annotation"),
        pytest.param(_pod(count="2"), 2, id="valid value"),
        pytest.param(_pod(count=str(2**31 - 1)), 2**31 - 1, id="valid maxint32 value"),
        pytest.param(_pod(count=str(2**31)), 0, id="too large value"),
        pytest.param(_pod(count="-1"), 0, id="negative value"),
        pytest.param(_pod(count="xyz"), 0, id="invalid int value"),
    ],
)
def test_get_index_failure_count(pod: Obj, want: int) -> None:
    assert pi.index_failure_count(pod) == want


def _deleted(count: str, at: Instant, index: str | None = None) -> Obj:
    return _pod(count=count, index=index, deleted=at)


@pytest.mark.parametrize(
    ("indexes", "delayed", "want_indexes", "want_wait"),
    [
        pytest.param([1, 3], {}, [1, 3], 0, id="simple index creation"),
        pytest.param(
            [1, 3],
            {1: _deleted("0", NOW, "1")},
            [3],
            0,
            id="subset of indexes can be recreated now",
        ),
        pytest.param(
            [1, 3],
            {1: _deleted("0", NOW), 3: _deleted("0", Instant(NOW - seconds(10)))},
            [3],
            0,
            id="subset of indexes can be recreated now as the pods failed long time ago",
        ),
        pytest.param(
            [1, 2, 3],
            {1: _deleted("1", NOW), 2: _deleted("0", NOW), 3: _deleted("2", NOW)},
            [],
            seconds(10),
            id="no indexes can be recreated now, need to wait default pod failure backoff",
        ),
        pytest.param(
            [1, 2, 3],
            {
                1: _deleted("1", Instant(NOW - seconds(1))),
                2: _deleted("0", Instant(NOW - seconds(1))),
                3: _deleted("2", Instant(NOW - seconds(1))),
            },
            [],
            seconds(9),
            id="no indexes can be recreated now, need to wait but 1s already passed",
        ),
    ],
)
def test_get_pod_creation_info_for_independent_indexes(
    indexes: list[int], delayed: dict[int, Obj], want_indexes: list[int], want_wait: Duration
) -> None:
    assert pi.creatable_indexes(NOW, indexes, delayed) == (want_indexes, want_wait)


T2009 = Instant(-seconds(3600))  # backoff_utils_test.go's defaultTestTime, any fixed instant


def _failed_at(count: str, ignored: str | None = None) -> Obj:
    pod = _pod(count=count, phase="Failed", deleted=T2009)
    if ignored is not None:
        pod["metadata"]["annotations"][pi.INDEX_IGNORED_FAILURE_COUNT] = ignored
    return pod


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(None, 0, id="no failures"),
        pytest.param(
            _failed_at("2"), seconds(20), id="two prev failures; current time and failure time are same"
        ),
        pytest.param(
            _failed_at("1", "1"),
            seconds(20),
            id="one prev failure counted and one ignored; current time and failure time are same",
        ),
    ],
)
def test_get_remaining_backoff_time_per_index(pod: Obj | None, want: Duration) -> None:
    """backoff_utils_test.go TestGetRemainingBackoffTimePerIndex (5 s default, 700 s max)."""
    got = pi.remaining_time_per_index(T2009, pod, default=seconds(5), maximum=seconds(700))
    assert got == want
