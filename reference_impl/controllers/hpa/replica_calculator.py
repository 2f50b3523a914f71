"""Desired replicas per metric, after ``pkg/controller/podautoscaler/replica_calculator.go``.

Metric values come from the simulated cluster instead of the metrics APIs:

* **External**: the series served through ``Cluster.set_external_metric(name, value,
  labels)``; the values of every series whose labels match ``metric.selector`` are summed.
* **Object**: annotation ``garhwal.dev/metric-<metric name>`` on the described object.
* **Pods**: the per-pod values served through ``Cluster.set_pod_metric`` (else annotation
  ``garhwal.dev/metric-<metric name>`` on the pod), as upstream ``calcPlainMetricReplicas``
  weighs them: pending pods unready, pods without a value missing.
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
    "PodMetrics",
    "ReplicaCalculator",
]

Obj = dict[str, Any]
ExternalMetrics = Mapping[tuple[str, tuple[tuple[str, str], ...]], float]
# (namespace, pod name, metric name) -> value, as a custom-metrics adapter serves them.
PodMetrics = Mapping[tuple[str, str, str], float]
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


def _milli(value: object) -> int:
    # Quantity.MilliValue rounds up.
    return math.ceil((value if isinstance(value, Decimal) else parse_quantity(value)) * 1000)


def _milli_str(milli: int) -> str:
    # resource.NewMilliQuantity(v, DecimalSI).String() for the values metrics carry.
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def _usage_ratio(metrics: Mapping[str, int], target: int) -> tuple[float, int]:
    """``GetMetricUsageRatio``: integer average over the pods, and its ratio to the target."""
    usage = sum(metrics.values()) // len(metrics)
    return usage / target, usage


def _quantity_str(value: float) -> str:
    return _milli_str(round(value * 1000))


class ReplicaCalculator:
    """Turns one ``MetricSpec`` plus the current pods into a replica proposal."""

    def __init__(
        self, external: ExternalMetrics, tolerance: float = DEFAULT_TOLERANCE,
        pod_metrics: PodMetrics | None = None,
    ) -> None:
        self._external = external
        self._pod_metrics: PodMetrics = pod_metrics if pod_metrics is not None else {}
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
        """A Pods metric (``GetMetricReplicas``): the pods' average against the target."""
        metric, target = spec.get("metric") or {}, spec.get("target") or {}
        name = str(metric.get("name"))
        values = {
            str(p["metadata"]["name"]): _milli(v) for p in pods if (v := self._pod_value(p, name)) is not None
        }
        if not values:  # upstream: "no metrics returned from custom metrics API"
            return None
        planned = self._plain_replicas(values, pods, current, _milli(target.get("averageValue", 0)))
        if planned is None:
            return None
        replicas, usage = planned
        status = {
            "type": "Pods",
            "pods": {"metric": dict(metric), "current": {"averageValue": _milli_str(usage)}},
        }
        return MetricResult(replicas, usage / 1000, status)

    def _pod_value(self, pod: Obj, metric: str) -> Decimal | None:
        meta = pod["metadata"]
        served = self._pod_metrics.get((str(meta.get("namespace")), str(meta["name"]), metric))
        if served is not None:
            return Decimal(str(served))
        raw = _ann(pod, ANN_METRIC_PREFIX + metric)
        return parse_quantity(raw) if raw is not None else None

    def _plain_replicas(
        self, values: dict[str, int], pods: Sequence[Obj], current: int, target: int
    ) -> tuple[int, int] | None:
        """``calcPlainMetricReplicas`` on milli-values: (replicas, average usage), None when
        every pod with a value is unready or ignored."""
        metrics, unready, missing, ready = dict(values), set(), set(), 0
        for p in pods:
            pod_name = str(p["metadata"]["name"])
            if p["metadata"].get("deletionTimestamp") or (p.get("status") or {}).get("phase") == "Failed":
                metrics.pop(pod_name, None)
            elif (p.get("status") or {}).get("phase") == "Pending":
                unready.add(pod_name)
                metrics.pop(pod_name, None)
            elif pod_name not in metrics:
                missing.add(pod_name)
            else:
                ready += 1
        if not metrics or target <= 0:
            return None
        ratio, usage = _usage_ratio(metrics, target)
        scale_up_with_unready = bool(unready) and ratio > 1.0
        if not scale_up_with_unready and not missing:
            return (current if self._within(ratio) else math.ceil(ratio * ready)), usage
        # Missing pods count as the target on a scale-down, as 0 on a scale-up; unready
        # pods as 0 on a scale-up.
        if ratio != 1.0:
            metrics.update(dict.fromkeys(missing, target if ratio < 1.0 else 0))
        if scale_up_with_unready:
            metrics.update(dict.fromkeys(unready, 0))
        new_ratio, _ = _usage_ratio(metrics, target)
        if self._within(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
            return current, usage
        replicas = math.ceil(new_ratio * len(metrics))
        if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
            return current, usage
        return replicas, usage

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
