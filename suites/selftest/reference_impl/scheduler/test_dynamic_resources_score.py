"""DynamicResources Score/NormalizeScore, from upstream's ``Test_computesScore`` and
``TestNormalizeScore`` (``dynamicresources_test.go``)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import NodeScore
from reference_impl.scheduler.plugins.dynamic_resources_score import (
    DynamicResourcesScore,
    compute_score,
)

Obj = dict[str, Any]
MAX_INT32 = 2**31 - 1


def _prioritized(*requests: tuple[str, int]) -> Obj:
    """A claim with ``firstAvailable`` requests: (name, number of subrequests)."""
    reqs = [{"name": name, "firstAvailable": [
        {"name": f"subreq-{i + 1}", "deviceClassName": "class"} for i in range(n)]}
        for name, n in requests]
    return {"spec": {"devices": {"requests": reqs}}}


def _exact(name: str, allocated: bool = False) -> Obj:
    claim: Obj = {"spec": {"devices": {"requests": [{"name": name, "exactly": {"deviceClassName": "class"}}]}}}
    if allocated:
        claim["status"] = {"allocation": _alloc(name)}
    return claim


def _alloc(*requests: str) -> Obj:
    return {"devices": {"results": [{"request": r, "driver": "d", "pool": "p", "device": "x"} for r in requests]}}


CASES: dict[str, tuple[list[Obj], list[Obj], int]] = {
    "mix-of-allocated-and-unallocated-claims": (
        [_exact("req-1", allocated=True), _exact("req-2")], [_alloc("req-2")], 0),
    "single-request-only-subrequest-allocated": (
        [_prioritized(("req-1", 1))], [_alloc("req-1/subreq-1")], 8),
    "single-request-last-subrequest-allocated": (
        [_prioritized(("req-1", 8))], [_alloc("req-1/subreq-8")], 1),
    "multiple-requests-with-middle-subrequests-allocated": (
        [_prioritized(("req-1", 4), ("req-2", 5))], [_alloc("req-1/subreq-4", "req-2/subreq-5")], 9),
    "multiple-requests-with-top-subrequests-allocated": (
        [_prioritized(("req-1", 8), ("req-2", 1))], [_alloc("req-1/subreq-8", "req-2/subreq-1")], 9),
    "multiple-claims-with-last-subrequests-allocated": (
        [_prioritized(("req-1", 8)), _prioritized(("req-2", 8))],
        [_alloc("req-1/subreq-8"), _alloc("req-2/subreq-8")], 2),
    "multiple-claims-with-top-subrequests-allocated": (
        [_prioritized(("req-1", 1)), _prioritized(("req-2", 1))],
        [_alloc("req-1/subreq-1"), _alloc("req-2/subreq-1")], 16),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compute_score(name: str) -> None:
    claims, allocations, want = CASES[name]
    assert compute_score(claims, allocations) == want


def test_more_claims_than_allocations_is_an_error() -> None:
    with pytest.raises(ValueError, match="smaller than number of claims needing allocation"):
        compute_score([_prioritized(("req-1", 1)), _prioritized(("req-2", 1))], [])


NORMALIZE: dict[str, tuple[list[int], list[int]]] = {
    "empty": ([], []),
    "single-score": ([42], [100]),
    "all-same": ([8, 8], [100, 100]),
    "all-same-very-large": ([MAX_INT32, MAX_INT32], [100, 100]),
    "max-and-min-values": ([MAX_INT32, 0], [100, 0]),
    "mid-value": ([99, 98, 97], [100, 98, 97]),
    "large-spread-lost-precision": ([MAX_INT32, MAX_INT32 - 1, 1, 0], [100, 99, 0, 0]),
    # single-claim-prioritized-list-scoring (Score 8 and 7, normalized 100 and 87)
    "score-8-and-7": ([8, 7], [100, 87]),
}


class _Plugin(DynamicResourcesScore):
    def score_inputs(self, state: CycleState, node_name: str) -> tuple[list[Obj], list[Obj]] | None:
        return None


@pytest.mark.parametrize("name", sorted(NORMALIZE))
def test_normalize_score(name: str) -> None:
    raw, want = NORMALIZE[name]
    scores = [NodeScore(f"node-{i + 1}", v) for i, v in enumerate(raw)]
    assert _Plugin().normalize_score(CycleState(), {}, scores).is_success()
    assert [s.score for s in scores] == want
