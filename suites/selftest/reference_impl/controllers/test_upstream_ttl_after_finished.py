"""Upstream ``pkg/controller/ttlafterfinished/ttlafterfinished_controller_test.go`` (v1.37.2),
row by row, against ``reference_impl.controllers.ttl_after_finished``; plus whole-loop
checks of ``processJob`` (the fresh re-read, the Foreground delete, the requeue)."""

from __future__ import annotations

from typing import Any

import pytest
from controller_harness import build_harness

from reference_impl.clock import Instant, rfc3339, seconds
from reference_impl.controllers.ttl_after_finished import (
    TTLAfterFinishedController,
    time_left,
)

Obj = dict[str, Any]
NOW = Instant(seconds(3600))


def _new_job(completion: Instant | None, failed: Instant | None, ttl: int | None) -> Obj:
    """``newJob``."""
    job: Obj = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "foobar", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"foo": "bar"}},
            "template": {
                "metadata": {"labels": {"foo": "bar"}},
                "spec": {"containers": [{"image": "foo/bar"}]},
            },
        },
        "status": {"conditions": []},
    }
    for ctype, at in (("Complete", completion), ("Failed", failed)):
        if at is not None:
            job["status"]["conditions"].append(
                {"type": ctype, "status": "True", "lastTransitionTime": rfc3339(at)}
            )
    if ttl is not None:
        job["spec"]["ttlSecondsAfterFinished"] = ttl
    return job


def _ago(s: int) -> Instant:
    return Instant(NOW - seconds(s))


# (completion, failed, ttl, error substring, expected left in s, expected expiry)
TIME_LEFT_ROWS = [
    pytest.param(None, None, 100, "should not be cleaned up", None, None,
                 id="Error case: Job unfinished"),
    pytest.param(NOW, None, None, "should not be cleaned up", None, None,
                 id="Error case: Job completed now, no TTL"),
    pytest.param(NOW, None, 0, None, 0, NOW, id="Job completed now, 0s TTL"),
    pytest.param(NOW, None, 10, None, 10, _ago(-10), id="Job completed now, 10s TTL"),
    pytest.param(_ago(10), None, 15, None, 5, _ago(-5), id="Job completed 10s ago, 15s TTL"),
    pytest.param(None, NOW, None, "should not be cleaned up", None, None,
                 id="Error case: Job failed now, no TTL"),
    pytest.param(None, NOW, 0, None, 0, NOW, id="Job failed now, 0s TTL"),
    pytest.param(None, NOW, 10, None, 10, _ago(-10), id="Job failed now, 10s TTL"),
    pytest.param(None, _ago(10), 15, None, 5, _ago(-5), id="Job failed 10s ago, 15s TTL"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("completion", "failed", "ttl", "err", "left", "expire"), TIME_LEFT_ROWS
)
def test_time_left(
    completion: Instant | None,
    failed: Instant | None,
    ttl: int | None,
    err: str | None,
    left: int | None,
    expire: Instant | None,
) -> None:
    """``TestTimeLeft``."""
    job = _new_job(completion, failed, ttl)
    if err is not None:
        with pytest.raises(ValueError, match=err):
            time_left(job, NOW)
        return
    got_left, got_expire = time_left(job, NOW)
    assert left is not None
    assert got_left == seconds(left)
    assert got_expire == expire


# -- the controller loop (processJob), beyond upstream's unit table ----------------------


def _finished_job(name: str, ttl: int | None) -> Obj:
    job: Obj = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "template": {
                "metadata": {"annotations": {"garhwal.dev/run-seconds": "1"}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}],
                },
            },
        },
    }
    if ttl is not None:
        job["spec"]["ttlSecondsAfterFinished"] = ttl
    return job


def _ttl(h: Any) -> TTLAfterFinishedController:
    return next(c for c in h.controllers if isinstance(c, TTLAfterFinishedController))


def test_finished_job_is_deleted_after_its_ttl() -> None:
    """A Job with ttlSecondsAfterFinished 30 MUST still exist just before 30 s past its
    finish and MUST be gone (deleted in Foreground, pods with it) after."""
    h = build_harness()
    h.create(_finished_job("ttl", 30))
    h.run_until(lambda: _is_done(h.get("batch/v1", "Job", "ttl")))
    job = h.get("batch/v1", "Job", "ttl")
    assert job is not None
    done = next(c for c in job["status"]["conditions"] if c["type"] == "Complete")
    finish = done["lastTransitionTime"]
    h.advance(25)
    assert h.get("batch/v1", "Job", "ttl") is not None
    took = h.run_until(lambda: h.get("batch/v1", "Job", "ttl") is None, timeout=60)
    assert took <= 10
    assert _ttl(h).deleted == ["default/ttl"]
    assert finish  # the condition carried a transition time
    assert h.pods(selector="batch.kubernetes.io/job-name=ttl") == []


def test_job_without_ttl_is_kept() -> None:
    """A finished Job without ttlSecondsAfterFinished MUST NOT be deleted."""
    h = build_harness()
    h.create(_finished_job("keep", None))
    h.run_until(lambda: _is_done(h.get("batch/v1", "Job", "keep")))
    h.advance(600)
    assert h.get("batch/v1", "Job", "keep") is not None
    assert _ttl(h).deleted == []


def test_fresh_read_sees_a_longer_ttl() -> None:
    """processJob re-reads the Job: a TTL raised after the cached copy expired MUST keep
    the Job (upstream's "fresh" check)."""
    h = build_harness()
    h.create(_finished_job("fresh", 5))
    h.run_until(lambda: _is_done(h.get("batch/v1", "Job", "fresh")))
    job = h.get("batch/v1", "Job", "fresh")
    assert job is not None
    job["spec"]["ttlSecondsAfterFinished"] = 3600
    h.server.update(job)
    h.advance(60)
    assert h.get("batch/v1", "Job", "fresh") is not None


def _is_done(job: Obj | None) -> bool:
    return job is not None and any(
        c["type"] in ("Complete", "Failed") and c["status"] == "True"
        for c in job.get("status", {}).get("conditions") or []
    )
