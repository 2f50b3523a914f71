"""Stabilization windows and scaling policies, after ``horizontal.go``'s
``stabilizeRecommendationWithBehaviors`` and ``convertDesiredReplicasWithBehaviorRate``.

An HPA without ``spec.behavior`` takes upstream's older path (``normalizeDesiredReplicas``):
the controller's 300 s downscale window, then at most ``max(2 * current, 4)`` replicas.
With a behavior, unset fields take the API defaults (scale-up: 4 pods or 100% per 15 s,
no window; scale-down: 100% per 15 s with the controller's 300 s window). Both return
the AbleToScale and ScalingLimited reasons upstream sets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.clock import Instant, seconds

__all__ = [
    "DEFAULT_DOWNSCALE_STABILIZATION_S",
    "Normalized",
    "Recommendations",
    "ScaleEvent",
    "Stabilizer",
]

# --horizontal-pod-autoscaler-downscale-stabilization
DEFAULT_DOWNSCALE_STABILIZATION_S: Final = 300


@dataclass(frozen=True, slots=True)
class ScaleEvent:
    """One past scale change, for the per-period policy limits."""

    at: Instant
    change: int


@dataclass(slots=True)
class Recommendations:
    """Per-HPA history: unstabilized recommendations and past scale-up/down events."""

    recs: list[tuple[Instant, int]] = field(default_factory=list)
    ups: list[ScaleEvent] = field(default_factory=list)
    downs: list[ScaleEvent] = field(default_factory=list)


def _rules(behavior: Mapping[str, Any] | None, direction: str) -> Mapping[str, Any]:
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
            "stabilizationWindowSeconds": DEFAULT_DOWNSCALE_STABILIZATION_S,
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


def _result(replicas: int, stable: int, proposal: int, stabilized: tuple[str, str],
            limit: tuple[str, str]) -> Normalized:
    able = stabilized if stable != proposal else _READY
    return Normalized(replicas, *able, replicas != stable, *limit)


class Stabilizer:
    """Per-HPA recommendations and scale events (the controller's maps in horizontal.go)."""

    def __init__(self, downscale_window_s: int = DEFAULT_DOWNSCALE_STABILIZATION_S) -> None:
        self._hist: dict[str, Recommendations] = {}
        self._window = downscale_window_s

    def forget(self, key: str) -> None:
        """Drop the history of a deleted HPA."""
        self._hist.pop(key, None)

    def record_initial(self, key: str, now: Instant, current: int) -> None:
        """``recordInitialRecommendation``: the first sync remembers the current count."""
        hist = self._hist.setdefault(key, Recommendations())
        if not hist.recs:
            hist.recs.append((now, current))

    def normalize(
        self,
        key: str,
        now: Instant,
        behavior: Mapping[str, Any] | None,
        current: int,
        desired: int,
        lo: int,
        hi: int,
    ) -> int:
        """The replicas ``normalize_with_behaviors`` sets."""
        return self.normalize_with_behaviors(key, now, behavior, current, desired, lo, hi).replicas

    def normalize_without_behavior(
        self, key: str, now: Instant, current: int, desired: int, lo: int, hi: int
    ) -> Normalized:
        """``normalizeDesiredReplicas``: the downscale window, then ``convertDesiredReplicasWithRules``."""
        hist = self._hist.setdefault(key, Recommendations())
        cutoff = now - seconds(self._window)
        stable = max([desired, *(r for at, r in hist.recs if at >= cutoff)])
        # Replace one sample older than the window, else append (stabilizeRecommendation).
        old = next((i for i, (at, _) in enumerate(hist.recs) if at < cutoff), None)
        if old is None:
            hist.recs.append((now, desired))
        else:
            hist.recs[old] = (now, desired)
        up_limit = max(2 * current, 4)  # calculateScaleUpLimit
        top, limit = (up_limit, _UP_LIMIT) if hi > up_limit else (hi, _TOO_MANY)
        if stable < lo:
            out, limit = lo, _TOO_FEW
        elif stable > top:
            out = top
        else:
            out, limit = stable, _WITHIN
        return _result(out, stable, desired, _DOWN_STABILIZED, limit)

    def normalize_with_behaviors(
        self,
        key: str,
        now: Instant,
        behavior: Mapping[str, Any] | None,
        current: int,
        desired: int,
        lo: int,
        hi: int,
    ) -> Normalized:
        """``normalizeDesiredReplicasWithBehaviors``: stabilize, then rate-limit and clamp."""
        up, down = _rules(behavior, "scaleUp"), _rules(behavior, "scaleDown")
        hist = self._hist.setdefault(key, Recommendations())
        stable = self._stabilize(hist, now, up, down, current, desired)
        stabilized = _UP_STABILIZED if desired >= current else _DOWN_STABILIZED
        limit = _WITHIN
        out = stable
        if stable > current:
            cap = max(_limit(up, current, hist, now, scale_up=True), current)
            top, why = (cap, _UP_LIMIT) if hi > cap else (hi, _TOO_MANY)
            if stable > top:
                out, limit = top, why
        elif stable < current:
            floor = min(_limit(down, current, hist, now, scale_up=False), current)
            bottom, why = (floor, _DOWN_LIMIT) if lo < floor else (lo, _TOO_FEW)
            if stable < bottom:
                out, limit = bottom, why
        return _result(out, stable, desired, stabilized, limit)

    def record(self, key: str, now: Instant, change: int) -> None:
        """``storeScaleEvent``: remember a written scale change, for the policy periods."""
        hist = self._hist.setdefault(key, Recommendations())
        if change > 0:
            hist.ups.append(ScaleEvent(now, change))
        elif change < 0:
            hist.downs.append(ScaleEvent(now, -change))

    @staticmethod
    def _stabilize(
        hist: Recommendations,
        now: Instant,
        up: Mapping[str, Any],
        down: Mapping[str, Any],
        current: int,
        desired: int,
    ) -> int:
        up_cut = now - seconds(int(up["stabilizationWindowSeconds"]))
        down_cut = now - seconds(int(down["stabilizationWindowSeconds"]))
        up_rec = down_rec = desired
        for at, rec in hist.recs:
            if at > up_cut:
                up_rec = min(up_rec, rec)
            if at > down_cut:
                down_rec = max(down_rec, rec)
        keep = min(up_cut, down_cut)
        hist.recs = [(at, r) for at, r in hist.recs if at >= keep] + [(now, desired)]
        return min(max(current, up_rec), down_rec)


def _limit(
    rules: Mapping[str, Any], current: int, hist: Recommendations, now: Instant, *, scale_up: bool
) -> int:
    """``calculateScaleUpLimitWithScalingRules`` / ``calculateScaleDownLimitWithBehaviors``."""
    select = rules.get("selectPolicy", "Max")
    if select == "Disabled":
        return current
    limits = []
    for p in rules.get("policies") or []:
        cut = now - seconds(int(p["periodSeconds"]))
        added = sum(e.change for e in hist.ups if e.at > cut)
        removed = sum(e.change for e in hist.downs if e.at > cut)
        start = current - added + removed
        value = int(p["value"])
        if p["type"] == "Pods":
            limits.append(start + value if scale_up else start - value)
        elif scale_up:  # rounded up, or a small count might never grow
            limits.append(math.ceil(start * (1 + value / 100)))
        else:  # int32(float64): truncated
            limits.append(int(start * (1 - value / 100)))
    if not limits:
        return current
    # "Max" picks the policy allowing the biggest change: highest up, lowest down.
    pick_max = (select == "Max") == scale_up
    return max(limits) if pick_max else min(limits)
