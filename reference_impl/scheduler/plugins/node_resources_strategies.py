"""NodeResourcesFit's scoring strategies: noderesources/least_allocated.go,
most_allocated.go, requested_to_capacity_ratio.go and helper/shape_score.go.

A strategy scores ``(requested, allocatable, weight)`` entries, one per configured
resource the node has (resource_allocation.go ``calculateNodeAllocatableRequest`` drops
zero-allocatable resources and extended resources the pod does not ask for).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from reference_impl.scheduler.framework.interface import MAX_NODE_SCORE

__all__ = [
    "LEAST_ALLOCATED",
    "MOST_ALLOCATED",
    "REQUESTED_TO_CAPACITY_RATIO",
    "Entry",
    "StrategyScorer",
    "broken_linear",
    "least_requested_score",
    "make_scorer",
    "most_requested_score",
]

LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO: Final = "RequestedToCapacityRatio"
_MAX_UTILIZATION: Final = 100
_MAX_CUSTOM_PRIORITY_SCORE: Final = 10  # config.MaxCustomPriorityScore: shape scores go to 10

Entry = tuple[int, int, int]  # (requested incl. the pod, allocatable > 0, weight)
StrategyScorer = Callable[[Sequence[Entry]], int]


def _go_div(a: int, b: int) -> int:
    # Go's integer division truncates toward zero; shapes may slope down.
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def least_requested_score(requested: int, capacity: int) -> int:
    """``leastRequestedScore``: the share left free, 0 when over capacity."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def most_requested_score(requested: int, capacity: int) -> int:
    """``mostRequestedScore``: the share in use, capped at capacity (non-zero defaults
    may push requests past it)."""
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """``helper.BuildBrokenLinearFunction`` over (utilization, score) points."""

    def f(p: int) -> int:
        for i, (u, s) in enumerate(shape):
            if p <= u:
                if i == 0:
                    return s
                pu, ps = shape[i - 1]
                return ps + _go_div((s - ps) * (p - pu), u - pu)
        return shape[-1][1]

    return f


def _weighted(per_resource: Callable[[int, int], int]) -> StrategyScorer:
    def score(entries: Sequence[Entry]) -> int:
        total = weight_sum = 0
        for requested, cap, weight in entries:
            total += per_resource(requested, cap) * weight
            weight_sum += weight
        return total // weight_sum if weight_sum else 0

    return score


def _requested_to_capacity_ratio(shape: Sequence[tuple[int, int]]) -> StrategyScorer:
    # requestedToCapacityRatioScorer: shape scores scale from 0-10 to 0-MaxNodeScore.
    f = broken_linear([(u, s * (MAX_NODE_SCORE // _MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape])

    def score(entries: Sequence[Entry]) -> int:
        total = weight_sum = 0
        for requested, cap, weight in entries:
            if cap == 0 or requested > cap:
                s = f(_MAX_UTILIZATION)
            else:
                s = f(requested * _MAX_UTILIZATION // cap)
            if s > 0:  # only resources scoring above zero count towards the weights
                total += s * weight
                weight_sum += weight
        if weight_sum == 0:
            return 0
        return (2 * total + weight_sum) // (2 * weight_sum)  # math.Round, both non-negative

    return score


def make_scorer(strategy: str, shape: Sequence[tuple[int, int]] = ()) -> StrategyScorer:
    """The scorer for a ``ScoringStrategy.Type`` (``getScorer``)."""
    if strategy == LEAST_ALLOCATED:
        return _weighted(least_requested_score)
    if strategy == MOST_ALLOCATED:
        return _weighted(most_requested_score)
    if strategy == REQUESTED_TO_CAPACITY_RATIO:
        if not shape:
            raise ValueError("RequestedToCapacityRatio needs a shape")
        return _requested_to_capacity_ratio(shape)
    raise ValueError(f"scoring strategy {strategy!r} is not supported")


def validate_strategy(
    strategy: str, resources: Sequence[tuple[str, int]], shape: Sequence[tuple[int, int]]
) -> list[str]:
    """``ValidateNodeResourcesFitArgs``' scoringStrategy checks, as "field: detail" lines."""
    errs: list[str] = []
    path = "scoringStrategy"
    if strategy not in (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO):
        errs.append(f"{path}.type: Unsupported value: {strategy!r}")
    for i, (name, weight) in enumerate(resources):
        if not 0 < weight <= 100:  # validateResources
            errs.append(f"{path}.resources[{i}].weight: Invalid value: {weight}: "
                        f"resource weight of {name} not in valid range (0, 100]")
    if strategy != REQUESTED_TO_CAPACITY_RATIO:
        return errs
    shape_path = f"{path}.requestedToCapacityRatio.shape"
    if not shape:
        return [*errs, f"{shape_path}: Required value: at least one point must be specified"]
    for i in range(1, len(shape)):  # validateFunctionShape
        if shape[i - 1][0] >= shape[i][0]:
            errs.append(f"{shape_path}[{i}].utilization: Invalid value: {shape[i][0]}: "
                        "values must be sorted in increasing order")
            break
    for i, (u, s) in enumerate(shape):
        if not 0 <= u <= _MAX_UTILIZATION:
            errs.append(f"{shape_path}[{i}].utilization: Invalid value: {u}: not in valid range [0, 100]")
        if not 0 <= s <= _MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(f"{shape_path}[{i}].score: Invalid value: {s}: not in valid range [0, 10]")
    return errs
