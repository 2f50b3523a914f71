"""Finalizer-removal expectations and the tracking-finalizer metric
(``pkg/controller/job/tracking_utils.go``).

``UIDTrackingExpectations`` remembers, per Job key, the uids of pods whose tracking
finalizer the controller asked to remove and has not yet seen removed; a sync skips those
pods, so a pod is never counted twice while its update is in flight.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.controllers.job import metrics
from reference_impl.controllers.job.tracking import has_tracking_finalizer, phase

__all__ = [
    "UIDTrackingExpectations",
    "is_finished_pod_with_tracking_finalizer",
    "record_finished_pod_with_tracking_finalizer",
]


@dataclass(slots=True)
class UIDTrackingExpectations:
    """``uidTrackingExpectations``: Job key -> pod uids awaiting finalizer removal."""

    _store: dict[str, set[str]] = field(default_factory=dict)

    def get_set(self, key: str) -> set[str] | None:
        """``getSet``: the live set, None when the Job has none."""
        return self._store.get(key)

    def get_expected_uids(self, key: str) -> set[str]:
        """``getExpectedUIDs``: a copy (empty when none)."""
        return set(self._store.get(key) or ())

    def expect_finalizers_removed(self, key: str, uids: Iterable[str]) -> None:
        """``expectFinalizersRemoved``: add ``uids`` to the Job's set."""
        self._store.setdefault(key, set()).update(uids)

    def finalizer_removal_observed(self, key: str, uid: str) -> None:
        """``finalizerRemovalObserved``: the pod's finalizer is gone (or will never go)."""
        uids = self._store.get(key)
        if uids is not None:
            uids.discard(uid)

    def delete_expectations(self, key: str) -> None:
        """``deleteExpectations``: drop the Job's set."""
        self._store.pop(key, None)


def is_finished_pod_with_tracking_finalizer(pod: Mapping[str, Any] | None) -> bool:
    """``isFinishedPodWithTrackingFinalizer``: Succeeded or Failed and still holding it."""
    if pod is None:
        return False
    return phase(pod) in ("Failed", "Succeeded") and has_tracking_finalizer(pod)


def record_finished_pod_with_tracking_finalizer(
    m: metrics.JobMetrics, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> None:
    """``recordFinishedPodWithTrackingFinalizer``: count a pod entering ("add") or
    leaving ("delete") the finished-with-finalizer state."""
    was = is_finished_pod_with_tracking_finalizer(old)
    now = is_finished_pod_with_tracking_finalizer(new)
    if was != now:
        m.terminated_pods_tracking_finalizer_total.inc(metrics.ADD if now else metrics.DELETE)
