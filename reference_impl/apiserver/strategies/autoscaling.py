"""Defaulting and validation for autoscaling/v2 HorizontalPodAutoscaler.

After ``pkg/apis/autoscaling/v2/defaults.go`` and ``pkg/apis/autoscaling/validation``.
``minReplicas: 0`` needs the HPAScaleToZero gate (else the lower bound is 1) and at least
one Object or External metric; the real apiserver reports the latter as
``spec.metrics: Forbidden`` after defaulting fills in the 80% CPU metric.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.conversion.scheme import register_defaulter, register_stored_defaulter
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.autoscaling_metrics import metric_spec_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict
from reference_impl.errors import Cause

__all__ = ["DEFAULT_CPU_UTILIZATION", "default_rules"]

Obj = dict[str, Any]
DEFAULT_CPU_UTILIZATION: Final = 80
MAX_STABILIZATION_SECONDS: Final = 3600
MAX_PERIOD_SECONDS: Final = 1800
_METRIC_TYPES: Final = ("ContainerResource", "External", "Object", "Pods", "Resource")
_FIELD_OF: Final = {
    "ContainerResource": "containerResource",
    "External": "external",
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
}
_TARGET_TYPES: Final = ("Utilization", "Value", "AverageValue")
_SELECT: Final = ("Max", "Min", "Disabled")


def default_rules(direction: str, rules: Obj | None) -> Obj:
    """``GenerateHPAScaleUpRules`` / ``GenerateHPAScaleDownRules``: fill unset fields."""
    out = dict(rules or {})
    if direction == "scaleUp":
        out.setdefault("stabilizationWindowSeconds", 0)
        out.setdefault(
            "policies",
            [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        )
    else:
        out.setdefault("policies", [{"type": "Percent", "value": 100, "periodSeconds": 15}])
    out.setdefault("selectPolicy", "Max")
    return out


@defaulter("HorizontalPodAutoscaler")
def default_hpa(obj: Obj, ctx: Context) -> None:
    """minReplicas 1; no metrics means 80% average CPU (v2's defaults, and v1's with its
    conversion)."""
    spec = obj.setdefault("spec", {})
    spec.setdefault("minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {
                        "type": "Utilization",
                        "averageUtilization": DEFAULT_CPU_UTILIZATION,
                    },
                },
            }
        ]


def _default_v2_behavior(obj: Obj) -> None:
    """``SetDefaults_HorizontalPodAutoscalerBehavior``: a v2 default only; a behavior a v1
    write carries in its annotation reaches validation as written (v1 conversion), and gets
    the defaults when the stored object is decoded."""
    behavior = as_dict(obj.get("spec")).get("behavior")
    if isinstance(behavior, dict):
        for d in ("scaleUp", "scaleDown"):
            behavior[d] = default_rules(d, behavior.get(d))


register_defaulter("autoscaling", "v2", "HorizontalPodAutoscaler", _default_v2_behavior)
# A v1 write's behavior is validated as written, then stored and read back defaulted.
register_stored_defaulter("autoscaling", "HorizontalPodAutoscaler", _default_v2_behavior)


@validator("HorizontalPodAutoscaler")
def validate_hpa(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Replica bounds, scale-to-zero rules, metric specs and behavior policies."""
    spec = obj.get("spec") or {}
    lower = 0 if ctx.gates.enabled("HPAScaleToZero") else 1
    causes: list[Cause] = []
    lo = spec.get("minReplicas")
    hi = int(spec.get("maxReplicas", 0))
    if lo is not None and int(lo) < lower:
        causes.append(
            Cause(
                "spec.minReplicas",
                "FieldValueInvalid",
                f"Invalid value: {lo}: must be greater than or equal to {lower}",
            )
        )
    if hi == 0:
        # 0 is Required only; a zero max is Invalid just when below minReplicas (below).
        causes.append(Cause("spec.maxReplicas", "FieldValueRequired", "Required value"))
    elif hi < 0:
        causes.append(
            Cause(
                "spec.maxReplicas",
                "FieldValueInvalid",
                f"Invalid value: {hi}: must be greater than or equal to 1",
            )
        )
    if lo is not None and hi < int(lo):
        causes.append(
            Cause(
                "spec.maxReplicas",
                "FieldValueInvalid",
                f"Invalid value: {hi}: must be greater than or equal to `minReplicas`",
            )
        )
    ref = spec.get("scaleTargetRef") or {}
    oref = ((old or {}).get("spec") or {}).get("scaleTargetRef") or {}
    # validationOptionsForHorizontalPodAutoscaler: an update keeping kind and apiVersion
    # skips the apiVersion check; a ReplicationController may name the core group.
    unchanged = old is not None and (oref.get("apiVersion"), oref.get("kind")) == (
        ref.get("apiVersion"),
        ref.get("kind"),
    )
    causes += _ref_causes(ref, check_version=not unchanged, empty_group=ref.get("kind") == "ReplicationController")
    causes += _metrics_causes(spec.get("metrics") or [], lo)
    causes += _behavior_causes(spec.get("behavior"))
    return causes


def _ref_causes(ref: Obj, *, check_version: bool = True, empty_group: bool = False) -> list[Cause]:
    """``ValidateCrossVersionObjectReference``: kind and name required path segments, and
    an apiVersion that parses and (unless allowed empty) names an API group."""
    out = []
    for f in ("kind", "name"):
        value = str(ref.get(f) or "")
        if not value:
            out.append(Cause(f"spec.scaleTargetRef.{f}", "FieldValueRequired", "Required value"))
        out += [
            Cause(f"spec.scaleTargetRef.{f}", "FieldValueInvalid", f"Invalid value: {value!r}: {e}")
            for e in path_segment_errors(value)
        ]
    version = str(ref.get("apiVersion") or "")
    problem = api_version_error(version, empty_group) if check_version else ""
    if problem:
        out.append(
            Cause("spec.scaleTargetRef.apiVersion", "FieldValueInvalid", f"Invalid value: {version!r}: {problem}")
        )
    return out


def api_version_error(version: str, empty_group: bool) -> str:
    """``ValidateAPIVersion``: what ``schema.ParseGroupVersion`` or the group rule says."""
    if version.count("/") > 1:
        return f"unexpected GroupVersion string: {version}"
    group = version.split("/")[0] if "/" in version else ""
    if not empty_group and not group:
        return "apiVersion must specify API group"
    return ""


def path_segment_errors(name: str) -> list[str]:
    """``content.IsPathSegmentName``: not "." or "..", no "/" or "%"."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def _metrics_causes(metrics: list[Obj], min_replicas: Any) -> list[Cause]:
    causes: list[Cause] = []
    scales_to_zero_ok = False
    for i, m in enumerate(metrics):
        path = f"spec.metrics[{i}]"
        mtype = m.get("type")
        causes += metric_spec_causes(m, path)
        if mtype in ("Object", "External"):
            scales_to_zero_ok = True
    if min_replicas is not None and int(min_replicas) == 0 and not scales_to_zero_ok:
        causes.append(
            Cause(
                "spec.metrics",
                "FieldValueForbidden",
                "must specify at least one Object or External metric to support scaling "
                "to zero replicas",
            )
        )
    return causes


def _behavior_causes(behavior: Any) -> list[Cause]:
    if not isinstance(behavior, dict):
        return []
    causes: list[Cause] = []
    for d in ("scaleUp", "scaleDown"):
        rules = behavior.get(d)
        if not isinstance(rules, dict):
            continue  # unset rules (a v1 write's behavior annotation) are not checked
        path = f"spec.behavior.{d}"
        win = rules.get("stabilizationWindowSeconds")
        if win is not None and not 0 <= int(win) <= MAX_STABILIZATION_SECONDS:
            causes.append(
                Cause(
                    f"{path}.stabilizationWindowSeconds",
                    "FieldValueInvalid",
                    f"must be between 0 and {MAX_STABILIZATION_SECONDS}",
                )
            )
        sel = rules.get("selectPolicy", "Max")
        if sel not in _SELECT:
            causes.append(
                Cause(
                    f"{path}.selectPolicy", "FieldValueNotSupported", "must be Max, Min or Disabled"
                )
            )
        if not rules.get("policies"):
            causes.append(fe.required(f"{path}.policies", "must specify at least one Policy"))
        for j, p in enumerate(rules.get("policies") or []):
            causes += _policy_causes(f"{path}.policies[{j}]", p)
        causes += _tolerance_causes(rules.get("tolerance"), f"{path}.tolerance")
    return causes


def _tolerance_causes(tolerance: Any, path: str) -> list[Cause]:
    """``ValidateNonnegativeQuantity`` on a scaling rule's tolerance."""
    if tolerance is None:
        return []
    try:
        negative = parse_quantity(tolerance) < 0
    except ValueError:
        return []  # a malformed quantity never decodes
    if negative:
        return [fe.invalid(path, str(tolerance), "must be greater than or equal to 0")]
    return []


def _policy_causes(path: str, policy: Obj) -> list[Cause]:
    causes = []
    if policy.get("type") not in ("Pods", "Percent"):
        causes.append(
            Cause(f"{path}.type", "FieldValueNotSupported", 'supported values: "Pods", "Percent"')
        )
    if int(policy.get("value", 0)) <= 0:
        causes.append(Cause(f"{path}.value", "FieldValueInvalid", "must be greater than zero"))
    period = int(policy.get("periodSeconds", 0))
    if not 0 < period <= MAX_PERIOD_SECONDS:
        causes.append(
            Cause(
                f"{path}.periodSeconds",
                "FieldValueInvalid",
                f"must be greater than zero and less than or equal to {MAX_PERIOD_SECONDS}",
            )
        )
    return causes


@validator("HorizontalPodAutoscaler", status=True)
def validate_hpa_condition_generations(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateHorizontalPodAutoscalerStatusUpdate``: a condition's observedGeneration,
    when set, is non-negative (the replica counts are in status_counts)."""
    causes: list[Cause] = []
    for i, c in enumerate((obj.get("status") or {}).get("conditions") or []):
        gen = c.get("observedGeneration") if isinstance(c, dict) else None
        if isinstance(gen, int) and gen < 0:
            path = f"status.conditions[{i}].observedGeneration"
            causes.append(fe.invalid(path, gen, "must be greater than or equal to 0"))
    return causes
