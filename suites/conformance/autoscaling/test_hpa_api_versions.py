"""HPA-ZERO: a HorizontalPodAutoscaler reads and writes the same in autoscaling/v1 and v2.

v2 is the storage version. v1 knows only a CPU utilization target; the apiserver MUST
carry every other v2 field through v1 in the ``autoscaling.alpha.kubernetes.io/*``
annotations, so a scale-to-zero HPA survives a v1 read-modify-write.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.retry import retry_on_conflict

pytestmark = [pytest.mark.conformance, pytest.mark.feature("HPA-ZERO")]

V1, V2, KIND = "autoscaling/v1", "autoscaling/v2", "HorizontalPodAutoscaler"
METRICS = "autoscaling.alpha.kubernetes.io/metrics"
BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior"
Obj = dict[str, Any]


def _hpa(api_version: str, name: str, namespace: str, **spec: Any) -> Obj:
    ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    return {
        "apiVersion": api_version,
        "kind": KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"scaleTargetRef": ref, "maxReplicas": 4, **spec},
    }


def _set_max_replicas_through_v1(target: Target, namespace: str, name: str, n: int) -> None:
    # The HPA controller writes status concurrently: retry a read-modify-write on Conflict.
    def write() -> Obj:
        v1 = target.get(V1, KIND, name, namespace)
        v1["spec"]["maxReplicas"] = n
        return target.apply(v1)

    retry_on_conflict(write, f"{KIND} {name} through v1")


def _cpu(utilization: int) -> Obj:
    target = {"type": "Utilization", "averageUtilization": utilization}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


def test_v1_cpu_target_reads_as_a_v2_resource_metric(target: Target, namespace: str) -> None:
    """HPA-ZERO, autoscaling/v1 in v2.

    A v1 HPA's ``targetCPUUtilizationPercentage`` MUST read through v2 as one Resource cpu
    Utilization metric, and a v1 HPA without one MUST get the implicit 80% CPU target.
    """
    target.apply(_hpa(V1, "cpu", namespace, targetCPUUtilizationPercentage=50))
    target.apply(_hpa(V1, "implicit", namespace))
    assert target.get(V2, KIND, "cpu", namespace)["spec"]["metrics"] == [_cpu(50)]
    assert target.get(V2, KIND, "implicit", namespace)["spec"]["metrics"] == [_cpu(80)]
    back = target.get(V1, KIND, "cpu", namespace)
    assert back["spec"]["targetCPUUtilizationPercentage"] == 50
    assert METRICS not in (back["metadata"].get("annotations") or {})


def test_scale_to_zero_hpa_survives_a_v1_round_trip(target: Target, namespace: str) -> None:
    """HPA-ZERO, v2 fields through autoscaling/v1.

    A v2 HPA with minReplicas 0, an External metric and a behavior MUST read through v1
    with minReplicas 0 and no CPU target, its metric (v1 shape) and behavior in the round-
    trip annotations; writing that v1 object back with a new maxReplicas MUST keep the
    metric and the behavior in v2.
    """
    external = {
        "type": "External",
        "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "10"}},
    }
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 30, "selectPolicy": "Min"}}
    target.apply(_hpa(V2, "h", namespace, minReplicas=0, metrics=[external], behavior=behavior))
    v1 = target.get(V1, KIND, "h", namespace)
    assert v1["spec"]["minReplicas"] == 0
    assert "targetCPUUtilizationPercentage" not in v1["spec"]
    annotations = v1["metadata"]["annotations"]
    assert json.loads(annotations[METRICS]) == [
        {"type": "External", "external": {"metricName": "queue", "targetValue": "10"}}
    ]
    encoded = json.loads(annotations[BEHAVIOR])  # the internal Go type: Go field names
    assert encoded["ScaleDown"]["StabilizationWindowSeconds"] == 30
    assert encoded["ScaleDown"]["SelectPolicy"] == "Min"
    _set_max_replicas_through_v1(target, namespace, "h", 6)
    v2 = target.get(V2, KIND, "h", namespace)
    assert v2["spec"]["maxReplicas"] == 6 and v2["spec"]["minReplicas"] == 0
    assert v2["spec"]["metrics"] == [external]
    scale_down = v2["spec"]["behavior"]["scaleDown"]
    assert (scale_down["stabilizationWindowSeconds"], scale_down["selectPolicy"]) == (30, "Min")
    assert METRICS not in (v2["metadata"].get("annotations") or {})
