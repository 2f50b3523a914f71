"""The Job controller's counters (``pkg/controller/job/metrics/metrics.go``), kept per
controller: label values to counts, as the Prometheus registry would expose them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "CounterVec",
    "JobMetrics",
    "record_job_pod_failure_policy_actions",
]

ADD = "add"  # metrics.Add
DELETE = "delete"  # metrics.Delete


@dataclass(slots=True)
class CounterVec:
    """A counter with one label: ``inc`` per label value; ``reset`` clears every series."""

    name: str
    values: dict[str, int] = field(default_factory=dict)

    def inc(self, label: str, by: int = 1) -> None:
        self.values[label] = self.values.get(label, 0) + by

    def reset(self) -> None:
        self.values.clear()


def _counter(name: str) -> CounterVec:
    return CounterVec(name)


@dataclass(slots=True)
class JobMetrics:
    """One JobController's counters: each controller (so each Cluster) owns its own, so
    counts never leak between clusters sharing a process."""

    # job_controller_terminated_pods_tracking_finalizer_total{event}
    terminated_pods_tracking_finalizer_total: CounterVec = field(
        default_factory=lambda: _counter("job_controller_terminated_pods_tracking_finalizer_total")
    )
    # job_controller_pod_failures_handled_by_failure_policy_total{action}
    pod_failures_handled_by_failure_policy: CounterVec = field(
        default_factory=lambda: _counter(
            "job_controller_pod_failures_handled_by_failure_policy_total"
        )
    )


def record_job_pod_failure_policy_actions(
    m: JobMetrics, counts: Mapping[str, int] | None
) -> None:
    """``recordJobPodFailurePolicyActions``: add each action's count of failed pods."""
    for action, n in (counts or {}).items():
        m.pod_failures_handled_by_failure_policy.inc(action, n)
