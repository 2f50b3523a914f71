"""Per-node plugin results memoised by NodeInfo generation.

Generations are global (upstream's ``nextGeneration``), so a generation names one node's
state: a result computed from that state alone stays right until the node changes. Between
two cycles of same-sized pods only the node that took the last pod changes, so a Filter or
Score pass over hundreds of nodes becomes two C-level maps and a lookup per changed node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Final, TypeVar

from reference_impl.scheduler.framework.types import NodeInfo

__all__ = ["MEMO_LIMIT", "memoised"]

T = TypeVar("T")

MEMO_LIMIT: Final = 200_000  # generations remembered; the memo restarts beyond
_GENERATION: Final = attrgetter("generation")


def memoised(
    memo: dict[int, T], nodes: Sequence[NodeInfo], compute: Callable[[NodeInfo], T]
) -> list[T]:
    """``compute(node)`` for each of ``nodes``, in order, from ``memo`` where it has the
    node's current generation. ``compute`` must never return None."""
    if len(memo) > MEMO_LIMIT:
        memo.clear()
    out: list[T | None] = list(map(memo.get, map(_GENERATION, nodes)))
    i = 0
    try:
        while True:  # list.index scans in C; usually one miss, the node that changed
            i = out.index(None, i)
            ni = nodes[i]
            out[i] = memo[ni.generation] = compute(ni)
            i += 1
    except ValueError:
        pass
    return out  # type: ignore[return-value] # every None was filled
