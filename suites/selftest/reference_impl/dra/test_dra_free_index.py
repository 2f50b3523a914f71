"""The free-count index behind the DynamicResources fast path never serves a stale count.

After any sequence of allocations, releases, node relabels and class changes, ``vouch``
(cached) answers exactly as a freshly computed ``vouch`` (index reset first).
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.api import (
    make_device,
    make_device_class,
    make_node,
    make_pod,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.dra.free_index import FreeIndex, request_key
from reference_impl.dra.pools import DeviceID
from reference_impl.dra.state import AllocatedState, apply_allocation
from reference_impl.dra.tracker import ClaimTracker
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.node_memo import NodeWindow, rotated
from reference_impl.scheduler.plugins import dynamic_resources_fast as fast
from reference_impl.scheduler.plugins.dynamic_resources import DynamicResources
from suites.selftest.reference_impl.scheduler.filter_oracle import per_node_search

Obj = dict[str, Any]
DRIVER = "gpu.test"
NODES = 3


def _cluster(global_pool: bool, zoned_pool: bool) -> tuple[Cluster, ClaimTracker, list[DeviceID]]:
    c = Cluster(config=ClusterConfig(nodes=0))
    c.api.create(make_device_class("gpu").selector(f'device.driver == "{DRIVER}"').build())
    ids: list[DeviceID] = []
    for i in range(NODES):
        node = f"n{i}"
        c.api.create(make_node(node).label("zone", "a" if i else "b").capacity(cpu="4").build())
        b = make_resource_slice(f"s-{node}", DRIVER, node, node)
        for j in range(2):
            b.device(make_device(f"d{j}", attributes={"index": j}))
            ids.append((DRIVER, node, f"d{j}"))
        c.api.create(b.build())
    if global_pool:
        g = make_resource_slice("s-global", DRIVER, "global").all_nodes().device(_dev("g0"))
        c.api.create(g.build())
        ids.append((DRIVER, "global", "g0"))
    if zoned_pool:  # reachable only from nodes labelled zone=a
        z = make_resource_slice("s-zoned", DRIVER, "zoned").device(_dev("z0")).build()
        z["spec"]["nodeSelector"] = {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
            ]
        }
        c.api.create(z)
        ids.append((DRIVER, "zoned", "z0"))
    c.settle()
    dra = next(p for p in c.scheduler.framework.plugins if isinstance(p, DynamicResources))
    return c, dra.tracker, ids


def _dev(name: str) -> Obj:
    return make_device(name, attributes={"index": 0})


def _only_index_0(c: Cluster, on: bool) -> None:
    """Narrow the class to devices with index 0 (``on``), or widen it back."""
    cls = c.api.get("resource.k8s.io/v1", "DeviceClass", "gpu")
    expr = f'device.driver == "{DRIVER}"'
    if on:
        expr += f' && device.attributes["{DRIVER}"].index == 0'
    cls["spec"]["selectors"] = [{"cel": {"expression": expr}}]
    c.update(cls)


def _relabel(c: Cluster, i: int, zone: str) -> None:
    node = c.api.get("v1", "Node", f"n{i}")
    node["metadata"]["labels"]["zone"] = zone
    c.update(node)


def _alloc(did: DeviceID) -> Obj:
    return {
        "devices": {
            "results": [{"request": "gpu", "driver": did[0], "pool": did[1], "device": did[2]}]
        }
    }


def _answer(tracker: ClaimTracker, claim: Obj, c: Cluster, at: int | None = None) -> tuple[Any, ...]:
    """``vouch`` over a plain list of every node, or (``at``) over the cache's window of
    every node from position ``at``, which reads the counts by position."""
    nodes = c.scheduler.cache.node_infos()
    window = rotated(nodes, at, len(nodes)) if at is not None else list(nodes)
    got = fast.vouch(tracker, [claim], window)
    assert got is not None
    suspects, vouched, short = got
    names = [ni.name for ni in window]
    if isinstance(vouched, fast.Vouched):
        assert type(window) is NodeWindow
        for n in names:  # Reserve's allocation from the cached candidates is the allocator's
            node = vouched.get(n)
            if node is not None:
                assert vouched.allocate(tracker, [claim], node) == fast.allocate(tracker, [claim], node), n
        return suspects, sorted(n for n in names if vouched.get(n) is not None), short
    assert type(window) is list
    return suspects, sorted(vouched), short


_op = st.one_of(
    st.tuples(st.just("alloc"), st.integers(0, 7)),
    st.tuples(st.just("free"), st.integers(0, 7)),
    # A second holder of the same device (a claim's written allocation while it is still
    # assumed): the device is taken until both let go.
    st.tuples(st.just("hold"), st.integers(0, 7)),
    st.tuples(st.just("unhold"), st.integers(0, 7)),
    st.tuples(st.just("relabel"), st.integers(0, NODES - 1), st.sampled_from(["a", "b"])),
    st.tuples(st.just("class"), st.booleans()),
)


@settings(max_examples=60, deadline=None)
@given(
    st.booleans(), st.booleans(), st.integers(1, 3), st.lists(_op, max_size=12),
    st.sampled_from([None, 0, 2]),
)  # fmt: skip
# A device of n0 taken outside any cycle: n0's count by position must be dropped.
@example(False, False, 2, [("alloc", 0)], 0)
# n1 relabelled out of the zoned pool's reach: its count by name must not outlive its Node.
@example(False, True, 3, [("relabel", 1, "b")], 0)
# n0's device freed again: its count must rise (a count of 2 tells 1 free from 2).
@example(False, False, 2, [("alloc", 0), ("free", 0)], 0)
@example(False, False, 2, [("alloc", 0), ("hold", 0), ("free", 0), ("unhold", 0)], 0)
def test_cached_vouch_equals_a_fresh_one(
    global_pool: bool, zoned_pool: bool, count: int, ops: list[tuple[Any, ...]], at: int | None
) -> None:
    """Cached and fresh answers agree after every operation, over a plain list of nodes
    (the table by name) and over windows of the cache's list (the memo by position)."""
    c, tracker, ids = _cluster(global_pool, zoned_pool)
    claim = make_resource_claim("c", "default").request("gpu", "gpu", count=count).build()
    _answer(tracker, claim, c, at)  # fill the index
    for op in ops:
        if op[0] == "alloc":
            tracker.assume(f"default/a{op[1]}", _alloc(ids[op[1] % len(ids)]))
        elif op[0] == "free":
            tracker.forget(f"default/a{op[1]}")
        elif op[0] == "hold":
            tracker.assume(f"default/b{op[1]}", _alloc(ids[op[1] % len(ids)]))
        elif op[0] == "unhold":
            tracker.forget(f"default/b{op[1]}")
        elif op[0] == "relabel":
            _relabel(c, op[1], op[2])
        else:
            _only_index_0(c, op[1])
        cached = _answer(tracker, claim, c, at)
        tracker.free_index.reset()
        assert cached == _answer(tracker, claim, c, at), op


def test_a_vouched_allocation_survives_a_dropped_index() -> None:
    """Reserve on a vouched node whose cached candidates were dropped since Filter (the
    index reset) falls back to the allocator, with the same first free devices."""
    c, tracker, ids = _cluster(False, False)
    claim = make_resource_claim("c", "default").request("gpu", "gpu").build()
    tracker.assume("default/x", _alloc(ids[0]))  # n0's d0: its first free device is d1
    nodes = c.scheduler.cache.node_infos()
    got = fast.vouch(tracker, [claim], rotated(nodes, 0, len(nodes)))
    assert got is not None and isinstance(got[1], fast.Vouched)
    node = got[1].get("n0")
    assert node is not None
    cached = got[1].allocate(tracker, [claim], node)
    tracker.free_index.reset()
    assert got[1].allocate(tracker, [claim], node) == cached
    assert cached is not None and [r["device"] for r in cached[0]["devices"]["results"]] == ["d1"]


def test_only_the_changed_node_is_recounted() -> None:
    """An allocation on one node recounts that node's entry from its candidates' ids and
    leaves the others as they were."""
    c, tracker, ids = _cluster(False, False)
    claim = make_resource_claim("c", "default").request("gpu", "gpu").build()
    _answer(tracker, claim, c)
    spec = claim["spec"]["devices"]["requests"][0]["exactly"]
    table = tracker.free_index.table(tracker.state, tracker.device, request_key(spec))
    assert {n: e[1] for n, e in table.items()} == {"n0": 2, "n1": 2, "n2": 2}
    before = dict(table)
    tracker.assume("default/x", _alloc(ids[0]))  # a device of n0
    table = tracker.free_index.table(tracker.state, tracker.device, request_key(spec))
    assert table["n0"][1] == 1 and table["n0"][2] == before["n0"][2]
    assert table["n1"] is before["n1"] and table["n2"] is before["n2"]
    _, vouched, short = _answer(tracker, claim, c)
    assert vouched == ["n0", "n1", "n2"] and not short  # n0 still has d1 free
    tracker.assume("default/y", _alloc(ids[1]))
    assert _answer(tracker, claim, c)[2] == {"n0"}  # both of n0's devices are taken


def test_a_device_reachable_from_many_nodes_drops_every_entry() -> None:
    """A non-local device (or an unknown one) invalidates the whole index."""
    index = FreeIndex()
    state = AllocatedState()
    key = request_key({"deviceClassName": "gpu"})
    t = index.table(state, lambda did: None, key)
    t["n0"] = (None, 1, frozenset({("d", "p", "x")}), None)
    apply_allocation(state, _alloc(("d", "p", "x")), {})
    assert index.table(state, lambda did: None, key) == {}
    assert state.dirty == set()  # drained by the index


def test_request_key_ignores_only_the_count() -> None:
    """Two requests differing only in count share counts; any other field does not."""
    base = {"deviceClassName": "gpu", "allocationMode": "ExactCount"}
    assert request_key({**base, "count": 1}) == request_key({**base, "count": 3})
    assert request_key(base) != request_key(
        {**base, "selectors": [{"cel": {"expression": "true"}}]}
    )


def test_a_relabelled_node_and_a_changed_class_are_recomputed() -> None:
    """Labels decide which selector-restricted devices a node reaches; classes which match."""
    c, tracker, _ = _cluster(False, True)
    claim = make_resource_claim("c", "default").request("gpu", "gpu", count=3).build()
    assert _answer(tracker, claim, c)[1] == ["n1", "n2"]  # zone a: d0, d1 and z0
    _relabel(c, 1, "b")
    assert _answer(tracker, claim, c)[1] == ["n2"]
    _only_index_0(c, True)  # d0 and z0 only: nobody has three
    assert _answer(tracker, claim, c)[1] == []
    _only_index_0(c, False)
    assert _answer(tracker, claim, c)[1] == ["n2"]


def test_the_schedulers_device_view_is_built_when_slices_change_not_in_a_cycle() -> None:
    """The scheduler's tracker rebuilds once after a burst of slice writes (on the clock),
    as upstream's informer-fed tracker, so the first cycle does not pay for it; a tracker
    built without ``eager`` still rebuilds only when read."""
    c, tracker, ids = _cluster(global_pool=False, zoned_pool=False)
    lazy = ClaimTracker(c.context, lambda _kind, _ev: None)
    c.settle()
    assert not tracker._dirty and tracker.device(ids[0]) is not None
    assert lazy._dirty
    c.api.create(make_resource_slice("s-late", DRIVER, "late", "n0").device(_dev("l0")).build())
    assert tracker._dirty  # until the clock runs
    c.settle()
    assert not tracker._dirty and tracker.device((DRIVER, "late", "l0")) is not None


@settings(max_examples=40, deadline=None)
@given(st.booleans(), st.integers(1, 3), st.sets(st.integers(0, 2 * NODES - 1), max_size=2 * NODES))
def test_the_filter_pass_records_what_the_per_node_filters_return(
    global_pool: bool, count: int, taken: set[int]
) -> None:
    """With DRA's certain rejections recorded unvisited (FilterRejections), the search
    finds the nodes, and records the statuses, that running every Filter on every node
    in order (the runtime's own runner) gives."""
    c, tracker, ids = _cluster(global_pool, zoned_pool=False)
    for i in taken:
        tracker.assume(f"default/a{i}", _alloc(ids[i]))
    c.api.create(make_resource_claim("c", "default").request("gpu", "gpu", count=count).build())
    pod = make_pod("p", "default").req(cpu="100m").claim("gpu", claim="c").build()
    pod["metadata"]["uid"] = "u-p"
    sched, fw = c.scheduler, c.scheduler.framework
    nodes = list(sched.cache.node_infos())
    d = Diagnosis()
    sched.algorithm.next_start_node_index = 0
    feasible, status = sched.algorithm._find_nodes_that_fit(CycleState(), pod, nodes, d)
    assert status.is_success()
    names, want = per_node_search(fw, pod, nodes)
    got = {n: (s.plugin, s.reasons) for n, s in d.node_to_status.statuses.items()}
    assert ([ni.name for ni in feasible], got) == (names, want)
    assert d.unschedulable_plugins == ({"DynamicResources"} if want else set())
