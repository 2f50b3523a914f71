"""The structured allocator with partitionable devices (shared counters), more rows of
upstream ``TestAllocator`` (allocatortesting/``allocator_testing.go``: the
``partitionable-*`` rows not in test_upstream_dra_allocator_partitionable.py, and the pools
upstream rejects as invalid)."""

from __future__ import annotations

import pytest

from suites.selftest.reference_impl.dra.upstream_dra_alloc_util import (
    CLAIM0,
    CLAIM1,
    CLASS_A,
    CLASS_B,
    DEV1,
    DEV2,
    DRIVER_A,
    DRIVER_B,
    NO_SCHEDULE,
    NODE1,
    NODE2,
    POOL1,
    POOL2,
    REQ0,
    REQ1,
    Obj,
    Row,
    alloc,
    attrs,
    check,
    claim,
    cls,
    consuming,
    counter_slice,
    device,
    first_available,
    local,
    node,
    request,
    result,
    slice_,
    sub,
    taint,
)

DEV3 = "device-3"
CS1, CS2 = "counter-set-1", "counter-set-2"
CLASSES = [cls(CLASS_A, DRIVER_A)]
AB = [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)]
R0 = [claim(CLAIM0, request(REQ0, CLASS_A))]
INVALID = "invalid resource pools were encountered"


def on(n: str, *results: Obj) -> Obj:
    return alloc(local(n), *results)


def res(req: str, dev: str, pool: str = POOL1, driver: str = DRIVER_A) -> Obj:
    return result(req, driver, pool, dev)


def c(name: str, cset: str = CS1, fc: bool = False, **counters: str) -> Obj:
    """A device consuming ``counters`` from ``cset`` (``fc``: capacity fromCounters; a
    ``_`` in a counter's keyword stands for ``-``)."""
    return consuming(name, (cset, {k.replace("_", "-"): v for k, v in counters.items()}), from_counters=fc)


def grouped(d: Obj, *groups: str) -> Obj:
    """deviceCounterConsumptionWithGroups (group "mig" unless told)."""
    for use in d["consumesCounters"]:
        use["compatibilityGroups"] = list(groups or ("mig",))
    return d


def mem_at_least(q: str) -> str:
    return f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{q}")) >= 0'


def pl(small: str) -> Obj:
    """req-0 plus req-1 preferring >= 6Gi over >= ``small``."""
    return claim(CLAIM0, request(REQ0, CLASS_A), first_available(
        REQ1, sub("subReq-0", CLASS_A, 1, mem_at_least("6Gi")), sub("subReq-1", CLASS_A, 1, mem_at_least(small))))


ROWS: dict[str, Row] = {
    "partitionable-devices-counter-quantities-are-not-modified": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, c="9000000000000000000"), c(DEV2, c="1"), count=2),
         counter_slice("slice-2", 2, (CS1, {"c": "10000000000000000000"}))],
        allocated=[(DRIVER_A, POOL1, DEV1)], want=[on(NODE1, res(REQ0, DEV2))]),
    "partitionable-devices-counter-cache-scoped-by-pool-ID": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ1, CLASS_B))], AB,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, c="1"), count=2),
         counter_slice("slice-2", 2, (CS1, {"c": "1"})),
         slice_("slice-3", NODE1, POOL1, DRIVER_B, c(DEV2, c="2"), count=2),
         counter_slice("slice-4", 2, (CS1, {"c": "2"}), driver=DRIVER_B)],
        want=[on(NODE1, res(REQ0, DEV1)), on(NODE1, res(REQ1, DEV2, driver=DRIVER_B))]),
    "partitionable-devices-counter-cache-not-crossed-between-driver-schemas": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ1, CLASS_B))], AB,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, c="1"), count=2),
         counter_slice("slice-2", 2, (CS1, {"c": "1"})),
         slice_("slice-3", NODE1, POOL1, DRIVER_B, c(DEV2, CS2, d="2"), count=2),
         counter_slice("slice-4", 2, (CS2, {"d": "1"}), driver=DRIVER_B)]),
    "partitionable-devices-taint-releases-counter": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(c(DEV1, c="1"), NO_SCHEDULE), c(DEV2, c="1"), count=2),
         counter_slice("slice-2", 2, (CS1, {"c": "1"}))],
        want=[on(NODE1, res(REQ0, DEV2))]),
    "partitionable-devices-constraint-releases-counter": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": f"{DRIVER_A}/stringAttribute"}])],
        CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                *[{**c(d, c="1"), "attributes": attrs(stringAttribute=v)}
                  for d, v in ((DEV1, "red"), (DEV2, "blue"), (DEV3, "blue"))], count=2),
         counter_slice("slice-2", 2, (CS1, {"c": "2"}))],
        want=[on(NODE1, res(REQ0, DEV2), res(REQ0, DEV3))]),
    "partitionable-all-mode-constraint-must-error-with-reserved-counter": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"), constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}])],
        CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(numa=1)),
                {**c(DEV2, c="1"), "attributes": attrs(numa=2)}, count=2),
         counter_slice("slice-2", 2, (CS1, {"c": "1"}))],
        error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim "
              "constraint would not be satisfied"),
    "partitionable-devices-prioritized-list": Row(
        [pl("4Gi")], CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, fc=True, memory="4Gi"), c(DEV2, fc=True, memory="6Gi"),
                c(DEV3, fc=True, memory="4Gi"), count=2),
         counter_slice("slice-2", 2, (CS1, {"memory": "8Gi"}))],
        want=[on(NODE1, res(REQ0, DEV1), res("req-1/subReq-1", DEV3))]),
    "partitionable-devices-multiple-capacity-pools": Row(
        [pl("4Gi")], CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                *[consuming(d, (CS1, {"memory": m}), (CS2, {"cpus": n}))
                  for d, m, n in ((DEV1, "4Gi", "4"), (DEV2, "6Gi", "6"), (DEV3, "4Gi", "4"))], count=2),
         counter_slice("slice-2", 2, (CS1, {"memory": "18Gi"}), (CS2, {"cpus": "8"}))],
        want=[on(NODE1, res(REQ0, DEV1), res("req-1/subReq-1", DEV3))]),
    "partitionable-devices-multiple-pools": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A))], CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                *[consuming(d, (CS1, {"cpus": n, "memory": m}))
                  for d, n, m in ((DEV1, "6", "4Gi"), (DEV2, "4", "6Gi"), (DEV3, "4", "4Gi"))], count=2),
         counter_slice("slice-2", 2, (CS1, {"cpus": "8", "memory": "18Gi"})),
         slice_("slice-3", NODE1, POOL2, DRIVER_A,
                *[consuming(d, (CS1, {"cpus": n, "memory": m}))
                  for d, n, m in ((DEV1, "6", "4Gi"), (DEV2, "1", "7Gi"), (DEV3, "1", "7Gi"))], count=2),
         counter_slice("slice-4", 2, (CS1, {"cpus": "8", "memory": "18Gi"}), pool=POOL2)],
        allocated=[(DRIVER_A, POOL1, DEV2), (DRIVER_A, POOL1, DEV3), (DRIVER_A, POOL2, DEV1)],
        want=[on(NODE1, res(REQ0, DEV2, POOL2), res(REQ1, DEV3, POOL2))]),
    "partitionable-devices-unused-counters-in-counter-set": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2))], CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, memory="5Gi"), c(DEV2, memory="4Gi"),
                c(DEV3, memory="4Gi"), count=2),
         counter_slice("slice-2", 2, (CS1, {"memory": "8Gi", "unused": "1Gi"}))],
        want=[on(NODE1, res(REQ0, DEV2), res(REQ0, DEV3))]),
    "partitionable-devices-with-attribute-selector": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2),
               request(REQ1, CLASS_A, 1, f'device.attributes["{DRIVER_A}"].special'))], CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                *[{**consuming(d, (CS1, {cpu: "1"}), (CS2, {"mem": "10Gi"}), from_counters=False),
                   "attributes": attrs(special=sp)}
                  for d, cpu, sp in ((DEV1, "cpu1", True), (DEV2, "cpu2", False), (DEV3, "cpu3", False))], count=2),
         counter_slice("slice-2", 2, (CS1, {"cpu1": "1", "cpu2": "1", "cpu3": "1"}), (CS2, {"mem": "30Gi"}))],
        want=[on(NODE1, res(REQ0, DEV2), res(REQ0, DEV3), res(REQ1, DEV1))]),
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": Row(
        [claim(CLAIM0, first_available(REQ0, sub("subReq-0", CLASS_A, 1, mem_at_least("6Gi")),
                                       sub("subReq-1", CLASS_A, 1, mem_at_least("2Gi"))))], CLASSES,
        [counter_slice("slice-1", 3, (CS1, {"memory": "8Gi"})),
         slice_("slice-2", NODE1, POOL1, DRIVER_A, c(DEV1, fc=True, memory="6Gi"), c(DEV2, fc=True, memory="2Gi"),
                count=3),
         slice_("slice-3", NODE2, POOL1, DRIVER_A, c(DEV3, memory="6Gi"), count=3)],
        allocated=[(DRIVER_A, POOL1, DEV3)], want=[on(NODE1, res("req-0/subReq-1", DEV2))]),
    "partitionable-devices-devices-consume-counter-set-in-different-nodes": Row(
        R0, CLASSES,
        [counter_slice("slice-1", 3, (CS1, {"memory": "8Gi"})),
         slice_("slice-2", NODE1, POOL1, DRIVER_A, c(DEV1, fc=True, memory="6Gi"), count=3),
         slice_("slice-3", NODE2, POOL1, DRIVER_A, c(DEV2, fc=True, memory="6Gi"), c(DEV3, fc=True, memory="2Gi"),
                count=3)],
        allocated=[(DRIVER_A, POOL1, DEV1)], node=node(NODE2, "region-1"), want=[on(NODE2, res(REQ0, DEV3))]),
    "partitionable-devices-same-counter-set-name-in-different-resource-slices": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), count=4),
         counter_slice("slice-2", 4, (CS1, {})),
         slice_("slice-3", NODE1, POOL1, DRIVER_A, device(DEV2), count=4),
         counter_slice("slice-4", 4, (CS1, {}))],
        error=INVALID),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, CS2), count=2), counter_slice("slice-2", 2, (CS1, {}))],
        error=INVALID),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, memory="8Gi"), count=2),
         counter_slice("slice-2", 2, (CS1, {"other-memory": "8Gi"}))],
        error=INVALID),
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, c(DEV1, memory="8Gi")),
         counter_slice("slice-2", 1, (CS1, {"memory": "8Gi"}), pool=POOL2)],
        error=INVALID),
    "partitionable-devices-validation-error-on-non-targeting-slice": Row(
        R0, CLASSES,
        [counter_slice("slice-1", 3, (CS1, {"memory": "8Gi"})),
         slice_("slice-2", NODE1, POOL1, DRIVER_A, c(DEV1, fc=True, memory="6Gi"), count=3),
         slice_("slice-3", NODE2, POOL1, DRIVER_A, c(DEV3, CS2, memory="6Gi"), count=3)],
        error=INVALID),
    "compatibility-groups-disabled-skips-grouped-pool": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, grouped(c(DEV1, capacity_0="2")), count=2),
         counter_slice("slice-2", 2, (CS1, {"capacity-0": "4"})),
         slice_("slice-3", NODE1, POOL2, DRIVER_A, c(DEV2, CS2, capacity_0="2"), count=2),
         counter_slice("slice-4", 2, (CS2, {"capacity-0": "4"}), pool=POOL2)],
        want=[on(NODE1, res(REQ0, DEV2, POOL2))]),
    "compatibility-groups-disabled-skips-ungrouped-device-in-grouped-pool": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, grouped(c(DEV1, capacity_0="1")), count=3),
         slice_("slice-2", NODE1, POOL1, DRIVER_A, c(DEV2, capacity_0="1"), count=3),
         counter_slice("slice-3", 3, (CS1, {"capacity-0": "4"}))]),
    "invalid-pool-is-ok-if-devices-can-be-allocated-from-other": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), count=2),
         slice_("slice-2", NODE1, POOL1, DRIVER_A, device(DEV1), count=2),
         slice_("slice-3", NODE1, POOL2, DRIVER_A, device(DEV2))],
        want=[on(NODE1, res(REQ0, DEV2, POOL2))]),
    "invalid-pool-is-error-if-no-other-device-can-be-allocated": Row(
        R0, CLASSES,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), count=2),
         slice_("slice-2", NODE1, POOL1, DRIVER_A, device(DEV1), count=2),
         slice_("slice-3", NODE1, POOL2, DRIVER_A, device(DEV2))],
        allocated=[(DRIVER_A, POOL2, DEV2)], error=INVALID),
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in ROWS])
def test_allocator_counters(name: str) -> None:
    check(ROWS[name])
