"""Rows of upstream ``pkg/controller/podautoscaler/replica_calculator_test.go`` (v1.37.2)
against the reference's replica arithmetic (``replica_calculator`` / ``replica_rules``).

The fixture mirrors upstream's ``calcScenario``: pods ``test-pod-<i>`` with two containers,
Running and Ready unless told, started at Go's zero time (``coolCPUCreationTime`` is three
minutes ago, ``hotCPUCreationTime`` now), metric samples stamped at the zero time over a
1 minute window, a 2 minute CPU initialization period and a 10 s readiness delay.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.clock import Instant, rfc3339, seconds
from reference_impl.controllers.hpa.metrics_client import pod_metric_item
from reference_impl.controllers.hpa.replica_calculator import (
    get_metric_replicas,
    get_object_metric_replicas,
    get_resource_replicas,
)
from reference_impl.controllers.hpa.replica_rules import (
    GO_ZERO_TIME,
    MAX_INT32,
    MAX_INT64,
    PodMetric,
    ReplicaCalcError,
    Tolerances,
    external_per_pod_replicas,
    external_replicas,
    object_per_pod_replicas,
)

Obj = dict[str, Any]
NOW = Instant(seconds(10 * 86_400))
HOT = NOW
COOL = Instant(NOW - seconds(180))
DELAYS = (seconds(120), seconds(10))  # defaultTestingCPUInitializationPeriod, ...ReadinessStatus
DEFAULT = Tolerances(0.1, 0.1)
T, F = "True", "False"
R, P, X = "Running", "Pending", "Failed"


@dataclass
class Scenario:
    """``calcScenario``."""

    current: int
    requests: Sequence[str] = ()
    levels: Sequence[Sequence[int]] = ()
    pod_names: Sequence[str] = ()
    container: str = ""
    readiness: Sequence[str] | None = None
    start: Sequence[Instant] | None = None
    phase: Sequence[str] | None = None
    deleted: Sequence[bool] | None = None


def levels(*per_pod: int) -> list[list[int]]:
    """``makePodMetricLevels``: both containers of pod i report per_pod[i]."""
    return [[v, v] for v in per_pod]


def build_pods(s: Scenario) -> list[Obj]:
    """``newFakePodClient`` / ``buildFakePod``."""
    count = max(s.current, len(s.phase or ()))
    pods = []
    for i in range(count):
        containers: list[Obj] = [{"name": "container1"}, {"name": "container2"}]
        if i < len(s.requests):
            for c in containers:
                c["resources"] = {"requests": {"cpu": s.requests[i]}}
        meta: Obj = {"name": f"test-pod-{i}", "namespace": "test-namespace", "labels": {"name": "test-pod"}}
        if s.deleted and s.deleted[i]:
            meta["deletionTimestamp"] = rfc3339(NOW)
        ready = s.readiness[i] if s.readiness and i < len(s.readiness) else T
        pods.append({
            "metadata": meta,
            "spec": {"containers": containers},
            "status": {
                "phase": s.phase[i] if s.phase else R,
                "startTime": rfc3339(s.start[i] if s.start else GO_ZERO_TIME),
                "conditions": [{"type": "Ready", "status": ready}],
            },
        })
    return pods


def metric_items(s: Scenario) -> list[Obj]:
    """``newFakeResourceMetricsClient``: two container slots per pod, unset ones empty."""
    items = []
    for i, row in enumerate(s.levels):
        name = s.pod_names[i] if i < len(s.pod_names) else f"test-pod-{i}"
        slots: list[tuple[str, Obj]] = [(f"container{j + 1}", {"cpu": f"{m}m"}) for j, m in enumerate(row)]
        slots += [("", {})] * (2 - len(row))
        items.append(pod_metric_item(name, slots))
    return items


def cpu(n: int, value: str = "1.0") -> list[str]:
    """``cpuRequests``."""
    return [value] * n


# -- resource rows: (fixture, target utilization, replicas, utilization, raw, tolerances) ----

RESOURCE_SCALE = [
    pytest.param(Scenario(3, cpu(3), levels(300, 500, 700)), 30, 5, 50, 1000, id="scale up"),
    pytest.param(Scenario(3, cpu(3), [[1000, 300], [1000, 500], [1000, 700]], container="container2"),
                 30, 5, 50, 500, id="scale up: container metric"),
    pytest.param(Scenario(3, cpu(3), levels(300, 500, 700), readiness=[F, T, T]), 30, 4, 60, 1200,
                 id="scale up: unready pod scales less"),
    pytest.param(Scenario(3, cpu(3), [[0, 300], [0, 500], [0, 700]], container="container2",
                          start=[HOT, COOL, COOL]), 30, 4, 60, 600, id="scale up: hot-CPU container scales less"),
    pytest.param(Scenario(3, cpu(3), levels(300, 500, 700), start=[HOT, COOL, COOL]), 30, 4, 60, 1200,
                 id="scale up: hot-CPU pod scales less"),
    pytest.param(Scenario(3, cpu(3), levels(400, 500, 700), readiness=[T, F, F]), 30, 3, 40, 800,
                 id="no scale: unready pods ignored"),
    pytest.param(Scenario(3, cpu(3), levels(400, 500, 700), readiness=[T, F, F], start=[COOL, HOT, HOT]),
                 30, 3, 40, 800, id="no scale: hot-CPU pods ignored"),
    pytest.param(Scenario(2, cpu(4), levels(500, 700), readiness=[T, T, F, F], phase=[R, R, X, X]),
                 30, 4, 60, 1200, id="scale up: failed pods ignored"),
    pytest.param(Scenario(2, cpu(4), [[1000, 500], [9000, 700], [1000], [9000]], container="container2",
                          readiness=[T, T, F, F], phase=[R, R, X, X]),
                 30, 4, 60, 600, id="scale up: failed pods ignored with missing container metric"),
    pytest.param(Scenario(2, cpu(4), [[1000, 500], [9000, 700]], container="container2",
                          readiness=[T, T, F, F], phase=[R, R, X, X]),
                 30, 4, 60, 600, id="scale up: container metrics with failed pods ignored"),
    pytest.param(Scenario(2, cpu(4), levels(500, 700), readiness=[T, T, F, F], phase=[R, R, R, R],
                          deleted=[False, False, True, True]),
                 30, 4, 60, 1200, id="scale up: pods being deleted are ignored"),
    pytest.param(Scenario(2, cpu(4), levels(500, 700), container="container1", readiness=[T, T, F, F],
                          phase=[R, R, R, R], deleted=[False, False, True, True]),
                 30, 4, 60, 600, id="scale up: container metrics with pods being deleted ignored"),
    pytest.param(Scenario(5, cpu(5), levels(100, 300, 500, 250, 250)), 50, 3, 28, 560, id="scale down"),
    pytest.param(Scenario(5, cpu(5), [[1000, v] for v in (100, 300, 500, 250, 250)], container="container2"),
                 50, 3, 28, 280, id="scale down: container metric"),
    pytest.param(Scenario(5, cpu(5), levels(100, 300, 500, 250, 250), readiness=[T, T, T, F, F]),
                 50, 2, 30, 600, id="scale down: exclude unready pods"),
    pytest.param(Scenario(5, cpu(5), [[1000, v] for v in (100, 300, 500, 250, 250)], container="container2",
                          readiness=[T, T, T, F, F]),
                 50, 2, 30, 300, id="scale down: container metric excludes unready pods"),
    pytest.param(Scenario(5, cpu(5), levels(100), readiness=[T, F, F, F, F], phase=[R, P, P, P, P]),
                 50, 1, 10, 200, id="scale down: exclude unscheduled pods"),
    pytest.param(Scenario(5, cpu(5), [[1000, v] for v in (100, 300, 500, 250, 250)], container="container2",
                          readiness=[T, F, F, F, F], phase=[R, P, P, P, P]),
                 50, 1, 10, 100, id="scale down: container metric excludes unscheduled pods"),
    pytest.param(Scenario(5, cpu(5), levels(100, 300, 500, 250, 250), start=[COOL, COOL, COOL, HOT, HOT]),
                 50, 2, 30, 600, id="scale down: ignore hot-CPU pods"),
    pytest.param(Scenario(5, cpu(5), [[1000, v] for v in (100, 300, 500, 1000, 1000)], container="container2",
                          start=[COOL, COOL, COOL, HOT, HOT]),
                 50, 2, 30, 300, id="scale down: container metric ignores hot-CPU pods"),
    pytest.param(Scenario(5, cpu(7), levels(100, 300, 500, 250, 250), readiness=[T] * 5 + [F, F],
                          phase=[R] * 5 + [X, X]),
                 50, 3, 28, 560, id="scale down: failed pods ignored"),
    pytest.param(Scenario(5, cpu(7), [[1000, v] for v in (100, 300, 500, 250, 250)], container="container2",
                          readiness=[T] * 5 + [F, F], phase=[R] * 5 + [X, X]),
                 50, 3, 28, 280, id="scale down: container metric with failed pods ignored"),
    pytest.param(Scenario(5, cpu(7), levels(100, 300, 500, 250, 250), readiness=[T] * 5 + [F, F],
                          phase=[R] * 7, deleted=[False] * 5 + [True, True]),
                 50, 3, 28, 560, id="scale down: pods being deleted are ignored"),
    pytest.param(Scenario(5, cpu(7), [[1000, v] for v in (100, 300, 500, 250, 250)], container="container2",
                          readiness=[T] * 5 + [F, F], phase=[R] * 7, deleted=[False] * 5 + [True, True]),
                 50, 3, 28, 280, id="scale down: still-running pods being deleted are ignored"),
]

MIXED = ["0.9", "1.0", "1.1"]
RESOURCE_TOLERANCE = [
    pytest.param(Scenario(3, MIXED, levels(1010, 1030, 1020)), 100, 3, 102, 2040, DEFAULT,
                 id="within default tolerance"),
    pytest.param(Scenario(3, MIXED, levels(909, 1010, 1111)), 100, 4, 101, 2020, Tolerances(0.0, 0.0),
                 id="outside 0% tolerance"),
    pytest.param(Scenario(3, MIXED, levels(1890, 1910, 1900)), 100, 3, 190, 3800, Tolerances(0.1, 2.0),
                 id="within 200% scale-up tolerance"),
    pytest.param(Scenario(3, MIXED, levels(1100, 1080, 1090)), 100, 4, 109, 2180, Tolerances(2.0, 0.08),
                 id="outside 8% scale-up tolerance (superfluous scale-down tolerance)"),
    pytest.param(Scenario(3, MIXED, levels(660, 640, 650)), 100, 3, 65, 1300, Tolerances(0.36, 0.1),
                 id="within 36% scale-down tolerance"),
    pytest.param(Scenario(3, MIXED, levels(660, 640, 650)), 100, 2, 65, 1300, Tolerances(0.34, 0.1),
                 id="outside 34% scale-down tolerance"),
]

RESOURCE_MISSING = [
    pytest.param(Scenario(4, cpu(4), levels(4000, 9500, 3000, 7000, 3200, 2000)), 100, 24, 587, 11750,
                 id="superfluous metrics counted"),
    pytest.param(Scenario(4, cpu(4), levels(400, 95)), 100, 3, 24, 495, id="some pods missing metrics scales down"),
    pytest.param(Scenario(2, cpu(2), levels(1000)), 100, 2, 100, 2000, id="no change: metric equal to target"),
    pytest.param(Scenario(2, cpu(2), levels(1900)), 100, 2, 190, 3800, id="no change: metric above target"),
    pytest.param(Scenario(2, cpu(2), levels(600)), 100, 2, 60, 1200, id="no change: metric below target"),
    pytest.param(Scenario(3, cpu(3), levels(100, 450), readiness=[F, T, T]), 50, 3, 45, 900,
                 id="no change: unready pod metric missing"),
    pytest.param(Scenario(3, cpu(3), levels(100, 450), start=[HOT, COOL, COOL]), 50, 3, 45, 900,
                 id="no change: hot-CPU pod metric missing"),
    pytest.param(Scenario(3, cpu(3), levels(100, 2000), readiness=[F, T, T]), 50, 4, 200, 4000,
                 id="scale up: unready pod metric missing"),
    pytest.param(Scenario(3, cpu(3), levels(100, 2000), readiness=[F, T, T], start=[HOT, COOL, COOL]),
                 50, 4, 200, 4000, id="scale up: hot-CPU pod metric missing"),
    pytest.param(Scenario(4, cpu(4), levels(100, 100, 100), readiness=[F, T, T, T]), 50, 3, 10, 200,
                 id="scale down: unready pod metric missing"),
    pytest.param(Scenario(4, ["1.0", "1.0", "2.0", "2.0"], levels(200, 100, 100), readiness=[F, T, T, T]),
                 300, 2, 6, 200, id="scale down: target over 100"),
    pytest.param(Scenario(2, cpu(3), levels(100, 100), phase=[R, R, R]), 50, 2, 10, 200,
                 id="rolling update with maxSurge: extra pod missing metric"),
]

RESOURCE_ERRORS = [
    pytest.param(Scenario(1, cpu(1), levels(100), pod_names=["an-older-pod-name"]), 100,
                 "no metrics returned matched known pods", id="disjoint pod and metric names"),
    pytest.param(Scenario(4, cpu(3), levels()), 100,
                 "unable to get metrics for resource cpu: no metrics returned from resource metrics API",
                 id="no metrics returned from metrics API"),
    pytest.param(Scenario(1, [], levels(200)), 100, "missing request for", id="missing CPU request on container"),
]


def _resource(s: Scenario, target: int, tol: Tolerances) -> tuple[int, int, int]:
    return get_resource_replicas(metric_items(s), s.current, target, "cpu", tol, build_pods(s), NOW,
                                 s.container, DELAYS)


@pytest.mark.parametrize(("s", "target", "replicas", "util", "raw"), RESOURCE_SCALE)
def test_replica_calc_resource_scale(s: Scenario, target: int, replicas: int, util: int, raw: int) -> None:
    """TestReplicaCalcResourceScale."""
    assert _resource(s, target, DEFAULT) == (replicas, util, raw)


@pytest.mark.parametrize(("s", "target", "replicas", "util", "raw", "tol"), RESOURCE_TOLERANCE)
def test_replica_calc_resource_tolerance(
    s: Scenario, target: int, replicas: int, util: int, raw: int, tol: Tolerances
) -> None:
    """TestReplicaCalcResourceTolerance."""
    assert _resource(s, target, tol) == (replicas, util, raw)


@pytest.mark.parametrize(("s", "target", "replicas", "util", "raw"), RESOURCE_MISSING)
def test_replica_calc_resource_missing_metrics(s: Scenario, target: int, replicas: int, util: int, raw: int) -> None:
    """TestReplicaCalcResourceMissingMetrics."""
    assert _resource(s, target, DEFAULT) == (replicas, util, raw)


@pytest.mark.parametrize(("s", "target", "error"), RESOURCE_ERRORS)
def test_replica_calc_resource_missing_metrics_errors(s: Scenario, target: int, error: str) -> None:
    """TestReplicaCalcResourceMissingMetrics, the error rows (ErrorContains)."""
    with pytest.raises(ReplicaCalcError) as info:
        _resource(s, target, DEFAULT)
    assert error in str(info.value)


def test_replica_calc_computed_tolerance_alg_implementation() -> None:
    """TestReplicaCalcComputedToleranceAlgImplementation: a target just past the
    tolerance scales 10 pods down; one just inside it keeps 10."""
    used, requested = 1500, 3000  # 150m per pod, requests twice that
    per_pod = [400, 200, 310, 290, 302, 298, 301, 299, 300, 300]  # perPodRequested +/- jitter
    s = Scenario(10, [f"{r}m" for r in per_pod], levels(*[used // 10] * 10))
    requested_to_used = float(requested // used)
    target = abs(1 / (requested_to_used * (1 - 0.1))) + 0.01
    final_pods = math.ceil(used / (requested * target) * 10)
    assert _resource(s, int(target * 100), DEFAULT) == (final_pods, used * 100 // requested, 2 * used // 10)
    target = abs(1 / (requested_to_used * (1 - 0.1))) + 0.004
    assert _resource(s, int(target * 100), DEFAULT) == (10, used * 100 // requested, 2 * used // 10)


# -- custom metric rows ----------------------------------------------------------------------


def _values(level_list: Sequence[int]) -> dict[str, PodMetric]:
    """``newFakeCustomMetricsClient``'s multiple-pod answer."""
    return {f"test-pod-{i}": PodMetric(v) for i, v in enumerate(level_list)}


POD_METRIC = [
    pytest.param(Scenario(3), [20000, 10000, 30000], 15000, 4, 20000, DEFAULT, id="scale up"),
    pytest.param(Scenario(3, readiness=[T, T, F], start=[COOL, COOL, HOT]), [50000, 10000, 30000], 15000, 6,
                 30000, DEFAULT, id="scale up: unready hot-CPU pod scales less"),
    pytest.param(Scenario(3, readiness=[F, T, F], start=[HOT, COOL, HOT]), [50000, 15000, 30000], 15000, 7,
                 31666, DEFAULT, id="scale up: unready hot-CPU pods avoid scale-down"),
    pytest.param(Scenario(5), [12000] * 5, 20000, 3, 12000, DEFAULT, id="scale down"),
    pytest.param(Scenario(3), [20000, 21000, 21000], 20000, 3, 20666, DEFAULT, id="within default tolerance"),
    pytest.param(Scenario(3), [20000, 21000, 21000], 20000, 4, 20666, Tolerances(0.1, 0.01),
                 id="outside configurable 1% tolerance"),
    pytest.param(Scenario(5), [20000, 19000, 21000], 20000, 5, 20000, DEFAULT, id="no change: missing metrics"),
    pytest.param(Scenario(2, phase=[R, R, R]), [10000, 10000], 17000, 2, 10000, DEFAULT,
                 id="rolling update with maxSurge: extra pod missing metric"),
]


@pytest.mark.parametrize(("s", "values", "target", "replicas", "usage", "tol"), POD_METRIC)
def test_replica_calc_pod_metric(
    s: Scenario, values: list[int], target: int, replicas: int, usage: int, tol: Tolerances
) -> None:
    """TestReplicaCalcPodMetric."""
    got = get_metric_replicas(_values(values), s.current, target, "qps", tol, build_pods(s), NOW)
    assert got == (replicas, usage)


OBJECT_METRIC = [
    pytest.param(Scenario(3), 20000, 15000, 4, 20000, DEFAULT, id="scale up"),
    pytest.param(Scenario(3), MAX_INT64, 1, MAX_INT32, MAX_INT64, DEFAULT,
                 id="scale up: very large metric saturates replicas to MaxInt32"),
    pytest.param(Scenario(3, readiness=[F, T, F]), 50000, 10000, 5, 50000, DEFAULT,
                 id="scale up: ignores unready pods"),
    pytest.param(Scenario(5), 12000, 20000, 3, 12000, DEFAULT, id="scale down"),
    pytest.param(Scenario(3), 20666, 20000, 3, 20666, DEFAULT, id="within default tolerance"),
    pytest.param(Scenario(3), 20666, 20000, 4, 20666, Tolerances(0.1, 0.01), id="outside configurable 1% tolerance"),
]


@pytest.mark.parametrize(("s", "level", "target", "replicas", "usage", "tol"), OBJECT_METRIC)
def test_replica_calc_object_metric(
    s: Scenario, level: int, target: int, replicas: int, usage: int, tol: Tolerances
) -> None:
    """TestReplicaCalcObjectMetric."""
    assert get_object_metric_replicas(s.current, target, level, tol, build_pods(s)) == (replicas, usage)


OBJECT_PER_POD = [
    pytest.param(3, 20000, 5000, 4, 6667, DEFAULT, id="scale up"),
    pytest.param(5, 6000, 2000, 3, 1200, DEFAULT, id="scale down"),
    pytest.param(4, 20166, 5000, 4, 5042, DEFAULT, id="within default tolerance"),
    pytest.param(4, 20208, 5000, 5, 5052, Tolerances(0.1, 0.01), id="outside configurable 1% tolerance"),
]


@pytest.mark.parametrize(("current", "level", "target", "replicas", "usage", "tol"), OBJECT_PER_POD)
def test_replica_calc_object_per_pod_metric(
    current: int, level: int, target: int, replicas: int, usage: int, tol: Tolerances
) -> None:
    """TestReplicaCalcObjectPerPodMetric."""
    assert object_per_pod_replicas(current, target, level, tol) == (replicas, usage)


EXTERNAL = [
    pytest.param(Scenario(3, readiness=[F, T, F]), [8600], 4400, 2, 8600, DEFAULT,
                 id="scale down: ignores unready pods (would otherwise scale up)"),
    pytest.param(Scenario(5), [8600], 14334, 3, 8600, DEFAULT, id="scale down"),
    pytest.param(Scenario(3), [8600], 8888, 3, 8600, DEFAULT, id="within default tolerance"),
    pytest.param(Scenario(3), [8900], 8800, 4, 8900, Tolerances(0.1, 0.01), id="outside configurable 1% tolerance"),
    pytest.param(Scenario(3), [MAX_INT64 // 2 + 1] * 2, MAX_INT64, 3, MAX_INT64, DEFAULT,
                 id="usage overflow caps at MaxInt64"),
]


@pytest.mark.parametrize(("s", "values", "target", "replicas", "usage", "tol"), EXTERNAL)
def test_replica_calc_external_metric(
    s: Scenario, values: list[int], target: int, replicas: int, usage: int, tol: Tolerances
) -> None:
    """TestReplicaCalcExternalMetric."""
    assert external_replicas(s.current, target, values, tol, build_pods(s)) == (replicas, usage)


EXTERNAL_PER_POD = [
    pytest.param(1, MAX_INT64, 1, MAX_INT32, MAX_INT64, DEFAULT, id="replica count overflow saturates to MaxInt32"),
    pytest.param(1, MAX_INT64, MAX_INT64, 1, MAX_INT64, DEFAULT,
                 id="usage overflow with huge target leaves replicas unchanged"),
    pytest.param(3, 8600, 2150, 4, 2867, DEFAULT, id="scale up"),
    pytest.param(5, 8600, 2867, 3, 1720, DEFAULT, id="scale down"),
    pytest.param(3, 8600, 2900, 3, 2867, DEFAULT, id="within default tolerance"),
    pytest.param(3, 8600, 2800, 4, 2867, Tolerances(0.1, 0.01), id="outside configurable 1% tolerance"),
]


@pytest.mark.parametrize(("current", "level", "target", "replicas", "usage", "tol"), EXTERNAL_PER_POD)
def test_replica_calc_external_per_pod_metric(
    current: int, level: int, target: int, replicas: int, usage: int, tol: Tolerances
) -> None:
    """TestReplicaCalcExternalPerPodMetric."""
    assert external_per_pod_replicas(current, target, [level], tol) == (replicas, usage)
