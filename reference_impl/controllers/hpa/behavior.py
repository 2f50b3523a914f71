"""Stabilization windows and scaling policies, after ``horizontal.go``'s
``stabilizeRecommendation``, ``normalizeDesiredReplicas``, ``convertDesiredReplicasWithRules``,
``stabilizeRecommendationWithBehaviors``, ``convertDesiredReplicasWithBehaviorRate``,
``storeScaleEvent`` and ``calculateScale{Up,Down}Limit*``.

An HPA without ``spec.behavior`` takes upstream's older path (``normalizeDesiredReplicas``):
the controller's 300 s downscale window, then at most ``max(2 * current, 4)`` replicas.
With a behavior, unset fields take the API defaults (scale-up: 4 pods or 100% per 15 s,
no window; scale-down: 100% per 15 s with the controller's 300 s window). Both return
the AbleToScale and ScalingLimited reasons upstream sets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.clock import Instant, seconds

__all__ = [
    "DEFAULT_DOWNSCALE_STABILIZATION_S",
    "SCALE_UP_LIMIT_FACTOR",
    "SCALE_UP_LIMIT_MINIMUM",
    "Normalized",
    "Recommendation",
    "Recommendations",
    "ScaleEvent",
    "Stabilizer",
    "calculate_scale_down_limit_with_behaviors",
    "calculate_scale_up_limit",
    "calculate_scale_up_limit_with_scaling_rules",
    "convert_desired_replicas_with_rules",
    "replicas_change_per_period",
]

# --horizontal-pod-autoscaler-downscale-stabilization
DEFAULT_DOWNSCALE_STABILIZATION_S: Final = 300


@dataclass(slots=True)
class ScaleEvent:
    """``timestampedScaleEvent``: one past scale change, for the per-period policy limits."""

    change: int
    at: Instant
    outdated: bool = False


@dataclass(slots=True)
class Recommendation:
    """``timestampedRecommendation``."""

    replicas: int
    at: Instant


@dataclass(slots=True)
class Recommendations:
    """Per-HPA history: unstabilized recommendations and past scale-up/down events."""

    recs: list[Recommendation] = field(default_factory=list)
    ups: list[ScaleEvent] = field(default_factory=list)
    downs: list[ScaleEvent] = field(default_factory=list)
    # Whether the controller's map has an entry (a non-nil slice, possibly empty).
    seeded: bool = False


def _rules(behavior: Mapping[str, Any] | None, direction: str, down_window: int) -> Mapping[str, Any]:
    """The API defaults (``GenerateHPAScale{Up,Down}Rules``), then the controller's
    downscale window where the spec leaves it unset (``maybeInitScaleDownStabilizationWindow``)."""
    from_spec = (behavior or {}).get(direction) or {}
    if direction == "scaleUp":
        base: dict[str, Any] = {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        }
    else:
        base = {
            "stabilizationWindowSeconds": down_window,
            "selectPolicy": "Max",
            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
        }
    return {**base, **{k: v for k, v in from_spec.items() if v is not None}}


@dataclass(frozen=True, slots=True)
class Normalized:
    """A normalized replica count and the AbleToScale / ScalingLimited conditions it sets."""

    replicas: int
    able_reason: str
    able_message: str
    limited: bool
    limited_reason: str
    limited_message: str


_READY: Final = ("ReadyForNewScale", "recommended size matches current size")
_DOWN_STABILIZED: Final = (
    "ScaleDownStabilized",
    "recent recommendations were higher than current one, applying the highest recent recommendation",
)
_UP_STABILIZED: Final = (
    "ScaleUpStabilized",
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
)
_WITHIN: Final = ("DesiredWithinRange", "the desired count is within the acceptable range")
_UP_LIMIT: Final = ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")
_DOWN_LIMIT: Final = ("ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate")
_TOO_MANY: Final = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
_TOO_FEW: Final = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")


# scaleUpLimitFactor / scaleUpLimitMinimum (package variables; upstream's tests raise the factor)
SCALE_UP_LIMIT_FACTOR: Final = 2.0
SCALE_UP_LIMIT_MINIMUM: Final = 4.0


def calculate_scale_up_limit(current: int, factor: float = SCALE_UP_LIMIT_FACTOR) -> int:
    """``calculateScaleUpLimit``: ``max(factor * current, 4)``."""
    return int(max(factor * current, SCALE_UP_LIMIT_MINIMUM))


def convert_desired_replicas_with_rules(
    current: int, desired: int, lo: int, hi: int, factor: float = SCALE_UP_LIMIT_FACTOR
) -> tuple[int, str, str]:
    """``convertDesiredReplicasWithRules``: (replicas, ScalingLimited reason, message)."""
    up_limit = calculate_scale_up_limit(current, factor)
    top, limit = (up_limit, _UP_LIMIT) if hi > up_limit else (hi, _TOO_MANY)
    if desired < lo:
        return (lo, *_TOO_FEW)
    if desired > top:
        return (top, *limit)
    return (desired, *_WITHIN)


def replicas_change_per_period(period_s: int, events: Sequence[ScaleEvent], now: Instant) -> int:
    """``getReplicasChangePerPeriod``: the changes newer than ``period_s``."""
    cut = now - seconds(period_s)
    return sum(e.change for e in events if e.at > cut)


def _policy_limits(
    current: int, ups: Sequence[ScaleEvent], downs: Sequence[ScaleEvent], rules: Mapping[str, Any],
    now: Instant, scale_up: bool,
) -> list[int]:
    out = []
    for p in rules.get("policies") or []:
        period = int(p["periodSeconds"])
        start = current - replicas_change_per_period(period, ups, now) + replicas_change_per_period(period, downs, now)
        value = int(p["value"])
        if p["type"] == "Pods":
            out.append(start + value if scale_up else start - value)
        elif scale_up:  # rounded up, or a small count might never grow
            out.append(math.ceil(start * (1 + value / 100)))
        else:  # int32(float64): truncated
            out.append(int(start * (1 - value / 100)))
    return out


def calculate_scale_up_limit_with_scaling_rules(
    current: int, ups: Sequence[ScaleEvent], downs: Sequence[ScaleEvent], rules: Mapping[str, Any], now: Instant
) -> int:
    """``calculateScaleUpLimitWithScalingRules``: Max picks the highest proposal, Min the lowest."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    limits = _policy_limits(current, ups, downs, rules, now, scale_up=True)
    if not limits:
        return 2**31 - 1 if select == "Min" else -(2**31)
    return min(limits) if select == "Min" else max(limits)


def calculate_scale_down_limit_with_behaviors(
    current: int, ups: Sequence[ScaleEvent], downs: Sequence[ScaleEvent], rules: Mapping[str, Any], now: Instant
) -> int:
    """``calculateScaleDownLimitWithBehaviors``: Max picks the lowest proposal, Min the highest."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    limits = _policy_limits(current, ups, downs, rules, now, scale_up=False)
    if not limits:
        return -(2**31) if select == "Min" else 2**31 - 1
    return max(limits) if select == "Min" else min(limits)


def _longest_period(rules: Mapping[str, Any]) -> int:
    """``getLongestPolicyPeriod``."""
    return max([0, *(int(p["periodSeconds"]) for p in rules.get("policies") or [])])


class Stabilizer:
    """Per-HPA recommendations and scale events (the controller's maps in horizontal.go)."""

    def __init__(
        self, downscale_window_s: int = DEFAULT_DOWNSCALE_STABILIZATION_S,
        scale_up_limit_factor: float = SCALE_UP_LIMIT_FACTOR,
    ) -> None:
        self._hist: dict[str, Recommendations] = {}
        self._window = downscale_window_s
        self._factor = scale_up_limit_factor

    def history(self, key: str) -> Recommendations:
        """The HPA's history (created empty)."""
        return self._hist.setdefault(key, Recommendations())

    def forget(self, key: str) -> None:
        """Drop the history of a deleted HPA."""
        self._hist.pop(key, None)

    def record_initial(self, key: str, now: Instant, current: int) -> None:
        """``recordInitialRecommendation``: the first sync remembers the current count."""
        hist = self.history(key)
        if not hist.seeded:
            hist.seeded = True
            hist.recs.append(Recommendation(current, now))

    def normalize(
        self, key: str, now: Instant, behavior: Mapping[str, Any] | None,
        current: int, desired: int, lo: int, hi: int,
    ) -> int:
        """The replicas ``normalize_with_behaviors`` sets."""
        return self.normalize_with_behaviors(key, now, behavior, current, desired, lo, hi).replicas

    def stabilize_recommendation(self, key: str, now: Instant, desired: int) -> int:
        """``stabilizeRecommendation``: the highest recommendation within the downscale
        window; the new one replaces the last sample older than the window, or is appended."""
        hist = self.history(key)
        cutoff = now - seconds(self._window)
        best, old = desired, None
        for i, rec in enumerate(hist.recs):
            if rec.at < cutoff:
                old = i
            elif rec.replicas > best:
                best = rec.replicas
        if old is None:
            hist.recs.append(Recommendation(desired, now))
        else:
            hist.recs[old] = Recommendation(desired, now)
        return best

    def normalize_without_behavior(
        self, key: str, now: Instant, current: int, desired: int, lo: int, hi: int
    ) -> Normalized:
        """``normalizeDesiredReplicas``: the downscale window, then ``convertDesiredReplicasWithRules``."""
        stable = self.stabilize_recommendation(key, now, desired)
        able = _DOWN_STABILIZED if stable != desired else _READY
        out, *limit = convert_desired_replicas_with_rules(current, stable, lo, hi, self._factor)
        return Normalized(out, *able, out != stable, limit[0], limit[1])

    def stabilize_with_behaviors(
        self, key: str, now: Instant, up: Mapping[str, Any], down: Mapping[str, Any], current: int, desired: int
    ) -> tuple[int, str, str]:
        """``stabilizeRecommendationWithBehaviors``: clamp ``current`` between the lowest
        recommendation of the scale-up window and the highest of the scale-down window."""
        hist = self.history(key)
        up_cut = now - seconds(int(up.get("stabilizationWindowSeconds") or 0))
        down_cut = now - seconds(int(down.get("stabilizationWindowSeconds") or 0))
        up_rec = down_rec = desired
        old = None
        for i, rec in enumerate(hist.recs):
            if rec.at > up_cut:
                up_rec = min(up_rec, rec.replicas)
            if rec.at > down_cut:
                down_rec = max(down_rec, rec.replicas)
            if rec.at < up_cut and rec.at < down_cut:
                old = i
        stable = min(max(current, up_rec), down_rec)
        if old is None:
            hist.recs.append(Recommendation(desired, now))
        else:
            hist.recs[old] = Recommendation(desired, now)
        return (stable, *(_UP_STABILIZED if desired >= current else _DOWN_STABILIZED))

    def convert_with_behavior_rate(
        self, key: str, now: Instant, up: Mapping[str, Any], down: Mapping[str, Any],
        current: int, desired: int, lo: int, hi: int,
    ) -> tuple[int, str, str]:
        """``convertDesiredReplicasWithBehaviorRate``: the policies' limits, then the bounds."""
        hist = self.history(key)
        if desired > current:
            cap = max(calculate_scale_up_limit_with_scaling_rules(current, hist.ups, hist.downs, up, now), current)
            top, why = (cap, _UP_LIMIT) if hi > cap else (hi, _TOO_MANY)
            if desired > top:
                return (top, *why)
        elif desired < current:
            floor = min(calculate_scale_down_limit_with_behaviors(current, hist.ups, hist.downs, down, now), current)
            bottom, why = (floor, _DOWN_LIMIT) if lo < floor else (lo, _TOO_FEW)
            if desired < bottom:
                return (bottom, *why)
        return (desired, *_WITHIN)

    def normalize_with_behaviors(
        self, key: str, now: Instant, behavior: Mapping[str, Any] | None,
        current: int, desired: int, lo: int, hi: int,
    ) -> Normalized:
        """``normalizeDesiredReplicasWithBehaviors``: stabilize, then rate-limit and clamp."""
        up, down = _rules(behavior, "scaleUp", self._window), _rules(behavior, "scaleDown", self._window)
        stable, *stabilized = self.stabilize_with_behaviors(key, now, up, down, current, desired)
        able = (stabilized[0], stabilized[1]) if stable != desired else _READY
        out, *limit = self.convert_with_behavior_rate(key, now, up, down, current, stable, lo, hi)
        return Normalized(out, *able, out != stable, limit[0], limit[1])

    def record(self, key: str, now: Instant, change: int, behavior: Mapping[str, Any] | None = None) -> None:
        """``storeScaleEvent``: remember a written scale change for the policy periods,
        reusing the last event older than the direction's longest policy period."""
        hist = self.history(key)
        rules = _rules(behavior, "scaleUp" if change > 0 else "scaleDown", self._window)
        events = hist.ups if change > 0 else hist.downs
        cut = now - seconds(_longest_period(rules))
        old = None
        for i, e in enumerate(events):
            if e.at < cut:
                e.outdated = True  # markScaleEventsOutdated
            if e.outdated:
                old = i
        event = ScaleEvent(abs(change), now)
        if old is None:
            events.append(event)
        else:
            events[old] = event
