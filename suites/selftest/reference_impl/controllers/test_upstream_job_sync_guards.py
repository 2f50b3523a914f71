"""Upstream ``job_controller_test.go`` ``TestSyncJobWhenManagedBy`` and
``TestSyncJobExpectations`` (v1.37.2): when a sync leaves a Job alone."""

from __future__ import annotations

from typing import Any

import pytest
from job_sync_harness import add_pod, build_sync_harness, new_job, store_job

from reference_impl.clock import Instant, seconds
from reference_impl.controllers.controller_utils import ControllerExpectations
from reference_impl.errors import ServiceUnavailable

Obj = dict[str, Any]
# upstream's "custom-managed-by" is not a domain-prefixed path, which the apiserver requires
CUSTOM = "example.com/custom-managed-by"
UPDATED = {"active": 2, "ready": 0, "terminating": 0}

# name: (managedBy or None, want the status unchanged)
MANAGED_BY_ROWS: dict[str, tuple[str | None, bool]] = {
    "job with custom value of managedBy; feature enabled; the status is unchanged": (CUSTOM, True),
    "job with well known value of the managedBy; feature enabled; the status is updated": (
        "kubernetes.io/job-controller", False
    ),
    "job with custom value of managedBy; feature disabled; the status is updated": (CUSTOM, False),
    "job without the managedBy; feature enabled; the status is updated": (None, False),
}
_GA_LOCKED = "JobManagedBy is GA and locked on in 1.37; the reference has no off state"


def _params() -> list[Any]:
    out = []
    for name, row in MANAGED_BY_ROWS.items():
        marks = [pytest.mark.skip(reason=_GA_LOCKED)] if "feature disabled" in name else []
        out.append(pytest.param(*row, id=name, marks=marks))
    return out


@pytest.mark.parametrize(("managed_by", "unchanged"), _params())
def test_sync_job_when_managed_by(managed_by: str | None, unchanged: bool) -> None:
    h = build_sync_harness()
    job = new_job(2, 2, 6)
    if managed_by is not None:
        job["spec"]["managedBy"] = managed_by
    before = store_job(h, job, {"active": 1, "ready": 1, "startTime": h.now()})["status"]

    assert h.sync() is None

    after = h.job()["status"]
    if unchanged:
        assert after == before
        assert h.spy.templates == [] and h.spy.statuses == []
    else:
        assert {k: after.get(k) for k in UPDATED} == UPDATED
        assert after["startTime"] == before["startTime"]
        assert not any((after.get("uncountedTerminatedPods") or {}).values())
        assert len(h.spy.templates) == 2


def test_sync_job_expectations() -> None:
    """A pod that arrives after the expectations were checked is still counted: no pod
    is created for it."""
    h = build_sync_harness()
    job = store_job(h, new_job(2, 2, 6))
    add_pod(h, job, "Pending")
    class LateArrival(ControllerExpectations):
        """``FakeJobExpectations``: a pod lands once the expectations were read."""

        def satisfied(self, key: str, now: Instant | None = None) -> bool:
            out = super().satisfied(key, now)
            add_pod(h, job, "Pending")
            return out

    h.ctrl._expectations = LateArrival()

    assert h.sync() is None

    assert h.spy.templates == []
    assert h.spy.deleted == []


def test_job_api_backoff_reset() -> None:
    """``TestJobApiBackoffReset``: a pod-control error requeues the Job once (rate
    limited); the next, successful sync forgets the failures."""
    h = build_sync_harness()
    q = h.ctrl._queue
    h.spy.err = ServiceUnavailable("Controller error")
    store_job(h, new_job(1, 1, 2))  # its ADDED event queues it
    h.clock.settle()
    # NumRequeues: upstream's fake status handler makes no event; here the status write
    # re-queues the Job once more through its informer, and that sync fails too.
    assert q.num_requeues(h.key()) >= 1
    h.spy.err = None
    h.clock.run_until(Instant(h.clock.now() + seconds(1)))  # DefaultJobApiBackOff
    h.clock.settle()
    assert q.num_requeues(h.key()) == 0
    assert len(q) == 0
