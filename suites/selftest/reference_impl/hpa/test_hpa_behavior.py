"""Unit tests of the HPA replica calculator and behavior (stabilization, policies)."""

from __future__ import annotations

from reference_impl.clock import Instant, seconds
from reference_impl.controllers.hpa.behavior import Stabilizer
from reference_impl.controllers.hpa.replica_calculator import ReplicaCalculator
from reference_impl.controllers.hpa.replica_rules import (
    Tolerances,
    external_per_pod_replicas,
    usage_ratio_replica_count,
)


def _at(s: float) -> Instant:
    return Instant(seconds(s))


def test_from_zero_a_value_target_scales_to_the_ceiling_of_the_ratio() -> None:
    tol = Tolerances()
    assert usage_ratio_replica_count(0, 2.5, tol, []) == 3
    assert usage_ratio_replica_count(0, 0.0, tol, []) == 0


def test_within_tolerance_the_replica_count_is_kept() -> None:
    tol = Tolerances()
    assert external_per_pod_replicas(4, 10_000, [41_000], tol) == (4, 10_250)
    assert external_per_pod_replicas(4, 10_000, [80_000], tol) == (8, 20_000)


def test_external_series_are_summed_over_matching_labels() -> None:
    calc = ReplicaCalculator({("q", (("a", "1"),)): 3.0, ("q", (("a", "2"),)): 4.0})
    assert calc.external_values({"name": "q", "selector": {"matchLabels": {"a": "1"}}}) == [3000]
    assert calc.external_values({"name": "q"}) == [3000, 4000]
    assert calc.external_values({"name": "missing"}) == []


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


def test_without_behavior_scale_up_is_capped_at_twice_or_four() -> None:
    # convertDesiredReplicasWithRules: max(2 * current, 4) unless maxReplicas is lower.
    stab = Stabilizer()
    n = stab.normalize_without_behavior("k", _at(0), 1, 10, 1, 20)
    assert (n.replicas, n.limited, n.limited_reason) == (4, True, "ScaleUpLimit")
    n = stab.normalize_without_behavior("k2", _at(0), 1, 10, 1, 3)
    assert (n.replicas, n.limited_reason) == (3, "TooManyReplicas")
    n = stab.normalize_without_behavior("k3", _at(0), 2, 0, 2, 5)
    assert (n.replicas, n.limited, n.limited_reason) == (2, True, "TooFewReplicas")
    assert n.able_reason == "ReadyForNewScale"


def test_without_behavior_the_downscale_window_keeps_the_highest_recommendation() -> None:
    stab = Stabilizer()
    stab.record_initial("k", _at(0), 5)
    n = stab.normalize_without_behavior("k", _at(15), 5, 1, 1, 10)
    assert (n.replicas, n.able_reason) == (5, "ScaleDownStabilized")
    n = stab.normalize_without_behavior("k", _at(316), 5, 1, 1, 10)
    assert (n.replicas, n.able_reason, n.limited_reason) == (1, "ReadyForNewScale", "DesiredWithinRange")


def test_behavior_reasons_and_percent_scale_down_truncates() -> None:
    stab = Stabilizer()
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 0,
                              "policies": [{"type": "Percent", "value": 50, "periodSeconds": 60}]}}
    n = stab.normalize_with_behaviors("k", _at(0), behavior, 5, 0, 0, 10)
    # int32(5 * 0.5) = 2 (upstream truncates; rounding up would keep 3)
    assert (n.replicas, n.limited, n.limited_reason) == (2, True, "ScaleDownLimit")
    n = stab.normalize_with_behaviors("k2", _at(0), {}, 3, 3, 0, 10)
    assert (n.able_reason, n.limited, n.limited_reason) == ("ReadyForNewScale", False, "DesiredWithinRange")
