"""autoscaling/v1 <-> v2 (the storage version) for HorizontalPodAutoscaler.

After ``pkg/apis/autoscaling/v1/conversion.go``. v1 has only
``targetCPUUtilizationPercentage``; everything else v2 can say travels in annotations, so
a v2 object survives a v1 read-modify-write:

* ``autoscaling.alpha.kubernetes.io/metrics``: the non-CPU-utilization metrics, in the
  v1 MetricSpec shape (``targetAverageValue``, ``metricName`` ...);
* ``.../current-metrics``: every current metric, in the v1 MetricStatus shape;
* ``.../behavior``: the behavior, marshalled from the *internal* Go type (so with Go field
  names, ``{"ScaleUp":{"StabilizationWindowSeconds":0,...}}``), as upstream does;
* ``.../conditions``: the status conditions.

A v1 write drops those annotations after reading them; with no metric at all it gets the
implicit 80% CPU target. JSON is written compactly with Go's field order, so the strings
match a live apiserver's.
"""

from __future__ import annotations

import json
from typing import Any, Final

from reference_impl.apiserver.conversion.autoscaling_v1_metrics import (
    go_fields,
    spec_to_v1,
    spec_to_v2,
    status_to_v1,
    status_to_v2,
)
from reference_impl.apiserver.conversion.scheme import register

__all__ = ["METRICS", "ROUND_TRIP"]

Obj = dict[str, Any]
_A: Final = "autoscaling.alpha.kubernetes.io/"
METRICS: Final = _A + "metrics"
CURRENT_METRICS: Final = _A + "current-metrics"
CONDITIONS: Final = _A + "conditions"
BEHAVIOR: Final = _A + "behavior"
ROUND_TRIP: Final = frozenset(
    {
        METRICS,
        CURRENT_METRICS,
        CONDITIONS,
        BEHAVIOR,
        _A + "scale-down-tolerance",
        _A + "scale-up-tolerance",
    }
)
DEFAULT_CPU_UTILIZATION: Final = 80


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _loads(text: object) -> Any:
    try:
        return json.loads(str(text))
    except ValueError:
        return None  # upstream ignores an annotation that does not parse


# -- behavior (the internal Go type, no json tags) and conditions ----------------------

_RULE_FIELDS: Final = (
    ("StabilizationWindowSeconds", "stabilizationWindowSeconds"),
    ("SelectPolicy", "selectPolicy"),
    ("Policies", "policies"),
    ("Tolerance", "tolerance"),
)
_POLICY_FIELDS: Final = (("Type", "type"), ("Value", "value"), ("PeriodSeconds", "periodSeconds"))


def _get_ci(d: Obj, name: str) -> Any:
    # encoding/json matches field names case-insensitively.
    return next((v for k, v in d.items() if k.lower() == name.lower()), None)


def _behavior_to_internal(b: Obj) -> Obj:
    def rules(r: object) -> Obj | None:
        if not isinstance(r, dict):
            return None
        out: Obj = {g: r.get(j) for g, j in _RULE_FIELDS}
        if isinstance(out["Policies"], list):
            out["Policies"] = [
                {g: p.get(j, "" if g == "Type" else 0) for g, j in _POLICY_FIELDS}
                for p in out["Policies"]
                if isinstance(p, dict)
            ]
        return out

    return {"ScaleUp": rules(b.get("scaleUp")), "ScaleDown": rules(b.get("scaleDown"))}


def _behavior_from_internal(b: object) -> Obj | None:
    if not isinstance(b, dict):
        return None

    def rules(r: object) -> Obj | None:
        if not isinstance(r, dict):
            return None
        out = go_fields({j: _get_ci(r, g) for g, j in _RULE_FIELDS})
        if isinstance(out.get("policies"), list):
            out["policies"] = [
                {j: _get_ci(p, g) for g, j in _POLICY_FIELDS}
                for p in out["policies"]
                if isinstance(p, dict)
            ]
        return out

    out = go_fields(
        {"scaleUp": rules(_get_ci(b, "ScaleUp")), "scaleDown": rules(_get_ci(b, "ScaleDown"))}
    )
    return out or None  # an empty behavior is no behavior


def _condition_to_v1(c: Obj) -> Obj:
    return go_fields(
        {
            "type": c.get("type", ""),
            "status": c.get("status", ""),
            "lastTransitionTime": c.get("lastTransitionTime"),
            "reason": c.get("reason") or None,
            "message": c.get("message") or None,
            "observedGeneration": c.get("observedGeneration"),
        }
    )


def _cpu_utilization(m: Obj, part: str) -> Any:
    r = m.get("resource")
    if m.get("type") != "Resource" or not isinstance(r, dict) or r.get("name") != "cpu":
        return None
    return (r.get(part) or {}).get("averageUtilization")


def _cpu_metric(utilization: object) -> Obj:
    target = {"type": "Utilization", "averageUtilization": utilization}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


# -- the object ------------------------------------------------------------------------


def _annotations(obj: Obj) -> tuple[Obj, Obj]:
    meta = obj.setdefault("metadata", {})
    given = meta.get("annotations") or {}
    return meta, {k: v for k, v in given.items() if k not in ROUND_TRIP}


def _set_annotations(meta: Obj, annotations: Obj) -> None:
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)


def to_v2(obj: Obj) -> Obj:
    """A v1 HPA in the v2 shape (in place), reading the round-trip annotations."""
    meta = obj.setdefault("metadata", {})
    given: Obj = dict(meta.get("annotations") or {})
    spec = obj.setdefault("spec", {})
    cpu = spec.pop("targetCPUUtilizationPercentage", None)
    metrics = [_cpu_metric(cpu)] if cpu is not None else []
    other = _loads(given[METRICS]) if METRICS in given else None
    if isinstance(other, list):
        metrics = [spec_to_v2(m) for m in other if isinstance(m, dict)] + metrics[:1]
    behavior = _behavior_from_internal(_loads(given[BEHAVIOR])) if BEHAVIOR in given else None
    spec["metrics"] = metrics or [_cpu_metric(DEFAULT_CPU_UTILIZATION)]
    if behavior is not None:
        spec["behavior"] = behavior
    status = obj.get("status")
    if isinstance(status, dict):
        current_cpu = status.pop("currentCPUUtilizationPercentage", None)
        if current_cpu is not None:
            current = {"name": "cpu", "current": {"averageUtilization": current_cpu}}
            status["currentMetrics"] = [{"type": "Resource", "resource": current}]
        current_metrics = _loads(given[CURRENT_METRICS]) if CURRENT_METRICS in given else None
        if isinstance(current_metrics, list):
            status["currentMetrics"] = [
                status_to_v2(m) for m in current_metrics if isinstance(m, dict)
            ]
        conditions = _loads(given[CONDITIONS]) if CONDITIONS in given else None
        if isinstance(conditions, list):
            status["conditions"] = [go_fields(dict(c)) for c in conditions if isinstance(c, dict)]
    _set_annotations(meta, {k: v for k, v in given.items() if k not in ROUND_TRIP})
    return obj


def from_v2(obj: Obj) -> Obj:
    """A stored v2 HPA in the v1 shape (in place), the rest in round-trip annotations."""
    meta, annotations = _annotations(obj)
    spec = obj.setdefault("spec", {})
    metrics = [m for m in spec.pop("metrics", None) or [] if isinstance(m, dict)]
    behavior = spec.pop("behavior", None)
    cpu = next((u for m in metrics if (u := _cpu_utilization(m, "target")) is not None), None)
    if cpu is not None:
        spec["targetCPUUtilizationPercentage"] = cpu
    other = [spec_to_v1(m) for m in metrics if _cpu_utilization(m, "target") is None]
    status: Obj = obj.get("status") or {}
    current = [m for m in status.get("currentMetrics") or [] if isinstance(m, dict)]
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if other:
        annotations[METRICS] = _dumps(other)
    if current:
        annotations[CURRENT_METRICS] = _dumps([status_to_v1(m) for m in current])
    if isinstance(behavior, dict):
        annotations[BEHAVIOR] = _dumps(_behavior_to_internal(behavior))
    if conditions:
        annotations[CONDITIONS] = _dumps([_condition_to_v1(c) for c in conditions])
    _set_annotations(meta, dict(sorted(annotations.items())))
    current_cpu = None
    for m in current:  # the last CPU utilization wins, as upstream's loop
        current_cpu = _cpu_utilization(m, "current") or current_cpu
    obj["status"] = go_fields(
        {
            "observedGeneration": status.get("observedGeneration"),
            "lastScaleTime": status.get("lastScaleTime"),
            "currentReplicas": status.get("currentReplicas", 0),
            "desiredReplicas": status.get("desiredReplicas", 0),
            "currentCPUUtilizationPercentage": current_cpu,
        }
    )
    return obj


register("autoscaling", "v1", "HorizontalPodAutoscaler", to_storage=to_v2, from_storage=from_v2)
