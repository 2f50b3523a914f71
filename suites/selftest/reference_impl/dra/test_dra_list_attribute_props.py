"""Hypothesis properties of list-type attributes in constraints (DRAListTypeAttributes)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_resource_claim, make_resource_slice
from reference_impl.dra import AllocatedState, Allocator, Features, for_pools, gather_pools
from reference_impl.dra.constraints import distinct_ok, match_ok

DRIVER = "gpu.test"
CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
NODE = {"metadata": {"name": "n0", "labels": {}}}
ATTR = f"{DRIVER}/numa"
LISTS = Features(list_type_attributes=True)

_sets = st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True), min_size=1, max_size=6)


def _devices(values: list[list[int]], as_scalar: bool = False) -> Any:
    b = make_resource_slice("s", DRIVER, "n0", "n0")
    for i, v in enumerate(values):
        attr = {"int": v[0]} if as_scalar else {"ints": v}
        b.device({"name": f"d{i:02d}", "attributes": {"numa": attr}})
    return for_pools(gather_pools([b.build()])[0])


def _allocate(values: list[list[int]], claim: dict[str, Any], features: Features,
              as_scalar: bool = False) -> list[str] | None:
    devices, counters = _devices(values, as_scalar)
    res = Allocator(devices, counters, {"gpu": CLASS}, [], AllocatedState(), lambda: "x",
                    features=features).allocate([claim], NODE)
    return None if res is None else [r["device"] for r in res[0]["devices"]["results"]]


def _claim(count: int, kind: str) -> dict[str, Any]:
    c = make_resource_claim("c", "ns").request("gpu", "gpu", count).build()
    c["spec"]["devices"]["constraints"] = [{kind: ATTR}]
    return c


@settings(max_examples=60, deadline=None)
@given(_sets, st.integers(1, 4))
def test_match_is_a_common_element_and_found_when_one_exists(values: list[list[int]], n: int) -> None:
    got = _allocate(values, _claim(n, "matchAttribute"), LISTS)
    subsets = [c for c in combinations(range(len(values)), n)
               if set.intersection(*(set(values[i]) for i in c))]
    if got is None:
        assert not subsets, "a matching set of devices exists but none was allocated"
    else:
        idx = [int(d[1:]) for d in got]
        assert len(idx) == n and set.intersection(*(set(values[i]) for i in idx))


@settings(max_examples=60, deadline=None)
@given(_sets, st.integers(1, 4))
def test_distinct_is_pairwise_disjoint_and_found_when_possible(values: list[list[int]], n: int) -> None:
    got = _allocate(values, _claim(n, "distinctAttribute"), LISTS)
    def disjoint(c: tuple[int, ...]) -> bool:
        return all(not set(values[a]) & set(values[b]) for a, b in combinations(c, 2))
    possible = any(disjoint(c) for c in combinations(range(len(values)), n))
    if got is None:
        assert not possible
    else:
        assert disjoint(tuple(int(d[1:]) for d in got))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(1, 3),
       st.sampled_from(["matchAttribute", "distinctAttribute"]))
def test_one_element_lists_behave_like_scalars(values: list[int], n: int, kind: str) -> None:
    singletons = [[v] for v in values]
    with_lists = _allocate(singletons, _claim(n, kind), LISTS)
    scalars = _allocate(singletons, _claim(n, kind), Features(), as_scalar=True)
    assert with_lists == scalars


@given(st.lists(st.integers(0, 3), min_size=1, max_size=3))
def test_gate_off_a_list_value_never_satisfies_a_constraint(values: list[int]) -> None:
    attr = ("int", tuple(values), True)
    assert not match_ok([attr], lists=False)
    assert not distinct_ok([attr], lists=False)
    assert match_ok([attr], lists=True)


def test_kinds_never_mix() -> None:
    assert not match_ok([("int", (1,), False), ("string", ("1",), False)], lists=True)
    assert not match_ok([("int", (1,), False), ("bool", (True,), False)], lists=False)
    assert distinct_ok([("int", (1,), False), ("bool", (True,), False)], lists=True)
