"""Desired replicas per metric, after ``pkg/controller/podautoscaler/replica_calculator.go``.

Metric values come from the simulated cluster instead of the metrics APIs:

* **External**: the series served through ``Cluster.set_external_metric(name, value,
  labels)``; the values of every series whose labels match ``metric.selector`` are summed.
* **Object**: annotation ``garhwal.dev/metric-<metric name>`` on the described object.
* **Pods**: annotation ``garhwal.dev/metric-<metric name>`` on each pod, averaged.
* **Resource**: annotation ``garhwal.dev/usage-<resource>`` (a quantity, e.g. ``250m``)
  on each pod, against the pods' container requests.

A metric with no value is unavailable; the controller takes the maximum over the metrics
that have one, as upstream ``computeReplicasForMetrics`` does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity, selector_from_label_selector

__all__ = [
    "ANN_METRIC_PREFIX",
    "ANN_USAGE_PREFIX",
    "DEFAULT_TOLERANCE",
    "ExternalMetrics",
    "MetricResult",
    "ReplicaCalculator",
]

Obj = dict[str, Any]
ExternalMetrics = Mapping[tuple[str, tuple[tuple[str, str], ...]], float]
ANN_METRIC_PREFIX: Final = "garhwal.dev/metric-"
ANN_USAGE_PREFIX: Final = "garhwal.dev/usage-"
# --horizontal-pod-autoscaler-tolerance
DEFAULT_TOLERANCE: Final = 0.1


@dataclass(frozen=True, slots=True)
class MetricResult:
    """One metric's proposal: replicas, the observed value and its ``MetricStatus``."""

    replicas: int
    value: float
    status: Obj


def _target_value(target: Mapping[str, Any], field: str) -> float:
    return float(parse_quantity(target.get(field, 0)))


def _ann(obj: Mapping[str, Any], key: str) -> str | None:
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(key)
    return str(value) if value is not None else None


def _quantity_str(value: float) -> str:
    milli = round(value * 1000)
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


class ReplicaCalculator:
    """Turns one ``MetricSpec`` plus the current pods into a replica proposal."""

    def __init__(self, external: ExternalMetrics, tolerance: float = DEFAULT_TOLERANCE) -> None:
        self._external = external
        self.tolerance = tolerance

    def _within(self, ratio: float) -> bool:
        return abs(1.0 - ratio) <= self.tolerance

    def usage_ratio_replicas(self, current: int, ratio: float, ready: int) -> int:
        """``getUsageRatioReplicaCount``: from zero, ``ceil(ratio)``; else scale ready pods."""
        if current == 0:
            return math.ceil(ratio)
        if self._within(ratio):
            return current
        return math.ceil(ratio * ready)

    def per_pod_replicas(self, current: int, total: float, per_pod_target: float) -> int:
        """``GetExternalPerPodMetricReplicas``: ``ceil(total / target)`` outside tolerance."""
        replicas = math.ceil(total / per_pod_target) if per_pod_target > 0 else current
        if current and self._within(total / (per_pod_target * current)):
            return current
        return replicas

    def external_value(self, metric: Mapping[str, Any]) -> float | None:
        """The sum of the matching external series, or None when none is served."""
        sel = metric.get("selector")
        selector = selector_from_label_selector(sel if sel is not None else {})
        values = [
            v
            for (name, labels), v in sorted(self._external.items())
            if name == metric.get("name") and selector.matches(dict(labels))
        ]
        return sum(values) if values else None

    def external(self, spec: Mapping[str, Any], current: int, ready: int) -> MetricResult | None:
        """An External metric's proposal (Value or AverageValue target)."""
        metric, target = spec.get("metric") or {}, spec.get("target") or {}
        value = self.external_value(metric)
        if value is None:
            return None
        return self._value_or_average("External", "external", metric, target, value, current, ready)

    def object(
        self, spec: Mapping[str, Any], described: Obj | None, current: int, ready: int
    ) -> MetricResult | None:
        """An Object metric's proposal, read from the described object's annotation."""
        metric, target = spec.get("metric") or {}, spec.get("target") or {}
        raw = _ann(described, ANN_METRIC_PREFIX + str(metric.get("name"))) if described else None
        if raw is None:
            return None
        value = float(parse_quantity(raw))
        res = self._value_or_average("Object", "object", metric, target, value, current, ready)
        res.status["object"]["describedObject"] = spec.get("describedObject")
        return res

    def _value_or_average(
        self,
        mtype: str,
        field: str,
        metric: Mapping[str, Any],
        target: Mapping[str, Any],
        value: float,
        current: int,
        ready: int,
    ) -> MetricResult:
        cur: Obj = {}
        if target.get("type") == "AverageValue":
            per_pod = _target_value(target, "averageValue")
            replicas = self.per_pod_replicas(current, value, per_pod)
            cur["averageValue"] = _quantity_str(value / max(replicas, 1))
        else:
            goal = _target_value(target, "value")
            ratio = value / goal if goal > 0 else 0.0
            replicas = self.usage_ratio_replicas(current, ratio, ready)
            cur["value"] = _quantity_str(value)
        status = {"type": mtype, field: {"metric": dict(metric), "current": cur}}
        return MetricResult(replicas, value, status)

    def pods(
        self, spec: Mapping[str, Any], pods: Sequence[Obj], current: int
    ) -> MetricResult | None:
        """A Pods metric: the average of per-pod annotation values against the target."""
        metric, target = spec.get("metric") or {}, spec.get("target") or {}
        key = ANN_METRIC_PREFIX + str(metric.get("name"))
        vals = [float(parse_quantity(v)) for p in pods if (v := _ann(p, key)) is not None]
        if not vals:
            return None
        per_pod = _target_value(target, "averageValue")
        ratio = (sum(vals) / len(vals)) / per_pod if per_pod > 0 else 1.0
        replicas = current if self._within(ratio) else math.ceil(ratio * len(vals))
        avg = _quantity_str(sum(vals) / len(vals))
        status = {
            "type": "Pods",
            "pods": {"metric": dict(metric), "current": {"averageValue": avg}},
        }
        return MetricResult(replicas, sum(vals), status)

    def resource(
        self, spec: Mapping[str, Any], pods: Sequence[Obj], current: int
    ) -> MetricResult | None:
        """A Resource metric: usage annotations against requests (Utilization) or an average."""
        name, target = str(spec.get("name")), spec.get("target") or {}
        usage: list[Decimal] = []
        requests: list[Decimal] = []
        for p in pods:
            raw = _ann(p, ANN_USAGE_PREFIX + name)
            if raw is None:
                continue
            usage.append(parse_quantity(raw))
            requests.append(_pod_request(p, name))
        if not usage:
            return None
        cur: Obj = {"averageValue": _quantity_str(float(sum(usage)) / len(usage))}
        if target.get("type") == "Utilization":
            if sum(requests) <= 0:
                return None  # upstream: "missing request for <resource>"
            util = float(sum(usage) / sum(requests)) * 100
            ratio = util / float(target.get("averageUtilization") or 1)
            cur["averageUtilization"] = round(util)
        else:
            ratio = float(sum(usage)) / len(usage) / _target_value(target, "averageValue")
        replicas = current if self._within(ratio) else math.ceil(ratio * len(usage))
        status = {"type": "Resource", "resource": {"name": name, "current": cur}}
        return MetricResult(replicas, float(sum(usage)), status)


def _pod_request(pod: Mapping[str, Any], resource: str) -> Decimal:
    total = Decimal(0)
    for c in (pod.get("spec") or {}).get("containers") or []:
        req = ((c.get("resources") or {}).get("requests") or {}).get(resource)
        if req is not None:
            total += parse_quantity(req)
    return total
