"""Models pkg/scheduler/framework/plugins/podtopologyspread/scoring.go.

Per ScheduleAnyway constraint, each feasible node's domain is weighted by
``log(domains + 2)``; a node scores ``count * weight + maxSkew - 1`` summed over the
constraints and rounded, and NormalizeScore reverses that so the emptiest domain wins.
With the system default constraints, nodes missing a topology label are not ignored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Self

from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    OK,
    SKIP,
    NodeScore,
    Status,
)
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.pod_topology_spread_common import (
    HOSTNAME,
    Constraint,
    NodeFilter,
    count_matching,
    node_has_all_keys,
)

if TYPE_CHECKING:
    from reference_impl.scheduler.plugins.pod_topology_spread import PodTopologySpread

__all__ = ["NORMALIZER", "Normalizer", "pre_score", "score"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class _State:
    constraints: tuple[Constraint, ...]
    ignored: frozenset[str]
    counts: tuple[dict[str, int], ...]  # per constraint (non-hostname): domain -> pods
    weights: tuple[float, ...]

    def clone(self) -> Self:
        return self


_PRE_SCORE: Final = StateKey[_State]("PreScore" + names.POD_TOPOLOGY_SPREAD)


def pre_score(pl: PodTopologySpread, state: CycleState, pod: Obj, feasible: Sequence[NodeInfo]) -> Status:
    """``PreScore``: the domains of the feasible nodes and their matching-pod counts."""
    all_nodes = pl._h.snapshot_shared_lister().node_infos()  # noqa: SLF001 - own handle
    if not all_nodes:
        return SKIP
    constraints = pl.constraints(pod, "ScheduleAnyway")
    if not constraints:
        return SKIP
    require_all = bool(pod["spec"].get("topologySpreadConstraints")) or not pl.system_defaulted
    ignored: set[str] = set()
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for ni in feasible:
        if require_all and not node_has_all_keys(ni.labels, constraints):
            ignored.add(ni.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != HOSTNAME:
                counts[i].setdefault(ni.labels.get(c.topology_key, ""), 0)
    weights = tuple(
        math.log((len(feasible) - len(ignored) if c.topology_key == HOSTNAME else len(counts[i])) + 2)
        for i, c in enumerate(constraints)
    )
    ns = pod["metadata"].get("namespace") or "default"
    nf = NodeFilter(pod)
    for ni in all_nodes:
        if require_all and not node_has_all_keys(ni.labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if c.topology_key == HOSTNAME or not nf.includes(c, ni):
                continue
            value = ni.labels.get(c.topology_key, "")
            if value in counts[i]:
                counts[i][value] += count_matching(ni.pods.values(), c.selector, ns)
    state.write(_PRE_SCORE, _State(tuple(constraints), frozenset(ignored), tuple(counts), weights))
    return OK


def score(state: CycleState, pod: Obj, node_info: NodeInfo) -> int:
    """``Score``: sum of ``count * weight + maxSkew - 1`` over the node's domains, rounded."""
    s = state.read(_PRE_SCORE)
    if node_info.name in s.ignored:
        return 0
    ns = pod["metadata"].get("namespace") or "default"
    total = 0.0
    for i, c in enumerate(s.constraints):
        value = node_info.labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME:
            cnt = count_matching(node_info.pods.values(), c.selector, ns)
        else:
            cnt = s.counts[i][value]
        total += cnt * s.weights[i] + (c.max_skew - 1)
    return _round(total)


def _round(x: float) -> int:
    """Go's ``math.Round``: half away from zero (Python's round() is half-to-even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


class Normalizer:
    """``NormalizeScore``: ``100 * (max + min - score) / max``; ignored nodes score 0."""

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """Rewrite ``scores`` in place."""
        s = state.read(_PRE_SCORE)
        lo, hi = None, 0
        for ns in scores:
            if ns.name in s.ignored:
                continue
            lo = ns.score if lo is None or ns.score < lo else lo
            hi = max(hi, ns.score)
        for ns in scores:
            if ns.name in s.ignored:
                ns.score = 0
            elif hi == 0:
                ns.score = MAX_NODE_SCORE
            else:
                ns.score = MAX_NODE_SCORE * (hi + (lo or 0) - ns.score) // hi
        return OK


NORMALIZER: Final = Normalizer()
