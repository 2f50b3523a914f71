"""Rows of upstream ``horizontal_test.go`` (v1.37.2) for the behavior arithmetic:
``TestConvertDesiredReplicasWithRules``, ``TestCalculateScale{Up,Down}Limit*``,
``TestNormalizeDesiredReplicas``, ``TestScalingWithRules``, ``TestStoreScaleEvents`` and
``TestNormalizeDesiredReplicasWithBehavior``; and of ``pkg/apis/autoscaling/v2``
``TestGenerateScale{Up,Down}Rules`` against the apiserver's defaulting."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.strategies.autoscaling import default_rules
from reference_impl.clock import Instant, seconds
from reference_impl.controllers.hpa.behavior import (
    Recommendation,
    ScaleEvent,
    Stabilizer,
    calculate_scale_down_limit_with_behaviors,
    calculate_scale_up_limit,
    calculate_scale_up_limit_with_scaling_rules,
    convert_desired_replicas_with_rules,
    replicas_change_per_period,
)

Obj = dict[str, Any]
NOW = Instant(seconds(86_400))


def ago(s: float) -> Instant:
    return Instant(NOW - seconds(s))


def rules(pods: int, pods_period: int, percent: int, percent_period: int, window: int) -> Obj:
    """``generateScalingRules`` (select policy Max)."""
    policies = []
    if pods:
        policies.append({"type": "Pods", "value": pods, "periodSeconds": pods_period})
    if percent:
        policies.append({"type": "Percent", "value": percent, "periodSeconds": percent_period})
    out: Obj = {"stabilizationWindowSeconds": window, "selectPolicy": "Max"}
    if policies:
        out["policies"] = policies
    return out


def uniform(raw: list[int], period: int) -> list[ScaleEvent]:
    """``generateEventsUniformDistribution``: events centred in equal slices of the period."""
    seg = period / len(raw)
    return [ScaleEvent(v, ago(int(period - seg * (i + 1) + seg / 2))) for i, v in enumerate(raw)]


CONVERT = [
    pytest.param(5, 7, 3, 8, 7, "DesiredWithinRange", id="prenormalized desired replicas within range"),
    pytest.param(3, 1, 2, 8, 2, "TooFewReplicas", id="prenormalized desired replicas < minReplicas"),
    pytest.param(1, 0, 0, 10, 0, "DesiredWithinRange", id="prenormalized desired zeroed replicas within range"),
    pytest.param(20, 1000, 1, 10, 10, "TooManyReplicas",
                 id="maxReplicas is the limit because maxReplicas < scaleUpLimit"),
    pytest.param(3, 1000, 1, 2000, calculate_scale_up_limit(3), "ScaleUpLimit",
                 id="scaleUpLimit is the limit because scaleUpLimit < maxReplicas"),
]


@pytest.mark.parametrize(("current", "desired", "lo", "hi", "want", "reason"), CONVERT)
def test_convert_desired_replicas_with_rules(current: int, desired: int, lo: int, hi: int, want: int,
                                             reason: str) -> None:
    """TestConvertDesiredReplicasWithRules."""
    got = convert_desired_replicas_with_rules(current, desired, lo, hi)
    assert got[:2] == (want, reason)


MIN_RULES: Obj = {"stabilizationWindowSeconds": 300, "selectPolicy": "Min", "policies": [
    {"type": "Pods", "value": 2, "periodSeconds": 60}, {"type": "Percent", "value": 50, "periodSeconds": 60}]}


def test_calculate_scale_up_limit_with_scaling_rules() -> None:
    """TestCalculateScaleUpLimitWithScalingRules."""
    assert calculate_scale_up_limit_with_scaling_rules(1, [], [], MIN_RULES, NOW) == 2


def test_calculate_scale_down_limit_with_behaviors() -> None:
    """TestCalculateScaleDownLimitWithBehaviors."""
    assert calculate_scale_down_limit_with_behaviors(5, [], [], MIN_RULES, NOW) == 3


NORMALIZE = [
    pytest.param([], 5, 5, 1, id="empty log"),
    pytest.param([(4, 120), (5, 60)], 3, 5, 3, id="stabilize"),
    pytest.param([(1, 120), (2, 60)], 3, 3, 3, id="no stabilize"),
    pytest.param([(10, 600), (9, 540)], 3, 3, 2, id="no stabilize - old recommendations"),
    pytest.param([(10, 600), (4, 60), (5, 120), (9, 540)], 3, 5, 4, id="stabilize - old recommendations"),
]


@pytest.mark.parametrize(("recs", "desired", "want", "log_len"), NORMALIZE)
def test_normalize_desired_replicas(recs: list[tuple[int, int]], desired: int, want: int, log_len: int) -> None:
    """TestNormalizeDesiredReplicas (``stabilizeRecommendation``, 5 minute window)."""
    stab = Stabilizer(300)
    stab.history("").recs = [Recommendation(r, ago(s)) for r, s in recs]
    assert stab.stabilize_recommendation("", NOW, desired) == want
    assert len(stab.history("").recs) == log_len


def _swr(name: str, current: int, desired: int, lo: int, hi: int, want: int, reason: str,
         up: Obj | None, down: Obj | None, up_events: tuple[list[int], int] | None,
         down_events: tuple[list[int], int] | None) -> Any:
    return pytest.param(current, desired, lo, hi, want, reason, up, down, up_events, down_events, id=name)


SCALING_WITH_RULES = [
    _swr("prenormalized desired replicas within range", 5, 7, 3, 8,
         7, "DesiredWithinRange", None, None, None, None),
    _swr("prenormalized desired replicas < minReplicas", 3, 1, 2, 8,
         2, "TooFewReplicas", None, None, None, None),
    _swr("prenormalized desired replicas within range when minReplicas is 0", 1, 0, 0, 10,
         0, "DesiredWithinRange", None, None, None, None),
    _swr("maxReplicas is the limit because maxReplicas < scaleUpLimit", 20, 1000, 1, 10,
         10, "TooManyReplicas", None, None, None, None),
    _swr("desired replica count is more than the maximum replica count", 100, 1000, 100, 150,
         150, "TooManyReplicas", None, None, None, None),
    _swr("scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies", 3, 1000, 1, 2000,
         4, "ScaleUpLimit", rules(0, 0, 1, 60, 0), None, None, None),
    _swr("scaleUp with default behavior", 10, 50, 1, 1000,
         20, "ScaleUpLimit", None, None, None, None),
    _swr("scaleUp with pods policy larger than percent policy", 10, 500, 1, 1000,
         110, "ScaleUpLimit", rules(100, 60, 100, 60, 0), None, None, None),
    _swr("scaleUp with percent policy larger than pods policy", 10, 500, 1, 1000,
         20, "ScaleUpLimit", rules(2, 60, 100, 60, 0), None, None, None),
    _swr("scaleUp with spec MaxReplicas limitation with large pod policy", 10, 50, 1, 1000,
         50, "DesiredWithinRange", rules(100, 60, 0, 0, 0), None, None, None),
    _swr("scaleUp with spec MaxReplicas limitation with large percent policy", 10, 50, 1, 1000,
         50, "DesiredWithinRange", rules(10000, 60, 0, 0, 0), None, None, None),
    _swr("scaleUp with pod policy limitation", 10, 50, 1, 1000,
         40, "ScaleUpLimit", rules(30, 60, 0, 0, 0), None, None, None),
    _swr("scaleUp with percent policy limitation", 10, 50, 1, 1000,
         30, "ScaleUpLimit", rules(0, 0, 200, 60, 0), None, None, None),
    _swr("scaleDown with percent policy larger than pod policy", 100, 2, 1, 1000,
         80, "ScaleDownLimit", None, rules(20, 60, 1, 60, 300), None, None),
    _swr("scaleDown with pod policy larger than percent policy", 100, 2, 1, 1000,
         98, "ScaleDownLimit", None, rules(2, 60, 1, 60, 300), None, None),
    _swr("scaleDown with spec MinReplicas limitation with large pod policy", 10, 0, 1, 1000,
         1, "TooFewReplicas", None, rules(100, 60, 0, 0, 300), None, None),
    _swr("scaleDown with spec MinReplicas limitation with large percent policy", 10, 2, 5, 1000,
         5, "TooFewReplicas", None, rules(0, 0, 100, 60, 300), None, None),
    _swr("scaleDown with pod policy limitation", 10, 2, 1, 1000,
         5, "ScaleDownLimit", None, rules(5, 60, 0, 0, 300), None, None),
    _swr("scaleDown with percent policy limitation", 10, 5, 1, 1000,
         5, "DesiredWithinRange", None, rules(0, 0, 50, 60, 300), None, None),
    _swr("scaleUp with spec MaxReplicas limitation with large pod policy and events", 100, 500, 1, 200,
         200, "TooManyReplicas", rules(300, 60, 0, 0, 0), None, ([1, 5, 9], 120), None),
    _swr("scaleUp with spec MaxReplicas limitation with large percent policy and events", 100, 500, 1, 200,
         200, "TooManyReplicas", rules(0, 0, 10000, 60, 0), None, ([1, 5, 9], 120), None),
    _swr("scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of recent scale up events", 100, 500, 1, 1000,
         100, "ScaleUpLimit", rules(5, 120, 0, 0, 0), None, ([1, 5, 9], 120), None),
    _swr("scaleUp with pod policy and previous scale up events", 100, 500, 1, 1000,
         235, "ScaleUpLimit", rules(150, 120, 0, 0, 0), None, ([1, 5, 9], 120), None),
    _swr("scaleUp with percent policy and previous scale up events", 100, 500, 1, 1000,
         255, "ScaleUpLimit", rules(0, 0, 200, 120, 0), None, ([1, 5, 9], 120), None),
    _swr("scaleUp with percent policy and previous scale up and down events", 6, 24, 1, 1000,
         16, "ScaleUpLimit", rules(0, 0, 300, 300, 0), None, ([4], 120), ([2], 120)),
    _swr("scaleDown with default policy and previous events", 10, 5, 1, 1000,
         5, "DesiredWithinRange", None, None, None, ([1, 5, 9], 120)),
    _swr("scaleDown with spec MinReplicas=nil limitation with large pod policy and previous events", 100, 0, 1, 1000,
         1, "TooFewReplicas", None, rules(115, 120, 0, 0, 300), None, ([1, 5, 9], 120)),
    _swr("scaleDown with spec MinReplicas limitation with large pod policy and previous events", 100, 0, 5, 1000,
         5, "TooFewReplicas", None, rules(130, 120, 0, 0, 300), None, ([1, 5, 9], 120)),
    _swr("scaleDown with spec MinReplicas limitation with large percent policy and previous events", 100, 2, 5, 1000,
         5, "TooFewReplicas", None, rules(0, 0, 100, 120, 300), None, ([1, 5, 9], 120)),
    _swr("scaleDown with pod policy limitation and previous events", 100, 2, 1, 1000,
         100, "ScaleDownLimit", None, rules(5, 120, 0, 0, 300), None, ([1, 5, 9], 120)),
    _swr("scaleDown with percent policy limitation and previous events", 100, 0, 1, 1000,
         56, "ScaleDownLimit", None, rules(0, 0, 50, 120, 300), None, ([2, 4, 6], 120)),
    _swr("scaleDown with percent policy and previous scale up and down events", 10, 1, 1, 1000,
         6, "ScaleDownLimit", None, rules(0, 0, 50, 180, 0), ([2], 120), ([4], 120)),
    _swr("scaleDown with previous events preventing further scale down", 100, 0, 1, 1000,
         100, "ScaleDownLimit", None, rules(0, 0, 10, 120, 300), None, ([10, 10, 10], 120)),
    _swr("scaleDown with with previous events still allowing more scale down", 10, 5, 1, 1000,
         5, "DesiredWithinRange", None, rules(0, 0, 1000, 120, 300), None, ([10, 10, 10], 120)),
    _swr("check 'outdated' flag for events for one behavior for up", 100, 200, 1, 1000,
         200, "DesiredWithinRange", rules(1000, 60, 0, 0, 0), None, ([8, 12, 9, 11], 120), None),
    _swr("check that events were not marked 'outdated' for two different policies in the behavior for up", 100, 200, 1, 1000,
         200, "DesiredWithinRange", rules(1000, 120, 100, 60, 0), None, ([8, 12, 9, 11], 120), None),
    _swr("check that events were marked 'outdated' for two different policies in the behavior for up", 100, 200, 1, 1000,
         200, "DesiredWithinRange", rules(1000, 30, 100, 60, 0), None, ([8, 12, 9, 11], 120), None),
    _swr("check 'outdated' flag for events for one behavior for down", 100, 5, 1, 1000,
         5, "DesiredWithinRange", None, rules(1000, 60, 0, 0, 300), None, ([8, 12, 9, 11], 120)),
    _swr("check that events were not marked 'outdated' for two different policies in the behavior for down", 100, 5, 1, 1000,
         5, "DesiredWithinRange", None, rules(1000, 120, 100, 60, 300), None, ([8, 12, 9, 11], 120)),
    _swr("check that events were marked 'outdated' for two different policies in the behavior for down", 100, 5, 1, 1000,
         5, "DesiredWithinRange", None, rules(1000, 30, 100, 60, 300), None, ([8, 12, 9, 11], 120)),
]


@pytest.mark.parametrize(
    ("current", "desired", "lo", "hi", "want", "reason", "up", "down", "up_events", "down_events"),
    SCALING_WITH_RULES,
)
def test_scaling_with_rules(
    current: int, desired: int, lo: int, hi: int, want: int, reason: str, up: Obj | None, down: Obj | None,
    up_events: tuple[list[int], int] | None, down_events: tuple[list[int], int] | None,
) -> None:
    """TestScalingWithRules (``convertDesiredReplicasWithBehaviorRate`` on the API's
    generated rules)."""
    stab = Stabilizer()
    hist = stab.history("")
    hist.ups = uniform(*up_events) if up_events else []
    hist.downs = uniform(*down_events) if down_events else []
    got = stab.convert_with_behavior_rate("", NOW, default_rules("scaleUp", up), default_rules("scaleDown", down),
                                          current, desired, lo, hi)
    assert got[:2] == (want, reason)


Ev = tuple[int, float, bool]  # (change, seconds ago, outdated)
STORE = [
    pytest.param(5, [], [], None, 0, id="empty entries with default behavior"),
    pytest.param(5, [], [(5, 0, False)], rules(10, 60, 100, 60, 0), 0, id="empty entries with two-policy-behavior"),
    pytest.param(5, [(7, 61, False)], [(7, 0, False)], None, 0,
                 id="one outdated entry to be kept untouched without behavior"),
    pytest.param(5, [(7, 61, False)], [(5, 0, False)], rules(10, 60, 100, 60, 0), 0,
                 id="one outdated entry to be replaced with behavior"),
    pytest.param(5, [(7, 58, False)], [(7, 0, False), (5, 0, False)], rules(10, 60, 100, 60, 0), 7,
                 id="one actual entry to be not touched with behavior"),
    pytest.param(5, [(7, 61, False), (6, 59, False)], [(5, 0, False), (6, 0, False)], rules(10, 60, 0, 0, 0), 6,
                 id="two entries, one of them to be replaced"),
    pytest.param(5, [(8, 29, False), (6, 59, False), (7, 61, False), (9, 61, False)],
                 [(8, 0, False), (6, 0, False), (7, 0, True), (5, 0, False)], rules(10, 60, 100, 30, 0), 14,
                 id="replace one entry, use policies with different periods"),
    pytest.param(5, [(7, 58, False), (6, 59, False)], [(7, 0, False), (6, 0, False), (5, 0, False)],
                 rules(10, 120, 100, 30, 0), 13, id="two entries, both actual"),
]


@pytest.mark.parametrize(("change", "prev", "new", "scaling", "in_period"), STORE)
@pytest.mark.parametrize("direction", ["scaleUp", "scaleDown"])
def test_store_scale_events(
    direction: str, change: int, prev: list[Ev], new: list[Ev], scaling: Obj | None, in_period: int
) -> None:
    """TestStoreScaleEvents: the change in the last 60 s, then the stored events (no
    behavior stores nothing)."""
    stab = Stabilizer()
    events = [ScaleEvent(c, ago(s), o) for c, s, o in prev]
    hist = stab.history("")
    if direction == "scaleUp":
        hist.ups = events
    else:
        hist.downs = events
    assert replicas_change_per_period(60, events, NOW) == in_period
    if scaling is not None:  # storeScaleEvent returns at once without a behavior
        stab.record("", NOW, change if direction == "scaleUp" else -change, {direction: scaling})
    got = [(e.change, e.outdated) for e in (hist.ups if direction == "scaleUp" else hist.downs)]
    assert got == [(c, o) for c, _, o in new]


WITH_BEHAVIOR = [
    pytest.param([], 100, 5, 5, [5], 0, 0, id="empty recommendations for scaling down"),
    pytest.param([(4, 120), (5, 60)], 100, 3, 5, [4, 5, 3], 0, 180, id="simple scale down stabilization"),
    pytest.param([(4, 120), (5, 60)], 1, 7, 4, [4, 5, 7], 300, 0, id="simple scale up stabilization"),
    pytest.param([(1, 120), (2, 60)], 100, 3, 3, [1, 2, 3], 300, 0, id="no scale down stabilization"),
    pytest.param([(4, 120), (5, 60)], 1, 3, 3, [4, 5, 3], 0, 300, id="no scale up stabilization"),
    pytest.param([(10, 600), (9, 540)], 100, 3, 3, [10, 3], 0, 0,
                 id="no scale down stabilization, reuse recommendation element"),
    pytest.param([(10, 600), (9, 540)], 1, 100, 100, [10, 100], 0, 0,
                 id="no scale up stabilization, reuse recommendation element"),
    pytest.param([(10, 600), (4, 60), (5, 120), (9, 540)], 100, 3, 5, [10, 4, 5, 3], 0, 180,
                 id="scale down stabilization, reuse one of obsolete recommendation element"),
    pytest.param([(10, 6000), (6, 60), (5, 120), (9, 180)], 1, 100, 5, [100, 6, 5, 9], 300, 0,
                 id="scale up stabilization, reuse one of obsolete recommendation element"),
    pytest.param([(2, 6000), (3, 180)], 2, 1, 2, None, 300, 300,
                 id="scale up and down stabilization, do not scale up when prenormalized rec goes down"),
    pytest.param([(2, 6000), (1, 180)], 2, 3, 2, None, 300, 300,
                 id="scale up and down stabilization, do not scale down when prenormalized rec goes up"),
]


@pytest.mark.parametrize(("recs", "current", "desired", "want", "stored", "up_window", "down_window"),
                         WITH_BEHAVIOR)
def test_normalize_desired_replicas_with_behavior(
    recs: list[tuple[int, int]], current: int, desired: int, want: int, stored: list[int] | None,
    up_window: int, down_window: int,
) -> None:
    """TestNormalizeDesiredReplicasWithBehavior (``stabilizeRecommendationWithBehaviors``)."""
    stab = Stabilizer()
    stab.history("").recs = [Recommendation(r, ago(s)) for r, s in recs]
    got, _, _ = stab.stabilize_with_behaviors("", NOW, {"stabilizationWindowSeconds": up_window},
                                              {"stabilizationWindowSeconds": down_window}, current, desired)
    assert got == want
    if stored is not None:
        assert [r.replicas for r in stab.history("").recs] == stored


def _policies(pods: int, pods_period: int, percent: int, percent_period: int) -> list[Obj] | None:
    out = []
    if pods or pods_period:
        out.append({"type": "Pods", "value": pods, "periodSeconds": pods_period})
    if percent or percent_period:
        out.append({"type": "Percent", "value": percent, "periodSeconds": percent_period})
    return out or None


def _spec_rules(policies: list[Obj] | None, window: int | None, select: str | None,
                tolerance: str | None = None) -> Obj:
    out: Obj = {}
    for k, v in (("policies", policies), ("stabilizationWindowSeconds", window), ("selectPolicy", select),
                 ("tolerance", tolerance)):
        if v is not None:
            out[k] = v
    return out


def _pol(kind: str, value: int, period: int) -> Obj:
    return {"type": kind, "value": value, "periodSeconds": period}


GENERATE_DOWN = [
    pytest.param((0, 0, 0, 0), None, None, [_pol("Percent", 100, 15)], None, "Max", id="Default values"),
    pytest.param((1, 2, 3, 4), 25, "Max", [_pol("Pods", 1, 2), _pol("Percent", 3, 4)], 25, "Max",
                 id="All parameters are specified"),
    pytest.param((0, 0, 1, 2), None, "Min", [_pol("Percent", 1, 2)], None, "Min", id="Percent policy is specified"),
    pytest.param((3, 4, 0, 0), None, None, [_pol("Pods", 3, 4)], None, "Max", id="Pods policy is specified"),
]


@pytest.mark.parametrize(("rates", "window", "select", "policies", "want_window", "want_select"), GENERATE_DOWN)
def test_generate_scale_down_rules(rates: tuple[int, int, int, int], window: int | None, select: str | None,
                                   policies: list[Obj], want_window: int | None, want_select: str) -> None:
    """TestGenerateScaleDownRules (``GenerateHPAScaleDownRules``: the window stays unset)."""
    down = default_rules("scaleDown", _spec_rules(_policies(*rates), window, select))
    assert down["policies"] == policies
    assert down.get("stabilizationWindowSeconds") == want_window
    assert down["selectPolicy"] == want_select


GENERATE_UP = [
    pytest.param((0, 0, 0, 0), None, None, None, [_pol("Pods", 4, 15), _pol("Percent", 100, 15)], 0, "Max", None,
                 id="Default values"),
    pytest.param((1, 2, 3, 4), 25, "Max", None, [_pol("Pods", 1, 2), _pol("Percent", 3, 4)], 25, "Max", None,
                 id="All parameters are specified"),
    pytest.param((1, 2, 0, 0), None, "Min", None, [_pol("Pods", 1, 2)], 0, "Min", None, id="Pod policy is specified"),
    pytest.param((0, 0, 7, 10), None, None, None, [_pol("Percent", 7, 10)], 0, "Max", None,
                 id="Percent policy is specified"),
    pytest.param((4, 2, 0, 0), 25, None, None, [_pol("Pods", 4, 2)], 25, "Max", None,
                 id="Pod policy and stabilization window are specified"),
    pytest.param((0, 0, 7, 60), 25, None, None, [_pol("Percent", 7, 60)], 25, "Max", None,
                 id="Percent policy and stabilization window are specified"),
    pytest.param((0, 0, 7, 10), None, None, "0.5", [_pol("Percent", 7, 10)], 0, "Max", "0.5",
                 id="Percent policy and tolerance is specified"),
]


@pytest.mark.parametrize(
    ("rates", "window", "select", "tolerance", "policies", "want_window", "want_select", "want_tolerance"),
    GENERATE_UP,
)
def test_generate_scale_up_rules(
    rates: tuple[int, int, int, int], window: int | None, select: str | None, tolerance: str | None,
    policies: list[Obj], want_window: int, want_select: str, want_tolerance: str | None,
) -> None:
    """TestGenerateScaleUpRules (``GenerateHPAScaleUpRules``)."""
    up = default_rules("scaleUp", _spec_rules(_policies(*rates), window, select, tolerance))
    assert up["policies"] == policies
    assert up["stabilizationWindowSeconds"] == want_window
    assert up["selectPolicy"] == want_select
    assert up.get("tolerance") == want_tolerance
