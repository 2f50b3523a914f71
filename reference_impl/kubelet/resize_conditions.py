"""Models the resize-condition cache of pkg/kubelet/status (status_manager.go):
``SetPodResizePendingCondition``, ``SetPodResizeInProgressCondition``,
``ClearPodResizePendingCondition``, ``ClearPodResizeInProgressCondition``,
``updatedPodResizeCondition`` and ``podResizeConditions.List``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = ["DEFERRED", "INFEASIBLE", "ResizeConditions", "updated_condition"]

Obj = dict[str, Any]
INFEASIBLE: Final = "Infeasible"
DEFERRED: Final = "Deferred"
PENDING: Final = "PodResizePending"
IN_PROGRESS: Final = "PodResizeInProgress"


def updated_condition(
    ctype: str, old: Obj | None, reason: str, message: str, generation: int, now: str
) -> Obj:
    """``updatedPodResizeCondition``: lastTransitionTime moves only when the reason does."""
    since = now if old is None or old.get("reason", "") != reason else old["lastTransitionTime"]
    c: Obj = {
        "type": ctype,
        "status": "True",
        "lastTransitionTime": since,
        "observedGeneration": generation,
    }
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


@dataclass(slots=True)
class ResizeConditions:
    """One pod's cached PodResizePending and PodResizeInProgress conditions."""

    pending: Obj | None = None
    in_progress: Obj | None = None

    def conditions(self) -> list[Obj]:
        """``podResizeConditions.List``: Pending first, then InProgress."""
        return [dict(c) for c in (self.pending, self.in_progress) if c is not None]

    def snapshot(self) -> tuple[Obj | None, Obj | None]:
        return (
            None if self.pending is None else dict(self.pending),
            None if self.in_progress is None else dict(self.in_progress),
        )

    def set_pending(self, reason: str, message: str, generation: int, now: str) -> bool:
        """``SetPodResizePendingCondition``: any reason but Infeasible becomes Deferred;
        True when the condition is new or its reason or generation changed."""
        if reason != INFEASIBLE:
            reason = DEFERRED
        prev = self.pending
        self.pending = updated_condition(PENDING, prev, reason, message, generation, now)
        if prev is None:
            return True
        return prev.get("reason") != reason or prev.get("observedGeneration") != generation

    def set_in_progress(self, reason: str, message: str, generation: int, now: str) -> bool:
        """``SetPodResizeInProgressCondition``: an existing condition keeps its generation
        (clear it first to move it) and, when none is given, its reason and message.
        True when the condition changed."""
        prev = self.in_progress
        if prev is not None:
            if not reason and not message:
                reason, message = prev.get("reason", ""), prev.get("message", "")
            generation = int(prev.get("observedGeneration", 0))
        self.in_progress = updated_condition(IN_PROGRESS, prev, reason, message, generation, now)
        if prev is None:
            return True
        return {**prev, "lastTransitionTime": ""} != {**self.in_progress, "lastTransitionTime": ""}

    def clear_pending(self) -> None:
        """``ClearPodResizePendingCondition``."""
        self.pending = None

    def clear_in_progress(self) -> tuple[int, bool]:
        """``ClearPodResizeInProgressCondition``: (the cleared condition's generation,
        True), or (0, False) when there was none."""
        prev, self.in_progress = self.in_progress, None
        if prev is None:
            return 0, False
        return int(prev.get("observedGeneration", 0)), True

    def backfill(self, pod_conditions: list[Obj], now: str) -> None:
        """``BackfillPodResizeConditions`` (kubelet restart): take the pod's stored resize
        conditions as the cache's, as ``updatedPodResizeCondition`` builds them anew."""
        for c in pod_conditions:
            args = (c.get("reason", ""), c.get("message", ""), int(c.get("observedGeneration", 0)))
            if c.get("type") == PENDING:
                self.pending = updated_condition(PENDING, None, *args, now)
            elif c.get("type") == IN_PROGRESS:
                self.in_progress = updated_condition(IN_PROGRESS, None, *args, now)

    def is_deferred(self) -> bool:
        return self.pending is not None and self.pending.get("reason") == DEFERRED

    def is_infeasible(self) -> bool:
        return self.pending is not None and self.pending.get("reason") == INFEASIBLE

    def pending_since(self) -> str | None:
        """The PodResizePending lastTransitionTime (the sort's last key)."""
        return None if self.pending is None else str(self.pending["lastTransitionTime"])
