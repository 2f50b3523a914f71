"""Job conditions and their upstream reasons (``pkg/controller/job/job_controller.go``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference_impl.controllers.job.util import is_job_finished

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


def succeeded(
    reason: str = COMPLETIONS_REACHED, message: str = "Reached expected number of succeeded pods"
) -> FinishedCondition:
    """SuccessCriteriaMet now, Complete once every pod has terminated (``newSuccessCondition``;
    a success policy passes its own reason and message)."""
    return FinishedCondition("SuccessCriteriaMet", "Complete", reason, message)


def find(status: Obj, ctype: str) -> Obj | None:
    """The condition of ``ctype``, if any."""
    for c in status.get("conditions") or []:
        if c.get("type") == ctype:
            out: Obj = c
            return out
    return None


def is_finished(status: Obj) -> bool:
    """Complete or Failed is True (``IsJobFinished`` on a Job's status)."""
    return is_job_finished({"status": status})


def interim_of(status: Obj) -> FinishedCondition | None:
    """An already-recorded SuccessCriteriaMet, else FailureTarget, as a FinishedCondition
    keeping its reason and message (``syncJob`` checks them in that order)."""
    for ctype, make in (("SuccessCriteriaMet", succeeded), ("FailureTarget", failed)):
        c = find(status, ctype)
        if c is not None and c.get("status") == "True":
            return make(str(c.get("reason", "")), str(c.get("message", "")))
    return None


def ensure_condition(
    status: Obj, ctype: str, cstatus: str, reason: str, message: str, now: str
) -> bool:
    """``ensureJobConditionStatus``: add or replace; a new False condition is not added."""
    conds: list[Obj] = [dict(c) for c in status.get("conditions") or []]
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
            status["conditions"] = conds
            return True
    if cstatus == "False":
        return False
    status["conditions"] = [*conds, new]
    return True
