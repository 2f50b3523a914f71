"""Workload and namespace conformance: Jobs run to completion; namespaces take their content."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import condition, make_configmap, make_job, make_namespace, make_pod
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance


def test_job_runs_pods_to_completion(target: Target, namespace: str) -> None:
    """Job completion.

    A Job with completions 3 and parallelism 2 whose pods exit 0 MUST never run more
    than 2 pods at once, MUST count 3 succeeded pods and MUST end with condition
    Complete=True.
    """
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "2")
    target.apply(make_job("batch", namespace, completions=3, parallelism=2, pod=pod).build())
    peak = 0

    def complete() -> bool:
        nonlocal peak
        job = target.get("batch/v1", "Job", "batch", namespace)
        peak = max(peak, int(job.get("status", {}).get("active", 0)))
        return (condition(job, "Complete") or {}).get("status") == "True"

    target.wait_until(complete, timeout=300, what="job complete")
    job = target.get("batch/v1", "Job", "batch", namespace)
    assert job["status"]["succeeded"] == 3
    assert peak <= 2


def test_deleting_a_namespace_removes_its_content(target: Target, namespace: str) -> None:
    """Namespace lifecycle.

    Deleting a namespace MUST delete the objects in it, and then the namespace itself
    MUST disappear.
    """
    ns = f"{namespace}-doomed"
    target.apply(make_namespace(ns).build())
    target.apply(make_configmap("inside", ns).build())
    target.delete("v1", "Namespace", ns)

    def gone() -> bool:
        try:
            target.get("v1", "Namespace", ns)
            return False
        except NotFound:
            return True

    target.wait_until(gone, timeout=300, what="namespace deleted")
    with pytest.raises(NotFound):
        target.get("v1", "ConfigMap", "inside", ns)
