"""The CronJob controller: a CronJob starts Jobs on its schedule
(``pkg/controller/cronjob``; kube-controller-manager runs it by default)."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import ManifestBuilder, make_job, make_pod

pytestmark = pytest.mark.conformance

SCHEDULED_AT = "batch.kubernetes.io/cronjob-scheduled-timestamp"


def _unix_minutes(stamp: str) -> int:
    """Minutes since the Unix epoch of a ``YYYY-MM-DDTHH:MM:SSZ`` timestamp."""
    y, m, d = (int(p) for p in stamp[:10].split("-"))
    hh, mm = int(stamp[11:13]), int(stamp[14:16])
    y -= m <= 2  # days from civil (proleptic Gregorian), March-based year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719_468
    return days * 1440 + hh * 60 + mm


def test_a_cronjob_starts_jobs_on_its_schedule(target: Target, namespace: str) -> None:
    """CronJob schedule.

    A CronJob scheduled every minute MUST create a Job it controls, named
    ``<cronjob>-<scheduled time in Unix minutes>`` and annotated with the scheduled time
    (RFC 3339); its status MUST list the Job in active or, once it finished, carry
    lastScheduleTime. Suspending the CronJob afterwards stops further Jobs.
    """
    pod = make_pod("x").annotation("garhwal.dev/run-seconds", "1")
    job_spec = make_job("tick", namespace, pod=pod).build()["spec"]
    cj = (
        ManifestBuilder("batch/v1", "CronJob", "tick", namespace)
        .set("spec.schedule", "*/1 * * * *")
        .set("spec.concurrencyPolicy", "Forbid")
        .set("spec.jobTemplate", {"spec": job_spec})
        .build()
    )
    created = target.apply(cj)
    uid = created["metadata"]["uid"]

    def a_job() -> bool:
        return bool(target.list("batch/v1", "Job", namespace))

    target.wait_until(a_job, timeout=150, what="the cronjob's first job")
    job = target.list("batch/v1", "Job", namespace)[0]
    stamp = job["metadata"]["annotations"][SCHEDULED_AT]
    assert stamp.endswith(":00Z"), stamp  # a whole minute, in UTC (no spec.timeZone)
    assert job["metadata"]["name"] == f"tick-{_unix_minutes(stamp)}"
    owner = next(r for r in job["metadata"]["ownerReferences"] if r.get("controller"))
    assert (owner["kind"], owner["name"], owner["uid"]) == ("CronJob", "tick", uid)

    def status_updated() -> bool:
        status = target.get("batch/v1", "CronJob", "tick", namespace).get("status", {})
        return bool(status.get("lastScheduleTime"))

    target.wait_until(status_updated, timeout=60, what="cronjob lastScheduleTime")
    current = target.get("batch/v1", "CronJob", "tick", namespace)
    current["spec"]["suspend"] = True
    current["metadata"].pop("resourceVersion", None)  # apply retries on a status race
    target.apply(current)
