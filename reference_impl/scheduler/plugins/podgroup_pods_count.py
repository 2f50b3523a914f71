"""Models pkg/scheduler/framework/plugins/podgrouppodscount/podgroup_pods_count.go.

PlacementScore: a placement scores the group's scheduled members plus the pods it would
place, normalised against the best candidate, so the placement that fits most wins.
"""

from __future__ import annotations

from typing import Final, final

from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    OK,
    Code,
    Plugin,
    Status,
)
from reference_impl.scheduler.framework.placement import (
    PlacementScorePlugin,
    PodGroupAssignments,
    PodGroupInfo,
)
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "PodGroupPodsCount", "new"]

NAME: Final = names.POD_GROUP_PODS_COUNT


@final
class PodGroupPodsCount:
    """Favours placements that hold more of the group's pods."""

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def score_placement(self, group: PodGroupInfo, assignments: PodGroupAssignments) -> tuple[int, Status]:
        """Scheduled members plus proposed assignments."""
        if group.walk_error:  # getScheduledPodsCount failed
            return 0, Status(Code.ERROR, (group.walk_error,))
        return len(group.scheduled_nodes) + len(assignments.proposed), OK

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        """Scaled against the largest count (minCount is deliberately not used)."""
        top = max(scores, default=0)
        if top == 0:
            return Status(Code.ERROR, (
                "no pods from pod group are assigned to any of the candidate placements",))
        for i, score in enumerate(scores):
            scores[i] = MIN_NODE_SCORE + score * (MAX_NODE_SCORE - MIN_NODE_SCORE) // top
        return OK


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; the plugin takes no args."""
    return PodGroupPodsCount()


_: type[PlacementScorePlugin] = PodGroupPodsCount
