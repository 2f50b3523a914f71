"""The TTL-after-finished controller: a finished Job with ``spec.ttlSecondsAfterFinished``
is deleted that many seconds after it finished (``pkg/controller/ttlafterfinished``;
kube-controller-manager runs it by default)."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import condition, make_job, make_pod
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance


def test_a_finished_job_is_deleted_after_its_ttl(target: Target, namespace: str) -> None:
    """ttlSecondsAfterFinished.

    A Job with ttlSecondsAfterFinished 5 whose pod exits 0 MUST reach Complete=True and
    then MUST be deleted (with its pods, as the controller deletes in the foreground)
    shortly after the TTL has passed.
    """
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "1")
    job = make_job("ttl", namespace, pod=pod).set("spec.ttlSecondsAfterFinished", 5)
    target.apply(job.build())

    def complete() -> bool:
        try:
            got = target.get("batch/v1", "Job", "ttl", namespace)
        except NotFound:
            return True  # already finished and cleaned up
        return (condition(got, "Complete") or {}).get("status") == "True"

    target.wait_until(complete, timeout=180, what="job complete")

    def gone() -> bool:
        try:
            target.get("batch/v1", "Job", "ttl", namespace)
            return False
        except NotFound:
            return True

    target.wait_until(gone, timeout=120, what="job deleted after its TTL")
    selector = "batch.kubernetes.io/job-name=ttl"

    def pods_gone() -> bool:
        return target.list("v1", "Pod", namespace, label_selector=selector) == []

    target.wait_until(pods_gone, timeout=120, what="the job's pods deleted")
