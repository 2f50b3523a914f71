"""Optional whole-chunk fast paths for Filter and Score (no upstream counterpart).

Upstream runs Filter and Score once per node in parallel goroutines; in Python a call per
node dominates the cycle. A plugin may also implement these to answer for many nodes in
one comprehension. They are pure accelerations: the framework still calls the per-node
``filter`` for every node a batch cannot vouch for, so statuses and diagnosis are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence, Set
from typing import Any, Protocol, runtime_checkable

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Status
from reference_impl.scheduler.framework.types import NodeInfo

__all__ = ["BatchFilterPlugin", "BatchScorePlugin", "FilterRejections", "NodeScorer", "ScoreOutOfRange"]

Obj = dict[str, Any]


@runtime_checkable
class BatchFilterPlugin(Protocol):
    """A Filter plugin that can vouch for many nodes at once."""

    def filter_suspects(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> set[int] | None:
        """Indices of ``nodes`` whose ``filter`` might not return OK; None: no fast path.

        Every index *not* returned MUST be a node on which ``filter`` returns OK.
        """
        ...


@runtime_checkable
class FilterRejections(Protocol):
    """A batch Filter plugin that also knows, from its ``filter_suspects`` calls this
    cycle, nodes its ``filter`` certainly rejects, so the framework records them unvisited."""

    def filter_rejections(self, state: CycleState) -> tuple[Set[str], Status] | None:
        """Names of nodes on which ``filter`` certainly returns the status (already
        attributed to this plugin); None: none known."""
        ...


@runtime_checkable
class BatchScorePlugin(Protocol):
    """A Score plugin that can score many nodes at once.

    A plugin whose ``checks_score_range`` attribute is True checks each score against
    [0, MAX_NODE_SCORE] when it computes it (scores are memoised, so most are not new) and
    raises ``ScoreOutOfRange`` from ``score_nodes``; the framework then skips its own scan
    of every score, with the same error either way.
    """

    def score_nodes(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> list[int] | None:
        """Exactly ``[score(state, pod, ni)[0] for ni in nodes]`` (all OK); None: no fast path."""
        ...


@runtime_checkable
class NodeScorer(Protocol):
    """A Score plugin whose score of a node depends on that NodeInfo alone, given a key
    it names for the pod's inputs, so the framework may keep weighted totals by node."""

    def node_scorer(
        self, state: CycleState, pod: Obj
    ) -> tuple[Hashable, Callable[[NodeInfo], int]] | None:
        """(the key, a function giving ``score(state, pod, ni)[0]`` that raises
        ``ScoreOutOfRange`` outside [0, MAX_NODE_SCORE]); None: not for this pod."""
        ...


class ScoreOutOfRange(Exception):  # noqa: N818 - named after the condition, as upstream's message
    """A computed score outside [0, MAX_NODE_SCORE]."""

    def __init__(self, score: int) -> None:
        super().__init__(score)
        self.score = score
