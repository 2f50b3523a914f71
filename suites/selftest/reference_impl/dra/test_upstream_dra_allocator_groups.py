"""The structured allocator with DRADeviceCompatibilityGroups and DRAOptionalNodeOperations
on, rows of upstream ``TestAllocator`` (allocatortesting/``allocator_testing.go``: the
``compatibility-groups-*`` rows with the gate on (the gate-off ones run in
test_upstream_dra_allocator_counters.py) and ``optional-node-operations*``), plus rows of
our own (``own-*``) for rules upstream's table leaves untested: a group-less device beside
grouped ones, the gate-off slices skipping node operations, and the scheduler's gates."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.dra import (
    AllocatedState,
    Allocator,
    Features,
    features_from,
    for_pools,
    gather_pools,
)
from reference_impl.dra.state import apply_allocation
from reference_impl.features import FeatureGates
from suites.selftest.reference_impl.dra.upstream_dra_alloc_util import (
    ALL,
    CLAIM0,
    CLAIM1,
    CLASS_A,
    DEV1,
    DEV2,
    DRIVER_A,
    NO_SCHEDULE,
    NODE1,
    NODE2,
    POOL1,
    REQ0,
    REQ1,
    SHARE,
    Obj,
    Row,
    alloc,
    attrs,
    check,
    claim,
    cls,
    consuming,
    counter_slice,
    first_available,
    local,
    multi,
    node,
    one,
    request,
    result,
    slice_,
    sub,
    taint,
)

DEV3 = "device-3"
CS1, CS2 = "counter-set-1", "counter-set-2"
CAP0 = "capacity-0"
CLASSES = [cls(CLASS_A, DRIVER_A)]
ON = Features(compatibility_groups=True)
NODE_OPS = Features(optional_node_operations=True)


def g(name: str, *groups: str, n: str = "2", sets: tuple[str, ...] = (CS1,), fc: bool = False) -> Obj:
    """device(name).withDeviceCounterConsumption(deviceCounterConsumptionWithGroups(set,
    {capacity-0: n}, groups...)) for each of ``sets`` (no groups: a plain consumption)."""
    d = consuming(name, *[(cs, {CAP0: n}) for cs in sets], from_counters=fc)
    for use in d["consumesCounters"]:
        if groups:
            use["compatibilityGroups"] = list(groups)
    return d


def pool(*devices: Obj, sets: tuple[str, ...] = (CS1,)) -> list[Obj]:
    """A device slice and a counter slice (4 of capacity-0 per set) of pool-1 on node-1."""
    return [slice_("slice-1", NODE1, POOL1, DRIVER_A, *devices, count=2),
            counter_slice("slice-2", 2, *[(cs, {CAP0: "4"}) for cs in sets])]


def on(*results: Obj) -> Obj:
    return alloc(local(NODE1), *results)


def res(req: str, dev: str) -> Obj:
    return result(req, DRIVER_A, POOL1, dev)


def asks(r: Obj, amount: str) -> Obj:
    """withCapacityRequest: ``amount`` of capacity-0."""
    r["exactly"]["capacity"] = {"requests": {CAP0: amount}}
    return r


def share(req: str, dev: str, **consumed: str) -> Obj:
    return {**res(req, dev), "shareID": SHARE, "consumedCapacity": {CAP0: consumed[CAP0.replace("-", "_")]}}


TWO = [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A))]
R0 = [claim(CLAIM0, request(REQ0, CLASS_A))]
BOTH = [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))]
MULTI_CLASS = [{"metadata": {"name": CLASS_A}, "spec": {"selectors": [{"cel": {"expression":
               f'device.driver == "{DRIVER_A}" && device.allowMultipleAllocations == true'}}]}}]


def skipping(s: Obj) -> Obj:
    """withSkipNodeOperations(SkipNodeOperationAll)."""
    s["spec"]["skipNodeOperations"] = ["*"]
    return s


def declaring(n: Obj) -> Obj:
    """nodeWithDRAOptionalNodeOperations."""
    n["status"] = {"declaredFeatures": ["DRAOptionalNodeOperations"]}
    return n


ROWS: dict[str, Row] = {
    "compatibility-groups-compatible": Row(
        TWO, CLASSES, pool(g(DEV1, "mig"), g(DEV2, "mig")), features=ON,
        want=[on(res(REQ0, DEV1), res(REQ1, DEV2))]),
    "compatibility-groups-incompatible": Row(
        TWO, CLASSES, pool(g(DEV1, "mig"), g(DEV2, "vgpu")), features=ON),
    "compatibility-groups-taint-rollback": Row(
        R0, CLASSES, pool(taint(g(DEV1, "mig"), NO_SCHEDULE), g(DEV2, "vgpu")), features=ON,
        want=[on(res(REQ0, DEV2))]),
    "compatibility-groups-incompatible-with-allocated-peer": Row(
        R0, CLASSES, pool(g(DEV1, "mig", n="1"), g(DEV2, "vgpu", n="1")), features=ON,
        allocated=[(DRIVER_A, POOL1, DEV1)]),
    "compatibility-groups-compatible-with-allocated-peer": Row(
        R0, CLASSES, pool(g(DEV1, "mig", n="1"), g(DEV2, "mig", n="1")), features=ON,
        allocated=[(DRIVER_A, POOL1, DEV1)], want=[on(res(REQ0, DEV2))]),
    "compatibility-groups-multiple-counter-sets": Row(
        TWO, CLASSES, pool(g(DEV1, "mig"), g(DEV2, "vgpu", sets=(CS2,)), sets=(CS1, CS2)), features=ON,
        want=[on(res(REQ0, DEV1), res(REQ1, DEV2))]),
    "compatibility-groups-multiple-counter-sets-spanning-device": Row(
        TWO, CLASSES, pool(g(DEV1, "mig", n="1"), g(DEV2, "vgpu", n="1", sets=(CS1, CS2)), sets=(CS1, CS2)),
        features=ON),
    "compatibility-groups-with-prioritized-list": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), first_available(
            REQ1, sub("subReq-0", CLASS_A, 2), sub("subReq-1", CLASS_A, 1)))], CLASSES,
        pool(g(DEV1, "mig", n="1"), g(DEV2, "mig", n="1"), g(DEV3, "vgpu", n="1")), features=ON,
        want=[on(res(REQ0, DEV1), res("req-1/subReq-1", DEV2))]),
    "compatibility-groups-with-consumable-capacity": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "1"), asks(request(REQ1, CLASS_A), "1"))], MULTI_CLASS,
        pool(*[multi(g(d, grp, n="1", fc=True)) for d, grp in ((DEV1, "mig"), (DEV2, "vgpu"), (DEV3, "mig"))]),
        features=ON, want=[on(share(REQ0, DEV1, capacity_0="1"), share(REQ1, DEV3, capacity_0="1"))]),
    "compatibility-groups-multiple-claims": Row(
        BOTH, CLASSES, pool(g(DEV1, "mig", n="1"), g(DEV2, "mig", n="1")), features=ON,
        want=[on(res(REQ0, DEV1)), on(res(REQ0, DEV2))]),
    "compatibility-groups-multiple-claims-incompatible": Row(
        BOTH, CLASSES, pool(g(DEV1, "mig", n="1"), g(DEV2, "vgpu", n="1")), features=ON),
    "optional-node-operations": Row(
        R0, CLASSES, [skipping(one("slice-1", NODE1, POOL1, DRIVER_A))], node=declaring(node(NODE1, "region-1")),
        features=NODE_OPS, want=[on({**res(REQ0, DEV1), "skipNodeOperations": ["*"]})]),
    "optional-node-operations-missing-feature": Row(
        R0, CLASSES, [skipping(one("slice-1", NODE1, POOL1, DRIVER_A))], features=NODE_OPS),
    # Own rows. A device declaring no groups goes only with others declaring none: a
    # group-less peer on the counter set keeps a grouped device out, and the reverse.
    "own-groupless-device-with-groupless-peer": Row(
        TWO, CLASSES, pool(g(DEV1), g(DEV2)), features=ON, want=[on(res(REQ0, DEV1), res(REQ1, DEV2))]),
    "own-grouped-device-with-groupless-allocated-peer": Row(
        R0, CLASSES, pool(g(DEV1, n="1"), g(DEV2, "mig", n="1")), features=ON, allocated=[(DRIVER_A, POOL1, DEV1)]),
    "own-groupless-device-with-grouped-peer": Row(
        TWO, CLASSES, pool(g(DEV1, "mig"), g(DEV2)), features=ON),
    # The intersection narrows: after "a,b" and "b,c" only "b" remains, so "a,c" is out.
    "own-intersection-narrows": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 3))], CLASSES,
        pool(g(DEV1, "a", "b", n="1"), g(DEV2, "b", "c", n="1"), g(DEV3, "a", "c", n="1")), features=ON),
    # Backtracking gives back what a released device folded in: req-0 first takes device-1
    # ("vgpu"), which keeps req-1's only candidate out; then device-2 ("mig") fits.
    "own-backtracking-restores-groups": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A, 1, f'device.attributes["{DRIVER_A}"].last'))], CLASSES,
        pool(*[{**g(d, grp, n="1"), "attributes": attrs(last=d == DEV3)}
               for d, grp in ((DEV1, "vgpu"), (DEV2, "mig"), (DEV3, "mig"))]), features=ON,
        want=[on(res(REQ0, DEV2), res(REQ1, DEV3))]),
    # With the gate off the incubating allocator (the default features) takes devices of
    # slices skipping node operations and copies nothing; the experimental one (any of its
    # alpha features on) leaves them out.
    "own-optional-node-operations-off-incubating": Row(
        R0, CLASSES, [skipping(one("slice-1", NODE1, POOL1, DRIVER_A))], node=declaring(node(NODE1, "region-1")),
        want=[on(res(REQ0, DEV1))]),
    "own-optional-node-operations-off-experimental": Row(
        R0, CLASSES, [skipping(one("slice-1", NODE1, POOL1, DRIVER_A))], node=declaring(node(NODE1, "region-1")),
        features=Features(list_type_attributes=True)),
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in ROWS])
def test_allocator_groups(name: str) -> None:
    check(ROWS[name])


def test_features_from_gates() -> None:
    """The scheduler's allocator features follow the gates (``AllocatorFeatures``)."""
    off = features_from(FeatureGates())
    assert not off.compatibility_groups and not off.optional_node_operations and not off.experimental
    on = features_from(FeatureGates({"DRADeviceCompatibilityGroups": True, "DRAOptionalNodeOperations": True}))
    assert on.compatibility_groups and on.optional_node_operations and on.experimental


def test_allocated_peer_outside_the_node_devices() -> None:
    """The baseline reads allocated peers from every published device (``published``),
    not only from the devices the allocator searches (the node's, in the scheduler): a
    node-2 device of the pool on the same counter set still keeps a disjoint group out."""
    slices = [slice_("slice-1", NODE1, POOL1, DRIVER_A, g(DEV2, "vgpu", n="1"), count=3),
              slice_("slice-3", NODE2, POOL1, DRIVER_A, g(DEV1, "mig", n="1"), count=3),
              counter_slice("slice-2", 3, (CS1, {CAP0: "4"}), where=ALL)]
    pools, _ = gather_pools(slices, None, True)
    devices, counters = for_pools(pools)
    by_id = {d.id: d for d in devices}
    state = AllocatedState()
    apply_allocation(state, {"devices": {"results": [res("r", DEV1)]}}, by_id)
    mine = [d for d in devices if d.node_name == NODE1]

    def allocate(published: Any) -> Any:
        return Allocator(mine, counters, {CLASS_A: CLASSES[0]}, [], state, lambda: SHARE, features=ON,
                         published=published).allocate(R0, node(NODE1, "region-1"))

    assert allocate(by_id.get) is None
    assert allocate(None) == [on(res(REQ0, DEV2))]  # without it the peer is unknown
