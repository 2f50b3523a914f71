"""Jobs: completions and parallelism, backoffLimit, Indexed mode, suspend and deadlines."""

from __future__ import annotations

from typing import Any

from controller_harness import Harness

from reference_impl.api import condition, make_job, make_pod

Obj = dict[str, Any]


def _job(h: Harness, name: str) -> Obj:
    j = h.get("batch/v1", "Job", name)
    assert j is not None
    return j


def _cond(h: Harness, name: str, ctype: str) -> str | None:
    c = condition(_job(h, name), ctype)
    return None if c is None else str(c["status"])


def test_job_completes_three_pods_two_at_a_time(h: Harness) -> None:
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "2")
    h.create(make_job("batch", "default", completions=3, parallelism=2, pod=pod).build())
    peak = [0]

    def check() -> None:
        running = [
            p
            for p in h.pods(selector="app=batch")
            if p["status"].get("phase") in ("Pending", "Running")
        ]
        assert len(running) <= 2
        peak[0] = max(peak[0], int(_job(h, "batch").get("status", {}).get("active", 0)))

    h.step_until(lambda: _cond(h, "batch", "Complete") == "True", check)
    s = _job(h, "batch")["status"]
    assert s["succeeded"] == 3 and s["failed"] == 0 and s["active"] == 0
    assert peak[0] == 2
    assert _cond(h, "batch", "SuccessCriteriaMet") == "True"
    assert s["completionTime"] and s["startTime"]
    assert s["uncountedTerminatedPods"] == {}
    assert all(not p["metadata"].get("finalizers") for p in h.pods(selector="app=batch"))
    # 1 s start + 2 s run, twice, each finish seen after the 1 s SyncJobBatchPeriod: the
    # third pod is made at 4 s, finishes at 7 s, and the Job completes at 8 s.
    assert s["completionTime"] == "2026-09-01T00:00:08Z"


def test_job_fails_after_backoff_limit(h: Harness) -> None:
    pod = (
        make_pod("x")
        .annotation("garhwal.dev/run-seconds", "1")
        .annotation("garhwal.dev/exit-code", "3")
    )
    b = make_job("bad", "default", pod=pod).set("spec.backoffLimit", 2)
    h.create(b.build())
    h.run_until(lambda: _cond(h, "bad", "Failed") == "True", timeout=600)
    s = _job(h, "bad")["status"]
    assert s["failed"] == 3
    assert condition(_job(h, "bad"), "Failed")["reason"] == "BackoffLimitExceeded"  # type: ignore[index]
    assert condition(_job(h, "bad"), "FailureTarget")["reason"] == "BackoffLimitExceeded"  # type: ignore[index]
    assert "completionTime" not in s
    assert len(h.pods(selector="app=bad")) == 3


def test_indexed_job_gives_each_pod_an_index(h: Harness) -> None:
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "1")
    b = make_job("idx", "default", completions=3, parallelism=3, pod=pod).set(
        "spec.completionMode", "Indexed"
    )
    h.create(b.build())
    pods = h.pods(selector="app=idx")
    key = "batch.kubernetes.io/job-completion-index"
    assert sorted(p["metadata"]["annotations"][key] for p in pods) == ["0", "1", "2"]
    for p in pods:
        ix = p["metadata"]["labels"][key]
        assert p["metadata"]["name"].startswith(f"idx-{ix}-")
        assert p["spec"]["hostname"] == f"idx-{ix}"
    h.run_until(lambda: _cond(h, "idx", "Complete") == "True")
    assert _job(h, "idx")["status"]["completedIndexes"] == "0-2"


def test_suspending_a_job_deletes_its_pods_and_resuming_restarts_them(h: Harness) -> None:
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "100")
    h.create(make_job("sus", "default", completions=2, parallelism=2, pod=pod).build())
    h.advance(5)
    assert _job(h, "sus")["status"]["active"] == 2
    j = _job(h, "sus")
    j["spec"]["suspend"] = True
    h.server.update(j)
    h.run_until(lambda: not h.pods(selector="app=sus"))
    h.advance(1)
    s = _job(h, "sus")["status"]
    assert _cond(h, "sus", "Suspended") == "True"
    assert s["active"] == 0 and "startTime" not in s
    j = _job(h, "sus")
    j["spec"]["suspend"] = False
    h.server.update(j)
    h.advance(1)
    assert _cond(h, "sus", "Suspended") == "False"
    assert condition(_job(h, "sus"), "Suspended")["reason"] == "JobResumed"  # type: ignore[index]
    assert _job(h, "sus")["status"]["active"] == 2


def test_active_deadline_fails_the_job(h: Harness) -> None:
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "100")
    h.create(make_job("late", "default", pod=pod).set("spec.activeDeadlineSeconds", 10).build())
    took = h.run_until(lambda: _cond(h, "late", "Failed") == "True")
    assert took == 11.0  # FailureTarget at 10 s; Failed once the pod's deletion is synced (batched)
    assert condition(_job(h, "late"), "Failed")["reason"] == "DeadlineExceeded"  # type: ignore[index]
    assert not h.pods(selector="app=late")
