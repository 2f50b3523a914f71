"""autoscaling/v1 <-> v2 HorizontalPodAutoscaler conversion: goldens from a live 1.37.2
apiserver, and round trips over generated metrics and behaviors."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.apiserver.conversion import autoscaling_v1 as hv1
from reference_impl.apiserver.conversion import autoscaling_v1_metrics as m1

Obj = dict[str, Any]


def _v2(metrics: list[Obj], behavior: Obj | None = None, **status: Any) -> Obj:
    spec: Obj = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
        "minReplicas": 2,
        "maxReplicas": 5,
        "metrics": metrics,
    }
    if behavior is not None:
        spec["behavior"] = behavior
    obj: Obj = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h", "namespace": "default", "annotations": {"keep": "me"}},
        "spec": spec,
    }
    if status:
        obj["status"] = status
    return obj


def _cpu(n: int) -> Obj:
    return {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": n}},
    }


GOLDEN_METRICS = [
    _cpu(60),
    {
        "type": "Resource",
        "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}},
    },
    {
        "type": "External",
        "external": {
            "metric": {"name": "q", "selector": {"matchLabels": {"a": "b"}}},
            "target": {"type": "Value", "value": "10"},
        },
    },
    {
        "type": "Object",
        "object": {
            "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "s"},
            "metric": {"name": "rps"},
            "target": {"type": "AverageValue", "averageValue": "5"},
        },
    },
    {
        "type": "Pods",
        "pods": {"metric": {"name": "p"}, "target": {"type": "AverageValue", "averageValue": "3"}},
    },
]
GOLDEN_BEHAVIOR = {
    "scaleUp": {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15},
        ],
    },
    "scaleDown": {
        "stabilizationWindowSeconds": 60,
        "selectPolicy": "Max",
        "policies": [{"type": "Pods", "value": 1, "periodSeconds": 30}],
    },
}
# What kubectl get --raw /apis/autoscaling/v1/... returned for that object on v1.37.2.
LIVE_METRICS = (
    '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}},'
    '{"type":"External","external":{"metricName":"q","metricSelector":{"matchLabels":{"a":"b"}},"targetValue":"10"}},'
    '{"type":"Object","object":{"target":{"kind":"Service","name":"s","apiVersion":"v1"},"metricName":"rps",'
    '"targetValue":"0","averageValue":"5"}},{"type":"Pods","pods":{"metricName":"p","targetAverageValue":"3"}}]'
)
LIVE_BEHAVIOR = (
    '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,'
    '"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},'
    '"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":1,'
    '"PeriodSeconds":30}],"Tolerance":null}}'
)


def test_v1_read_matches_a_live_apiserver_byte_for_byte() -> None:
    v1 = hv1.from_v2(copy.deepcopy(_v2(GOLDEN_METRICS, GOLDEN_BEHAVIOR)))
    assert v1["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
        "minReplicas": 2,
        "maxReplicas": 5,
        "targetCPUUtilizationPercentage": 60,
    }
    ann = v1["metadata"]["annotations"]
    assert ann[hv1.METRICS] == LIVE_METRICS
    assert ann["autoscaling.alpha.kubernetes.io/behavior"] == LIVE_BEHAVIOR
    assert ann["keep"] == "me"
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}


def test_v1_write_reads_the_annotations_and_drops_them() -> None:
    v1 = hv1.from_v2(copy.deepcopy(_v2(GOLDEN_METRICS, GOLDEN_BEHAVIOR)))
    v2 = hv1.to_v2(v1)
    assert v2["metadata"]["annotations"] == {"keep": "me"}
    # The CPU target comes last, after the annotation's metrics, as upstream orders it.
    assert v2["spec"]["metrics"] == GOLDEN_METRICS[1:] + GOLDEN_METRICS[:1]
    assert v2["spec"]["behavior"] == GOLDEN_BEHAVIOR


def test_status_round_trips_through_annotations() -> None:
    current = [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "current": {"averageValue": "200m", "averageUtilization": 40},
            },
        },
        {"type": "External", "external": {"metric": {"name": "q"}, "current": {"value": "3"}}},
    ]
    conditions = [
        {
            "type": "AbleToScale",
            "status": "True",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
            "reason": "R",
        }
    ]
    stored = _v2(
        [_cpu(50)],
        currentReplicas=2,
        desiredReplicas=3,
        currentMetrics=current,
        conditions=conditions,
    )
    v1 = hv1.from_v2(copy.deepcopy(stored))
    assert v1["status"] == {
        "currentReplicas": 2,
        "desiredReplicas": 3,
        "currentCPUUtilizationPercentage": 40,
    }
    back = hv1.to_v2(v1)
    assert (
        back["status"]["currentMetrics"] == current and back["status"]["conditions"] == conditions
    )


def test_stale_round_trip_annotations_are_replaced_and_bad_ones_ignored() -> None:
    stored = _v2([_cpu(50)])
    stored["metadata"]["annotations"][hv1.METRICS] = "[not json"
    assert hv1.METRICS not in (
        hv1.from_v2(copy.deepcopy(stored))["metadata"].get("annotations") or {}
    )
    v1 = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"annotations": {hv1.METRICS: "{bad"}},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 2},
    }
    assert hv1.to_v2(v1)["spec"]["metrics"] == [_cpu(hv1.DEFAULT_CPU_UTILIZATION)]


_q = st.sampled_from(["1", "500m", "2Gi", "10"])
_name = st.from_regex(r"[a-z]{1,5}", fullmatch=True)
_util = st.builds(lambda n: {"type": "Utilization", "averageUtilization": n}, st.integers(1, 100))
_avg = st.builds(lambda q: {"type": "AverageValue", "averageValue": q}, _q)
_value = st.builds(lambda q: {"type": "Value", "value": q}, _q)
_ident = st.builds(
    lambda n, sel: {"name": n, **({"selector": {"matchLabels": {"k": sel}}} if sel else {})},
    _name,
    st.one_of(st.none(), _name),
)
_other_metrics = st.one_of(
    st.builds(
        lambda n, t: {"type": "Resource", "resource": {"name": n, "target": t}},
        st.sampled_from(["memory", "ephemeral-storage"]),
        st.one_of(_util, _avg),
    ),
    st.builds(
        lambda n, c, t: {
            "type": "ContainerResource",
            "containerResource": {"name": n, "target": t, "container": c},
        },
        st.sampled_from(["cpu", "memory"]),
        _name,
        st.one_of(_util, _avg),
    ),
    st.builds(lambda i, t: {"type": "Pods", "pods": {"metric": i, "target": t}}, _ident, _avg),
    st.builds(
        lambda i, t: {"type": "External", "external": {"metric": i, "target": t}},
        _ident,
        st.one_of(_avg, _value),
    ),
    st.builds(
        lambda i, n, t: {
            "type": "Object",
            "object": {
                "describedObject": {"apiVersion": "v1", "kind": "Service", "name": n},
                "metric": i,
                "target": t,
            },
        },
        _ident,
        _name,
        st.one_of(_avg, _value),
    ),
)
_policy = st.builds(
    lambda t, v, p: {"type": t, "value": v, "periodSeconds": p},
    st.sampled_from(["Pods", "Percent"]),
    st.integers(1, 10),
    st.integers(1, 1800),
)
_rules = st.fixed_dictionaries(
    {},
    optional={
        "stabilizationWindowSeconds": st.integers(0, 3600),
        "selectPolicy": st.sampled_from(["Max", "Min", "Disabled"]),
        "policies": st.lists(_policy, min_size=1, max_size=2),
        "tolerance": st.sampled_from(["0.1", "50m"]),
    },
)
_behavior = st.one_of(
    st.none(),
    st.fixed_dictionaries({}, optional={"scaleUp": _rules, "scaleDown": _rules}).filter(bool),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(_other_metrics, max_size=4), st.one_of(st.none(), st.integers(1, 100)), _behavior)
def test_v2_round_trips_through_v1(
    metrics: list[Obj], cpu: int | None, behavior: Obj | None
) -> None:
    stored = _v2(metrics + ([_cpu(cpu)] if cpu is not None else []), behavior)
    if not stored["spec"]["metrics"]:
        stored["spec"]["metrics"] = [_cpu(hv1.DEFAULT_CPU_UTILIZATION)]  # what defaulting stores
    v1 = hv1.from_v2(copy.deepcopy(stored))
    json.dumps(v1)
    assert set(v1["spec"]) <= {
        "scaleTargetRef",
        "minReplicas",
        "maxReplicas",
        "targetCPUUtilizationPercentage",
    }
    back = hv1.to_v2(v1)
    back.pop("status", None)
    assert back == stored


def test_v1_metric_shapes_follow_the_go_structs() -> None:
    """Only the v1 struct's fields travel, and non-omitempty ones carry Go's zero value."""
    status = {
        "type": "Resource",
        "resource": {"name": "cpu", "current": {"averageValue": "1"}, "container": "x"},
    }
    # v1 ResourceMetricStatus has no container field
    assert m1.status_to_v1(status) == {
        "type": "Resource",
        "resource": {"name": "cpu", "currentAverageValue": "1"},
    }
    unnamed = {"type": "ContainerResource", "containerResource": {"targetAverageUtilization": 5}}
    assert m1.spec_to_v2(unnamed) == {
        "type": "ContainerResource",
        "containerResource": {
            "name": "",
            "target": {"type": "Utilization", "averageUtilization": 5},
            "container": "",
        },
    }
    pods = {"type": "Pods", "pods": {"metric": {"name": "m"}, "target": {"type": "AverageValue"}}}
    assert json.dumps(m1.spec_to_v1(pods), separators=(",", ":")) == (
        '{"type":"Pods","pods":{"metricName":"m","targetAverageValue":"0"}}'
    )
    assert m1.spec_to_v1({"type": "Bogus", "bogus": {}}) == {"type": "Bogus"}
