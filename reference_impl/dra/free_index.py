"""Free-device counts per node for simple requests (no upstream counterpart; a speed-up).

The scheduler's DynamicResources fast path asks, for every node a pod's Filter visits,
how many devices matching a simple request are free there. Between two pods almost
nothing changes: a pod-group member, or the next pod of the same shape, visits the same
nodes, and only the node the previous pod was assumed on lost a device. So the answer is
kept per (request shape, node) and dropped only when it can have changed:

- the node object changed (its labels decide which devices it can reach);
- a device reachable from the node was allocated or freed, which the tracker's
  ``AllocatedState`` records in ``dirty`` while an index watches it (a device that is not
  node-local, or no longer published, drops every node). An entry that kept its
  candidates' ids is recounted from them instead: for exclusive devices without counters
  the count is the ids not in ``state.devices``, whatever else changed;
- slices, classes or taint rules changed, or the state was rebuilt: the tracker calls
  ``reset`` wherever it drops its candidate memo.

An entry is only ever the value the full computation returned, so results are unchanged.
A caller may also keep its own per-node memo of the same counts under a key (``memo``):
it is told which nodes to forget (``Forgetful``) and dropped when the tables are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from reference_impl.dra.candidates import free_count
from reference_impl.dra.pools import DeviceID, DeviceInfo
from reference_impl.dra.state import AllocatedState
from reference_impl.storage import codec

__all__ = ["Entry", "FreeIndex", "Forgetful", "Table", "request_key"]

Obj = dict[str, Any]
# node name -> (the Node object the count was computed against, the count or None, the
# candidates' ids the count was taken over, when it can be recounted from them alone, and
# those candidates in search order)
Entry = tuple[Obj | None, int | None, frozenset[DeviceID] | None, Sequence[DeviceInfo] | None]
Table = dict[str, Entry]


def request_key(spec: Obj) -> bytes:
    """What a free count depends on in an ``exactly`` request: all but its count."""
    return codec.dumps({k: v for k, v in spec.items() if k != "count"}, sort_keys=True)


class Forgetful(Protocol):
    """A caller's memo of free counts by node."""

    def forget(self, names: Iterable[str]) -> None:
        """Drop what is known of these nodes."""


M = TypeVar("M", bound=Forgetful)


class FreeIndex:
    """Cached free counts, one table (and optionally one caller memo) per request shape."""

    __slots__ = ("_memos", "_state", "_tables")

    def __init__(self) -> None:
        self._state: AllocatedState | None = None
        self._tables: dict[bytes, Table] = {}
        self._memos: dict[bytes, Forgetful] = {}

    def reset(self) -> None:
        """Forget everything (candidates may differ: slices, classes or rules changed)."""
        self._tables.clear()
        self._memos.clear()
        self._state = None

    def table(
        self, state: AllocatedState, device: Callable[[DeviceID], DeviceInfo | None], key: bytes
    ) -> Table:
        """The table for ``key``, current for ``state`` (``device`` resolves dirty ids)."""
        self._sync(state, device)
        t = self._tables.get(key)
        if t is None:
            t = self._tables[key] = {}
        return t

    def memo(
        self,
        state: AllocatedState,
        device: Callable[[DeviceID], DeviceInfo | None],
        key: bytes,
        make: Callable[[], M],
    ) -> M:
        """The caller's memo for ``key`` (``make`` builds a new one), told of every node
        whose count may have changed since it was last handed out."""
        self._sync(state, device)
        m = self._memos.get(key)
        if m is None:
            m = self._memos[key] = make()
        return m  # type: ignore[return-value] # one caller type per key

    def _sync(
        self, state: AllocatedState, device: Callable[[DeviceID], DeviceInfo | None]
    ) -> None:
        if state is not self._state:
            self._tables.clear()
            self._memos.clear()
            self._state = state
            state.dirty = set()
        elif state.dirty:
            self._invalidate(state, device)
            state.dirty.clear()

    def _invalidate(
        self, state: AllocatedState, device: Callable[[DeviceID], DeviceInfo | None]
    ) -> None:
        nodes: set[str] = set()
        for did in state.dirty or ():
            d = device(did)
            if d is None or d.node_name is None:
                self._tables.clear()  # reachable from many nodes: drop everything
                self._memos.clear()
                return
            nodes.add(d.node_name)
        for t in self._tables.values():
            for n in nodes:
                hit = t.get(n)
                if hit is None:
                    continue
                if hit[2] is None:
                    del t[n]
                else:  # the usual case: a device of the node was taken or freed
                    t[n] = (hit[0], free_count(hit[2], state), hit[2], hit[3])
        for m in self._memos.values():
            m.forget(nodes)
