"""Models DynamicResources' Score and NormalizeScore (dynamicresources.go, ``computeScore``;
DRAPrioritizedList, GA and locked on in 1.37).

For every ``firstAvailable`` request of the pod's claims, a node whose allocation picked
subrequest ``i`` scores ``8 - i`` (8 = FirstAvailableDeviceRequestMaxSize), so nodes that
can give the more preferred alternative win; scores are scaled so the best is 100.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import MAX_NODE_SCORE, NodeScore, Status
from reference_impl.scheduler.plugins.helper import default_normalize_score

__all__ = ["FIRST_AVAILABLE_MAX", "NORMALIZER", "Normalizer", "compute_score", "prioritized"]

Obj = dict[str, Any]
FIRST_AVAILABLE_MAX: Final = 8


def _requests(claim: Obj) -> list[Obj]:
    reqs: list[Obj] = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []
    return reqs


def prioritized(claims: Sequence[Obj]) -> bool:
    """Whether any claim has a ``firstAvailable`` request (else every node scores 0)."""
    return any(r.get("firstAvailable") for c in claims for r in _requests(c))


def _claim_score(claim: Obj, allocation: Obj) -> int:
    picked = {
        str(r.get("request") or "")
        for r in (allocation.get("devices") or {}).get("results") or ()
        if "/" in str(r.get("request") or "")
    }
    score = 0
    for req in _requests(claim):
        for i, sub in enumerate(req.get("firstAvailable") or ()):
            if f"{req.get('name')}/{sub.get('name')}" in picked:
                score += FIRST_AVAILABLE_MAX - i
    return score


def compute_score(allocated: Sequence[Obj], pending: Sequence[Obj], allocations: Sequence[Obj]) -> int:
    """``computeScore``: allocated claims count their ``status.allocation``; the pending
    ones this node's allocation results (in the same order), as Filter found them."""
    score = sum(_claim_score(c, (c.get("status") or {}).get("allocation") or {}) for c in allocated)
    return score + sum(_claim_score(c, a) for c, a in zip(pending, allocations, strict=False))


class Normalizer:
    """``DefaultNormalizeScore(MaxNodeScore, reverse=false)``."""

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """Rewrite ``scores`` in place."""
        return default_normalize_score(MAX_NODE_SCORE, False, scores)


NORMALIZER: Final = Normalizer()
