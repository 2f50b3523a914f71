"""Unit tests of the HPA replica calculator and behavior (stabilization, policies)."""

from __future__ import annotations

from reference_impl.clock import Instant, seconds
from reference_impl.controllers.hpa.behavior import Stabilizer
from reference_impl.controllers.hpa.replica_calculator import ReplicaCalculator


def _at(s: float) -> Instant:
    return Instant(seconds(s))


def test_from_zero_a_value_target_scales_to_the_ceiling_of_the_ratio() -> None:
    calc = ReplicaCalculator({})
    assert calc.usage_ratio_replicas(0, 2.5, 0) == 3
    assert calc.usage_ratio_replicas(0, 0.0, 0) == 0


def test_within_tolerance_the_replica_count_is_kept() -> None:
    calc = ReplicaCalculator({})
    assert calc.per_pod_replicas(4, 41.0, 10.0) == 4
    assert calc.per_pod_replicas(4, 80.0, 10.0) == 8


def test_external_series_are_summed_over_matching_labels() -> None:
    calc = ReplicaCalculator({("q", (("a", "1"),)): 3.0, ("q", (("a", "2"),)): 4.0})
    assert calc.external_value({"name": "q", "selector": {"matchLabels": {"a": "1"}}}) == 3.0
    assert calc.external_value({"name": "q"}) == 7.0
    assert calc.external_value({"name": "missing"}) is None


def test_scale_down_waits_for_the_stabilization_window() -> None:
    stab = Stabilizer()
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 60}}
    assert stab.normalize("k", _at(0), behavior, 5, 5, 0, 10) == 5
    assert stab.normalize("k", _at(15), behavior, 5, 0, 0, 10) == 5
    assert stab.normalize("k", _at(61), behavior, 5, 0, 0, 10) == 0


def test_scale_up_is_limited_by_the_pods_policy_per_period() -> None:
    stab = Stabilizer()
    behavior = {"scaleUp": {"policies": [{"type": "Pods", "value": 2, "periodSeconds": 60}]}}
    assert stab.normalize("k", _at(0), behavior, 0, 9, 0, 10) == 2
    stab.record("k", _at(0), 2)
    assert stab.normalize("k", _at(30), behavior, 2, 9, 0, 10) == 2
    assert stab.normalize("k", _at(61), behavior, 2, 9, 0, 10) == 4


def test_disabled_select_policy_never_scales() -> None:
    stab = Stabilizer()
    behavior = {"scaleDown": {"selectPolicy": "Disabled", "stabilizationWindowSeconds": 0}}
    assert stab.normalize("k", _at(0), behavior, 3, 0, 0, 10) == 3
