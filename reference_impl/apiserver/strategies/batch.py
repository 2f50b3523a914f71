"""Defaulting and validation for batch/v1 Job."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.apps import _default_template, template_causes
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_UID_LABEL = "batch.kubernetes.io/controller-uid"
_NAME_LABEL = "batch.kubernetes.io/job-name"


@defaulter("Job")
def default_job(job: Obj, ctx: Context) -> None:
    """Defaults of ``pkg/apis/batch/v1/defaults.go`` plus the generated selector."""
    spec = job.setdefault("spec", {})
    if "completions" not in spec and "parallelism" not in spec:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("manualSelector", False)
    spec.setdefault("podReplacementPolicy", "TerminatingOrFailed")
    template = spec.setdefault("template", {})
    meta = job["metadata"]
    if not spec.get("manualSelector") and "selector" not in spec and meta.get("uid"):
        labels = template.setdefault("metadata", {}).setdefault("labels", {})
        for key in (_UID_LABEL, "controller-uid"):
            labels[key] = meta["uid"]
        for key in (_NAME_LABEL, "job-name"):
            labels[key] = meta.get("name", "")
        spec["selector"] = {"matchLabels": {_UID_LABEL: meta["uid"]}}
    _default_template(template, ctx)


@validator("Job")
def validate_job(job: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Counts non-negative, restartPolicy OnFailure or Never, template immutable on update."""
    spec = job.get("spec") or {}
    causes: list[Cause] = []
    for f in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"):
        v = spec.get(f)
        if v is not None and int(v) < 0:
            causes.append(
                Cause(f"spec.{f}", "FieldValueInvalid", "must be greater than or equal to 0")
            )
    if spec.get("completionMode") not in ("NonIndexed", "Indexed"):
        causes.append(
            Cause(
                "spec.completionMode",
                "FieldValueNotSupported",
                'supported values: "NonIndexed", "Indexed"',
            )
        )
    causes += template_causes(job, ("OnFailure", "Never"), ctx)
    if old is not None:
        for f in ("template", "selector", "completionMode"):
            if (old.get("spec") or {}).get(f) != spec.get(f):
                causes.append(Cause(f"spec.{f}", "FieldValueInvalid", "field is immutable"))
    return causes
