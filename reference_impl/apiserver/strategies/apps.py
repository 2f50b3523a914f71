"""Defaulting and validation for apps/v1 Deployment and ReplicaSet."""

from __future__ import annotations

from typing import Any

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.core import default_pod, pod_causes
from reference_impl.apiserver.strategies.meta import annotations_causes, labels_causes
from reference_impl.apiserver.strategies.pod_containers import container_field_causes
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.pod_annotations import seccomp_annotation_field_causes
from reference_impl.apiserver.validation.pod_validation_options import options_from_pod_template
from reference_impl.errors import Cause

__all__ = ["old_template", "template_causes"]

Obj = dict[str, Any]


@defaulter("Deployment", "ReplicaSet")
def default_workload(obj: Obj, ctx: Context) -> None:
    """replicas 1; for Deployments the RollingUpdate 25%/25% strategy and history limit 10."""
    spec = obj.setdefault("spec", {})
    spec.setdefault("replicas", 1)
    if obj["kind"] == "Deployment":
        strategy = spec.setdefault("strategy", {"type": "RollingUpdate"})
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            strategy.setdefault("type", "RollingUpdate")
            ru = strategy.setdefault("rollingUpdate", {})
            ru.setdefault("maxUnavailable", "25%")
            ru.setdefault("maxSurge", "25%")
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)
    # SetDefaults_PodSpec runs on the template's (non-pointer) pod spec even when absent.
    template = spec.setdefault("template", {})
    if isinstance(template, dict):
        _default_template(template, ctx)


def _default_template(template: Obj, ctx: Context) -> None:
    pod: Obj = {
        "kind": "Pod",
        "metadata": template.setdefault("metadata", {}),
        "spec": template.setdefault("spec", {}),
    }
    default_pod(pod, ctx)


def old_template(old: Obj | None, *keys: str) -> Obj | None:
    """The old object's pod template at ``keys`` (under its spec), for
    ``GetValidationOptionsFromPodTemplate``: None on create or where it has none."""
    node: Any = old
    for k in ("spec", *keys):
        node = node.get(k) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def template_causes(
    obj: Obj, restart_policies: tuple[str, ...], ctx: Context, old_tmpl: Obj | None = None
) -> list[Cause]:
    """The pod template must be a valid pod whose labels match ``spec.selector``; it is
    validated under ``GetValidationOptionsFromPodTemplate(template, old_tmpl)``."""
    spec = obj.get("spec") or {}
    template = spec.get("template") or {}
    causes: list[Cause] = []
    pod: Obj = {
        "kind": "Pod",
        "metadata": template.get("metadata") or {},
        "spec": template.get("spec") or {},
    }
    # ValidatePodTemplateSpec: labels and annotations at the template's own path.
    causes += labels_causes(pod["metadata"].get("labels") or {}, "spec.template.labels")
    causes += annotations_causes(
        pod["metadata"].get("annotations") or {}, "spec.template.annotations"
    )
    opts = options_from_pod_template(template, old_tmpl, ctx.gates)
    for c in pod_causes(pod, None, ctx, opts):
        causes.append(Cause(f"spec.template.{c.field}", c.reason, c.message))
    causes += seccomp_annotation_field_causes(pod["metadata"], pod["spec"], "spec.template.spec")
    if pod["spec"].get("ephemeralContainers"):
        causes.append(
            Cause(
                "spec.template.spec.ephemeralContainers",
                "FieldValueForbidden",
                "Forbidden: ephemeral containers not allowed in pod template",
            )
        )
    causes += container_field_causes(pod["spec"], "spec.template.spec")
    pod_spec: Obj = pod["spec"]
    rp = pod_spec.get("restartPolicy")
    # An empty ``restart_policies``: the caller checks restartPolicy itself (Job).
    if restart_policies and rp in ("Always", "OnFailure", "Never") and rp not in restart_policies:
        allowed = ", ".join(f'"{p}"' for p in restart_policies)
        causes.append(
            Cause(
                "spec.template.spec.restartPolicy",
                "FieldValueNotSupported",
                f'Unsupported value: "{rp}": supported values: {allowed}',
            )
        )
    return causes


def _replicated_template_causes(spec: Obj) -> list[Cause]:
    """``ValidatePodTemplateSpecForReplicaSet``: no activeDeadlineSeconds on the template."""
    pod_spec = ((spec.get("template") or {}).get("spec")) or {}
    if pod_spec.get("activeDeadlineSeconds") is None:
        return []
    return [
        fe.forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            "activeDeadlineSeconds in ReplicaSet is not Supported",
        )
    ]


def _min_ready_causes(spec: Obj) -> list[Cause]:
    """``ValidateReplicaSetSpec``: minReadySeconds non-negative."""
    v = spec.get("minReadySeconds")
    if isinstance(v, int) and v < 0:
        return [fe.invalid("spec.minReadySeconds", v, "must be greater than or equal to 0")]
    return []


@validator("Deployment", "ReplicaSet")
def validate_workload(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateDeploymentSpec`` / ``ValidateReplicaSetSpec``: replicas non-negative; the
    selector required, valid and non-empty; a selector that does not parse skips the
    template, which must otherwise match it (a missing selector matches nothing) and be
    a valid pod template; the selector immutable."""
    spec = obj.get("spec") or {}
    causes: list[Cause] = []
    if int(spec.get("replicas", 0)) < 0:
        causes.append(
            Cause("spec.replicas", "FieldValueInvalid", "must be greater than or equal to 0")
        )
    sel = spec.get("selector")
    sel_causes = label_selector_causes(sel, "spec.selector")
    if sel is None:
        causes.append(Cause("spec.selector", "FieldValueRequired", "Required value"))
    else:
        causes += sel_causes
        if not (sel.get("matchLabels") or sel.get("matchExpressions")):
            causes.append(fe.invalid("spec.selector", sel, "empty selector is invalid for deployment"))
    if sel_causes:
        causes.append(fe.invalid("spec.selector", sel, "invalid label selector"))
    else:
        selector = selector_from_label_selector(sel)
        empty = sel is not None and not (sel.get("matchLabels") or sel.get("matchExpressions"))
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
        if not empty and not selector.matches(labels):
            causes.append(
                Cause(
                    "spec.template.metadata.labels",
                    "FieldValueInvalid",
                    "`selector` does not match template `labels`",
                )
            )
        causes += template_causes(obj, ("Always",), ctx, old_template(old, "template"))
        causes += _replicated_template_causes(spec)
    if obj["kind"] == "ReplicaSet":
        causes += _min_ready_causes(spec)
    if old is not None and (old.get("spec") or {}).get("selector") != sel:
        causes.append(Cause("spec.selector", "FieldValueInvalid", "field is immutable"))
    return causes
