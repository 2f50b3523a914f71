"""Fast paths of the DynamicResources Filter (no upstream counterpart; a Python speed-up).

Upstream runs the full structured allocator on every node. For the common claim shape
(one pending claim, one ``exactly`` request of ExactCount, no constraints, exclusive
devices without shared counters) feasibility is just "at least ``count`` free matching
devices", which the allocator's memoised candidate lists answer cheaply:

- ``filter_suspects`` vouches for nodes that certainly pass, so their allocation is
  computed only if the node is chosen (at Reserve), by the allocator's own first-free
  rule over the candidates the count was taken over;
- ``cannot_allocate`` rejects nodes without enough free devices before a full search.

Both fall back to the full allocator whenever the shape or the devices are not simple.
Over a window of the cache's node list the counts are kept by position (``NodeMemo``),
so vouching for a window is a slice and a C-level scan, not a visit of every node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference_impl.dra.allocator import MAX_RESULTS, AllocationError, Allocator
from reference_impl.dra.candidates import free_count
from reference_impl.dra.free_index import Entry, request_key
from reference_impl.dra.tracker import ClaimTracker
from reference_impl.scheduler.framework.node_memo import NodeMemo, NodeWindow
from reference_impl.scheduler.framework.types import NodeInfo

__all__ = ["Vouched", "allocate", "cannot_allocate", "simple_request", "vouch"]

Obj = dict[str, Any]


def simple_request(pending: Sequence[Obj]) -> tuple[Obj, int] | None:
    """The ``exactly`` spec and count of a lone simple request, else None."""
    if len(pending) != 1:
        return None
    devices = (pending[0].get("spec") or {}).get("devices") or {}
    reqs: list[Obj] = devices.get("requests") or []
    if devices.get("constraints") or len(reqs) != 1 or "exactly" not in reqs[0]:
        return None
    spec: Obj = reqs[0]["exactly"]
    count = int(spec.get("count", 1))
    # Above the claim limit the allocator reports an error, which only the search gives.
    return (spec, count) if 1 <= count <= MAX_RESULTS else None


def _free(tracker: ClaimTracker, spec: Obj, node: NodeInfo, alloc: Allocator | None = None) -> int | None:
    # ``alloc``: one allocator reused for many nodes (only its devices are per node).
    try:
        devices = tracker.devices_for(node.name)
        a = tracker.allocator(devices) if alloc is None else alloc
        return a.free_exclusive(spec, node.node, devices)
    except AllocationError:
        return None  # the full search reports the error


def _entry(tracker: ClaimTracker, spec: Obj, ni: NodeInfo, alloc: Allocator) -> Entry:
    """A free-index entry for ``ni``: its count, with the candidates it was taken over, so
    that the index can recount them after an allocation there and Reserve can take the
    first free ones."""
    if ni.node is None:
        return (None, None, None, None)
    try:
        got = alloc.simple_candidates(spec, ni.node, tracker.devices_for(ni.name))
    except AllocationError:
        return (ni.node, None, None, None)  # the full search reports the error
    if got is None:
        return (ni.node, None, None, None)
    cands, ids = got
    return (ni.node, free_count(ids, tracker.state), ids, cands)


class Vouched:
    """The nodes of one window the fast path vouched for: every one but the suspects."""

    __slots__ = ("_count", "_key", "_spec", "_suspects", "_window")

    def __init__(self, window: NodeWindow, suspects: set[int], spec: Obj, count: int, key: bytes) -> None:
        self._window, self._suspects = window, suspects
        self._spec, self._count, self._key = spec, count, key

    def allocate(self, tracker: ClaimTracker, pending: Sequence[Obj], node: Obj) -> list[Obj] | None:
        """``allocate`` on a node this window vouched for: the first free of the candidates
        its count was taken over, which the free index keeps while they are current."""
        tracker.refresh()
        table = tracker.free_index.table(tracker.state, tracker.device, self._key)
        hit = table.get(node["metadata"]["name"])
        if hit is None or hit[0] is not node or hit[3] is None:
            return allocate(tracker, pending, node)
        got = tracker.any_allocator().first_free_allocation(pending[0], self._spec, self._count, hit[3], node)
        return None if got is None else [got]

    def get(self, name: str) -> Obj | None:
        """The vouched node's Node object, or None."""
        w = self._window
        p = w.base.positions().get(name)
        if p is None:
            return None
        i = (p - w.at) % len(w.base)
        return w[i].node if i < len(w) and i not in self._suspects else None


def vouch(
    tracker: ClaimTracker, pending: Sequence[Obj], nodes: Sequence[NodeInfo]
) -> tuple[set[int], Mapping[str, Obj] | Vouched, set[str]] | None:
    """(indices the fast path cannot vouch for, the vouched nodes by name, names of nodes
    certainly without an allocation); None: no fast path."""
    simple = simple_request(pending)
    if simple is None:
        return None
    spec, count = simple
    tracker.refresh()  # first: brings the free index up to date
    if type(nodes) is NodeWindow:
        return _vouch_window(tracker, spec, count, nodes)
    suspects: set[int] = set()
    vouched: dict[str, Obj] = {}
    short: set[str] = set()
    # Counts cached per node until its object or its devices change (dra/free_index.py).
    table = tracker.free_index.table(tracker.state, tracker.device, request_key(spec))
    get = table.get
    for i, ni in enumerate(nodes):
        node, name = ni.node, ni.name
        hit = get(name)
        if hit is None or hit[0] is not node:
            hit = table[name] = _entry(tracker, spec, ni, tracker.any_allocator())
        free = hit[1]
        if free is not None and free >= count and node is not None:
            vouched[name] = node
            continue
        suspects.add(i)
        if free is not None:
            short.add(name)  # Filter rejects it without a search (as cannot_allocate)
    return suspects, vouched, short


def _vouch_window(
    tracker: ClaimTracker, spec: Obj, count: int, nodes: NodeWindow
) -> tuple[set[int], Vouched, set[str]]:
    key = request_key(spec)
    memo: NodeMemo[int] = tracker.free_index.memo(tracker.state, tracker.device, key, NodeMemo)
    # A position goes stale whenever its NodeInfo changes (a pod assumed or bound there);
    # the count by name survives that, being dropped only when the node's devices or its
    # Node object change.
    table = tracker.free_index.table(tracker.state, tracker.device, key)

    def free(ni: NodeInfo) -> int:  # -1: no Node object, or the full search reports an error
        node = ni.node
        if node is None:
            return -1
        hit = table.get(ni.name)
        if hit is None or hit[0] is not node:
            hit = table[ni.name] = _entry(tracker, spec, ni, tracker.any_allocator())
        return -1 if hit[1] is None else hit[1]

    frees = memo.read(nodes, free)
    suspects: set[int] = set()
    if frees and min(frees) < count:  # else every node has room: one C-level scan decides
        too_few = list(map(count.__gt__, frees))
        i = 0
        try:
            while True:  # list.index scans in C; full nodes are the minority of a window
                i = too_few.index(True, i)
                suspects.add(i)
                i += 1
        except ValueError:
            pass
    short = {nodes[i].name for i in suspects if frees[i] >= 0}
    return suspects, Vouched(nodes, suspects, spec, count, key), short


def cannot_allocate(tracker: ClaimTracker, pending: Sequence[Obj], node: NodeInfo) -> bool:
    """True only when the full search would certainly find no allocation on ``node``."""
    simple = simple_request(pending)
    if simple is None or node.node is None:
        return False
    free = _free(tracker, simple[0], node)
    return free is not None and free < simple[1]


def allocate(tracker: ClaimTracker, pending: Sequence[Obj], node: Obj) -> list[Obj] | None:
    """The allocation Filter would have stored for a vouched node (None: none, or an error)."""
    try:
        return tracker.allocator(tracker.devices_for(node["metadata"]["name"])).allocate(pending, node)
    except AllocationError:
        return None
