"""Rows of upstream ``horizontal_test.go`` (v1.37.2) about the conditions one reconcile
sets: ambiguous and invalid selectors, failed metrics (with the ScalingActive messages),
a failed scale read or write, the rescale's conflict retry, and the rows the reference
cannot take. See ``hpa_scale_harness``."""

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
    conds,
    cpu,
    external_qps,
    object_qps,
    ok_with,
    pods_qps,
    run_scenario,
)

from reference_impl.errors import ApiError, Conflict

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


def test_condition_failed_update_scale() -> None:
    """TestConditionFailedUpdateScale: the update fails (not a conflict: no retry); the
    metrics' conditions stay, AbleToScale=False/FailedUpdateScale, the count and
    status.desiredReplicas are kept, no ScaledToZero and no lastScaleTime."""
    s = Scenario(1, 5, 3, 3, 100, [150, 150, 150], TENTH,
                 scale_update_errors=[_SomethingWentWrong()])
    status = check(s, 3, ok_with(("AbleToScale", F, "FailedUpdateScale")))
    assert _messages(status)["AbleToScale"] == (
        "the HPA controller was unable to update the target scale: something went wrong")
    assert "lastScaleTime" not in status
    assert status["currentMetrics"][0]["resource"]["current"]["averageUtilization"] == 150


class _SomethingWentWrong(ApiError):
    """The reactor's plain ``fmt.Errorf("something went wrong")``."""

    def __init__(self) -> None:
        super().__init__("something went wrong")


def _conflict() -> Conflict:
    return Conflict('Operation cannot be fulfilled on replicationcontrollers "test-rc": simulated conflict')


def test_hpa_rescale_with_successful_conflict_retry() -> None:
    """TestHPARescaleWithSuccessfulConflictRetry: the first update conflicts, the
    controller reads the latest Scale and the retry succeeds."""
    s = Scenario(2, 6, 3, 3, 50, [600, 700, 800], cpu(3), scale_update_errors=[_conflict()])
    status = check(s, 5, RESCALED)
    assert _messages(status)["AbleToScale"] == "the HPA controller was able to update the target scale to 5"


def test_hpa_rescale_conflict_retries_exhausted() -> None:
    """``retry.DefaultRetry``'s five steps all conflict: the last conflict is the
    FailedUpdateScale error (the same setup as the row above)."""
    s = Scenario(2, 6, 3, 3, 50, [600, 700, 800], cpu(3), scale_update_errors=[_conflict()] * 5)
    status = check(s, 3, ok_with(("AbleToScale", F, "FailedUpdateScale")))
    assert _messages(status)["AbleToScale"].endswith("simulated conflict")
    s = Scenario(2, 6, 3, 3, 50, [600, 700, 800], cpu(3), scale_update_errors=[_conflict()] * 4)
    check(s, 5, RESCALED)  # the fifth try succeeds


def test_failed_update_scale_at_max_replicas() -> None:
    """A count above maxReplicas is corrected without metrics; a failed write keeps the
    count with AbleToScale=False and no metric status."""
    s = Scenario(1, 2, 3, 3, 100, [150, 150, 150], TENTH,
                 scale_update_errors=[_SomethingWentWrong()])
    status = check(s, 3, [("AbleToScale", F, "FailedUpdateScale")])
    assert "currentMetrics" not in status


def _get_scale_message(kind: str, api_version: str, name: str) -> str:
    """A scenario whose HPA targets ``api_version``/``kind`` ``name``: the FailedGetScale
    message (the target itself is the usual test-rc)."""
    s = Scenario(1, 100, 3, 3, 10, [100, 200, 300], TENTH)
    out = run_scenario(s, target_ref={"apiVersion": api_version, "kind": kind, "name": name})
    assert conds(out.status) == [("AbleToScale", F, "FailedGetScale")]
    assert out.replicas == 3  # the real target is untouched
    return str(_messages(out.status)["AbleToScale"]).removeprefix(
        "the HPA controller was unable to get the target's current scale: ")


FAILED_GET_SCALE = [
    pytest.param("Cheese", "cheese.example.com/v1", "test-rc",
                 'no matches for kind "Cheese" in group "cheese.example.com"', id="unknown kind"),
    pytest.param("ReplicaSet", "batch/v1", "test-rc", 'no matches for kind "ReplicaSet" in group "batch"',
                 id="a kind of another group"),
    pytest.param("ReplicationController", "", "test-rc", None, id="no apiVersion: core ReplicationController"),
    pytest.param("Deployment", "apps/v1beta1", "missing", 'deployments.apps "missing" not found',
                 id="any version of the group: the missing object"),
    pytest.param("ReplicationController", "v1", "missing", 'replicationcontrollers "missing" not found',
                 id="missing target"),
    pytest.param("Job", "batch/v1", "test-rc", "the server could not find the requested resource",
                 id="kind without a scale subresource"),
]


@pytest.mark.parametrize(("kind", "api_version", "name", "error"), FAILED_GET_SCALE)
def test_failed_get_scale_messages(kind: str, api_version: str, name: str, error: str | None) -> None:
    """``reconcileAutoscaler``'s FailedGetScale: ParseGroupVersion, RESTMappings (group
    and kind only) and ``scaleForResourceMappings``, each with upstream's error text."""
    if error is None:
        s = Scenario(1, 100, 3, 3, 10, [100, 200, 300], TENTH)
        out = run_scenario(s, target_ref={"apiVersion": "", "kind": kind, "name": name})
        assert conds(out.status)[0] == ("AbleToScale", T, "SucceededRescale")
        return
    assert _get_scale_message(kind, api_version, name) == error


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
