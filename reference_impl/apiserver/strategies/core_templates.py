"""Defaulting and validation for core/v1 ReplicationController and PodTemplate
(``SetDefaults_ReplicationController``, ``ValidateReplicationController[Update]``,
``ValidatePodTemplate[Update]`` of v1.37.2); the RC /status counters are in
``status_counts``."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.apps import (
    _default_template,
    old_template,
    template_causes,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_NONNEGATIVE = "must be greater than or equal to 0"


@defaulter("ReplicationController")
def default_rc(obj: Obj, ctx: Context) -> None:
    """Selector and labels from the template's labels when empty; replicas 1."""
    spec = obj.setdefault("spec", {})
    template = spec.get("template")
    if isinstance(template, dict):
        labels = (template.get("metadata") or {}).get("labels")
        # An empty map fills them with nothing: leave them absent instead.
        if labels:
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            meta = obj.setdefault("metadata", {})
            if not meta.get("labels"):
                meta["labels"] = dict(labels)
        _default_template(template, ctx)
    spec.setdefault("replicas", 1)


@defaulter("PodTemplate")
def default_pod_template(obj: Obj, ctx: Context) -> None:
    """The template is a non-pointer struct: its pod spec is always defaulted."""
    template = obj.setdefault("template", {})
    if isinstance(template, dict):
        _default_template(template, ctx)


def _nonnegative(spec: Obj, name: str) -> list[Cause]:
    v = spec.get(name)
    if isinstance(v, int) and not isinstance(v, bool) and v < 0:
        return [fe.invalid(f"spec.{name}", v, _NONNEGATIVE)]
    return []


def _rc_template_causes(obj: Obj, selector: Obj, ctx: Context, old: Obj | None) -> list[Cause]:
    """``ValidatePodTemplateSpecForRC`` (options from the old RC's template, if any)."""
    template = (obj.get("spec") or {}).get("template")
    if template is None:
        return [fe.required("spec.template")]
    causes: list[Cause] = []
    labels = (template.get("metadata") or {}).get("labels") or {}
    if selector and any(labels.get(k) != v for k, v in selector.items()):
        msg = "`selector` does not match template `labels`"
        causes.append(fe.invalid("spec.template.metadata.labels", labels, msg))
    causes += template_causes(obj, ("Always",), ctx, old_template(old, "template"))
    pod_spec = template.get("spec") or {}
    # template_causes leaves restart policies it does not know to the pod spec rules.
    rp = pod_spec.get("restartPolicy")
    if rp not in ("Always", "OnFailure", "Never"):
        causes.append(fe.not_supported("spec.template.spec.restartPolicy", rp, ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        detail = "activeDeadlineSeconds in ReplicationController is not Supported"
        causes.append(fe.forbidden("spec.template.spec.activeDeadlineSeconds", detail))
    return causes


@validator("ReplicationController")
def validate_rc(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateReplicationControllerSpec`` (the same on create and update)."""
    spec = obj.get("spec") or {}
    causes = _nonnegative(spec, "minReadySeconds")
    selector = spec.get("selector") or {}
    if not selector:
        causes.append(fe.required("spec.selector"))
    if spec.get("replicas") is None:
        causes.append(fe.required("spec.replicas"))
    else:
        causes += _nonnegative(spec, "replicas")
    return causes + _rc_template_causes(obj, selector, ctx, old)


@validator("PodTemplate")
def validate_pod_template(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePodTemplateSpec`` at ``template`` (no restart policy is ruled out), under
    the options of the template and the old one's."""
    wrapped: Obj = {"spec": {"template": obj.get("template") or {}}}
    old_tmpl = None if old is None else old.get("template") or {}
    prefix = "spec.template"
    return [
        Cause("template" + c.field[len(prefix) :], c.reason, c.message)
        for c in template_causes(wrapped, (), ctx, old_tmpl)
    ]
