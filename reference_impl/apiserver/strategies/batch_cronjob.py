"""batch/v1 CronJob (1.37.2): ``SetDefaults_CronJob``, the strategy's status reset on
create, and ``ValidateCronJobCreate`` / ``ValidateCronJobUpdate``: the schedule (see
``batch_cron``), no ``TZ``/``CRON_TZ`` in a new schedule, the time zone (checked when new
or changed), the concurrency policy, non-negative deadlines and history limits, a name of
at most 52 characters on create, and the job template through ``validateJobSpec`` (the
Job strategy's pieces, at ``spec.jobTemplate.spec``) with no selector and no manual
selector."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.apps import (
    _default_template,
    old_template,
    template_causes,
)
from reference_impl.apiserver.strategies.batch import domain_prefixed_path_causes
from reference_impl.apiserver.strategies.batch_cron import load_location_error, schedule_error
from reference_impl.apiserver.strategies.batch_gang import validate_job_scheduling
from reference_impl.apiserver.strategies.batch_policies import job_policy_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["job_template_spec_causes"]

Obj = dict[str, Any]
_NONNEG: Final = "must be greater than or equal to 0"
_POLICIES: Final = ("Allow", "Forbid", "Replace")
_TZ_PART: Final = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")
_PREFIX: Final = "spec.jobTemplate.spec"
_VARIANT: Final = "the basic/gang policy variant is immutable"


@defaulter("CronJob")
def default_cronjob(cj: Obj, ctx: Context) -> None:
    """``SetObjectDefaults_CronJob``: policy Allow, not suspended, history limits 3 and 1,
    the pod failure policy patterns' status True and the template's pod defaults (not
    ``SetDefaults_Job``: a template keeps its job fields unset)."""
    spec = cj.setdefault("spec", {})
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    jt = spec.setdefault("jobTemplate", {})
    jspec = jt.setdefault("spec", {}) if isinstance(jt, dict) else {}
    pfp = jspec.get("podFailurePolicy")
    for rule in (pfp.get("rules") or []) if isinstance(pfp, dict) else []:
        for pattern in (rule.get("onPodConditions") or []) if isinstance(rule, dict) else []:
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"
    template = jspec.setdefault("template", {})
    if isinstance(template, dict):
        _default_template(template, ctx)


@preparer("CronJob")
def reset_cronjob_status(cj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: the status is the empty struct whatever the client sent."""
    if old is None:
        cj["status"] = {}


def _moved(causes: list[Cause]) -> list[Cause]:
    """Causes found on a Job-shaped object (paths under ``spec``) moved under the template."""
    return [Cause(_PREFIX + c.field.removeprefix("spec"), c.reason, c.message) for c in causes]


def job_template_spec_causes(jspec: Obj, ojspec: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateJobTemplateSpec``: ``validateJobSpec`` at ``spec.jobTemplate.spec`` (the
    scheduling rules compared with the old template), then no selector or manual one."""
    out: list[Cause] = []
    for f in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
              "ttlSecondsAfterFinished"):  # fmt: skip
        v = jspec.get(f)
        if isinstance(v, int) and not isinstance(v, bool) and v < 0:
            out.append(fe.invalid(f"spec.{f}", v, _NONNEG))
    if jspec.get("managedBy") is not None:
        out += domain_prefixed_path_causes("spec.managedBy", str(jspec["managedBy"]))
        if len(str(jspec["managedBy"])) > 63:
            out.append(fe.too_long("spec.managedBy", 63))
    mode = jspec.get("completionMode")
    if mode is not None and mode not in ("NonIndexed", "Indexed"):
        out.append(fe.not_supported("spec.completionMode", mode, ("NonIndexed", "Indexed")))
    if jspec.get("successPolicy") is not None and mode != "Indexed":
        out.append(fe.invalid("spec.successPolicy", jspec["successPolicy"], "requires indexed completion mode"))
    out += job_policy_causes(jspec)
    job: Obj = {"kind": "Job", "metadata": {}, "spec": jspec}
    old_job = None if ojspec is None else {"kind": "Job", "metadata": {}, "spec": ojspec}
    # validate_job_scheduling also applies validateJobSchedulingUpdate (the frozen
    # basic/gang variant), which only ValidateJobSpecUpdate calls: not a template's rule.
    out += [c for c in validate_job_scheduling(job, old_job, ctx) if _VARIANT not in c.message]
    out += template_causes(job, (), ctx, old_template(old_job, "template"))
    rp = ((jspec.get("template") or {}).get("spec") or {}).get("restartPolicy") or ""
    if rp in ("Always", ""):
        out.append(fe.required("spec.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"'))
    elif rp not in ("OnFailure", "Never"):
        out.append(fe.not_supported("spec.template.spec.restartPolicy", rp, ("OnFailure", "Never")))
    if jspec.get("selector") is not None:
        out.append(fe.invalid("spec.selector", jspec["selector"], "`selector` will be auto-generated"))
    if jspec.get("manualSelector") is True:
        out.append(fe.not_supported("spec.manualSelector", True, ("nil", "false")))
    return _moved(out)


def _schedule_causes(spec: Obj, ospec: Obj | None) -> list[Cause]:
    """``validateScheduleFormat``; TZ in the schedule only when the old one had it."""
    schedule = str(spec.get("schedule") or "")
    if not schedule:
        return [fe.required("spec.schedule")]
    out: list[Cause] = []
    err = schedule_error(schedule)
    if err is not None:
        out.append(fe.invalid("spec.schedule", schedule, err))
    allow_tz = ospec is not None and "TZ" in str(ospec.get("schedule") or "")
    if allow_tz and "TZ" in schedule and spec.get("timeZone") is not None:
        msg = "cannot use both timeZone field and TZ or CRON_TZ in schedule"
        out.append(fe.invalid("spec.schedule", schedule, msg))
    elif not allow_tz and "TZ" in schedule:
        msg = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
        out.append(fe.invalid("spec.schedule", schedule, msg))
    return out


def _time_zone_causes(tz: Any) -> list[Cause]:
    """``validateTimeZone``."""
    path = "spec.timeZone"
    if tz is None:
        return []
    name = str(tz)
    if not name:
        return [fe.invalid(path, name, "timeZone must be nil or non-empty string")]
    for part in name.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TZ_PART.fullmatch(part):
            return [fe.invalid(path, name, f"unknown time zone {name}")]
    out: list[Cause] = []
    if name.lower() == "local":
        msg = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
        out.append(fe.invalid(path, name, msg))
    err = load_location_error(name)
    if err is not None:
        out.append(fe.invalid(path, name, err))
    return out


@validator("CronJob")
def validate_cronjob(cj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateCronJobSpec`` and, on create, the 52-character name limit."""
    spec = cj.get("spec") or {}
    ospec = None if old is None else (old.get("spec") or {})
    out = _schedule_causes(spec, ospec)
    sds = spec.get("startingDeadlineSeconds")
    if isinstance(sds, int) and sds < 0:
        out.append(fe.invalid("spec.startingDeadlineSeconds", sds, _NONNEG))
    if ospec is None or ospec.get("timeZone") != spec.get("timeZone"):
        out += _time_zone_causes(spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        out.append(fe.required("spec.concurrencyPolicy"))
    elif policy not in _POLICIES:
        out.append(fe.not_supported("spec.concurrencyPolicy", policy, _POLICIES))
    jspec = (spec.get("jobTemplate") or {}).get("spec") or {}
    ojspec = None if ospec is None else ((ospec.get("jobTemplate") or {}).get("spec") or {})
    out += job_template_spec_causes(jspec, ojspec, ctx)
    for f in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        v = spec.get(f)
        if isinstance(v, int) and v < 0:
            out.append(fe.invalid(f"spec.{f}", v, _NONNEG))
    name = str((cj.get("metadata") or {}).get("name") or "")
    if old is None and len(name) > 52:
        out.append(fe.invalid("metadata.name", name, "must be no more than 52 characters"))
    return out
