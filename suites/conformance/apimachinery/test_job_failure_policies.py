"""Job failure and success policies: podFailurePolicy, backoffLimitPerIndex and
successPolicy, as the Job controller applies them to pods that exit (KEP-3329, KEP-3850,
KEP-3998; all GA in v1.37).

Pods exit with the code in their ``garhwal.dev/exit-code`` annotation after
``garhwal.dev/run-seconds`` (the reference's kubelet, and KWOK's stages on a live cluster).
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import condition, make_job, make_pod

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]


def _exiting(code: int, seconds: str = "1") -> Any:
    return make_pod("x").annotation("garhwal.dev/run-seconds", seconds).annotation(
        "garhwal.dev/exit-code", str(code))


def _job(target: Target, name: str, namespace: str) -> Obj:
    return target.get("batch/v1", "Job", name, namespace)


def _wait_condition(target: Target, name: str, namespace: str, ctype: str) -> Obj:
    def done() -> bool:
        return (condition(_job(target, name, namespace), ctype) or {}).get("status") == "True"

    target.wait_until(done, timeout=300, what=f"job {name} {ctype}")
    return _job(target, name, namespace)


def test_a_fail_job_rule_fails_the_job_at_the_first_matching_exit_code(target: Target, namespace: str) -> None:
    """podFailurePolicy FailJob.

    A pod that exits with a code a FailJob rule names MUST fail the Job at once, though
    backoffLimit would allow retries: FailureTarget, then Failed, both with reason
    PodFailurePolicy and the rule's message, and no replacement pod.
    """
    job = make_job("pfp-fail", namespace, pod=_exiting(42)).set("spec.backoffLimit", 6).set(
        "spec.podFailurePolicy",
        {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]},
    )
    target.apply(job.build())
    got = _wait_condition(target, "pfp-fail", namespace, "Failed")
    failed = condition(got, "Failed") or {}
    assert failed.get("reason") == "PodFailurePolicy"
    assert "failed with exit code 42 matching FailJob rule at index 0" in str(failed.get("message"))
    assert (condition(got, "FailureTarget") or {}).get("reason") == "PodFailurePolicy"
    assert got["status"].get("failed") == 1
    pods = target.list("v1", "Pod", namespace, label_selector="batch.kubernetes.io/job-name=pfp-fail")
    assert len(pods) == 1


def test_an_ignore_rule_does_not_count_the_failure_against_the_backoff_limit(
    target: Target, namespace: str
) -> None:
    """podFailurePolicy Ignore.

    With backoffLimit 0, a pod failure that an Ignore rule matches MUST NOT fail the Job
    nor count in status.failed; the controller MUST replace the pod. A later failure no
    rule matches MUST then fail the Job with reason BackoffLimitExceeded.
    """
    job = make_job("pfp-ignore", namespace, pod=_exiting(7)).set("spec.backoffLimit", 0).set(
        "spec.podFailurePolicy",
        {"rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [7]}}]},
    )
    target.apply(job.build())
    selector = "batch.kubernetes.io/job-name=pfp-ignore"

    def replaced() -> bool:
        return len(target.list("v1", "Pod", namespace, label_selector=selector)) >= 3

    target.wait_until(replaced, timeout=300, what="ignored failures replaced")
    got = _job(target, "pfp-ignore", namespace)
    assert not got["status"].get("failed")
    assert (condition(got, "Failed") or {}).get("status") != "True"


def test_backoff_limit_per_index_fails_each_index_on_its_own(target: Target, namespace: str) -> None:
    """backoffLimitPerIndex.

    In an Indexed Job with backoffLimitPerIndex 1 whose pods always fail, each index MUST
    be retried once and then marked failed (status.failedIndexes), and the Job MUST end
    Failed with reason FailedIndexes after 2 failures per index.
    """
    job = (
        make_job("per-index", namespace, completions=2, parallelism=2, pod=_exiting(3))
        .set("spec.completionMode", "Indexed")
        .set("spec.backoffLimitPerIndex", 1)
    )
    target.apply(job.build())
    got = _wait_condition(target, "per-index", namespace, "Failed")
    assert (condition(got, "Failed") or {}).get("reason") == "FailedIndexes"
    assert got["status"].get("failedIndexes") == "0,1"
    assert got["status"].get("failed") == 4


def test_a_success_policy_completes_the_job_when_its_indexes_succeed(target: Target, namespace: str) -> None:
    """successPolicy.

    An Indexed Job of 3 completions, run one pod at a time, whose successPolicy asks only
    for index 0 MUST be marked SuccessCriteriaMet (reason SuccessPolicy) once index 0
    succeeds and then Complete, with index 0 alone in completedIndexes.
    """
    job = (
        make_job("succ", namespace, completions=3, parallelism=1, pod=_exiting(0))
        .set("spec.completionMode", "Indexed")
        .set("spec.successPolicy", {"rules": [{"succeededIndexes": "0"}]})
    )
    target.apply(job.build())
    got = _wait_condition(target, "succ", namespace, "Complete")
    assert (condition(got, "SuccessCriteriaMet") or {}).get("reason") == "SuccessPolicy"
    assert (condition(got, "Complete") or {}).get("reason") == "SuccessPolicy"
    assert got["status"].get("completedIndexes") == "0"
    assert got["status"].get("succeeded") == 1
