"""Models pkg/scheduler/backend/heap: a keyed heap with lazy deletion.

Entries are ordered by a ``less`` function (the profile's QueueSort) and then by insertion
sequence, so equal pods leave in arrival order and runs replay exactly.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

__all__ = ["KeyedHeap"]

T = TypeVar("T")


class _Entry(Generic[T]):
    __slots__ = ("item", "less", "seq")

    def __init__(self, item: T, seq: int, less: Callable[[T, T], bool]) -> None:
        self.item = item
        self.seq = seq
        self.less = less

    def __lt__(self, other: _Entry[T]) -> bool:
        if self.less(self.item, other.item):
            return True
        if self.less(other.item, self.item):
            return False
        return self.seq < other.seq


class KeyedHeap(Generic[T]):
    """A priority queue of items by key; ``delete`` and re-``push`` are O(log n) amortised."""

    def __init__(self, less: Callable[[T, T], bool]) -> None:
        self._less = less
        self._heap: list[_Entry[T]] = []
        self._live: dict[str, _Entry[T]] = {}
        self._seq = 0

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, key: str) -> bool:
        return key in self._live

    def get(self, key: str) -> T | None:
        """The item under ``key``, or None."""
        entry = self._live.get(key)
        return None if entry is None else entry.item

    def push(self, key: str, item: T) -> None:
        """Insert, or replace and re-order the item under ``key``."""
        self._seq += 1
        entry = _Entry(item, self._seq, self._less)
        self._live[key] = entry
        heapq.heappush(self._heap, entry)

    def delete(self, key: str) -> T | None:
        """Remove the item under ``key``; its heap slot is skipped when it surfaces."""
        entry = self._live.pop(key, None)
        return None if entry is None else entry.item

    def _prune(self, key_of: Callable[[T], str]) -> None:
        while self._heap and self._live.get(key_of(self._heap[0].item)) is not self._heap[0]:
            heapq.heappop(self._heap)

    def peek(self, key_of: Callable[[T], str]) -> T | None:
        """The first item, or None."""
        self._prune(key_of)
        return self._heap[0].item if self._heap else None

    def pop(self, key_of: Callable[[T], str]) -> T | None:
        """Remove and return the first item, or None."""
        self._prune(key_of)
        if not self._heap:
            return None
        entry = heapq.heappop(self._heap)
        del self._live[key_of(entry.item)]
        return entry.item

    def keys(self) -> Iterator[str]:
        """Live keys, in insertion order."""
        return iter(list(self._live))
