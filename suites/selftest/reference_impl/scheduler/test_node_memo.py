"""NodeMemo by position (windows into the cache's node list) against computing every
node afresh, as pods and nodes come and go and the cache restarts its change log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.api import make_node, make_pod
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework import types
from reference_impl.scheduler.framework.node_memo import NodeMemo, NodeWindow, rotated
from reference_impl.scheduler.framework.types import NodeInfo

Obj = dict[str, Any]
Seen = tuple[str, int, int]

# (op, node, arg): bind a pod of arg*100m to the node, delete one of its pods, relabel the
# node, add or remove the node; then read a window of arg nodes from position node*arg.
_op = st.tuples(
    st.sampled_from(["pod", "unpod", "relabel", "add", "remove"]), st.integers(0, 7),
    st.integers(1, 9),
)  # fmt: skip


def _node(i: int, label: str = "a") -> Obj:
    m = make_node(f"n{i}").capacity(cpu="4", memory="4Gi", pods="110").build()
    m["metadata"]["labels"] = {"l": label}
    return m


def _seen(ni: NodeInfo) -> Seen:
    return ni.name, len(ni.pods), ni.requested.milli_cpu


def _counted(calls: list[str]) -> Callable[[NodeInfo], Seen]:
    """``_seen``, noting in ``calls`` each node it computes."""

    def compute(ni: NodeInfo) -> Seen:
        calls.append(ni.name)
        return _seen(ni)

    return compute


@settings(max_examples=80, deadline=None)
@given(st.lists(_op, max_size=30), st.sampled_from([3, 1_000]))
# A node changes, then the same window is read: only that node's position is recomputed.
@example([("pod", 1, 3), ("pod", 1, 2), ("unpod", 1, 3)], 1_000)
# The cache restarts its log (limit 3) between two reads: the memo must not trust positions.
@example([("pod", 0, 4), ("pod", 2, 4), ("pod", 3, 4), ("pod", 0, 4), ("pod", 2, 4)], 3)
# A node added shifts every later position.
@example([("pod", 2, 3), ("add", 1, 3), ("pod", 2, 3)], 1_000)
def test_reads_by_position_equal_computing_every_node(ops: list[tuple[str, int, int]], limit: int) -> None:
    cache = SchedulerCache()
    for i in range(0, 8, 2):
        cache.add_node(_node(i))
    memo: NodeMemo[Seen] = NodeMemo()
    calls: list[str] = []
    compute = _counted(calls)

    bound: dict[int, list[str]] = {}
    with mock.patch.object(types, "CHANGE_LOG_LIMIT", limit):
        for step, (op, i, arg) in enumerate(ops):
            name = f"n{i}"
            if op == "pod":
                pod = make_pod(f"p{step}", "default").req(cpu=f"{arg * 100}m").build()
                pod["spec"]["nodeName"] = name
                cache.add_pod(pod)
                bound.setdefault(i, []).append(f"p{step}")
            elif op == "unpod" and bound.get(i):
                cache.remove_pod(make_pod(bound[i].pop(), "default").build())
            elif op == "relabel" and cache.get(name) is not None:
                cache.update_node(_node(i, label=str(step)))
            elif op == "add":
                cache.add_node(_node(i))
            elif op == "remove":
                cache.remove_node(_node(i))
            nodes = cache.node_infos()
            if not nodes:
                continue
            window = rotated(nodes, i * arg, min(arg, len(nodes)))
            assert type(window) is NodeWindow
            assert memo.read(window, compute) == [_seen(ni) for ni in window]
            calls.clear()
            assert memo.read(window, compute) == [_seen(ni) for ni in window]
            assert not calls  # nothing changed in between: every value came by position
            plain = list(window)[::-1]
            assert memo.read(plain, compute) == [_seen(ni) for ni in plain]


def test_only_the_changed_node_is_recomputed_and_other_lists_stay_plain() -> None:
    cache = SchedulerCache()
    for i in range(5):
        cache.add_node(_node(i))
    memo: NodeMemo[Seen] = NodeMemo()
    calls: list[str] = []
    compute = _counted(calls)

    window = rotated(cache.node_infos(), 3, 4)  # n3 n4 n0 n1
    assert [ni.name for ni in window] == ["n3", "n4", "n0", "n1"]
    memo.read(window, compute)
    calls.clear()
    pod = make_pod("p", "default").req(cpu="1").build()
    pod["spec"]["nodeName"] = "n0"
    cache.add_pod(pod)
    assert memo.read(rotated(cache.node_infos(), 3, 4), compute)[2] == ("n0", 1, 1000)
    assert calls == ["n0"]
    assert type(rotated(list(cache.node_infos()), 0, 2)) is list
