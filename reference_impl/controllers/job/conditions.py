"""Job conditions and their upstream reasons (``pkg/controller/job/job_controller.go``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = ["FinishedCondition", "ensure_condition", "find", "is_finished"]

Obj = dict[str, Any]
BACKOFF_LIMIT_EXCEEDED: Final = "BackoffLimitExceeded"
DEADLINE_EXCEEDED: Final = "DeadlineExceeded"
COMPLETIONS_REACHED: Final = "CompletionsReached"


@dataclass(frozen=True, slots=True)
class FinishedCondition:
    """The interim condition (FailureTarget or SuccessCriteriaMet) and its terminal twin."""

    interim: str
    terminal: str
    reason: str
    message: str


def failed(reason: str, message: str) -> FinishedCondition:
    """FailureTarget now, Failed once every pod has terminated."""
    return FinishedCondition("FailureTarget", "Failed", reason, message)


def succeeded() -> FinishedCondition:
    """SuccessCriteriaMet now, Complete once every pod has terminated."""
    return FinishedCondition(
        "SuccessCriteriaMet",
        "Complete",
        COMPLETIONS_REACHED,
        "Reached expected number of succeeded pods",
    )


def find(status: Obj, ctype: str) -> Obj | None:
    """The condition of ``ctype``, if any."""
    for c in status.get("conditions") or []:
        if c.get("type") == ctype:
            out: Obj = c
            return out
    return None


def is_finished(status: Obj) -> bool:
    """Complete or Failed is True."""
    return any((find(status, t) or {}).get("status") == "True" for t in ("Complete", "Failed"))


def interim_of(status: Obj) -> FinishedCondition | None:
    """An already-recorded FailureTarget or SuccessCriteriaMet, as a FinishedCondition."""
    for ctype, make in (("FailureTarget", failed), ("SuccessCriteriaMet", None)):
        c = find(status, ctype)
        if c is not None and c.get("status") == "True":
            if make is None:
                return succeeded()
            return make(str(c.get("reason", "")), str(c.get("message", "")))
    return None


def ensure_condition(
    status: Obj, ctype: str, cstatus: str, reason: str, message: str, now: str
) -> bool:
    """``ensureJobConditionStatus``: add or replace; a new False condition is not added."""
    conds: list[Obj] = [dict(c) for c in status.get("conditions") or []]
    status["conditions"] = conds
    new = {
        "type": ctype,
        "status": cstatus,
        "lastProbeTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }
    for i, c in enumerate(conds):
        if c.get("type") == ctype:
            if (c.get("status"), c.get("reason"), c.get("message")) == (cstatus, reason, message):
                return False
            conds[i] = new
            return True
    if cstatus == "False":
        return False
    conds.append(new)
    return True
