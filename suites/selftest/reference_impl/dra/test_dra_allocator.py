"""Hypothesis properties of the structured allocator."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_device, make_resource_claim, make_resource_slice
from reference_impl.dra import AllocatedState, Allocator, for_pools, gather_pools
from reference_impl.dra.state import apply_allocation

DRIVER = "gpu.test"
CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}
NODE = {"metadata": {"name": "n0", "labels": {}}}
NUMA = "resource.kubernetes.io/numaNode"


def _pools(numas: list[int], tainted: list[bool]) -> Any:
    b = make_resource_slice("s", DRIVER, "n0", "n0")
    for i, (n, t) in enumerate(zip(numas, tainted, strict=False)):
        taints = [{"key": "bad", "effect": "NoSchedule"}] if t else []
        b.device(make_device(f"d{i}", attributes={NUMA: n}, taints=taints))
    return gather_pools([b.build()])[0]


def _run(pools: Any, claims: list[dict[str, Any]]) -> list[list[dict[str, Any]] | None]:
    devices, counters = for_pools(pools)
    by_id = {d.id: d for d in devices}
    state = AllocatedState()
    out = []
    for c in claims:
        res = Allocator(devices, counters, {"gpu": CLASS}, [], state, lambda: "x").allocate([c], NODE)
        out.append(res)
        if res:
            apply_allocation(state, res[0], by_id)
    return out


_numas = st.lists(st.integers(0, 2), min_size=1, max_size=8)


@settings(max_examples=40, deadline=None)
@given(_numas, st.lists(st.integers(1, 3), min_size=1, max_size=6), st.data())
def test_never_double_allocated_and_match_holds(numas: list[int], counts: list[int], data: Any) -> None:
    tainted = data.draw(st.lists(st.booleans(), min_size=len(numas), max_size=len(numas)))
    tol = data.draw(st.booleans())
    tols = [{"key": "bad", "operator": "Exists"}] if tol else []
    claims = [make_resource_claim(f"c{i}", "ns").request("gpu", "gpu", n, tolerations=tols)
              .match_attribute(NUMA).build() for i, n in enumerate(counts)]
    results = _run(_pools(numas, tainted), claims)
    seen: set[str] = set()
    for res in results:
        if res is None:
            continue
        devs = [r["device"] for r in res[0]["devices"]["results"]]
        assert not seen & set(devs), "a device was allocated twice"
        seen |= set(devs)
        idx = [int(d[1:]) for d in devs]
        assert len({numas[i] for i in idx}) == 1, "matchAttribute violated"
        if not tol:
            assert not any(tainted[i] for i in idx), "NoSchedule-tainted device allocated"
    assert results == _run(_pools(numas, tainted), claims), "not deterministic"


def test_shared_device_gets_share_ids() -> None:
    b = make_resource_slice("s", DRIVER, "n0", "n0").device(
        make_device("d0", capacity={"mem": "10"}, allow_multiple=True))
    pools = gather_pools([b.build()])[0]
    claims = [make_resource_claim(f"c{i}", "ns").request("gpu", "gpu", capacity={"mem": "4"}).build()
              for i in range(3)]
    res = _run(pools, claims)
    assert res[0] and res[1] and res[2] is None  # 4 + 4 fits in 10, a third 4 does not
    assert res[0][0]["devices"]["results"][0]["shareID"]
