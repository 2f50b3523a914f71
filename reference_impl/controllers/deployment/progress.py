"""Deployment status and progress (``sync.go`` calculateStatus, ``progress.go``,
and the progress predicates of ``util/deployment_util.go``).

Pure functions of the Deployment, its ReplicaSets and the simulated time, so the
upstream tables can drive them directly.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.clock import Instant, parse_rfc3339, rfc3339, seconds
from reference_impl.controllers.deployment.util import (
    condition_of,
    max_unavailable,
    remove_deployment_condition,
    set_deployment_condition,
    spec_replicas,
    status_sum,
    terminating_count,
)

__all__ = [
    "calculate_status",
    "deployment_complete",
    "deployment_progressing",
    "deployment_timed_out",
    "has_progress_deadline",
    "paused_status",
    "replica_failures",
    "requeue_after",
    "rollout_status",
]

Obj = dict[str, Any]
NEW_RS_AVAILABLE: Final = "NewReplicaSetAvailable"
RS_UPDATED: Final = "ReplicaSetUpdated"
TIMED_OUT: Final = "ProgressDeadlineExceeded"
_MAX_INT32: Final = 2**31 - 1


def _replicas(d: Obj) -> int:
    return int(d["spec"].get("replicas", 1))


def _g(status: Obj, field: str) -> int:
    return int(status.get(field, 0))


def calculate_status(d: Obj, all_rss: list[Obj], new_rs: Obj | None, now: str) -> Obj:
    """``calculateStatus``: counters from the ReplicaSets plus the Available condition.

    terminatingReplicas (DeploymentReplicaSetTerminatingReplicas, on by default) is
    omitted when a synced ReplicaSet does not report it.
    """
    available = status_sum(all_rss, "availableReplicas")
    status: Obj = {
        "observedGeneration": int(d["metadata"].get("generation", 1)),
        "replicas": status_sum(all_rss, "replicas"),
        "updatedReplicas": status_sum([new_rs] if new_rs else [], "replicas"),
        "readyReplicas": status_sum(all_rss, "readyReplicas"),
        "availableReplicas": available,
        "unavailableReplicas": max(0, spec_replicas(all_rss) - available),
    }
    terminating = terminating_count(all_rss)
    if terminating is not None:
        status["terminatingReplicas"] = terminating
    old = d.get("status") or {}
    if "collisionCount" in old:
        status["collisionCount"] = old["collisionCount"]
    status["conditions"] = [dict(c) for c in old.get("conditions") or []]
    if available >= _replicas(d) - max_unavailable(d):
        args = ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
    else:
        args = (
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
        )
    set_deployment_condition(status, "Available", *args, now)
    return status


def deployment_complete(d: Obj, status: Obj) -> bool:
    """``DeploymentComplete``: every replica updated and available, no old pods left."""
    n = _replicas(d)
    return (
        _g(status, "updatedReplicas") == n
        and _g(status, "replicas") == n
        and _g(status, "availableReplicas") == n
        and _g(status, "observedGeneration") >= int(d["metadata"].get("generation", 0))
    )


def deployment_progressing(d: Obj, new: Obj) -> bool:
    """``DeploymentProgressing``: more updated/ready/available pods or fewer old ones."""
    old = d.get("status") or {}
    return (
        _g(new, "updatedReplicas") > _g(old, "updatedReplicas")
        or _g(new, "replicas") - _g(new, "updatedReplicas")
        < _g(old, "replicas") - _g(old, "updatedReplicas")
        or _g(new, "readyReplicas") > _g(old, "readyReplicas")
        or _g(new, "availableReplicas") > _g(old, "availableReplicas")
    )


def has_progress_deadline(d: Obj) -> bool:
    """``HasProgressDeadline``: set and not MaxInt32."""
    pds = d["spec"].get("progressDeadlineSeconds")
    return pds is not None and int(pds) != _MAX_INT32


def deployment_timed_out(d: Obj, status: Obj, now: Instant) -> bool:
    """``DeploymentTimedOut``: the Progressing lastUpdateTime is strictly past the deadline."""
    if not has_progress_deadline(d):
        return False
    cond = condition_of(status, "Progressing")
    if cond is None or cond.get("reason") == NEW_RS_AVAILABLE:
        return False
    if cond.get("reason") == TIMED_OUT:
        return True
    since = parse_rfc3339(str(cond.get("lastUpdateTime")))
    return since + seconds(int(d["spec"]["progressDeadlineSeconds"])) < now


def replica_failures(all_rss: list[Obj], new_rs: Obj | None) -> list[Obj]:
    """``getReplicaFailures``: the new set's ReplicaFailure conditions, else the others'."""

    def convert(rs: Obj) -> list[Obj]:
        return [
            {
                "type": "ReplicaFailure",
                "status": c.get("status"),
                "lastUpdateTime": c.get("lastTransitionTime"),
                "lastTransitionTime": c.get("lastTransitionTime"),
                "reason": c.get("reason"),
                "message": c.get("message"),
            }
            for c in (rs.get("status") or {}).get("conditions") or []
            if c.get("type") == "ReplicaFailure"
        ]

    if new_rs is not None and (found := convert(new_rs)):
        return found
    return [c for rs in all_rss for c in convert(rs)]


def _what(d: Obj, new_rs: Obj | None) -> str:
    if new_rs is not None:
        return f'ReplicaSet "{new_rs["metadata"]["name"]}"'
    return f'Deployment "{d["metadata"]["name"]}"'


def rollout_status(d: Obj, all_rss: list[Obj], new_rs: Obj | None, now: Instant) -> Obj:
    """The status ``syncRolloutStatus`` writes: Progressing and ReplicaFailure settled."""
    ts = rfc3339(now)
    status = calculate_status(d, all_rss, new_rs, ts)
    if not has_progress_deadline(d):
        remove_deployment_condition(status, "Progressing")
    cur = condition_of(d.get("status") or {}, "Progressing")
    complete = _g(status, "replicas") == _g(status, "updatedReplicas") and (
        cur is not None and cur.get("reason") == NEW_RS_AVAILABLE
    )
    what = _what(d, new_rs)
    if has_progress_deadline(d) and not complete:
        if deployment_complete(d, status):
            msg = f"{what} has successfully progressed."
            set_deployment_condition(status, "Progressing", "True", NEW_RS_AVAILABLE, msg, ts)
        elif deployment_progressing(d, status):
            # Same reason still moves lastUpdateTime; lastTransitionTime stays while True.
            msg = f"{what} is progressing."
            set_deployment_condition(
                status, "Progressing", "True", RS_UPDATED, msg, ts, bump=cur is not None
            )
        elif deployment_timed_out(d, status, now):
            msg = f"{what} has timed out progressing."
            set_deployment_condition(status, "Progressing", "False", TIMED_OUT, msg, ts)
    failures = replica_failures(all_rss, new_rs)
    if failures:
        set_deployment_condition(
            status,
            "ReplicaFailure",
            str(failures[0]["status"]),
            str(failures[0]["reason"]),
            str(failures[0]["message"]),
            str(failures[0]["lastTransitionTime"]),
        )
    else:
        remove_deployment_condition(status, "ReplicaFailure")
    return status


def paused_status(d: Obj, now: Instant) -> Obj | None:
    """``checkPausedConditions``: the status with Progressing=Unknown DeploymentPaused
    (or DeploymentResumed) when pausing flipped, None when nothing changes. A timed-out
    rollout keeps its condition."""
    if not has_progress_deadline(d):
        return None
    cur = condition_of(d.get("status") or {}, "Progressing")
    if cur is not None and cur.get("reason") == TIMED_OUT:
        return None
    paused_exists = cur is not None and cur.get("reason") == "DeploymentPaused"
    paused = bool(d["spec"].get("paused"))
    if paused == paused_exists:
        return None
    reason, msg = (
        ("DeploymentPaused", "Deployment is paused")
        if paused
        else ("DeploymentResumed", "Deployment is resumed")
    )
    status: Obj = {**(d.get("status") or {})}
    set_deployment_condition(status, "Progressing", "Unknown", reason, msg, rfc3339(now))
    return status


def requeue_after(d: Obj, new_status: Obj, now: Instant) -> int:
    """``requeueStuckDeployment``: ns until the progress check, 0 for now, -1 for never.

    The caller adds a second to a positive delay, as upstream does against skew.
    """
    cur = condition_of(d.get("status") or {}, "Progressing")
    if not has_progress_deadline(d) or cur is None:
        return -1
    if deployment_complete(d, new_status) or cur.get("reason") == TIMED_OUT:
        return -1
    since = parse_rfc3339(str(cur.get("lastUpdateTime")))
    after = since + seconds(int(d["spec"]["progressDeadlineSeconds"])) - now
    return 0 if after < seconds(1) else after
