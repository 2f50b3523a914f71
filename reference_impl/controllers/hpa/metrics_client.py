"""Per-pod samples out of ``metrics.k8s.io/v1beta1`` PodMetrics, after
``pkg/controller/podautoscaler/metrics/client.go`` (``getPodMetrics``,
``getContainerMetrics``, ``GetResourceMetric``).

The reference controller builds the PodMetrics items from its simulated sources (see
``replica_calculator``); tests build them as upstream's fake metrics client does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds
from reference_impl.controllers.hpa.replica_rules import (
    DEFAULT_METRIC_WINDOW,
    GO_ZERO_TIME,
    PodMetric,
    ReplicaCalcError,
    milli_value,
)

__all__ = ["pod_metric_item", "resource_metrics"]

Obj = dict[str, Any]


def pod_metric_item(
    name: str,
    containers: Sequence[tuple[str, Mapping[str, Any]]],
    timestamp: str | None = None,
    window: str = "1m0s",
) -> Obj:
    """One PodMetrics item: ``containers`` as (container name, usage) pairs."""
    return {
        "apiVersion": "metrics.k8s.io/v1beta1",
        "kind": "PodMetrics",
        "metadata": {"name": name},
        "timestamp": timestamp,
        "window": window,
        "containers": [{"name": c, "usage": dict(u)} for c, u in containers],
    }


def _window(raw: object) -> Duration:
    # metav1.Duration strings as metrics-server writes them ("1m0s", "30s").
    text, total = str(raw or ""), 0.0
    if not text:
        return DEFAULT_METRIC_WINDOW
    num = ""
    for ch in text:
        if ch.isdigit() or ch == ".":
            num += ch
        else:
            total += float(num or 0) * {"h": 3600, "m": 60, "s": 1}.get(ch, 0)
            num = ""
    return seconds(total)


def _stamp(item: Mapping[str, Any]) -> tuple[Instant, Duration]:
    raw = item.get("timestamp")
    return (parse_rfc3339(str(raw)) if raw else GO_ZERO_TIME), _window(item.get("window"))


def resource_metrics(
    items: Sequence[Mapping[str, Any]], resource: str, container: str = ""
) -> tuple[dict[str, PodMetric], Instant]:
    """``GetResourceMetric``: per-pod samples and the first item's timestamp. A pod
    lacking the resource in any container (or the named container) has no sample."""
    if not items:
        raise ReplicaCalcError("no metrics returned from resource metrics API")
    out: dict[str, PodMetric] = {}
    for item in items:
        at, window = _stamp(item)
        name = str(item["metadata"]["name"])
        containers = item.get("containers") or []
        if container:  # getContainerMetrics
            for c in containers:
                if c.get("name") == container:
                    value = (c.get("usage") or {}).get(resource)
                    if value is not None:
                        out[name] = PodMetric(milli_value(value), at, window)
                    break
            continue
        # getPodMetrics: the sum over containers, none when one lacks the resource.
        values = [(c.get("usage") or {}).get(resource) for c in containers]
        if values and all(v is not None for v in values):
            out[name] = PodMetric(sum(milli_value(v) for v in values), at, window)
    return out, _stamp(items[0])[0]
