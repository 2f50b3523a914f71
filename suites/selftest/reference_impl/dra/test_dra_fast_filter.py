"""The DynamicResources fast path agrees with the full allocator search."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_device, make_resource_claim, make_resource_slice
from reference_impl.dra import AllocatedState, Allocator, for_pools, gather_pools
from reference_impl.dra.state import apply_allocation

DRIVER = "gpu.test"
CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
NODE = {"metadata": {"name": "n0", "labels": {}, "resourceVersion": "7"}}


def _devices(n: int, tainted: list[bool]) -> Any:
    b = make_resource_slice("s", DRIVER, "n0", "n0")
    for i in range(n):
        taints = [{"key": "bad", "effect": "NoSchedule"}] if i < len(tainted) and tainted[i] else []
        b.device(make_device(f"d{i}", attributes={"index": i}, taints=taints))
    return for_pools(gather_pools([b.build()])[0])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 8), st.lists(st.booleans(), max_size=8), st.lists(st.integers(0, 7), max_size=8),
    st.integers(1, 4), st.booleans(),
)
def test_free_count_decides_feasibility_exactly_as_the_search(
    n: int, tainted: list[bool], taken: list[int], count: int, memoised: bool
) -> None:
    """free_exclusive >= count iff the full search allocates, memoised or not."""
    devices, counters = _devices(n, tainted)
    by_id = {d.id: d for d in devices}
    state = AllocatedState()
    for i in sorted(set(taken)):
        if i < n:
            alloc = {"devices": {"results": [
                {"request": "r", "driver": DRIVER, "pool": "n0", "device": f"d{i}"}]}}
            apply_allocation(state, alloc, by_id)
    memo: dict[Any, Any] | None = {} if memoised else None
    claim = make_resource_claim("c", "default").request("gpu", "gpu", count=count).build()
    spec = claim["spec"]["devices"]["requests"][0]["exactly"]
    for _ in range(2):  # the second round is served from the memo
        a = Allocator(devices, counters, {"gpu": CLASS}, [], state, lambda: "x", memo=memo)
        free = a.free_exclusive(spec, NODE)
        assert free is not None
        assert (free >= count) == (a.allocate([claim], NODE) is not None)


def test_shared_devices_have_no_fast_path() -> None:
    """Devices allowing multiple allocations always go through the full search."""
    b = make_resource_slice("s", DRIVER, "n0", "n0")
    b.device(make_device("d0"))
    m = b.build()
    m["spec"]["devices"][0]["allowMultipleAllocations"] = True
    m["spec"]["devices"][0]["capacity"] = {"memory": {"value": "10Gi"}}
    devices, counters = for_pools(gather_pools([m])[0])
    claim = make_resource_claim("c", "default").request("gpu", "gpu").build()
    spec = claim["spec"]["devices"]["requests"][0]["exactly"]
    a = Allocator(devices, counters, {"gpu": CLASS}, [], AllocatedState(), lambda: "x", memo={})
    assert a.free_exclusive(spec, NODE) is None


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 8), st.lists(st.booleans(), max_size=8), st.lists(st.integers(0, 7), max_size=8),
    st.integers(1, 4), st.booleans(), st.booleans(),
)
def test_first_free_plan_is_the_search_result(
    n: int, tainted: list[bool], taken: list[int], count: int, memoised: bool, admin: bool
) -> None:
    """For one simple request the allocator skips the search; its allocation (devices,
    their order, every result field) is the one the search finds, or None with it."""
    devices, counters = _devices(n, tainted)
    by_id = {d.id: d for d in devices}
    state = AllocatedState()
    for i in sorted(set(taken)):
        if i < n:
            alloc = {"devices": {"results": [
                {"request": "r", "driver": DRIVER, "pool": "n0", "device": f"d{i}"}]}}
            apply_allocation(state, alloc, by_id)
    claim = make_resource_claim("c", "default").request("gpu", "gpu", count=count).build()
    if admin:  # adminAccess takes allocated devices too: never the shortcut
        claim["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    a = Allocator(devices, counters, {"gpu": CLASS}, [], state, lambda: "x", memo={} if memoised else None)
    assert (a._first_free([claim], NODE) is None) == admin  # noqa: SLF001
    fast, full = a.plan([claim], NODE), a.searched([claim], NODE)
    assert (fast is None) == (full is None)
    if fast is not None and full is not None:
        assert fast.results() == full.results()
