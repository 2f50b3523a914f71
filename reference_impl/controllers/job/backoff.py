"""Pod-failure back-off (``pkg/controller/job/backoff_utils.go``).

The record holds the failures since the last success and when the last of them finished
(the pod's finish time, not when the controller noticed it); the delay before new pods
doubles from 10 s per failure, capped at 6 minutes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds

__all__ = ["DEFAULT_BACKOFF", "MAX_BACKOFF", "BackoffRecord", "finished_time", "new_backoff_record"]

DEFAULT_BACKOFF: Final = seconds(10)  # DefaultJobPodFailureBackOff
MAX_BACKOFF: Final = seconds(360)  # MaxJobPodFailureBackOff


@dataclass(frozen=True, slots=True)
class BackoffRecord:
    """``backoffRecord``."""

    failures: int = 0
    last_failure: Instant | None = None

    def remaining(self, now: Instant) -> Duration:
        """``getRemainingTime``: how long new pods must still wait (0: none)."""
        return remaining_for_failures(self.failures, self.last_failure, now)


def remaining_for_failures(
    failures: int,
    last: Instant | None,
    now: Instant,
    *,
    default: Duration = DEFAULT_BACKOFF,
    maximum: Duration = MAX_BACKOFF,
) -> Duration:
    """``getRemainingTimeForFailuresCount`` (upstream's tests pass other default and
    maximum back-offs)."""
    if failures == 0 or last is None:
        return Duration(0)
    delay = default
    for _ in range(1, failures):
        delay = Duration(delay * 2)
        if delay >= maximum:
            delay = maximum
            break
    elapsed = now - last
    return Duration(0) if delay < elapsed else Duration(delay - elapsed)


def _latest_finish(prev: Instant | None, statuses: Sequence[Mapping[str, Any]]) -> Instant | None:
    out = prev
    for cs in statuses:
        term = (cs.get("state") or {}).get("terminated") or {}
        if not term.get("finishedAt"):
            return None  # one container not finished: no finish time from containers
        t = parse_rfc3339(str(term["finishedAt"]))
        if out is None or out < t:
            out = t
    return out


def finished_time(pod: Mapping[str, Any]) -> Instant:
    """``getFinishedTime``: the containers' (and sidecars') latest finish, else the
    Ready=False transition, else deletionTimestamp minus its grace, else creation."""
    status = pod.get("status") or {}
    sidecars = {
        c.get("name")
        for c in (pod.get("spec") or {}).get("initContainers") or []
        if c.get("restartPolicy") == "Always"
    }
    t = _latest_finish(None, status.get("containerStatuses") or [])
    t = _latest_finish(
        t, [s for s in status.get("initContainerStatuses") or [] if s.get("name") in sidecars]
    )
    if t is not None:
        return t
    for c in status.get("conditions") or []:
        if c.get("type") == "Ready" and c.get("status") == "False" and c.get("lastTransitionTime"):
            return parse_rfc3339(str(c["lastTransitionTime"]))
    meta = pod["metadata"]
    if meta.get("deletionTimestamp"):
        grace = int(meta.get("deletionGracePeriodSeconds") or 0)
        return Instant(parse_rfc3339(str(meta["deletionTimestamp"])) - seconds(grace))
    return parse_rfc3339(str(meta.get("creationTimestamp")))


def new_backoff_record(
    old: BackoffRecord | None, new_succeeded: Sequence[Mapping[str, Any]], new_failed: Sequence[Mapping[str, Any]]
) -> BackoffRecord:
    """``newBackoffRecord``: a success resets the count to the failures finishing after
    the last success."""
    rec = old or BackoffRecord()
    failed = sorted(finished_time(p) for p in new_failed)
    if not new_succeeded:
        if not failed:
            return rec
        return BackoffRecord(rec.failures + len(failed), failed[-1])
    last_success = max(finished_time(p) for p in new_succeeded)
    count, last = 0, None
    for t in reversed(failed):
        if t <= last_success:
            break
        if last is None:
            last = t
        count += 1
    return BackoffRecord(count, last)
