"""Upstream's heap tables against reference_impl/scheduler/framework/heap.py (KeyedHeap).

Ported (pkg/scheduler/backend/heap/heap_test.go): ``TestHeap_Peek``, ``TestHeap_Delete``,
``TestHeap_AddOrUpdate_Update``, ``TestHeap_Get``, ``TestHeap_GetByKey``, ``TestHeap_List``,
``TestHeapHas``, ``TestHeapZeroAndOneElement``, ``TestHeapPopOrder``, ``TestHeapDeleteMiddle``,
``TestHeapUpdatePriority``, ``TestHeapLen``, ``TestHeapPopAllAndReuse``, ``TestHeapDeleteAll``
and ``TestHeapLargeScale``; (backend/queue) ``TestUnschedulableEntities`` against the
UnschedulablePool. ``TestHeapWithRecorder`` is not ported: there are no queue metrics here.
Items are (name, value); an empty heap's Pop gives None rather than an error.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reference_impl.api import make_pod
from reference_impl.clock import Instant
from reference_impl.scheduler.framework.heap import KeyedHeap
from reference_impl.scheduler.framework.queue_index import UnschedulablePool
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo

Item = tuple[str, int]


def _key(item: Item) -> str:
    return item[0]


def _heap(*items: Item) -> KeyedHeap[Item]:
    h: KeyedHeap[Item] = KeyedHeap(lambda a, b: a[1] < b[1])
    for it in items:
        h.push(it[0], it)
    return h


def _drain(h: KeyedHeap[Item]) -> list[int]:
    out = []
    while len(h):
        item = h.pop(_key)
        assert item is not None
        out.append(item[1])
    return out


def test_heap_peek() -> None:
    h = _heap()
    assert h.peek(_key) is None
    for i in range(500, 0, -1):
        h.push(f"a{i}", (f"a{i}", i))
        assert h.peek(_key) == (f"a{i}", i)


def test_heap_delete() -> None:
    h = _heap(("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11))
    assert h.delete("bar") is not None  # by key, whatever the value
    assert h.pop(_key) == ("foo", 10)
    h.push("zab", ("zab", 30))
    h.push("faz", ("faz", 30))
    n = len(h)
    assert h.delete("non-existent") is None and len(h) == n
    assert h.delete("bal") is not None
    assert h.delete("zab") is not None
    assert h.pop(_key) == ("baz", 11)
    assert h.pop(_key) == ("faz", 30)
    assert len(h) == 0


def test_heap_add_or_update_update() -> None:
    h = _heap(("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11))
    h.push("baz", ("baz", 0))
    assert h.peek(_key) == ("baz", 0)
    assert h.pop(_key) == ("baz", 0)
    h.push("bar", ("bar", 100))
    assert h.peek(_key) == ("foo", 10)


@pytest.mark.parametrize("name", ["TestHeap_Get", "TestHeap_GetByKey"])
def test_heap_get(name: str) -> None:
    h = _heap(("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11))
    assert h.get("baz") == ("baz", 11)
    assert h.get("non-existing") is None


def test_heap_list() -> None:
    assert list(_heap().keys()) == []
    items = {"foo": 10, "bar": 1, "bal": 30, "baz": 11, "faz": 30}
    h = _heap(*items.items())
    listed = {k: h.get(k) for k in h.keys()}
    assert listed == {k: (k, v) for k, v in items.items()}


@pytest.mark.parametrize(
    ("items", "deleted", "want"),
    [
        pytest.param([], [], False, id="empty heap"),
        pytest.param([("bar", 1)], [], False, id="non-existing item in populated heap"),
        pytest.param([("foo", 10)], [], True, id="existing item (single element)"),
        pytest.param([("bar", 1), ("foo", 10), ("baz", 11)], [], True,
                     id="existing item (multiple elements)"),
        pytest.param([("foo", 10)], ["foo"], False, id="item missing after deletion"),
    ],
)
def test_heap_has(items: list[Item], deleted: list[str], want: bool) -> None:
    h = _heap(*items)
    for k in deleted:
        h.delete(k)
    assert ("foo" in h) is want


def test_heap_zero_and_one_element() -> None:
    h = _heap(("foo", 42))
    assert h.pop(_key) == ("foo", 42) and len(h) == 0  # pop single element
    assert _heap().pop(_key) is None  # pop empty heap
    h = _heap(("bar", 7))
    h.delete("bar")
    assert len(h) == 0  # delete single element
    assert _heap(("baz", 99)).peek(_key) == ("baz", 99)  # peek single element


@pytest.mark.parametrize(
    ("inserts", "want"),
    [
        pytest.param([("foo", 1), ("bar", 2), ("baz", 3)], [1, 2, 3], id="ascending insertion"),
        pytest.param([("foo", 30), ("bar", 20), ("baz", 10)], [10, 20, 30], id="descending insertion"),
        pytest.param([("foo", 15), ("bar", 3), ("baz", 42), ("zab", 1), ("faz", 27)],
                     [1, 3, 15, 27, 42], id="random insertion"),
        pytest.param([("foo", 5), ("bar", 5), ("baz", 5)], [5, 5, 5], id="duplicate values"),
    ],
)
def test_heap_pop_order(inserts: list[Item], want: list[int]) -> None:
    assert _drain(_heap(*inserts)) == want


@pytest.mark.parametrize(
    ("inserts", "deletes", "want"),
    [
        pytest.param([("foo", 10), ("bar", 1), ("bal", 20), ("baz", 15), ("zab", 25), ("faz", 5)],
                     ["foo", "baz"], [1, 5, 20, 25], id="delete middle items"),
        pytest.param([("foo", 1), ("bar", 10), ("baz", 20)], ["foo"], [10, 20], id="delete head"),
        pytest.param([("foo", 10), ("bar", 1), ("baz", 20)], ["foo", "baz"], [1],
                     id="delete all but one"),
    ],
)
def test_heap_delete_middle(inserts: list[Item], deletes: list[str], want: list[int]) -> None:
    h = _heap(*inserts)
    for k in deletes:
        h.delete(k)
    assert _drain(h) == want


_THREE = [("foo", 10), ("bar", 1), ("baz", 11)]


@pytest.mark.parametrize(
    ("inserts", "updates", "want"),
    [
        pytest.param(_THREE, [("foo", 10)], [1, 10, 11], id="update to same value"),
        pytest.param(_THREE, [("baz", 0)], [0, 1, 10], id="update to lower value (move to head)"),
        pytest.param(_THREE, [("bar", 100)], [10, 11, 100], id="update to higher value (move to tail)"),
        pytest.param([("foo", 1), ("bar", 2), ("baz", 3), ("zab", 4), ("faz", 5)],
                     [("faz", 0), ("foo", 100)], [0, 2, 3, 4, 100], id="full order inversion"),
    ],
)
def test_heap_update_priority(inserts: list[Item], updates: list[Item], want: list[int]) -> None:
    h = _heap(*inserts)
    for it in updates:
        h.push(it[0], it)
    assert _drain(h) == want


def _pop(h: KeyedHeap[Item]) -> Item | None:
    return h.pop(_key)


Action = Callable[[KeyedHeap[Item]], None]


@pytest.mark.parametrize(
    ("action", "want"),
    [
        pytest.param(lambda h: None, 0, id="empty heap"),
        pytest.param(lambda h: h.push("foo", ("foo", 10)), 1, id="after one add"),
        pytest.param(lambda h: [h.push(k, (k, v)) for k, v in _THREE], 3, id="after three adds"),
        pytest.param(lambda h: [h.push(k, (k, v)) for k, v in (("foo", 10), ("bar", 1), ("foo", 20))],
                     2, id="update does not change len"),
        pytest.param(lambda h: ([h.push(k, (k, v)) for k, v in (("foo", 10), ("bar", 1))],
                                h.delete("bar")), 1, id="after add and delete"),
        pytest.param(lambda h: ([h.push(k, (k, v)) for k, v in (("foo", 10), ("bar", 1))], _pop(h)),
                     1, id="after add and pop"),
    ],
)
def test_heap_len(action: Action, want: int) -> None:
    h = _heap()
    action(h)
    assert len(h) == want


@pytest.mark.parametrize(
    ("first", "second", "want"),
    [
        pytest.param([("foo", 3), ("bar", 1), ("baz", 2)], [("x", 20), ("y", 10), ("z", 15)],
                     [10, 15, 20], id="reuse with different keys"),
        pytest.param([("foo", 100), ("bar", 200)], [("foo", 5), ("bar", 3)], [3, 5],
                     id="reuse with same keys"),
    ],
)
def test_heap_pop_all_and_reuse(first: list[Item], second: list[Item], want: list[int]) -> None:
    h = _heap(*first)
    _drain(h)
    for it in second:
        h.push(it[0], it)
    assert _drain(h) == want


_FIVE = [("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11), ("zab", 30)]
_ASC = [("foo", 1), ("bar", 10), ("baz", 20)]


@pytest.mark.parametrize(
    ("inserts", "order"),
    [
        pytest.param(_FIVE, ["baz", "foo", "zab", "bar", "bal"], id="delete in random order"),
        pytest.param(_ASC, ["foo", "bar", "baz"], id="delete head first"),
        pytest.param(_ASC, ["baz", "bar", "foo"], id="delete tail first"),
    ],
)
def test_heap_delete_all(inserts: list[Item], order: list[str]) -> None:
    h = _heap(*inserts)
    for k in order:
        h.delete(k)
    assert len(h) == 0
    h.push("new", ("new", 5))  # still usable
    assert h.pop(_key) == ("new", 5)


def test_heap_large_scale() -> None:
    h = _heap()
    for i in range(1000, 0, -1):
        h.push(f"a{i}", (f"a{i}", i))
    for i in range(1, 1001, 10):
        h.push(f"a{i}", (f"a{i}", 1000 + i))
    for i in range(5, 1001, 10):
        h.delete(f"a{i}")
    got = _drain(h)
    assert got == sorted(got) and len(got) == 900


# -- TestUnschedulableEntities (pkg/scheduler/backend/queue; the pool of pods, no metrics) --


def _pool_info(name: str, ns: str, gated: bool) -> QueuedPodInfo:
    info = QueuedPodInfo(PodInfo(make_pod(name, ns).build()), Instant(0))
    if gated:
        info.gating_plugin = "test"
        info.unschedulable_plugins.add("test")
    return info


_PODS = [("p0", "ns1"), ("p1", "ns1"), ("p2", "ns2"), ("p3", "ns1")]
Step = tuple[str, list[int], list[int]]  # action, pods by index, expected pods


@pytest.mark.parametrize(
    ("gated", "steps"),
    [
        pytest.param(False, [("add", [0, 1, 2, 2, 3], [0, 1, 2, 3]), ("update", [0], [0, 1, 2, 3]),
                             ("delete", [0, 1], [2, 3])],
                     id="create, update, delete subset of pods"),
        pytest.param(True, [("add", [0, 1], [0, 1]), ("delete", [0], [1])],
                     id="add/delete gated pods"),
    ],
)
def test_unschedulable_entities(gated: bool, steps: list[Step]) -> None:
    pool = UnschedulablePool()
    for action, idx, want in steps:
        for i in idx:
            info = _pool_info(*_PODS[i], gated)
            if action == "delete":
                pool.pop(info.key)
            else:
                pool[info.key] = info
        assert sorted(pool) == sorted(f"{ns}/{n}" for n, ns in (_PODS[i] for i in want))
        assert all(p.gated is gated for p in pool.values())
