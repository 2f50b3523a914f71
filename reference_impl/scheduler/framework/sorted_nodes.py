"""Models pkg/scheduler/framework/sorted_nodes.go and fwk.NodePluginScores.

A max-heap of scored nodes keyed on the total score, then the Randomizer (set upstream
only when extenders score). Upstream's heap leaves equal keys in an unspecified order;
here they pop in insertion order, so replays are exact.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

__all__ = ["NodePluginScores", "PluginScore", "SortedScoredNodes"]

PluginScore = tuple[str, int]  # (plugin name, score)


@dataclass(slots=True)
class NodePluginScores:
    """One node's raw (pre-NormalizeScore) and weighted scores and their total."""

    name: str
    raw_scores: list[PluginScore] = field(default_factory=list)
    scores: list[PluginScore] = field(default_factory=list)
    total_score: int = 0
    randomizer: int = 0


class SortedScoredNodes:
    """``NewSortedScoredNodes``: Pop gives the best remaining node."""

    __slots__ = ("_heap",)

    def __init__(self, nodes: list[NodePluginScores] | tuple[NodePluginScores, ...] = ()) -> None:
        self._heap = [(-n.total_score, -n.randomizer, i, n) for i, n in enumerate(nodes)]
        heapq.heapify(self._heap)

    def pop(self) -> NodePluginScores:
        """The best remaining node, removed."""
        return heapq.heappop(self._heap)[3]

    def __len__(self) -> int:
        return len(self._heap)

    def unordered_list(self) -> list[NodePluginScores]:
        """Every remaining node, not by score (here: in insertion order)."""
        return [e[3] for e in sorted(self._heap, key=lambda e: e[2])]
