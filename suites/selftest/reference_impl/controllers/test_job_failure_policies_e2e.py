"""Pod failure policy and backoffLimitPerIndex end to end: the fake kubelet runs the pods
and reports their exit codes, the Job controller applies the policies."""

from __future__ import annotations

from typing import Any

from controller_harness import Harness

from reference_impl.api import condition, make_job, make_pod

Obj = dict[str, Any]
INDEX = "batch.kubernetes.io/job-completion-index"
COUNT = "batch.kubernetes.io/job-index-failure-count"


def _failing_pod(code: int) -> Any:
    return (
        make_pod("x")
        .annotation("garhwal.dev/run-seconds", "1")
        .annotation("garhwal.dev/exit-code", str(code))
    )


def _failed(h: Harness, name: str) -> bool:
    job = h.get("batch/v1", "Job", name)
    return (condition(job, "Failed") or {}).get("status") == "True" if job else False


def test_fail_job_rule_fails_the_job_on_the_first_matching_exit(h: Harness) -> None:
    rules = [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]
    b = make_job("pfp", "default", pod=_failing_pod(42)).set("spec.podFailurePolicy", {"rules": rules})
    h.create(b.build())
    took = h.run_until(lambda: _failed(h, "pfp"), timeout=600)
    # 1 s to start, 1 s to run, synced 1 s later (SyncJobBatchPeriod); no retry despite
    # backoffLimit 6
    assert took == 3.0
    job = h.get("batch/v1", "Job", "pfp")
    assert job is not None
    pod = h.pods(selector="app=pfp")[0]["metadata"]["name"]
    msg = f"Container main for pod default/{pod} failed with exit code 42 matching FailJob rule at index 0"
    for ctype in ("FailureTarget", "Failed"):
        c = condition(job, ctype)
        assert c is not None and (c["reason"], c["message"]) == ("PodFailurePolicy", msg)
    assert job["status"]["failed"] == 1


def test_backoff_limit_per_index_retries_each_index_then_fails_them(h: Harness) -> None:
    b = (
        make_job("pi", "default", completions=3, parallelism=3, pod=_failing_pod(3))
        .set("spec.completionMode", "Indexed")
        .set("spec.backoffLimitPerIndex", 1)
    )
    h.create(b.build())
    took = h.run_until(lambda: _failed(h, "pi"), timeout=600)
    # fail at 2 s, replaced after the 10 s per-index back-off, fail again at 14 s, synced
    # 1 s later (SyncJobBatchPeriod)
    assert took == 15.0
    job = h.get("batch/v1", "Job", "pi")
    assert job is not None
    st = job["status"]
    assert (st["failed"], st["failedIndexes"], st["succeeded"]) == (6, "0-2", 0)
    assert condition(job, "Failed")["reason"] == "FailedIndexes"  # type: ignore[index]
    pods = h.pods(selector="app=pi")
    got = sorted((p["metadata"]["annotations"][INDEX], p["metadata"]["annotations"][COUNT]) for p in pods)
    assert got == [("0", "0"), ("0", "1"), ("1", "0"), ("1", "1"), ("2", "0"), ("2", "1")]


def _evict_the_pod(h: Harness, action: str) -> Obj:
    """A Job (backoffLimit 0) whose one pod is evicted; the rule matches DisruptionTarget."""
    rules = [{"action": action, "onPodConditions": [{"type": "DisruptionTarget"}]}]
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "100")
    b = (
        make_job("ev", "default", pod=pod)
        .set("spec.podFailurePolicy", {"rules": rules})
        .set("spec.backoffLimit", 0)
    )
    h.create(b.build())
    h.advance(5)
    name = h.pods(selector="app=ev")[0]["metadata"]["name"]
    eviction = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": name, "namespace": "default"},
    }
    h.server.evict("default", name, eviction)
    h.advance(60)
    job = h.get("batch/v1", "Job", "ev")
    assert job is not None
    return job


def test_ignored_disruption_is_not_counted_and_the_pod_is_replaced(h: Harness) -> None:
    st = _evict_the_pod(h, "Ignore")["status"]
    assert (st["failed"], st["active"], st.get("conditions")) == (0, 1, None)


def test_counted_disruption_exceeds_a_zero_backoff_limit(h: Harness) -> None:
    job = _evict_the_pod(h, "Count")
    assert job["status"]["failed"] == 1
    assert condition(job, "Failed")["reason"] == "BackoffLimitExceeded"  # type: ignore[index]
