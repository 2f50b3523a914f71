"""The structured allocator with consumable capacity (DRAConsumableCapacity: shared
devices, capacity requests and request policies), rows of upstream ``TestAllocator``
(allocatortesting/``allocator_testing.go``: the ``consumable-capacity-*``,
``allow-multiple-allocations-*``, ``distinct-constraint-*multi-allocatable*`` and
``partitionable-*consumable-capacity*`` rows). Upstream replaces every shareID with
one fixed value; here the share id is fixed."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.dra import Features
from suites.selftest.reference_impl.dra.upstream_dra_alloc_util import (
    CLAIM0,
    CLAIM1,
    CLASS_A,
    DEV1,
    DEV2,
    DRIVER_A,
    NODE1,
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
    device,
    first_available,
    local,
    multi,
    request,
    result,
    run,
    slice_,
    sub,
)

DEV3 = "device-3"
REQ2, REQ3 = "req-2", "req-3"
CAP0, CAP1 = "capacity-0", "capacity-1"
SKIPPED = ("the reference always runs with DRAConsumableCapacity on (its default in 1.37); "
           "a gate-off allocator is not modelled")


def asks(r: Obj, amount: str) -> Obj:
    """withCapacityRequest: ``amount`` of capacity-0 (an ``exactly`` request or a sub)."""
    spec = r.get("exactly", r)
    spec["capacity"] = {"requests": {CAP0: amount}}
    return r


def cls_multi(name: str, driver: str, allow: bool) -> Obj:
    """classWithAllowMultipleAllocations."""
    expr = f'device.driver == "{driver}" && device.allowMultipleAllocations == {str(allow).lower()}'
    return {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": expr}}]}}


def ranged(d: Obj, **caps: str) -> Obj:
    """withCapacityRequestPolicyRange: default 2, range 2..4 in steps of 2."""
    d.setdefault("capacity", {}).update({k.replace("_", "-"): {"value": v, "requestPolicy": {
        "default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}} for k, v in caps.items()})
    return d


def fractional(d: Obj, value: str) -> Obj:
    """withFractionalCapacityRequestPolicyRange: default 200m, range 200m..1 in 100m."""
    d.setdefault("capacity", {})[CAP0] = {"value": value, "requestPolicy": {
        "default": "200m", "validRange": {"min": "200m", "step": "100m", "max": "1"}}}
    return d


def valued(d: Obj, default: str, value: str, *more: str) -> Obj:
    """withCapacityRequestPolicyValidValues: the default, then ``more``."""
    d.setdefault("capacity", {})[CAP0] = {"value": value, "requestPolicy": {
        "default": default, "validValues": [default, *more]}}
    return d


def share(req: str, dev: str, **consumed: str) -> Obj:
    """withConsumedCapacity(&fixedShareID, consumed) (None: no consumed capacity)."""
    r: Obj = {**result(req, DRIVER_A, POOL1, dev), "shareID": SHARE}
    if consumed:
        r["consumedCapacity"] = {k.replace("_", "-"): v for k, v in consumed.items()}
    return r


def on_node(*results: Obj) -> Obj:
    return alloc(local(NODE1), *results)


def one_slice(*devices: Obj, count: int = 1) -> list[Obj]:
    return [slice_("slice-1", NODE1, POOL1, DRIVER_A, *devices, count=count)]


def kind(name: str, value: str, **more: Any) -> Obj:
    return device(name, None, attrs(kind=value, **more))


def sel(expr: str) -> str:
    return expr.replace("$", f'device.attributes["{DRIVER_A}"]')


CC = Features()
R0_1 = lambda: asks(request(REQ0, CLASS_A), "1")  # noqa: E731
MULTI = [cls_multi(CLASS_A, DRIVER_A, True)]
BIG = "18446744073709551616"

ROWS: dict[str, Row] = {
    "consumable-capacity-disabled-feature": Row(
        [claim(CLAIM0, R0_1())], [cls(CLASS_A, DRIVER_A)], one_slice(device(DEV1)),
        error="has capacity requests, but the DRAConsumableCapacity feature is disabled"),
    "consumable-capacity-disabled-feature-with-prioritized-list": Row(
        [claim(CLAIM0, first_available(REQ0, asks(sub("subReq-0", CLASS_A), "1"), asks(sub("subReq-1", CLASS_A), "1")))],
        [cls(CLASS_A, DRIVER_A)], one_slice(device(DEV1)),
        error="claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"),
    "consumable-capacity-multi-allocatable-device-with-missing-capacity-request": Row(
        [claim(CLAIM0, R0_1())], [cls(CLASS_A, DRIVER_A)], one_slice(multi(device(DEV1, {CAP1: "1"})))),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, mode="All"), "1"))], MULTI,
        one_slice(multi(device(DEV1, {CAP1: "1"})))),
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))], MULTI,
        one_slice(multi(device(DEV1))), want=[on_node(share(REQ0, DEV1)), on_node(share(REQ0, DEV1))]),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))], MULTI,
        one_slice(multi(device(DEV1, {CAP0: "1"})), multi(device(DEV2, {CAP0: "1"}))),
        want=[on_node(share(REQ0, DEV1, capacity_0="1")), on_node(share(REQ0, DEV2, capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))], MULTI,
        one_slice(multi(device(DEV1, {CAP0: "2"})))),
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request": Row(
        [claim(CLAIM0, R0_1()), claim(CLAIM1, R0_1())], MULTI, one_slice(multi(device(DEV1, {CAP0: "2"}))),
        want=[on_node(share(REQ0, DEV1, capacity_0="1")), on_node(share(REQ0, DEV1, capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))], MULTI,
        one_slice(ranged(multi(device(DEV1)), capacity_0="4")),
        want=[on_node(share(REQ0, DEV1, capacity_0="2")), on_node(share(REQ0, DEV1, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))], MULTI,
        one_slice(valued(multi(device(DEV1)), "0", "1")),
        want=[on_node(share(REQ0, DEV1, capacity_0="0")), on_node(share(REQ0, DEV1, capacity_0="0"))]),
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy": Row(
        [claim(CLAIM0, R0_1())], MULTI, one_slice(valued(multi(device(DEV1)), "0", "1"))),
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request": Row(
        [claim(CLAIM0, R0_1()), claim(CLAIM1, R0_1())], MULTI, one_slice(ranged(multi(device(DEV1)), capacity_0="4")),
        want=[on_node(share(REQ0, DEV1, capacity_0="2")), on_node(share(REQ0, DEV1, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-range-policy-step": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "3"))], MULTI, one_slice(ranged(multi(device(DEV1)), capacity_0="4")),
        want=[on_node(share(REQ0, DEV1, capacity_0="4"))]),
    "consumable-capacity-range-policy-request-above-int64-rejected": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), BIG))], MULTI,
        one_slice(ranged(multi(device(DEV1)), capacity_0="4")), error="cannot be represented"),
    "consumable-capacity-range-policy-rounded-value-overflow-rejected": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "9223372036854775807"))], MULTI,
        one_slice(ranged(multi(device(DEV1)), capacity_0="4")), error="cannot be represented"),
    "consumable-capacity-range-policy-overflow-aborts-not-skip": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), BIG))], MULTI,
        one_slice(ranged(multi(device(DEV1)), capacity_0="4"), multi(device(DEV2, {CAP0: "36893488147419103232"}))),
        error="cannot be represented"),
    "consumable-capacity-range-policy-allocation-mode-all-overflow-aborts": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, mode="All"), BIG))], MULTI,
        one_slice(ranged(multi(device(DEV1)), capacity_0="4")), error="cannot be represented"),
    "consumable-capacity-negative-request-aborts": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "-5"))], MULTI, one_slice(multi(device(DEV1, {CAP0: "10"}))),
        error="negative"),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"))], MULTI, one_slice(valued(multi(device(DEV1)), "1", "4", "2")),
        want=[on_node(share(REQ0, DEV1, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"))], MULTI, one_slice(valued(multi(device(DEV1)), "1", "3", "3")),
        want=[on_node(share(REQ0, DEV1, capacity_0="3"))]),
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request": Row(
        [claim(CLAIM0, R0_1()), claim(CLAIM1, asks(request(REQ0, CLASS_A), "2"))], MULTI,
        one_slice(ranged(multi(device(DEV1)), capacity_0="2"))),
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "6"))], MULTI, one_slice(ranged(multi(device(DEV1)), capacity_0="10"))),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"))], MULTI, one_slice(ranged(multi(device(DEV1)), capacity_0="4")),
        shared={(DRIVER_A, POOL1, DEV1): {CAP0: "2"}}, want=[on_node(share(REQ0, DEV1, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"))], MULTI,
        one_slice(ranged(multi(device(DEV1)), capacity_0="2"), ranged(multi(device(DEV2)), capacity_0="2")),
        shared={(DRIVER_A, POOL1, DEV1): {CAP0: "2"}}, want=[on_node(share(REQ0, DEV2, capacity_0="2"))]),
    "consumable-capacity-with-multi-allocatable-device-backtrack": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"), asks(request(REQ1, CLASS_A), "2"),
               constraints=[{"matchAttribute": f"{DRIVER_A}/stringAttribute"}]),
         claim(CLAIM1, asks(request(REQ0, CLASS_A), "2"))],
        [cls(CLASS_A, DRIVER_A)],
        one_slice(ranged(multi(device(DEV2, None, attrs(stringAttribute="stringAttributeValue1"))), capacity_0="2"),
                  ranged(multi(device(DEV1, None, attrs(stringAttribute="stringAttributeValue2"))), capacity_0="4")),
        want=[on_node(share(REQ0, DEV1, capacity_0="2"), share(REQ1, DEV1, capacity_0="2")),
              on_node(share(REQ0, DEV2, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-subrequest": Row(
        [claim(CLAIM0, first_available(REQ0, asks(sub("subReq-0", CLASS_A), "4"), asks(sub("subReq-1", CLASS_A), "2"),
                                       sub("subReq-1", CLASS_A)))],
        MULTI, one_slice(ranged(multi(device(DEV1)), capacity_0="2")),
        want=[on_node(share("req-0/subReq-1", DEV1, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"))], MULTI, one_slice(ranged(multi(device(DEV1)), capacity_0="2")),
        shared={(DRIVER_A, POOL1, DEV1): {CAP0: "2"}}),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, mode="All"), "2"))], MULTI,
        one_slice(multi(device(DEV1, {CAP0: "2"})), multi(device(DEV2))),
        want=[on_node(share(REQ0, DEV1, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, mode="All"), "2"))], MULTI,
        one_slice(multi(device(DEV1, {CAP0: "2"})), multi(device(DEV2, {CAP0: "1"}))),
        want=[on_node(share(REQ0, DEV1, capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient": Row(
        [claim(CLAIM0, R0_1(), asks(request(REQ1, CLASS_A, mode="All"), "1"))], [cls(CLASS_A, DRIVER_A)],
        one_slice(multi(device(DEV1, {CAP0: "2"})), multi(device(DEV2, {CAP0: "1"}))),
        want=[on_node(share(REQ0, DEV1, capacity_0="1"), share(REQ1, DEV1, capacity_0="1"),
                      share(REQ1, DEV2, capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, mode="All"), "1"))], [cls(CLASS_A, DRIVER_A)],
        one_slice(multi(device(DEV1, {CAP0: "2"})), multi(device(DEV2, {CAP0: "1"}))),
        shared={(DRIVER_A, POOL1, DEV1): {CAP0: "1"}},
        want=[on_node(share(REQ0, DEV1, capacity_0="1"), share(REQ0, DEV2, capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient": Row(
        [claim(CLAIM0, R0_1(), asks(request(REQ1, CLASS_A, mode="All"), "1"))], [cls(CLASS_A, DRIVER_A)],
        one_slice(multi(device(DEV1, {CAP0: "1"})), multi(device(DEV2, {CAP0: "1"})))),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, mode="All"), "1"))], [cls(CLASS_A, DRIVER_A)],
        one_slice(multi(device(DEV1, {CAP0: "1"})), multi(device(DEV2, {CAP0: "1"}))),
        shared={(DRIVER_A, POOL1, DEV1): {CAP0: "1"}}),
    "consumable-capacity-dedicated-device-with-consumable-capacity-request": Row(
        [claim(CLAIM0, R0_1())], [cls_multi(CLASS_A, DRIVER_A, False)], one_slice(device(DEV1, {CAP0: "1"})),
        want=[on_node(result(REQ0, DRIVER_A, POOL1, DEV1))]),
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request": Row(
        [claim(CLAIM0, R0_1()), claim(CLAIM1, R0_1())], [cls_multi(CLASS_A, DRIVER_A, False)],
        one_slice(ranged(device(DEV1), capacity_0="2"))),
    "consumable-capacity-requests-are-not-modified": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"), asks(request(REQ1, CLASS_A), "1000000000000000000000"))],
        [cls(CLASS_A, DRIVER_A)],
        one_slice(multi({"name": DEV1, "capacity": {CAP0: {"value": "1000000000000000000002", "requestPolicy": {
            "default": "1000000000000000000000", "validRange": {"min": "2"}}}}})),
        want=[on_node(share(REQ0, DEV1, capacity_0="2"), share(REQ1, DEV1, capacity_0="1000000000000000000000"))]),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": Row(
        [claim(CLAIM0, R0_1())], [cls_multi(CLASS_A, DRIVER_A, False)], one_slice(multi(device(DEV1, {CAP0: "1"})))),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated": Row(
        [claim(CLAIM0, R0_1())], MULTI, one_slice(ranged(multi(device(DEV1)), capacity_0="2")),
        allocated=[(DRIVER_A, POOL1, DEV1)]),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable": Row(
        [claim(CLAIM0, R0_1())], MULTI, one_slice(ranged(device(DEV1), capacity_0="2")),
        shared={(DRIVER_A, POOL1, DEV1): {CAP0: "1"}}),
    "allow-multiple-allocations-with-partitionable-device": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), first_available(
            REQ1, sub("subReq-0", CLASS_A, 1, f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("6Gi")) >= 0'),
            sub("subReq-1", CLASS_A, 1, f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("4Gi")) >= 0')))],
        MULTI,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, multi(consuming(DEV1, ("counter-set-1", {"memory": "4Gi"}))),
                multi(consuming(DEV2, ("counter-set-1", {"memory": "6Gi"}))),
                multi(consuming(DEV3, ("counter-set-1", {"memory": "4Gi"}))), count=2),
         counter_slice("slice-2", 2, ("counter-set-1", {"memory": "8Gi"}))],
        want=[on_node(share(REQ0, DEV1, memory="4Gi"), share("req-1/subReq-1", DEV3, memory="4Gi"))]),
    "allow-multiple-allocations-with-shared-device-counter-cross-cycle": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, 1, sel('$.mode == "b"')), "1"))], MULTI,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                multi({**consuming(DEV1, ("counter-set-1", {CAP0: "1"})), "attributes": attrs(mode="a")}),
                multi({**consuming(DEV2, ("counter-set-1", {CAP0: "1"})), "attributes": attrs(mode="b")}), count=2),
         counter_slice("slice-2", 2, ("counter-set-1", {CAP0: "1"}))],
        shared={(DRIVER_A, POOL1, DEV1): {CAP0: "1"}}),
    "partitionable-consumable-capacity-shared-device-counter-not-recharged": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                multi(consuming(DEV1, ("counter-set-1", {"c": "1"}), from_counters=False)), count=2),
         counter_slice("slice-2", 2, ("counter-set-1", {"c": "1"}))],
        shared={(DRIVER_A, POOL1, DEV1): {}}, want=[on_node(share(REQ0, DEV1))]),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": Row(
        [claim(CLAIM0, R0_1(), asks(request(REQ2, CLASS_A), "2"), first_available(
            REQ1,
            asks(sub("subReq-0", CLASS_A, 1, f'device.capacity["{DRIVER_A}"]["{CAP0}"].compareTo(quantity("4")) >= 0'), "1"),
            asks(sub("subReq-1", CLASS_A, 1, f'device.capacity["{DRIVER_A}"]["{CAP0}"].compareTo(quantity("2")) >= 0'), "1")))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, *[
            ranged(multi(consuming(name, ("counter-set-1", {CAP0: c0}), ("counter-set-2", {CAP1: "4"}))), capacity_1="4")
            for name, c0 in ((DEV1, "2"), (DEV2, "4"), (DEV3, "2"))], count=2),
         counter_slice("slice-2", 2, ("counter-set-1", {CAP0: "4"}), ("counter-set-2", {CAP1: "8"}))],
        want=[on_node(share(REQ0, DEV1, capacity_0="1", capacity_1="2"), share(REQ2, DEV3, capacity_0="2", capacity_1="2"),
                      share("req-1/subReq-1", DEV1, capacity_0="1", capacity_1="2"))]),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": Row(
        [claim(CLAIM0, R0_1(), asks(request(REQ1, CLASS_A), "1"),
               constraints=[{"distinctAttribute": f"{DRIVER_A}/stringAttribute"}])], MULTI,
        one_slice(ranged(multi(device(DEV1, None, attrs(stringAttribute="stringAttributeValue"))), capacity_0="2"))),
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "2"), asks(request(REQ1, CLASS_A), "2"),
               constraints=[{"distinctAttribute": f"{DRIVER_A}/stringAttribute"}])], MULTI,
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, ranged(multi(device(
            DEV1, None, attrs(stringAttribute="stringAttributeValue1"))), capacity_0="4"), count=2),
         slice_("slice-1", NODE1, POOL1, DRIVER_A, ranged(multi(device(
             DEV2, None, attrs(stringAttribute="stringAttributeValue2"))), capacity_0="4"), count=2)],
        want=[on_node(share(REQ0, DEV1, capacity_0="2"), share(REQ1, DEV2, capacity_0="2"))]),
    "consumable-capacity-fractional-range-gate-disabled": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "200m"))], MULTI, one_slice(fractional(multi(device(DEV1)), "1")),
        want=[on_node(share(REQ0, DEV1, capacity_0="1"))]),
    "consumable-capacity-fractional-range-gate-enabled-round-up": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A), "250m"))], MULTI, one_slice(fractional(multi(device(DEV1)), "1")),
        features=Features(fractional_capacity_range=True), want=[on_node(share(REQ0, DEV1, capacity_0="300m"))]),
    "partitionable-consumable-capacity-backtrack-releases-counter": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, sel('$.kind == "shared"')),
               request(REQ1, CLASS_A, 1, sel('$.kind == "counteronly"')))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                multi({**consuming(DEV1, ("counter-set-1", {"c": "1"}), from_counters=False), "attributes": attrs(kind="shared")}),
                kind(DEV2, "shared"),
                {**consuming(DEV3, ("counter-set-1", {"c": "1"}), from_counters=False), "attributes": attrs(kind="counteronly")},
                count=2),
         counter_slice("slice-2", 2, ("counter-set-1", {"c": "1"}))],
        want=[on_node(result(REQ0, DRIVER_A, POOL1, DEV2), result(REQ1, DRIVER_A, POOL1, DEV3))]),
    "consumable-capacity-rejection-rolls-back-constraints": Row(
        [claim(CLAIM0, asks(request(REQ0, CLASS_A, 1, sel('$.stringAttribute == "cap"')), "2")),
         claim(CLAIM1, first_available(
             REQ0, asks(sub("subReq-0", CLASS_A, 1, sel('$.stringAttribute == "cap"'), mode="All"), "2"),
             sub("subReq-1", CLASS_A, 1, sel('$.stringAttribute == "fb"'))),
               constraints=[{"matchAttribute": f"{DRIVER_A}/stringAttribute"}])],
        [cls(CLASS_A, DRIVER_A)],
        one_slice(multi(device(DEV1, {CAP0: "2"}, attrs(stringAttribute="cap"))),
                  device(DEV2, None, attrs(stringAttribute="fb"))),
        want=[on_node(share(REQ0, DEV1, capacity_0="2")), on_node(result("req-0/subReq-1", DRIVER_A, POOL1, DEV2))]),
    "partitionable-empty-capacity-multiple-share-backtrack-keeps-counter-ownership": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, sel('$.kind == "shared"'))),
         claim(CLAIM1, request(REQ1, CLASS_A, 1, sel('$.kind == "shared" || $.kind == "fallback"')),
               request(REQ2, CLASS_A, 1, sel('$.kind == "gate"')),
               request(REQ3, CLASS_A, 1, sel('$.kind == "shared"')),
               constraints=[{"matchAttribute": f"{DRIVER_A}/stringAttribute", "requests": [REQ1, REQ2]}])],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                multi({**consuming(DEV1, ("counter-set-1", {"c": "1"}), from_counters=False),
                       "attributes": attrs(kind="shared", stringAttribute="red")}),
                kind(DEV2, "fallback", stringAttribute="blue"), kind(DEV3, "gate", stringAttribute="blue"), count=2),
         counter_slice("slice-2", 2, ("counter-set-1", {"c": "1"}))],
        want=[on_node(share(REQ0, DEV1)),
              on_node(result(REQ1, DRIVER_A, POOL1, DEV2), result(REQ2, DRIVER_A, POOL1, DEV3), share(REQ3, DEV1))]),
}

SKIP = {
    "consumable-capacity-disabled-feature": SKIPPED,
    "consumable-capacity-disabled-feature-with-prioritized-list": SKIPPED,
}


@pytest.mark.parametrize("name", [
    pytest.param(n, id=n, marks=[pytest.mark.skip(reason=SKIP[n])] if n in SKIP else []) for n in ROWS])
def test_allocator_capacity(name: str) -> None:
    check(ROWS[name])


@pytest.mark.parametrize(("name", "want"), [
    ("consumable-capacity-fractional-range-gate-enabled-round-up", {CAP0: "300m"}),  # NewMilliQuantity
    ("consumable-capacity-fractional-range-gate-disabled", {CAP0: "1"}),
    ("allow-multiple-allocations-with-partitionable-device", {"memory": "4Gi"}),  # the capacity's own
    ("consumable-capacity-requests-are-not-modified", {CAP0: "2"}),
])
def test_consumed_capacity_strings(name: str, want: dict[str, str]) -> None:
    """The consumed amounts are written as upstream's Quantity.String() of the quantity
    they come from (here compared as strings, not only as amounts)."""
    out = run(ROWS[name])
    assert out is not None
    assert out[0]["devices"]["results"][0]["consumedCapacity"] == want
