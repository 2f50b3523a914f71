"""Job condition helpers (``pkg/controller/job/util/utils.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["finished_condition", "is_job_finished", "is_job_succeeded"]


def _conditions(job: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list((job.get("status") or {}).get("conditions") or [])


def finished_condition(job: Mapping[str, Any]) -> tuple[bool, str]:
    """``FinishedCondition``: whether Complete or Failed is True, and which (first wins)."""
    for c in _conditions(job):
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return True, str(c["type"])
    return False, ""


def is_job_finished(job: Mapping[str, Any]) -> bool:
    """``IsJobFinished``."""
    return finished_condition(job)[0]


def is_job_succeeded(job: Mapping[str, Any]) -> bool:
    """``IsJobSucceeded``: Complete is True."""
    return any(c.get("type") == "Complete" and c.get("status") == "True" for c in _conditions(job))
