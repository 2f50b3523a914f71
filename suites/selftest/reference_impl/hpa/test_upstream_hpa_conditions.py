"""Rows of upstream ``horizontal_test.go`` (v1.37.2) about the conditions one reconcile
sets: ambiguous and invalid selectors, failed metrics (with the ScalingActive messages),
a failed scale read, and the rows the reference cannot take. See ``hpa_scale_harness``."""

from __future__ import annotations

from typing import Any

import pytest
from hpa_scale_harness import (
    RESCALED,
    Cond,
    F,
    Scenario,
    T,
    check,
    cpu,
    external_qps,
    object_qps,
    pods_qps,
)

Obj = dict[str, Any]
TENTH = ["0.1"] * 3


_NO_SELECTOR = pytest.mark.skip(reason="a scale subresource without (or with an unparsable) selector cannot be "
                                       "stored: the apiserver defaults and validates the target's selector")


@pytest.mark.parametrize("name", [
    pytest.param("missing", id="TestConditionInvalidSelectorMissing", marks=_NO_SELECTOR),
    pytest.param("unparsable", id="TestConditionInvalidSelectorUnparsable", marks=_NO_SELECTOR),
])
def test_condition_invalid_selector(name: str) -> None:
    """TestConditionInvalidSelector{Missing,Unparsable} (not reachable: see the skip)."""


AMBIGUOUS = [("AbleToScale", T, "SucceededGetScale"), ("ScalingActive", F, "AmbiguousSelector")]
SELECTOR_OVERLAP = [
    pytest.param(Scenario(2, 6, 3, 3, 30, [300, 500, 700], cpu(3),
                          hpa_selectors={"test-hpa-2": {"matchLabels": {"cheddar": "cheese"}}}), 5, RESCALED,
                 id="TestConditionNoAmbiguousSelectorWhenNoSelectorOverlapBetweenHPAs"),
    pytest.param(Scenario(2, 6, 3, 3, 30, [300, 500, 700], cpu(3),
                          hpa_selectors={"test-hpa-2": {"matchLabels": {"name": "test-pod"}}}), 3, AMBIGUOUS,
                 id="TestConditionAmbiguousSelectorWhenFullSelectorOverlapBetweenHPAs"),
    pytest.param(Scenario(2, 6, 3, 3, 30, [300, 500, 700], cpu(3), pod_labels={"cheddar": "cheese"},
                          hpa_selectors={"test-hpa-2": {"matchLabels": {"cheddar": "cheese"}}}), 3, AMBIGUOUS,
                 id="TestConditionAmbiguousSelectorWhenPartialSelectorOverlapBetweenHPAs"),
]


@pytest.mark.parametrize(("s", "replicas", "expected"), SELECTOR_OVERLAP)
def test_condition_selector_overlap(s: Scenario, replicas: int, expected: list[Cond]) -> None:
    """TestCondition{No,}AmbiguousSelector* (the HPAOptimizedSelectorStore variants agree)."""
    check(s, replicas, expected)


def _failed(reason: str) -> list[Cond]:
    return [("AbleToScale", T, "SucceededGetScale"), ("ScalingActive", F, reason)]


FAILED_GET_METRICS = [  # the metrics APIs fail: nothing is served
    pytest.param(Scenario(1, 100, 3, 3, 10, [], TENTH), "FailedGetResourceMetric", id="FailedGetResourceMetric"),
    pytest.param(Scenario(1, 100, 3, 3, 0, [], TENTH, metrics=[pods_qps("15.0")]), "FailedGetPodsMetric",
                 id="FailedGetPodsMetric"),
    pytest.param(Scenario(1, 100, 3, 3, 0, [], TENTH, metrics=[object_qps("Value", "15.0")]), "FailedGetObjectMetric",
                 id="FailedGetObjectMetric"),
    pytest.param(Scenario(1, 100, 3, 3, 0, [], TENTH, metrics=[external_qps("Value", "300m")]),
                 "FailedGetExternalMetric", id="FailedGetExternalMetric"),
]


@pytest.mark.parametrize(("s", "reason"), FAILED_GET_METRICS)
def test_condition_failed_get_metrics(s: Scenario, reason: str) -> None:
    """TestConditionFailedGetMetrics: the count (and status.desiredReplicas) is kept."""
    check(s, 3, _failed(reason))


@pytest.mark.skip(reason='metric type "CheddarCheese": the apiserver rejects the HPA (no controller path)')
def test_condition_invalid_source_type() -> None:
    """TestConditionInvalidSourceType."""


def test_condition_failed_get_scale() -> None:
    """TestConditionFailedGetScale: only AbleToScale=False/FailedGetScale, desired kept."""
    check(Scenario(1, 100, 3, 3, 10, [100, 200, 300], TENTH, no_target=True), 3,
          [("AbleToScale", F, "FailedGetScale")])


@pytest.mark.skip(reason="no way to make the scale update fail: the reference writes spec.replicas directly")
def test_condition_failed_update_scale() -> None:
    """TestConditionFailedUpdateScale."""


_EVENTS = pytest.mark.skip(reason="the reference controller records no Events (SuccessfulRescale)")


@pytest.mark.parametrize("name", [
    pytest.param("created", id="TestEventCreated", marks=_EVENTS),
    pytest.param("not created", id="TestEventNotCreated", marks=_EVENTS),
    pytest.param("multiple", id="TestMultipleHPAs",
                 marks=pytest.mark.skip(reason="asserts the monitor's HPA gauge, which the reference does not export")),
])
def test_not_modelled(name: str) -> None:
    """Rows whose assertions the reference has no counterpart for."""


def _messages(status: Obj) -> dict[str, str]:
    return {c["type"]: c["message"] for c in status.get("conditions") or []}


def test_scale_up_messages() -> None:
    """TestScaleCPU "scale up", with the messages ``reconcileAutoscaler`` writes."""
    status = check(Scenario(2, 6, 3, 3, 30, [300, 500, 700], cpu(3)), 5, RESCALED)
    assert _messages(status) == {
        "AbleToScale": "the HPA controller was able to update the target scale to 5",
        "ScalingActive": "the HPA was able to successfully calculate a replica count from cpu resource "
                         "utilization (percentage of request)",
        "ScalingLimited": "the desired count is within the acceptable range",
        "ScaledToZero": "the HPA controller did not scale the workload to zero",
    }
    assert status["currentMetrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 50, "averageValue": "500m"}}}
    ]


FAILED_MESSAGES = [
    pytest.param(Scenario(1, 100, 3, 3, 10, [], TENTH),
                 "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from "
                 "resource metrics API", id="FailedGetResourceMetric"),
    pytest.param(Scenario(1, 100, 3, 3, 0, [], TENTH, metrics=[pods_qps("15.0")]),
                 "unable to get metric qps: unable to fetch metrics from custom metrics API: no metrics returned "
                 "from custom metrics API", id="FailedGetPodsMetric"),
    pytest.param(Scenario(1, 100, 3, 3, 0, [], TENTH, metrics=[external_qps("Value", "300m")]),
                 "unable to get external metric test-namespace/qps/&LabelSelector{MatchLabels:map[string]string{},"
                 "MatchExpressions:[]LabelSelectorRequirement{},}: no metrics returned from external metrics API",
                 id="FailedGetExternalMetric"),
]


@pytest.mark.parametrize(("s", "error"), FAILED_MESSAGES)
def test_condition_failed_get_metrics_messages(s: Scenario, error: str) -> None:
    """TestConditionFailedGetMetrics with the ScalingActive message
    (``getUnableComputeReplicaCountCondition`` on the metrics client's error)."""
    status = check(s, 3, None)
    assert _messages(status)["ScalingActive"] == f"the HPA was unable to compute the replica count: {error}"
