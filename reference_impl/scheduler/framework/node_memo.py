"""Per-node plugin results memoised by NodeInfo generation, and by position.

Generations are global (upstream's ``nextGeneration``), so a generation names one node's
state: a result computed from that state alone stays right until the node changes. Between
two cycles of same-sized pods only the node that took the last pod changes, so a Filter or
Score pass over hundreds of nodes becomes two C-level maps and a lookup per changed node.

A window into the cache's node list (``NodeWindow``) does better: results kept by position
are one slice, once the cache's change log (``NodeIndex.changed``) has cleared the
positions of the nodes that changed since the last read.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from operator import attrgetter
from typing import Final, Generic, TypeVar

from reference_impl.scheduler.framework.types import NodeIndex, NodeInfo

__all__ = ["MEMO_LIMIT", "NodeList", "NodeMemo", "NodeWindow", "memoised", "rotated"]

T = TypeVar("T")

MEMO_LIMIT: Final = 200_000  # generations remembered; the memo restarts beyond
_GENERATION: Final = attrgetter("generation")
_NO_KEY: Final = object()  # a fresh memo's key, equal to none a caller names


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


class NodeList(list[NodeInfo]):
    """The cache's nodes by name, with the index whose change log covers them."""

    __slots__ = ("_positions", "node_index")

    def __init__(self, nodes: Iterable[NodeInfo], node_index: NodeIndex) -> None:
        super().__init__(nodes)
        self.node_index = node_index
        self._positions: dict[str, int] | None = None

    def positions(self) -> dict[str, int]:
        """Node name -> position, built on first use (the list never changes after)."""
        if self._positions is None:
            self._positions = {ni.name: i for i, ni in enumerate(self)}
        return self._positions


class NodeWindow(list[NodeInfo]):
    """``len(self)`` nodes of ``base`` from position ``at``, wrapping around. Only
    ``rotated`` makes one; it must not be changed after."""

    __slots__ = ("at", "base")

    def __init__(self, nodes: Iterable[NodeInfo], base: NodeList, at: int) -> None:
        super().__init__(nodes)
        self.base, self.at = base, at


def rotated(nodes: Sequence[NodeInfo], at: int, count: int) -> list[NodeInfo]:
    """``count`` nodes from index ``at`` (mod len), wrapping around; a NodeWindow when
    ``nodes`` is the cache's NodeList."""
    n = len(nodes)
    a = at % n
    b = a + count
    part = nodes[a:b] if b <= n else [*nodes[a:], *nodes[: b - n]]
    return NodeWindow(part, nodes, a) if type(nodes) is NodeList else list(part)


class NodeMemo(Generic[T]):
    """One plugin's results for one set of pod requests: by position for windows into
    the cache's list, else (and behind that) by generation."""

    __slots__ = ("_base", "_by_gen", "_key", "_log", "_missing", "_seen", "_stale", "_values")

    def __init__(self) -> None:
        self.reset()
        self._key: Hashable = _NO_KEY

    def keyed(self, key: Hashable) -> NodeMemo[T]:
        """This memo, for results computed from the pod inputs ``key`` names: everything
        is forgotten first when it last served another key."""
        if key != self._key:
            self.reset()
            self._key = key
        return self

    def reset(self) -> None:
        """Forget every result (the pod's requests changed)."""
        self._by_gen: dict[int, T] = {}
        self._base: NodeList | None = None
        self._log: list[NodeInfo] | None = None
        self._seen = 0
        self._values: list[T | None] = []  # None: never computed since the list was new
        self._missing = 0  # how many Nones
        # Positions whose node changed since its value was computed. Kept apart from the
        # Nones and small: a set that once held every position would be slow to iterate.
        self._stale: set[int] = set()

    def read(self, nodes: Sequence[NodeInfo], compute: Callable[[NodeInfo], T]) -> list[T]:
        """``compute(node)`` for each of ``nodes``, in order; ``compute`` must never
        return None."""
        if type(nodes) is not NodeWindow:
            return memoised(self._by_gen, nodes, compute)
        values = self._current(nodes.base)
        n, a, k = len(values), nodes.at, len(nodes)
        by_gen = self._by_gen
        if len(by_gen) > MEMO_LIMIT:
            by_gen.clear()
        if self._stale:  # usually one: the node that took the last pod
            for p in [p for p in self._stale if (p - a) % n < k]:
                values[p] = self._value(by_gen, nodes[(p - a) % n], compute)
                self._stale.discard(p)
        b = a + k
        out = values[a:b] if b <= n else values[a:] + values[: b - n]
        if self._missing:  # the first reads after a new list
            i = 0
            try:
                while True:  # list.index scans in C
                    i = out.index(None, i)
                    out[i] = values[(a + i) % n] = self._value(by_gen, nodes[i], compute)
                    self._missing -= 1
                    i += 1
            except ValueError:
                pass
        return out  # type: ignore[return-value] # every position in the window is known

    def forget(self, names: Iterable[str]) -> None:
        """Drop what is known of ``names`` (their inputs changed without a NodeInfo change,
        e.g. a device allocation made outside this scheduler's cycle)."""
        base = self._base
        positions = base.positions() if base is not None else {}
        for name in names:
            p = positions.get(name)
            if p is None or base is None:  # its generation is unknown here: forget them all
                self._by_gen.clear()
                continue
            self._by_gen.pop(base[p].generation, None)
            if self._values[p] is not None:
                self._stale.add(p)

    @staticmethod
    def _value(by_gen: dict[int, T], ni: NodeInfo, compute: Callable[[NodeInfo], T]) -> T:
        got = by_gen.get(ni.generation)
        if got is None:
            got = by_gen[ni.generation] = compute(ni)
        return got

    def _current(self, base: NodeList) -> list[T | None]:
        """Results by position in ``base``, with the nodes that changed marked stale."""
        log = base.node_index.changed
        if self._base is not base or self._log is not log:
            # A new node list, or the cache started a new log: nothing by position is known.
            self._base, self._log, self._seen = base, log, len(log)
            self._values = [None] * len(base)
            self._missing, self._stale = len(base), set()
        elif self._seen < len(log):  # the nodes that changed since the last read
            positions, values, stale = base.positions(), self._values, self._stale
            for ni in log[self._seen :]:
                i = positions.get(ni.name)
                if i is not None and values[i] is not None:
                    stale.add(i)
            self._seen = len(log)
        return self._values
