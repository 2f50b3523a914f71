"""Upstream ``pkg/controller/job/tracking_utils_test.go`` (v1.37.2):
``TestUIDTrackingExpectations``, ``TestRecordFinishedPodWithTrackingFinalizer`` and
``TestRecordJobPodFailurePolicyActions``, against ``job/tracking_utils.py`` and
``job/metrics.py``. The metric rows compare the counter's series with those upstream's
Prometheus text lists (none for an empty ``want``)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controllers.job import metrics
from reference_impl.controllers.job.tracking import JOB_TRACKING_FINALIZER
from reference_impl.controllers.job.tracking_utils import (
    UIDTrackingExpectations,
    record_finished_pod_with_tracking_finalizer,
)

Obj = dict[str, Any]


def test_uid_tracking_expectations() -> None:
    tracks = [
        ("foo", ["a", "b", "c", "d"], ["e", "f"]),
        ("bar", ["x", "y", "z"], ["u", "v", "w"]),
        ("baz", ["w"], ["a"]),
    ]
    exp = UIDTrackingExpectations()
    for job, first, _ in tracks:
        exp.expect_finalizers_removed(job, first)
    for job, first, _ in tracks:
        uids = exp.get_set(job)
        assert uids is not None and sorted(uids) == sorted(first)
    for job, first, second in tracks:
        for uid in first:
            exp.finalizer_removal_observed(job, uid)
        exp.expect_finalizers_removed(job, second)
    for job, _, second in tracks:
        uids = exp.get_set(job)
        assert uids is not None and sorted(uids) == sorted(second)
    for job, _, _ in tracks:
        exp.delete_expectations(job)
        assert exp.get_set(job) is None


def _pod(phase: str, finalizer: bool = True) -> Obj:
    meta: Obj = {"finalizers": [JOB_TRACKING_FINALIZER]} if finalizer else {}
    return {"metadata": meta, "status": {"phase": phase}}


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, _pod("Pending"), {}, id="new non-finished Pod with finalizer"),
        pytest.param(_pod("Running"), _pod("Failed"), {"add": 1}, id="pod with finalizer fails"),
        pytest.param(_pod("Running"), _pod("Succeeded"), {"add": 1}, id="pod with finalizer succeeds"),
        pytest.param(
            _pod("Succeeded"), _pod("Succeeded", False), {"delete": 1}, id="succeeded pod loses finalizer"
        ),
        pytest.param(_pod("Succeeded", False), None, {}, id="pod without finalizer removed"),
    ],
)
def test_record_finished_pod_with_tracking_finalizer(old: Obj | None, new: Obj | None, want: Obj) -> None:
    m = metrics.JobMetrics()
    record_finished_pod_with_tracking_finalizer(m, old, new)
    assert m.terminated_pods_tracking_finalizer_total.values == want


@pytest.mark.parametrize(
    ("counts", "want"),
    [
        pytest.param(None, {}, id="no actions"),
        pytest.param({"FailJob": 2}, {"FailJob": 2}, id="single action"),
        pytest.param(
            {"FailJob": 2, "Ignore": 3, "Count": 1},
            {"Count": 1, "FailJob": 2, "Ignore": 3},
            id="multiple actions",
        ),
    ],
)
def test_record_job_pod_failure_policy_actions(counts: dict[str, int] | None, want: Obj) -> None:
    m = metrics.JobMetrics()
    metrics.record_job_pod_failure_policy_actions(m, counts)
    assert m.pod_failures_handled_by_failure_policy.values == want
