"""The memoised candidate lists (``dra/candidates.py``) agree with the unmemoised walk.

The memo path shares a driver-only expression's verdict among the devices of one call and
keeps no per-device verdict for a device of one node's own (its node's candidate list
holds it); neither may change which devices are candidates, nor the order.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_device, make_resource_claim, make_resource_slice
from reference_impl.dra import for_pools, gather_pools
from reference_impl.dra.candidates import Candidates
from reference_impl.dra.features import Features

DRIVERS = ("a.test", "b.test")
NODE = {"metadata": {"name": "n0", "labels": {}, "resourceVersion": "3"}}
EXPRESSIONS = (
    'device.driver == "a.test"',  # driver-only: answered once per (driver, sharing)
    "device.allowMultipleAllocations",  # driver-only too (SHALLOW_FIELDS)
    "device.attributes[device.driver].index >= 1",  # reads an attribute: evaluated per device
)

_device = st.tuples(st.sampled_from(DRIVERS), st.booleans(), st.booleans(), st.booleans())


def _devices(spec: list[tuple[str, bool, bool, bool]]) -> Any:
    """(driver, allowMultipleAllocations, tainted, on every node) per device; a device on
    every node comes from a shared slice, the others from node n0's."""
    slices = []
    for i, (driver, multiple, tainted, everywhere) in enumerate(spec):
        b = make_resource_slice(f"s{i}", driver, f"p{i}", None if everywhere else "n0")
        if everywhere:
            b.all_nodes()
        taints = [{"key": "bad", "effect": "NoSchedule"}] if tainted else []
        b.device(make_device(f"d{i}", attributes={"index": i}, taints=taints, allow_multiple=multiple))
        slices.append(b.build())
    return for_pools(gather_pools(slices)[0])[0]


def _spec(expr: str, tolerate: bool) -> Any:
    claim = make_resource_claim("c", "default").request("r", "gpu").build()
    spec = claim["spec"]["devices"]["requests"][0]["exactly"]
    spec["selectors"] = [{"cel": {"expression": expr}}]
    if tolerate:
        spec["tolerations"] = [{"key": "bad", "operator": "Exists"}]
    return spec


@settings(max_examples=80, deadline=None)
@given(st.lists(_device, min_size=1, max_size=8), st.sampled_from(EXPRESSIONS), st.booleans())
def test_memoised_candidates_equal_the_plain_walk(
    spec: list[tuple[str, bool, bool, bool]], expr: str, tolerate: bool
) -> None:
    classes = {"gpu": {"metadata": {"name": "gpu"}, "spec": {"selectors": []}}}
    request = _spec(expr, tolerate)
    plain = Candidates(_devices(spec), classes, [], Features(), None)
    want = [d.id for d in plain.of(request, NODE)]
    memo: dict[Any, Any] = {}
    devices = _devices(spec)  # fresh objects: no selector verdicts cached on them yet
    memoised = Candidates(devices, classes, [], Features(), memo)
    for _ in range(2):  # the second round is answered from the node's candidate list
        assert [d.id for d in memoised.of(request, NODE)] == want
    # Only devices on more than one node keep a verdict of their own.
    per_device = {k[2] for k in memo if k[0] != "candidates"}
    assert per_device == {d.id for d in devices if d.node_name is None}
