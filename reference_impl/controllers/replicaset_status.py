"""ReplicaSet status (``pkg/controller/replicaset/replica_set_utils.go``).

``calculateStatus`` and the ReplicaSet condition helpers, as pure functions of the set,
its claimed active and terminating pods, the error of this sync's ``manageReplicas``
and the simulated time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.api.meta import condition
from reference_impl.clock import Instant, rfc3339
from reference_impl.controllers.controller_utils import is_pod_available, is_pod_ready

__all__ = [
    "calculate_status",
    "get_condition",
    "remove_condition",
    "set_condition",
]

Obj = dict[str, Any]


def _has_labels(labels: Mapping[str, str] | None, want: Mapping[str, str]) -> bool:
    have = labels or {}
    return all(have.get(k) == v for k, v in want.items())


def get_condition(status: Obj, ctype: str) -> Obj | None:
    """``GetCondition``: ``api.meta.condition`` on a bare status."""
    return condition({"status": status}, ctype)


def set_condition(status: Obj, cond: Obj) -> None:
    """``SetCondition``: same status and reason is a no-op; otherwise replace, appended last."""
    cur = get_condition(status, str(cond["type"]))
    if cur is not None and cur.get("status") == cond.get("status"):
        if cur.get("reason") == cond.get("reason"):
            return
    remove_condition(status, str(cond["type"]))
    status["conditions"] = [*status.get("conditions", []), cond]


def remove_condition(status: Obj, ctype: str) -> None:
    """``RemoveCondition``; an emptied list is dropped (omitempty)."""
    kept = [c for c in status.get("conditions") or [] if c.get("type") != ctype]
    if kept:
        status["conditions"] = kept
    else:
        status.pop("conditions", None)


def calculate_status(
    rs: Obj,
    active: list[Obj],
    terminating: list[Obj],
    manage_err: str | None,
    now: Instant,
    *,
    count_terminating: bool = True,
) -> Obj:
    """``calculateStatus``: counters, terminatingReplicas and the ReplicaFailure condition.

    ``count_terminating`` is DeploymentReplicaSetTerminatingReplicas (on by default) and
    the controller's EnableStatusTerminatingReplicas together; when off the field is
    absent. observedGeneration is left to the caller, as upstream sets it on update.
    """
    spec = rs["spec"]
    min_ready = int(spec.get("minReadySeconds", 0))
    tmpl_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    status: Obj = {
        k: (list(v) if k == "conditions" else v) for k, v in (rs.get("status") or {}).items()
    }
    ready = [p for p in active if is_pod_ready(p)]
    failure = get_condition(status, "ReplicaFailure")
    if manage_err is not None and failure is None:
        diff = len(active) - int(spec.get("replicas", 1))
        reason = "FailedCreate" if diff < 0 else "FailedDelete" if diff > 0 else ""
        cond = {
            "type": "ReplicaFailure",
            "status": "True",
            "lastTransitionTime": rfc3339(now),
            "reason": reason,
            "message": manage_err,
        }
        set_condition(status, cond)
    elif manage_err is None and failure is not None:
        remove_condition(status, "ReplicaFailure")
    status.update(
        replicas=len(active),
        fullyLabeledReplicas=sum(
            1 for p in active if _has_labels(p["metadata"].get("labels"), tmpl_labels)
        ),
        readyReplicas=len(ready),
        availableReplicas=sum(1 for p in ready if is_pod_available(p, min_ready, now)),
    )
    if count_terminating:
        status["terminatingReplicas"] = len(terminating)
    else:
        status.pop("terminatingReplicas", None)
    return status
