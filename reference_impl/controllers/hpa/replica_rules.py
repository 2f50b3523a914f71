"""The replica arithmetic of ``pkg/controller/podautoscaler/replica_calculator.go`` and
``metrics/utilization.go``, on explicit inputs (pods as wire dicts, per-pod metric samples).

The functions mirror upstream's ``GetResourceReplicas``, ``calcPlainMetricReplicas``,
``getUsageRatioReplicaCount``, ``GetObjectPerPodMetricReplicas``,
``GetExternalMetricReplicas``, ``GetExternalPerPodMetricReplicas``, ``groupPods`` and
``calculateRequests``. Values are int64 milli-units as upstream's; a failure raises
``ReplicaCalcError`` carrying upstream's error text. ``now`` is the simulated clock.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.meta import condition, parse_quantity
from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds

__all__ = [
    "CPU_INITIALIZATION_PERIOD",
    "DELAY_OF_INITIAL_READINESS_STATUS",
    "GO_ZERO_TIME",
    "MAX_INT32",
    "MAX_INT64",
    "PodGroups",
    "PodMetric",
    "ReplicaCalcError",
    "Tolerances",
    "calculate_requests",
    "external_per_pod_replicas",
    "external_replicas",
    "group_pods",
    "metric_usage_ratio",
    "milli_value",
    "object_per_pod_replicas",
    "plain_metric_replicas",
    "ready_pods_count",
    "resource_replicas",
    "resource_utilization_ratio",
    "usage_ratio_replica_count",
]

Obj = dict[str, Any]
MAX_INT32: Final = 2**31 - 1
MAX_INT64: Final = 2**63 - 1
# int64(x) of a float it cannot hold (±Inf, NaN) on amd64: the "integer indefinite" value.
_GO_INDEFINITE: Final = -(2**63)
# time.Time{}: what an unset timestamp compares as.
GO_ZERO_TIME: Final = parse_rfc3339("0001-01-01T00:00:00Z")
# --horizontal-pod-autoscaler-cpu-initialization-period / -initial-readiness-delay
CPU_INITIALIZATION_PERIOD: Final = seconds(300)
DELAY_OF_INITIAL_READINESS_STATUS: Final = seconds(30)
# metrics-server's window when a sample carries none (metricServerDefaultMetricWindow)
DEFAULT_METRIC_WINDOW: Final = seconds(60)


class ReplicaCalcError(Exception):
    """A replica count could not be computed; ``str()`` is upstream's error text."""


@dataclass(frozen=True, slots=True)
class Tolerances:
    """``Tolerances``: the usage-ratio band (1 - down, 1 + up) that keeps the count."""

    scale_down: float = 0.1
    scale_up: float = 0.1

    def is_within(self, ratio: float) -> bool:
        """``Tolerances.isWithin``."""
        return (1.0 - self.scale_down) <= ratio <= (1.0 + self.scale_up)


@dataclass(frozen=True, slots=True)
class PodMetric:
    """``metricsclient.PodMetric``: one pod's sample (milli-value)."""

    value: int
    timestamp: Instant = GO_ZERO_TIME
    window: Duration = DEFAULT_METRIC_WINDOW


@dataclass(slots=True)
class PodGroups:
    """``groupPods``' result."""

    ready: int = 0
    unready: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)
    ignored: set[str] = field(default_factory=set)


def milli_value(value: object) -> int:
    """``Quantity.MilliValue`` (rounds up)."""
    return math.ceil(parse_quantity(value) * 1000)


def _time(raw: object) -> Instant:
    return parse_rfc3339(str(raw)) if raw else GO_ZERO_TIME


def group_pods(
    pods: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, PodMetric],
    resource: str,
    now: Instant,
    cpu_initialization_period: Duration = CPU_INITIALIZATION_PERIOD,
    delay_of_initial_readiness_status: Duration = DELAY_OF_INITIAL_READINESS_STATUS,
) -> PodGroups:
    """``groupPods``: deleted and failed pods are ignored, pending pods unready, pods
    without a sample missing; for CPU a pod still warming up (or never ready) is unready."""
    out = PodGroups()
    for pod in pods:
        name = str(pod["metadata"]["name"])
        status = pod.get("status") or {}
        if pod["metadata"].get("deletionTimestamp") or status.get("phase") == "Failed":
            out.ignored.add(name)
            continue
        if status.get("phase") == "Pending":
            out.unready.add(name)
            continue
        metric = metrics.get(name)
        if metric is None:
            out.missing.add(name)
            continue
        if resource == "cpu":
            cond = condition(pod, "Ready")
            start = status.get("startTime")
            if cond is None or start is None:
                unready = True
            else:
                started, ready = _time(start), cond.get("status")
                changed = _time(cond.get("lastTransitionTime"))
                if started + cpu_initialization_period > now:
                    # Warming up: ignore an unready pod, or a sample taken over the transition.
                    unready = ready == "False" or metric.timestamp < changed + metric.window
                else:
                    # Ignore a pod that has never been ready.
                    unready = ready == "False" and started + delay_of_initial_readiness_status > changed
            if unready:
                out.unready.add(name)
                continue
        out.ready += 1
    return out


def _container_request(c: Mapping[str, Any], resource: str) -> object | None:
    return ((c.get("resources") or {}).get("requests") or {}).get(resource)


def calculate_requests(
    pods: Sequence[Mapping[str, Any]], container: str, resource: str, pod_level_resources: bool = True
) -> dict[str, int]:
    """``calculateRequests``: pod-level requests when set (and no container named), else
    the named container's or the sum over containers and restartable init containers."""
    out: dict[str, int] = {}
    for pod in pods:
        name, spec = str(pod["metadata"]["name"]), pod.get("spec") or {}
        pod_requests = (spec.get("resources") or {}).get("requests") or {}
        if pod_level_resources and container == "" and any(r in ("cpu", "memory") for r in pod_requests):
            # calculatePodLevelRequests (resourcehelpers.PodRequests: pod level wins).
            if resource in pod_requests:
                out[name] = milli_value(pod_requests[resource])
                continue
            raise ReplicaCalcError(f"missing pod-level request for {resource} in Pod {name}")
        out[name] = _requests_from_containers(name, spec, container, resource)
    return out


def _requests_from_containers(pod: str, spec: Mapping[str, Any], container: str, resource: str) -> int:
    """``calculatePodRequestsFromContainers``."""
    containers = list(spec.get("containers") or [])
    containers += [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    total = 0
    for c in containers:
        if container in ("", c.get("name")):
            req = _container_request(c, resource)
            if req is None:
                raise ReplicaCalcError(f"missing request for {resource} in container {c.get('name')} of Pod {pod}")
            total += milli_value(req)
        if container == c.get("name"):
            return total
    if container:
        raise ReplicaCalcError(f"container {container} not found in Pod {pod}")
    return total


def resource_utilization_ratio(
    metrics: Mapping[str, PodMetric], requests: Mapping[str, int], target_utilization: int
) -> tuple[float, int, int]:
    """``GetResourceUtilizationRatio``: (ratio, utilization %, raw average milli-value)."""
    total = requested = entries = 0
    for pod, metric in metrics.items():
        if pod not in requests:
            continue  # an extraneous sample
        total += metric.value
        requested += requests[pod]
        entries += 1
    if requested == 0:
        raise ReplicaCalcError("no metrics returned matched known pods")
    utilization = (total * 100) // requested
    return float(utilization) / float(target_utilization), utilization, total // entries


def metric_usage_ratio(metrics: Mapping[str, PodMetric], target: int) -> tuple[float, int]:
    """``GetMetricUsageRatio``: (ratio, integer average usage)."""
    usage = sum(m.value for m in metrics.values()) // len(metrics)
    return float(usage) / float(target), usage


def _adjusted(
    current: int, ratio: float, new_ratio: float, count: int, tolerances: Tolerances
) -> int:
    """The common tail of both calculations, after missing/unready pods were filled in."""
    if tolerances.is_within(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return current  # too small a change, or the direction would flip
    replicas = math.ceil(new_ratio * count)
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return current
    return replicas


def resource_replicas(
    current: int,
    target_utilization: int,
    resource: str,
    tolerances: Tolerances,
    pods: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, PodMetric],
    now: Instant,
    container: str = "",
    pod_level_resources: bool = True,
    delays: tuple[Duration, Duration] = (CPU_INITIALIZATION_PERIOD, DELAY_OF_INITIAL_READINESS_STATUS),
) -> tuple[int, int, int]:
    """``GetResourceReplicas`` after the metrics are read: (replicas, utilization, raw).
    ``delays``: the CPU initialization period and the initial readiness delay."""
    samples, groups = _ready_samples(pods, metrics, resource, now, delays)
    requests = calculate_requests(pods, container, resource, pod_level_resources)
    ratio, utilization, raw = resource_utilization_ratio(samples, requests, target_utilization)
    scale_up_with_unready = bool(groups.unready) and ratio > 1.0
    if not scale_up_with_unready and not groups.missing:
        if tolerances.is_within(ratio):
            return current, utilization, raw
        return math.ceil(ratio * groups.ready), utilization, raw
    if groups.missing:
        if ratio < 1.0:
            # Missing pods count as using their request (or the target above 100%).
            fallback = max(100, target_utilization)
            for name in groups.missing:
                samples[name] = PodMetric(requests[name] * fallback // 100)
        elif ratio > 1.0:
            for name in groups.missing:
                samples[name] = PodMetric(0)
    if scale_up_with_unready:
        for name in groups.unready:
            samples[name] = PodMetric(0)
    new_ratio, _, _ = resource_utilization_ratio(samples, requests, target_utilization)
    return _adjusted(current, ratio, new_ratio, len(samples), tolerances), utilization, raw


def _ready_samples(
    pods: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, PodMetric],
    resource: str,
    now: Instant,
    delays: tuple[Duration, Duration],
) -> tuple[dict[str, PodMetric], PodGroups]:
    """The samples of the pods ``groupPods`` neither ignores nor counts as unready, and the
    groups; both replica calculations start here."""
    if not pods:
        raise ReplicaCalcError("no pods returned by selector while calculating replica count")
    samples = dict(metrics)
    groups = group_pods(pods, samples, resource, now, *delays)
    for name in groups.ignored | groups.unready:
        samples.pop(name, None)
    if not samples:
        raise ReplicaCalcError("did not receive metrics for targeted pods (pods might be unready)")
    return samples, groups


def plain_metric_replicas(
    metrics: Mapping[str, PodMetric],
    current: int,
    target: int,
    tolerances: Tolerances,
    pods: Sequence[Mapping[str, Any]],
    now: Instant,
    resource: str = "",
    delays: tuple[Duration, Duration] = (CPU_INITIALIZATION_PERIOD, DELAY_OF_INITIAL_READINESS_STATUS),
) -> tuple[int, int]:
    """``calcPlainMetricReplicas``: (replicas, average usage) of a per-pod metric."""
    samples, groups = _ready_samples(pods, metrics, resource, now, delays)
    ratio, usage = metric_usage_ratio(samples, target)
    scale_up_with_unready = bool(groups.unready) and ratio > 1.0
    if not scale_up_with_unready and not groups.missing:
        if tolerances.is_within(ratio):
            return current, usage
        return math.ceil(ratio * groups.ready), usage
    if groups.missing:
        if ratio < 1.0:  # missing pods count as exactly the target on a scale-down
            for name in groups.missing:
                samples[name] = PodMetric(target)
        elif ratio > 1.0:
            for name in groups.missing:
                samples[name] = PodMetric(0)
    if scale_up_with_unready:
        for name in groups.unready:
            samples[name] = PodMetric(0)
    new_ratio, _ = metric_usage_ratio(samples, target)
    return _adjusted(current, ratio, new_ratio, len(samples), tolerances), usage


def ready_pods_count(pods: Sequence[Mapping[str, Any]]) -> int:
    """``getReadyPodsCount``: Running pods whose Ready condition is True."""
    if not pods:
        raise ReplicaCalcError(
            "unable to calculate ready pods: no pods returned by selector while calculating replica count"
        )
    return sum(
        1
        for p in pods
        if (p.get("status") or {}).get("phase") == "Running"
        and (condition(p, "Ready") or {}).get("status") == "True"
    )


def usage_ratio_replica_count(
    current: int, ratio: float, tolerances: Tolerances, pods: Sequence[Mapping[str, Any]]
) -> int:
    """``getUsageRatioReplicaCount``: from zero ``ceil(ratio)``; else the ready pods
    scaled by the ratio (saturating at MaxInt32) outside the tolerance."""
    if current == 0:
        return math.ceil(ratio)
    if tolerances.is_within(ratio):
        return current
    wanted = ratio * ready_pods_count(pods)
    return MAX_INT32 if wanted > MAX_INT32 else math.ceil(wanted)


def object_per_pod_replicas(
    status_replicas: int, target_average: int, usage: int, tolerances: Tolerances
) -> tuple[int, int]:
    """``GetObjectPerPodMetricReplicas`` after the value is read: (replicas, usage per pod)."""
    replicas = status_replicas
    ratio = float(usage) / (float(target_average) * replicas) if replicas else math.inf
    if not tolerances.is_within(ratio):
        replicas = math.ceil(float(usage) / float(target_average))
    per_pod = math.ceil(float(usage) / status_replicas) if status_replicas else _GO_INDEFINITE
    return replicas, per_pod


def external_replicas(
    current: int, target: int, values: Sequence[int], tolerances: Tolerances, pods: Sequence[Mapping[str, Any]]
) -> tuple[int, int]:
    """``GetExternalMetricReplicas`` after the series are read: (replicas, summed usage,
    capped at MaxInt64)."""
    usage = min(sum(values), MAX_INT64)
    return usage_ratio_replica_count(current, float(usage) / float(target), tolerances, pods), usage


def external_per_pod_replicas(
    status_replicas: int, target_per_pod: int, values: Sequence[int], tolerances: Tolerances
) -> tuple[int, int]:
    """``GetExternalPerPodMetricReplicas`` after the series are read: (replicas, usage per
    pod), both saturating as upstream's int32/int64 do."""
    usage = min(sum(values), MAX_INT64)
    replicas = status_replicas
    ratio = float(usage) / (float(target_per_pod) * replicas) if replicas else math.inf
    if not tolerances.is_within(ratio):
        wanted = math.ceil(float(usage) / float(target_per_pod))
        replicas = MAX_INT32 if wanted > MAX_INT32 else wanted
    if float(usage) >= float(MAX_INT64):
        return replicas, MAX_INT64
    return replicas, math.ceil(float(usage) / status_replicas) if status_replicas else _GO_INDEFINITE
