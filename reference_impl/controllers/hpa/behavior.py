"""Stabilization windows and scaling policies, after ``horizontal.go``'s
``stabilizeRecommendationWithBehaviors`` and ``convertDesiredReplicasWithBehaviorRate``.

A missing ``spec.behavior`` is treated as the defaulted one (scale-up: 4 pods or 100% per
15 s, no window; scale-down: 100% per 15 s with the controller's 300 s window), which is
what upstream's behavior-less path amounts to.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.clock import Instant, seconds

__all__ = ["DEFAULT_DOWNSCALE_STABILIZATION_S", "Recommendations", "ScaleEvent", "Stabilizer"]

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


class Stabilizer:
    """Applies an HPA's behavior to a raw recommendation."""

    def __init__(self) -> None:
        self._hist: dict[str, Recommendations] = {}
        self.last_reason = ""

    def forget(self, key: str) -> None:
        """Drop the history of a deleted HPA."""
        self._hist.pop(key, None)

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
        """The replicas to set: stabilized, rate-limited, then clamped to [lo, hi]."""
        up, down = _rules(behavior, "scaleUp"), _rules(behavior, "scaleDown")
        hist = self._hist.setdefault(key, Recommendations())
        stable = self._stabilize(hist, now, up, down, current, desired)
        self.last_reason = "ScaleDownStabilized" if stable != desired else "ValidMetricFound"
        if stable > current:
            limit = _limit(up, current, hist, now, scale_up=True)
            out = min(stable, limit, hi)
            if out < stable:
                self.last_reason = "ScaleUpLimit" if out == limit else "TooManyReplicas"
        elif stable < current:
            limit = _limit(down, current, hist, now, scale_up=False)
            out = max(stable, limit, lo)
            if out > stable:
                self.last_reason = "ScaleDownLimit" if out == limit else "TooFewReplicas"
        else:
            out = min(max(stable, lo), hi)
        return out

    def record(self, key: str, now: Instant, change: int) -> None:
        """Remember a scale change that was written, for the policy periods."""
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
        hist.recs = [(at, r) for at, r in hist.recs if at > keep] + [(now, desired)]
        return min(max(current, up_rec), down_rec)


def _limit(
    rules: Mapping[str, Any], current: int, hist: Recommendations, now: Instant, *, scale_up: bool
) -> int:
    """``calculateScaleUpLimitWithScalingRules`` / ``...ScaleDownLimit...``."""
    select = rules.get("selectPolicy", "Max")
    if select == "Disabled":
        return current
    limits = []
    for p in rules.get("policies") or []:
        cut = now - seconds(int(p["periodSeconds"]))
        added = sum(e.change for e in hist.ups if e.at > cut)
        removed = sum(e.change for e in hist.downs if e.at > cut)
        start = current - added + removed if scale_up else current + removed - added
        value = int(p["value"])
        if p["type"] == "Pods":
            limits.append(start + value if scale_up else start - value)
        elif scale_up:
            limits.append(math.ceil(start * (1 + value / 100)))
        else:
            limits.append(math.ceil(start * (1 - value / 100)))
    if not limits:
        return current
    # "Max" picks the policy allowing the biggest change: highest up, lowest down.
    pick_max = (select == "Max") == scale_up
    return max(limits) if pick_max else min(limits)
