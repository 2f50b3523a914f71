"""Score and NormalizeScore of the DynamicResources plugin (``computeScore`` in
``dynamicresources.go``, KEP-4816 prioritized lists).

A node scores, for every ``firstAvailable`` request of the pod's claims, 8 minus the
index of the subrequest its allocation used (``FirstAvailableDeviceRequestMaxSize - i``),
so a node where each claim gets its first choice ranks highest. Claims already allocated
count their stored allocation; the others take, in order, the allocations Filter found
for the node. Scores are then scaled so that the best node gets 100
(``DefaultNormalizeScore``); the profile weighs the plugin 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    OK,
    Code,
    NodeScore,
    ScoreExtensions,
    Status,
)
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins.helper import default_normalize_score

__all__ = ["FIRST_AVAILABLE_MAX_SIZE", "DynamicResourcesScore", "compute_score"]

Obj = dict[str, Any]
FIRST_AVAILABLE_MAX_SIZE: Final = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize


def compute_score(claims: Sequence[Obj], allocations: Sequence[Obj]) -> int:
    """``computeScore``; ValueError when fewer allocations than unallocated claims."""
    score = 0
    unallocated = 0
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation")
        if allocation is None:
            if unallocated >= len(allocations):
                raise ValueError(
                    f"number of allocations {len(allocations)} is smaller than number of "
                    "claims needing allocation"
                )
            allocation = allocations[unallocated]
            unallocated += 1
        used = {
            str(r.get("request", ""))
            for r in (allocation.get("devices") or {}).get("results") or ()
            if "/" in str(r.get("request", ""))  # IsSubRequestRef
        }
        for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
            if "exactly" in req:
                continue
            for i, sub in enumerate(req.get("firstAvailable") or ()):
                if f"{req.get('name')}/{sub.get('name')}" in used:
                    score += FIRST_AVAILABLE_MAX_SIZE - i
    return score


class DynamicResourcesScore:
    """The Score extension point, mixed into DynamicResources."""

    def score_inputs(self, state: CycleState, node_name: str) -> tuple[list[Obj], list[Obj]] | None:
        """(the pod's claims, the allocations Filter found on ``node_name``); None: no
        claims, or no allocation recorded for the node."""
        raise NotImplementedError

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """``computeScore`` for the node (0 without claims or a recorded allocation)."""
        inputs = self.score_inputs(state, node_info.name)
        if inputs is None:
            return 0, OK
        try:
            return compute_score(*inputs), OK
        except ValueError as e:
            return 0, Status(Code.ERROR, (str(e),))

    def score_extensions(self) -> ScoreExtensions | None:
        """This plugin normalises its own scores."""
        return self

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """``DefaultNormalizeScore(MaxNodeScore, false, scores)``."""
        return default_normalize_score(MAX_NODE_SCORE, False, scores)
