"""Defaulting and validation for batch/v1 Job."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.formats import label_value_errors
from reference_impl.api.meta import dns1123_subdomain_errors, selector_from_label_selector
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.apps import (
    _default_template,
    old_template,
    template_causes,
)
from reference_impl.apiserver.strategies.batch_policies import job_policy_causes
from reference_impl.apiserver.strategies.batch_update import (
    completions_update_causes,
    template_update_causes,
)
from reference_impl.apiserver.strategies.policy import label_selector_causes
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
    # SetDefaults_Job: unlimited (MaxInt32) when backoffLimitPerIndex counts per index
    spec.setdefault("backoffLimit", 2**31 - 1 if spec.get("backoffLimitPerIndex") is not None else 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("manualSelector", False)
    pfp = spec.get("podFailurePolicy")
    # SetDefaults_Job: Failed with a pod failure policy, and a pattern's status True.
    spec.setdefault(
        "podReplacementPolicy", "Failed" if isinstance(pfp, dict) else "TerminatingOrFailed"
    )
    for rule in (pfp or {}).get("rules") or [] if isinstance(pfp, dict) else []:
        for pattern in (rule or {}).get("onPodConditions") or [] if isinstance(rule, dict) else []:
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"
    template = spec.setdefault("template", {})
    meta = job["metadata"]
    labels = (template.get("metadata") or {}).get("labels")
    if isinstance(labels, dict) and not meta.get("labels"):
        # SetDefaults_Job shares the template's label map with the Job (a Go map): the
        # labels generateSelector adds to the template land on the Job too.
        meta["labels"] = labels
    _default_template(template, ctx)


@preparer("Job")
def generate_selector(job: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate's generateSelector (unless manualSelector): the job-name and
    controller-uid labels on the template (user-set ones kept) and, when none is given,
    a selector on the uid label."""
    if old is not None:
        return
    spec, meta = job.setdefault("spec", {}), job["metadata"]
    if spec.get("manualSelector"):
        return
    tmeta = spec.setdefault("template", {}).setdefault("metadata", {})
    labels = tmeta.get("labels")
    if labels is None:
        labels = tmeta["labels"] = {}
    for key in ("job-name", _NAME_LABEL):
        labels.setdefault(key, meta.get("name", ""))
    for key in ("controller-uid", _UID_LABEL):
        labels.setdefault(key, meta.get("uid", ""))
    sel = spec.get("selector")
    if not isinstance(sel, dict):
        sel = spec["selector"] = {}
    match = sel.get("matchLabels")
    if not isinstance(match, dict):
        match = sel["matchLabels"] = {}
    match.setdefault(_UID_LABEL, meta.get("uid", ""))
    # SetDefaults_Job again as the storage codec reads the Job back: no labels of its own
    # take the template's. Upstream after validation; here only when the generated
    # values are valid labels, else the template's labels refuse the Job anyway.
    if not meta.get("labels") and not label_value_errors(str(meta.get("name", ""))):
        meta["labels"] = dict(labels)


def _generated_selector_causes(job: Obj, sel_ok: bool) -> list[Cause]:
    """``validateGeneratedSelector`` on create (prefixed labels required): the template
    carries the generated labels, and the selector matches them."""
    spec, meta = job.get("spec") or {}, job.get("metadata") or {}
    sel = spec.get("selector")
    if spec.get("manualSelector") or sel is None:
        return []
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    causes = [] if uid else [fe.required("metadata.uid")]
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    expected = {"controller-uid": uid, "job-name": name, _UID_LABEL: uid, _NAME_LABEL: name}
    for key, want in expected.items():
        path = f"spec.template.metadata.labels[{key}]"
        if key not in labels:
            causes.append(fe.required(path, f"must be '{want}'"))
        elif labels[key] != want:
            causes.append(fe.invalid(path, labels, f"must be '{want}'"))
    if sel_ok and not selector_from_label_selector(sel).matches(expected):
        causes.append(fe.invalid("spec.selector", sel, "`selector` not auto-generated"))
    return causes


_HTTP_PATH: Final = re.compile(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")


def domain_prefixed_path_causes(path: str, value: str) -> list[Cause]:
    """``IsDomainPrefixedPath``: ``host/path`` with a DNS subdomain host."""
    if not value:
        return [fe.required(path)]
    host, sep, rest = value.partition("/")
    if not sep or not host or not rest:
        return [fe.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    causes = [fe.invalid(path, host, e) for e in dns1123_subdomain_errors(host)]
    if not _HTTP_PATH.match(rest):
        causes.append(
            fe.invalid(
                path,
                rest,
                "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
            )
        )
    return causes


@validator("Job")
def validate_job(job: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``validateJobSpec`` (1.37.2): counts non-negative, the selector matches the template,
    restartPolicy OnFailure or Never, successPolicy only when Indexed; on update
    ``ValidateJobSpecUpdate`` (see ``batch_update``) and its immutable fields."""
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
    if spec.get("managedBy") is not None:
        causes += domain_prefixed_path_causes("spec.managedBy", str(spec["managedBy"]))
        if len(str(spec["managedBy"])) > 63:
            causes.append(fe.too_long("spec.managedBy", 63))
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
    sel_causes = label_selector_causes(sel, "spec.selector")
    if old is None:
        causes += _generated_selector_causes(job, not sel_causes)
    if sel is None:
        causes.append(fe.required("spec.selector"))
    causes += sel_causes
    # LabelSelectorAsSelector(nil) is labels.Nothing(): no template matches a missing one;
    # a selector it refuses (the errors above) skips the match.
    if sel is None or (not sel_causes and not selector_from_label_selector(sel).matches(labels)):
        causes.append(
            fe.invalid(
                "spec.template.metadata.labels",
                labels,
                "`selector` does not match template `labels`",
            )
        )
    causes += job_policy_causes(spec)
    causes += template_causes(job, (), ctx, old_template(old, "template"))
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
        causes += completions_update_causes(spec, ospec)
        causes += template_update_causes(job, old)
        # validateJobSpecUpdate's ValidateImmutableField list.
        immutable = (
            "selector",
            "completionMode",
            "podFailurePolicy",
            "backoffLimitPerIndex",
            "managedBy",
            "successPolicy",
        )
        for f in immutable:
            if ospec.get(f) != spec.get(f):
                causes.append(fe.invalid(f"spec.{f}", spec.get(f), "field is immutable"))
    return causes
