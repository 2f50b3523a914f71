"""A Job's /status update (1.37.2): ``ValidateJobStatusUpdate`` and ``validateJobStatus``
under the options the strategy's ``getStatusValidationOptions`` derives from what the
update changes (JobManagedBy is GA, so they always apply)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.strategies.batch_policies import index_interval, indexes_format
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.go_time import instant_ns
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_NONNEG = "must be greater than or equal to 0"


def _true(st: Obj, ctype: str) -> bool:
    return any(
        isinstance(c, dict) and c.get("type") == ctype and c.get("status") == "True"
        for c in st.get("conditions") or []
    )


def _false(st: Obj, ctype: str) -> bool:
    return any(
        isinstance(c, dict) and c.get("type") == ctype and c.get("status") == "False"
        for c in st.get("conditions") or []
    )


def _finished(st: Obj) -> bool:
    return _true(st, "Complete") or _true(st, "Failed")


def _n(st: Obj, f: str) -> int:
    v = st.get(f)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0



def _before(a: Any, b: Any) -> bool:
    """``metav1.Time.Before``: instants, not spellings (a stamp that does not parse, which
    decoding refused already, falls back to the text)."""
    ta, tb = instant_ns(a), instant_ns(b)
    return str(a) < str(b) if ta is None or tb is None else ta < tb

@dataclass(frozen=True, slots=True)
class _Changed:
    """Which parts of the status an update changes (``getStatusValidationOptions``)."""

    finished: bool
    complete: bool
    failed: bool
    failure_target: bool
    criteria_met: bool
    completed_indexes: bool
    failed_indexes: bool
    active: bool
    start: bool
    completion: bool
    uncounted: bool
    ready: bool
    terminating: bool


def _changed(st: Obj, ost: Obj) -> _Changed:
    def cond(t: str) -> bool:
        return _true(st, t) != _true(ost, t)

    def field(f: str) -> bool:
        return st.get(f) != ost.get(f)

    return _Changed(
        finished=_finished(st) != _finished(ost),
        complete=cond("Complete"),
        failed=cond("Failed"),
        failure_target=cond("FailureTarget"),
        criteria_met=cond("SuccessCriteriaMet"),
        completed_indexes=(st.get("completedIndexes") or "") != (ost.get("completedIndexes") or ""),
        failed_indexes=field("failedIndexes"),
        active=_n(st, "active") != _n(ost, "active"),
        start=field("startTime"),
        completion=field("completionTime"),
        uncounted=(st.get("uncountedTerminatedPods") or {})
        != (ost.get("uncountedTerminatedPods") or {}),
        ready=field("ready"),
        terminating=field("terminating"),
    )


def _uncounted_causes(st: Obj) -> list[Cause]:
    out: list[Cause] = []
    seen: set[str] = set()
    uncounted = st.get("uncountedTerminatedPods") or {}
    for key in ("succeeded", "failed"):
        for i, uid in enumerate(uncounted.get(key) or []):
            p = f"status.uncountedTerminatedPods.{key}[{i}]"
            if not uid:
                out.append(fe.invalid(p, uid, "must not be empty"))
            elif uid in seen:
                out.append(fe.duplicate(p, uid))
            else:
                seen.add(uid)
    return out


def _overlap(completed: str, failed: str, completions: int) -> str | None:
    """``validateFailedIndexesNotOverlapCompleted``: unparsable intervals are skipped."""
    if not completed or not failed:
        return None
    good = [
        [
            iv
            for iv in (index_interval(p, completions) for p in s.split(","))
            if not isinstance(iv, str)
        ]
        for s in (completed, failed)
    ]
    for cx, cy in good[0]:
        for fx, fy in good[1]:
            if cx <= fy and fx <= cy:
                return f"failedIndexes and completedIndexes overlap at index: {max(cx, fx)}"
    return None


def _condition_causes(st: Obj, ch: _Changed, spec: Obj) -> list[Cause]:
    out: list[Cause] = []
    complete, failed, target, met = (
        _true(st, t) for t in ("Complete", "Failed", "FailureTarget", "SuccessCriteriaMet")
    )
    conds, completion, start = "status.conditions", st.get("completionTime"), st.get("startTime")
    if (ch.complete or ch.failed) and complete and failed:
        out.append(fe.invalid(conds, None, "cannot set Complete=True and Failed=true conditions"))
    if (ch.complete or ch.failure_target) and complete and target:
        out.append(
            fe.invalid(conds, None, "cannot set Complete=True and FailureTarget=true conditions")
        )
    if (ch.complete or ch.completion) and completion is not None and not complete:
        msg = "cannot set completionTime when there is no Complete=True condition"
        out.append(fe.invalid("status.completionTime", completion, msg))
    if (ch.complete or ch.completion) and completion is None and complete:
        out.append(
            fe.required("status.completionTime", "completionTime is required for Complete jobs")
        )
    if (ch.start or ch.completion) and start and completion and _before(completion, start):
        out.append(
            fe.invalid("status.completionTime", completion, "must be equal to or after `startTime`")
        )
    if (ch.failed or ch.failed_indexes) and failed and not target:
        msg = "cannot set Failed=True condition without the FailureTarget=true condition"
        out.append(fe.invalid(conds, None, msg))
    if (ch.complete or ch.criteria_met) and complete and not met:
        msg = "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"
        out.append(fe.invalid(conds, None, msg))
    if met and failed:
        out.append(
            fe.invalid(conds, None, "cannot set SuccessCriteriaMet=True and Failed=true conditions")
        )
    if met and target:
        out.append(
            fe.invalid(
                conds, None, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"
            )
        )
    if spec.get("successPolicy") is not None and not met and complete:
        msg = "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"
        out.append(fe.invalid(conds, None, msg))
    return out


def _finished_causes(st: Obj, ch: _Changed, spec: Obj) -> list[Cause]:
    out: list[Cause] = []
    if not _finished(st):
        return out
    if (ch.finished or ch.active) and _n(st, "active") > 0:
        out.append(
            fe.invalid("status.active", _n(st, "active"), "active>0 is invalid for finished job")
        )
    zero_suspended = spec.get("suspend") is True and spec.get("completions") == 0
    if (ch.finished or ch.start) and not zero_suspended and st.get("startTime") is None:
        out.append(fe.required("status.startTime", "startTime is required for finished job"))
    uncounted = st.get("uncountedTerminatedPods") or {}
    if (ch.finished or ch.uncounted) and (uncounted.get("failed") or uncounted.get("succeeded")):
        out.append(
            fe.invalid(
                "status.uncountedTerminatedPods", uncounted, "must be empty for finished job"
            )
        )
    if (ch.finished or ch.terminating) and _n(st, "terminating") > 0:
        msg = "terminating>0 is invalid for finished job"
        out.append(fe.invalid("status.terminating", st.get("terminating"), msg))
    return out


def _index_causes(st: Obj, ch: _Changed, spec: Obj) -> list[Cause]:
    out: list[Cause] = []
    completions = spec.get("completions")
    completed, failed = st.get("completedIndexes") or "", st.get("failedIndexes")
    if ch.completed_indexes and isinstance(completions, int):
        _, err = indexes_format(completed, completions)
        if err is not None:
            msg = f"error parsing completedIndexes: {err}"
            out.append(fe.invalid("status.completedIndexes", completed, msg))
    per_index = spec.get("backoffLimitPerIndex")
    if (
        ch.failed_indexes
        and isinstance(completions, int)
        and per_index is not None
        and isinstance(failed, str)
    ):
        _, err = indexes_format(failed, completions)
        if err is not None:
            out.append(
                fe.invalid("status.failedIndexes", failed, f"error parsing failedIndexes: {err}")
            )
    if ch.completed_indexes and completed and spec.get("completionMode") != "Indexed":
        msg = "cannot set non-empty completedIndexes when non-indexed completion mode"
        out.append(fe.invalid("status.completedIndexes", completed, msg))
    if ch.failed_indexes and per_index is None and failed is not None:
        msg = "cannot set non-null failedIndexes when backoffLimitPerIndex is null"
        out.append(fe.invalid("status.failedIndexes", failed, msg))
    if (
        (ch.failed_indexes or ch.completed_indexes)
        and isinstance(completions, int)
        and isinstance(failed, str)
    ):
        err = _overlap(completed, failed, completions)
        if err is not None:
            out.append(fe.invalid("status.failedIndexes", failed, err))
    return out


def _update_causes(st: Obj, ost: Obj, spec: Obj) -> list[Cause]:
    """``ValidateJobStatusUpdate``'s comparisons with the old status."""
    out: list[Cause] = []
    for ctype in ("Failed", "Complete", "FailureTarget"):
        if _true(ost, ctype) and not _true(st, ctype):
            msg = f"cannot disable the terminal {ctype}=True condition"
            out.append(fe.invalid("status.conditions", None, msg))
    indexed = spec.get("completionMode") == "Indexed"
    checks = [
        ("failed", True),
        ("succeeded", not indexed or spec.get("completions") != spec.get("parallelism")),
    ]
    for f, reject in checks:
        if reject and _n(st, f) < _n(ost, f):
            out.append(fe.invalid(f"status.{f}", _n(st, f), f"cannot decrease the {f} counter"))
    completion, ocompletion = st.get("completionTime"), ost.get("completionTime")
    if completion is not None and ocompletion is not None and completion != ocompletion:
        out.append(fe.invalid("status.completionTime", completion, "field is immutable"))
    resuming = _true(ost, "Suspended") and _false(st, "Suspended")
    start, ostart = st.get("startTime"), ost.get("startTime")
    if start != ostart and not resuming and ostart is not None and not spec.get("suspend"):
        msg = "field is immutable for unsuspended job once set"
        out.append(fe.invalid("status.startTime", start, msg))
    if _true(ost, "SuccessCriteriaMet") and not _true(st, "SuccessCriteriaMet"):
        msg = "cannot disable the SuccessCriteriaMet=True condition"
        out.append(fe.invalid("status.conditions", None, msg))
    if (
        _true(ost, "Complete")
        and not _true(ost, "SuccessCriteriaMet")
        and _true(st, "SuccessCriteriaMet")
    ):
        msg = "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"
        out.append(fe.invalid("status.conditions", None, msg))
    return out


@validator("Job", status=True)
def validate_job_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateJobStatus`` plus, on update, ``ValidateJobStatusUpdate``."""
    st, spec = obj.get("status") or {}, obj.get("spec") or {}
    ost = (old or {}).get("status") or {}
    ch = _changed(st, ost)
    out = [
        fe.invalid(f"status.{f}", st[f], _NONNEG)
        for f in ("active", "succeeded", "failed", "ready", "terminating")
        if isinstance(st.get(f), int) and st[f] < 0
    ]
    out += _uncounted_causes(st)
    out += _condition_causes(st, ch, spec)
    out += _finished_causes(st, ch, spec)
    out += _index_causes(st, ch, spec)
    if (
        (ch.ready or ch.active)
        and st.get("ready") is not None
        and _n(st, "ready") > _n(st, "active")
    ):
        out.append(
            fe.invalid("status.ready", st["ready"], "cannot set more ready pods than active")
        )
    if old is not None:
        out += _update_causes(st, ost, spec)
    return out
