"""Models NodeResourcesFit's PlacementScore (noderesources/fit.go ``ScorePlacement`` and
resource_allocation.go ``scorePlacement``), on with TopologyAwareWorkloadScheduling.

A placement scores MostAllocated over all its nodes together: the group's proposed pods
(non-zero requests) plus what the nodes already hold, against their summed allocatable.
So of two feasible placements the one the group packs fuller wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference_impl.scheduler.framework.interface import MAX_NODE_SCORE
from reference_impl.scheduler.framework.placement import PodGroupAssignments
from reference_impl.scheduler.framework.types import NodeInfo, is_scalar_resource_name

__all__ = ["most_allocated_placement_score"]


def _node_used(ni: NodeInfo, name: str) -> int:
    # cpu and memory count non-zero requests; every other resource the plain requests.
    if name in ("cpu", "memory"):
        return ni.non_zero_requested.amount(name)
    return ni.requested.amount(name)


def _most_requested(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def most_allocated_placement_score(
    resources: Sequence[tuple[str, int]], assignments: PodGroupAssignments
) -> int:
    """The weighted MostAllocated score of the placement with its proposed pods on it."""
    pods = [info.non_zero for info, _ in assignments.proposed]
    total = weight_sum = 0
    for name, weight in resources:
        requested = sum(p.amount(name) for p in pods)
        if requested == 0 and is_scalar_resource_name(name):
            continue  # an extended resource the group does not ask for
        allocatable = 0
        for ni in assignments.placement.nodes:
            cap = ni.allocatable.amount(name)
            if cap == 0:
                continue
            allocatable += cap
            requested += _node_used(ni, name)
        if allocatable == 0:
            continue
        total += _most_requested(requested, allocatable) * weight
        weight_sum += weight
    return total // weight_sum if weight_sum else 0
