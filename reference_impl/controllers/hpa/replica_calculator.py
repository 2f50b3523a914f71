"""Desired replicas per metric, after ``pkg/controller/podautoscaler/replica_calculator.go``
and ``horizontal.go``'s ``computeStatusFor*Metric``.

Metric values come from the simulated cluster instead of the metrics APIs:

* **External**: the series served through ``Cluster.set_external_metric(name, value,
  labels)``; every series whose labels match ``metric.selector`` is one value.
* **Object**: annotation ``garhwal.dev/metric-<metric name>`` on the described object.
* **Pods**: the per-pod values served through ``Cluster.set_pod_metric`` (else annotation
  ``garhwal.dev/metric-<metric name>`` on the pod).
* **Resource** / **ContainerResource**: annotation ``garhwal.dev/usage-<resource>`` (a
  quantity, e.g. ``250m``) on each pod, or ``garhwal.dev/usage-<resource>.<container>``
  per container; read as metrics-server PodMetrics sampled now over a 1 minute window.

The arithmetic is ``replica_rules``'; a metric that cannot be computed gives a
``MetricFailure`` with upstream's condition reason and error text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity, selector_from_label_selector
from reference_impl.api.quantity import format_quantity
from reference_impl.clock import Duration, Instant, rfc3339
from reference_impl.controllers.hpa.metrics_client import pod_metric_item, resource_metrics
from reference_impl.controllers.hpa.replica_rules import (
    CPU_INITIALIZATION_PERIOD,
    DELAY_OF_INITIAL_READINESS_STATUS,
    PodMetric,
    ReplicaCalcError,
    Tolerances,
    external_per_pod_replicas,
    external_replicas,
    milli_value,
    object_per_pod_replicas,
    plain_metric_replicas,
    resource_replicas,
    usage_ratio_replica_count,
)

__all__ = [
    "ANN_METRIC_PREFIX",
    "ANN_USAGE_PREFIX",
    "DEFAULT_TOLERANCE",
    "Delays",
    "ExternalMetrics",
    "MetricFailure",
    "MetricResult",
    "PodMetrics",
    "ReplicaCalculator",
    "build_quantity",
    "get_metric_replicas",
    "get_object_metric_replicas",
    "get_raw_resource_replicas",
    "get_resource_replicas",
    "go_selector",
    "milli_str",
    "tolerances_for_hpa",
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


@dataclass(frozen=True, slots=True)
class MetricFailure:
    """A metric without a proposal: the ScalingActive reason and upstream's error."""

    reason: str
    error: str


def milli_str(milli: int) -> str:
    """``resource.NewMilliQuantity(v, DecimalSI).String()``."""
    return format_quantity(Decimal(milli).scaleb(-3), "DecimalSI")


def go_selector(sel: Mapping[str, Any] | None) -> str:
    """``%+v`` of a ``*metav1.LabelSelector`` (its generated ``String()``)."""
    if sel is None:
        return "nil"
    labels = "".join(f"{k}: {v}," for k, v in sorted((sel.get("matchLabels") or {}).items()))
    exprs = "".join(
        f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},"
        f"Values:[{' '.join(e.get('values') or [])}],}},"
        for e in sel.get("matchExpressions") or ()
    )
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


Delays = tuple[Duration, Duration]
_DELAYS: Final[Delays] = (CPU_INITIALIZATION_PERIOD, DELAY_OF_INITIAL_READINESS_STATUS)


def get_resource_replicas(
    items: Sequence[Mapping[str, Any]], current: int, target_utilization: int, resource: str,
    tol: Tolerances, pods: Sequence[Obj], now: Instant, container: str = "", delays: Delays = _DELAYS,
) -> tuple[int, int, int]:
    """``GetResourceReplicas`` on listed PodMetrics: (replicas, utilization, raw average)."""
    try:
        samples, _ = resource_metrics(items, resource, container)
    except ReplicaCalcError as e:
        raise ReplicaCalcError(f"unable to get metrics for resource {resource}: {e}") from e
    return resource_replicas(current, target_utilization, resource, tol, pods, samples, now, container,
                             delays=delays)


def get_raw_resource_replicas(
    items: Sequence[Mapping[str, Any]], current: int, target_usage: int, resource: str,
    tol: Tolerances, pods: Sequence[Obj], now: Instant, container: str = "", delays: Delays = _DELAYS,
) -> tuple[int, int]:
    """``GetRawResourceReplicas`` on listed PodMetrics: (replicas, average usage)."""
    try:
        samples, _ = resource_metrics(items, resource, container)
    except ReplicaCalcError as e:
        raise ReplicaCalcError(f"unable to get metrics for resource {resource}: {e}") from e
    return plain_metric_replicas(samples, current, target_usage, tol, pods, now, resource, delays)


def get_metric_replicas(
    values: Mapping[str, PodMetric], current: int, target_usage: int, metric: str,
    tol: Tolerances, pods: Sequence[Obj], now: Instant,
) -> tuple[int, int]:
    """``GetMetricReplicas`` on the custom-metrics API's per-pod values."""
    if not values:
        raise ReplicaCalcError(f"unable to get metric {metric}: unable to fetch metrics from custom "
                               "metrics API: no metrics returned from custom metrics API")
    return plain_metric_replicas(values, current, target_usage, tol, pods, now)


def get_object_metric_replicas(
    current: int, target_usage: int, usage: int, tol: Tolerances, pods: Sequence[Obj]
) -> tuple[int, int]:
    """``GetObjectMetricReplicas`` once the object's value is read: (replicas, usage)."""
    return usage_ratio_replica_count(current, float(usage) / float(target_usage), tol, pods), usage


def tolerances_for_hpa(spec: Mapping[str, Any], default: float = DEFAULT_TOLERANCE) -> Tolerances:
    """``tolerancesForHpa``: ``behavior.scale{Up,Down}.tolerance`` over the controller's
    flag (HPAConfigurableTolerance is GA and locked on in 1.37)."""
    behavior = spec.get("behavior") or {}
    down = (behavior.get("scaleDown") or {}).get("tolerance")
    up = (behavior.get("scaleUp") or {}).get("tolerance")
    return Tolerances(
        float(parse_quantity(down)) if down is not None else default,
        float(parse_quantity(up)) if up is not None else default,
    )


def _ann(obj: Mapping[str, Any], key: str) -> str | None:
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(key)
    return str(value) if value is not None else None


class ReplicaCalculator:
    """Turns one ``MetricSpec`` plus the target's pods into a replica proposal."""

    def __init__(
        self, external: ExternalMetrics, tolerance: float = DEFAULT_TOLERANCE,
        pod_metrics: PodMetrics | None = None, delays: Delays = _DELAYS,
    ) -> None:
        self._external = external
        self._pod_metrics: PodMetrics = pod_metrics if pod_metrics is not None else {}
        self.tolerance = tolerance
        self.delays = delays  # the CPU initialization period, the initial readiness delay

    # -- sources --------------------------------------------------------------------------

    def external_values(self, metric: Mapping[str, Any]) -> list[int]:
        """The milli-values of the matching external series (``GetExternalMetric``)."""
        sel = metric.get("selector")
        selector = selector_from_label_selector(sel if sel is not None else {})
        return [
            milli_value(repr(v))
            for (name, labels), v in sorted(self._external.items())
            if name == metric.get("name") and selector.matches(dict(labels))
        ]

    def pod_resource_items(self, pods: Sequence[Obj], resource: str, now: Instant) -> list[Obj]:
        """What metrics-server would list for ``pods``: one item per pod with a usage."""
        items = []
        for p in pods:
            total = _ann(p, ANN_USAGE_PREFIX + resource)
            containers = []
            for c in (p.get("spec") or {}).get("containers") or []:
                own = _ann(p, f"{ANN_USAGE_PREFIX}{resource}.{c.get('name')}")
                if own is not None:
                    containers.append((str(c.get("name")), {resource: own}))
            if total is not None and not containers:
                containers = [("", {resource: total})]
            if containers:
                items.append(pod_metric_item(str(p["metadata"]["name"]), containers, rfc3339(now)))
        return items

    def _pod_values(self, pods: Sequence[Obj], metric: str, now: Instant) -> dict[str, PodMetric]:
        out: dict[str, PodMetric] = {}
        for p in pods:
            meta = p["metadata"]
            served = self._pod_metrics.get((str(meta.get("namespace")), str(meta["name"]), metric))
            raw = repr(served) if served is not None else _ann(p, ANN_METRIC_PREFIX + metric)
            if raw is not None:
                out[str(meta["name"])] = PodMetric(milli_value(raw), now)
        return out

    # -- computeStatusFor*Metric -----------------------------------------------------------

    def external(
        self, spec: Mapping[str, Any], spec_replicas: int, status_replicas: int,
        pods: Sequence[Obj], tol: Tolerances, namespace: str,
    ) -> MetricResult | MetricFailure:
        """``computeStatusForExternalMetric``."""
        metric, target = spec.get("metric") or {}, spec.get("target") or {}
        values = self.external_values(metric)
        if not values:
            return MetricFailure("FailedGetExternalMetric", (
                f"unable to get external metric {namespace}/{metric.get('name')}/"
                f"{go_selector(metric.get('selector'))}: no metrics returned from external metrics API"))
        ident = {"name": metric.get("name"), **({"selector": metric["selector"]} if metric.get("selector") else {})}
        if target.get("averageValue") is not None:
            replicas, usage = external_per_pod_replicas(
                status_replicas, milli_value(target["averageValue"]), values, tol)
            cur: Obj = {"averageValue": milli_str(usage)}
        elif target.get("value") is not None:
            try:
                replicas, usage = external_replicas(spec_replicas, milli_value(target["value"]), values, tol, pods)
            except ReplicaCalcError as e:
                return MetricFailure("FailedGetExternalMetric", str(e))
            cur = {"value": milli_str(usage)}
        else:
            return MetricFailure("FailedGetExternalMetric",
                                 "invalid external metric source: neither a value target nor an average value target was set")
        return MetricResult(replicas, usage / 1000, {"type": "External", "external": {"metric": ident, "current": cur}})

    def object(
        self, spec: Mapping[str, Any], described: Obj | None, spec_replicas: int, status_replicas: int,
        pods: Sequence[Obj], tol: Tolerances, namespace: str,
    ) -> MetricResult | MetricFailure:
        """``computeStatusForObjectMetric``, the value read from the described object."""
        metric, target = spec.get("metric") or {}, spec.get("target") or {}
        ref = spec.get("describedObject") or {}
        raw = _ann(described, ANN_METRIC_PREFIX + str(metric.get("name"))) if described else None
        if raw is None:
            return MetricFailure("FailedGetObjectMetric", (
                f"unable to get metric {metric.get('name')} on {ref.get('kind')} {namespace}/{ref.get('name')}: "
                "unable to fetch metrics from custom metrics API: no metric value"))
        usage = milli_value(raw)
        ident = {"name": metric.get("name"), **({"selector": metric["selector"]} if metric.get("selector") else {})}
        status: Obj = {"type": "Object", "object": {"describedObject": ref, "metric": ident}}
        if target.get("type") == "Value" and target.get("value") is not None:
            try:
                replicas, _ = get_object_metric_replicas(spec_replicas, milli_value(target["value"]), usage, tol, pods)
            except ReplicaCalcError as e:
                return MetricFailure("FailedGetObjectMetric", str(e))
            status["object"]["current"] = {"value": milli_str(usage)}
        elif target.get("type") == "AverageValue" and target.get("averageValue") is not None:
            replicas, per_pod = object_per_pod_replicas(status_replicas, milli_value(target["averageValue"]), usage, tol)
            status["object"]["current"] = {"averageValue": milli_str(per_pod)}
        else:
            return MetricFailure("FailedGetObjectMetric",
                                 "invalid object metric source: neither a value target nor an average value target was set")
        return MetricResult(replicas, usage / 1000, status)

    def pods(
        self, spec: Mapping[str, Any], pods: Sequence[Obj], current: int, tol: Tolerances, now: Instant,
    ) -> MetricResult | MetricFailure:
        """``computeStatusForPodsMetric`` (``GetMetricReplicas``)."""
        metric, target = spec.get("metric") or {}, spec.get("target") or {}
        name = str(metric.get("name"))
        values = self._pod_values(pods, name, now)
        try:
            replicas, usage = get_metric_replicas(values, current, milli_value(target.get("averageValue", 0)),
                                                  name, tol, pods, now)
        except ReplicaCalcError as e:
            return MetricFailure("FailedGetPodsMetric", str(e))
        ident = {"name": name, **({"selector": metric["selector"]} if metric.get("selector") else {})}
        status = {"type": "Pods", "pods": {"metric": ident, "current": {"averageValue": milli_str(usage)}}}
        return MetricResult(replicas, usage / 1000, status)

    def resource(
        self, spec: Mapping[str, Any], pods: Sequence[Obj], current: int, tol: Tolerances, now: Instant,
        container: str = "",
    ) -> MetricResult | MetricFailure:
        """``computeStatusForResourceMetricGeneric`` for a Resource (or, with
        ``container``, a ContainerResource) metric."""
        name, target = str(spec.get("name")), spec.get("target") or {}
        reason = "FailedGetContainerResourceMetric" if container else "FailedGetResourceMetric"
        cur: Obj = {}
        items = self.pod_resource_items(pods, name, now)
        try:
            if target.get("averageValue") is not None:
                try:
                    replicas, raw = get_raw_resource_replicas(items, current, milli_value(target["averageValue"]),
                                                              name, tol, pods, now, container, self.delays)
                except ReplicaCalcError as e:
                    raise ReplicaCalcError(f"failed to get {name} usage: {e}") from e
            elif target.get("averageUtilization") is not None:
                try:
                    replicas, util, raw = get_resource_replicas(items, current, int(target["averageUtilization"]),
                                                                name, tol, pods, now, container, self.delays)
                except ReplicaCalcError as e:
                    raise ReplicaCalcError(f"failed to get {name} utilization: {e}") from e
                cur["averageUtilization"] = util
            else:
                raise ReplicaCalcError("invalid resource metric source: neither an average utilization target "
                                       "nor an average value (usage) target was set")
        except ReplicaCalcError as e:
            return MetricFailure(reason, str(e))
        cur["averageValue"] = build_quantity(name, raw)
        if container:
            status = {"type": "ContainerResource",
                      "containerResource": {"name": name, "container": container, "current": cur}}
        else:
            status = {"type": "Resource", "resource": {"name": name, "current": cur}}
        return MetricResult(replicas, raw / 1000, status)


def build_quantity(resource: str, milli: int) -> str:
    """``buildQuantity``: ``NewMilliQuantity(v, BinarySI)`` for memory (as metrics-server
    formats it), else DecimalSI; returned as its ``String()``."""
    fmt = "BinarySI" if resource == "memory" else "DecimalSI"
    return format_quantity(Decimal(milli).scaleb(-3), fmt)
