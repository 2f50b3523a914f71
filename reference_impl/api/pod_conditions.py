"""Pod conditions (``pkg/api/v1/pod/util.go``)."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["update_pod_condition"]

Obj = dict[str, Any]
# What UpdatePodCondition compares; observedGeneration is replaced but not compared.
_COMPARED: Final = ("status", "reason", "message", "lastProbeTime", "lastTransitionTime")


def update_pod_condition(status: Obj, cond: Obj, now: str) -> bool:
    """``UpdatePodCondition``: set ``cond`` in ``status`` (a new conditions list); the
    transition time moves to ``now`` only with the status (an old condition without one
    keeps none). True when the condition was added or changed."""
    conds = list(status.get("conditions") or [])
    new: Obj = {**cond, "lastTransitionTime": now}
    for i, old in enumerate(conds):
        if old.get("type") != cond["type"]:
            continue
        if old.get("status") == cond.get("status"):
            new["lastTransitionTime"] = old.get("lastTransitionTime")
        new = {k: v for k, v in new.items() if v is not None}
        conds[i] = new
        status["conditions"] = conds
        return any(old.get(k) != new.get(k) for k in _COMPARED)
    conds.append(new)
    status["conditions"] = conds
    return True
