"""Defaulting and validation for batch/v1 Job."""

from __future__ import annotations

from typing import Any

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.apps import _default_template, template_causes
from reference_impl.apiserver.validation import fielderr as fe
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
    """``validateJobSpec`` (1.37.2): counts non-negative, the selector matches the template,
    restartPolicy OnFailure or Never, successPolicy only when Indexed; on update the
    template, selector and completionMode are immutable, completions too unless Indexed."""
    spec = job.get("spec") or {}
    causes: list[Cause] = []
    for f in (
        "parallelism",
        "completions",
        "backoffLimit",
        "activeDeadlineSeconds",
        "ttlSecondsAfterFinished",
    ):
        v = spec.get(f)
        if isinstance(v, int) and v < 0:
            causes.append(fe.invalid(f"spec.{f}", v, "must be greater than or equal to 0"))
    mode = spec.get("completionMode")
    if mode not in ("NonIndexed", "Indexed"):
        causes.append(fe.not_supported("spec.completionMode", mode, ("NonIndexed", "Indexed")))
    if spec.get("successPolicy") is not None and mode != "Indexed":
        causes.append(
            fe.invalid(
                "spec.successPolicy", spec["successPolicy"], "requires indexed completion mode"
            )
        )
    sel = spec.get("selector")
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    if sel is None:
        causes.append(fe.required("spec.selector"))
    elif not selector_from_label_selector(sel).matches(labels):
        causes.append(
            fe.invalid(
                "spec.template.metadata.labels",
                labels,
                "`selector` does not match template `labels`",
            )
        )
    causes += template_causes(job, (), ctx)
    rp = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") or ""
    if rp in ("Always", ""):
        causes.append(
            fe.required("spec.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"')
        )
    elif rp not in ("OnFailure", "Never"):
        causes.append(
            fe.not_supported("spec.template.spec.restartPolicy", rp, ("OnFailure", "Never"))
        )
    if old is not None:
        ospec = old.get("spec") or {}
        immutable = ["template", "selector", "completionMode"]
        if mode != "Indexed":
            immutable.append("completions")
        for f in immutable:
            if ospec.get(f) != spec.get(f):
                causes.append(fe.invalid(f"spec.{f}", spec.get(f), "field is immutable"))
    return causes
