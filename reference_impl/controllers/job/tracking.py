"""Finalizer-based pod tracking (``job_controller.go`` ``trackJobStatusAndRemoveFinalizers``).

Every Job pod carries ``batch.kubernetes.io/job-tracking``. A finished pod's uid is first
recorded in ``status.uncountedTerminatedPods``, then its finalizer is removed, and only
then is it moved into ``succeeded``/``failed``, so a crash at any point never loses or
double-counts a pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["JOB_TRACKING_FINALIZER", "has_tracking_finalizer", "is_pod_failed"]

Obj = dict[str, Any]
JOB_TRACKING_FINALIZER: Final = "batch.kubernetes.io/job-tracking"


def has_tracking_finalizer(pod: Mapping[str, Any]) -> bool:
    """The pod still holds the job-tracking finalizer."""
    return JOB_TRACKING_FINALIZER in (pod["metadata"].get("finalizers") or [])


def phase(pod: Mapping[str, Any]) -> str:
    """status.phase, Pending when unset."""
    return str((pod.get("status") or {}).get("phase", "Pending"))


def is_pod_failed(pod: Mapping[str, Any], job: Mapping[str, Any]) -> bool:
    """``isPodFailed``: Failed, or (unless podReplacementPolicy is Failed) deleted unfinished."""
    if phase(pod) == "Failed":
        return True
    if job["spec"].get("podReplacementPolicy") == "Failed":
        return False
    # Count deleted pods as failures: orphans may never reach the Failed phase.
    return bool(pod["metadata"].get("deletionTimestamp")) and phase(pod) != "Succeeded"


def uncounted(status: Obj) -> tuple[list[str], list[str]]:
    """(succeeded, failed) uids recorded but not yet counted."""
    u = status.get("uncountedTerminatedPods") or {}
    return list(u.get("succeeded") or []), list(u.get("failed") or [])


def set_uncounted(status: Obj, succeeded: list[str], failed: list[str]) -> None:
    """Write ``uncountedTerminatedPods`` with sorted uid lists (empty lists omitted)."""
    u: Obj = {}
    if succeeded:
        u["succeeded"] = sorted(succeeded)
    if failed:
        u["failed"] = sorted(failed)
    status["uncountedTerminatedPods"] = u


def remove_finalizer(pod: Obj) -> Obj:
    """A copy of ``pod`` without the tracking finalizer."""
    meta = dict(pod["metadata"])
    meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != JOB_TRACKING_FINALIZER]
    if not meta["finalizers"]:
        del meta["finalizers"]
    return {**pod, "metadata": meta}
