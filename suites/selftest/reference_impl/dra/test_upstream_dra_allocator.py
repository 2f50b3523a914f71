"""The structured allocator, rows of upstream ``TestAllocator``
(k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting,
``allocator_testing.go``) that the reference's ``Allocator`` can express: claims, classes,
slices and a node in; the allocation results (compared as upstream does, results in any
order) or an error containing upstream's text out."""

from __future__ import annotations

import pytest

from suites.selftest.reference_impl.dra.upstream_dra_alloc_util import (
    ALL,
    CLAIM0,
    CLAIM1,
    CLASS_A,
    CLASS_B,
    DEV1,
    DEV2,
    DRIVER_A,
    DRIVER_B,
    NO_EXECUTE,
    NO_SCHEDULE,
    NODE1,
    NODE2,
    POOL1,
    POOL2,
    REQ0,
    REQ1,
    SHARE,
    TOL_NO_EXECUTE,
    TOL_NO_SCHEDULE,
    Row,
    admin,
    alloc,
    attrs,
    check,
    claim,
    cls,
    device,
    first_available,
    labels,
    local,
    many,
    mem,
    multi,
    node,
    numas,
    one,
    request,
    result,
    slice_,
    strings,
    sub,
    taint,
    tolerate,
)

_small_large = [claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("1Gi")), request(REQ1, CLASS_A, 1, mem("2Gi")))]
_small_large_want = [alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ1, DRIVER_A, POOL1, DEV2))]

ROWS: dict[str, Row] = {
    "empty": Row([], [], [], want=None),
    "simple": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1))]),
    "other-node": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_B), one("slice-2", NODE2, POOL2, DRIVER_A)],
        want=[alloc(local(NODE2), result(REQ0, DRIVER_A, POOL2, DEV1))], node=node(NODE2, "region-2")),
    "small-and-large": Row(
        _small_large, [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "1Gi"}), device(DEV2, {"memory": "2Gi"}))],
        want=_small_large_want),
    "small-and-large-backtrack-requests": Row(
        _small_large, [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV2, {"memory": "2Gi"}), device(DEV1, {"memory": "1Gi"}))],
        want=_small_large_want),
    "small-and-large-backtrack-claims": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("1Gi"))), claim(CLAIM1, request(REQ1, CLASS_A, 1, mem("2Gi")))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV2, {"memory": "2Gi"}), device(DEV1, {"memory": "1Gi"}))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1)),
              alloc(local(NODE1), result(REQ1, DRIVER_A, POOL1, DEV2))]),
    "devices-split-across-different-slices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A), one("slice-2", NODE1, POOL2, DRIVER_A)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ0, DRIVER_A, POOL2, DEV1))]),
    "obsolete-slice": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1-obsolete", NODE1, POOL1, DRIVER_A, device(DEV1), count=2),
         slice_("slice-1-obsolete", NODE1, POOL1, DRIVER_A, device(DEV2), count=2, generation=2)],
        want=None),
    "duplicate-slice": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), count=2),
         slice_("slice-1-2", NODE1, POOL1, DRIVER_A, device(DEV1), count=2)],
        error="invalid resource pools were encountered"),
    "no-slices": Row([claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)], [], want=None),
    "not-enough-suitable-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM0, request(REQ1, CLASS_A))],
        [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)], want=None),
    "no-classes": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [], [one("slice-1", NODE1, POOL1, DRIVER_A)],
        error="could not retrieve device class class-a"),
    "unknown-class": Row(
        [claim(CLAIM0, request(REQ0, "unknown-class"))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A)], error="could not retrieve device class unknown-class"),
    "empty-class": Row(
        [claim(CLAIM0, request(REQ0, ""))], [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)],
        error="claim claim-0, request req-0: missing device class name (unsupported request type?)"),
    "no-claims-to-allocate": Row([], [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)], want=None),
    "all-devices-single": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1))]),
    "all-devices-many": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A), one("slice-1", NODE1, POOL2, DRIVER_A)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ0, DRIVER_A, POOL2, DEV1))]),
    "all-devices-plus-another": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All")), claim(CLAIM1, request(REQ0, CLASS_B))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [one("slice-1", NODE1, POOL1, DRIVER_A), one("slice-1", NODE1, POOL1, DRIVER_B)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1)),
              alloc(local(NODE1), result(REQ0, DRIVER_B, POOL1, DEV1))]),
    "all-devices-no-solution": Row(
        [claim(CLAIM1, request(REQ0, CLASS_A)), claim(CLAIM0, request(REQ0, CLASS_A, mode="All"))],
        [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)], want=None),
    "all-devices-no-solution-reversed": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All")), claim(CLAIM1, request(REQ0, CLASS_A))],
        [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)], want=None),
    "all-devices-slice-without-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A)], want=None),
    "all-devices-no-slices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"))], [cls(CLASS_A, DRIVER_A)], [], want=None),
    "all-devices-some-allocated": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), device(DEV2))], want=None,
        allocated=[(DRIVER_A, POOL1, DEV1)]),
    "network-attached-device": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", labels("region", "region-1"), POOL1, DRIVER_A)],
        want=[alloc(labels("region", "region-1"), result(REQ0, DRIVER_A, POOL1, DEV1))]),
    "unsuccessful-allocation-network-attached-device": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", labels("region", "region-1"), POOL1, DRIVER_A)], want=None,
        node=node(NODE2, "region-2")),
    "many-network-attached-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 4))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", labels("region", "region-1"), POOL1, DRIVER_A), one("slice-1", ALL, POOL2, DRIVER_A),
         one("slice-1", labels("planet", "earth"), "pool-3", DRIVER_A), one("slice-1", local(NODE1), "pool-4", DRIVER_A)],
        want=[alloc({"nodeSelectorTerms": [{  # the union of the slices' selectors
            "matchExpressions": [{"key": "region", "operator": "In", "values": ["region-1"]},
                                 {"key": "planet", "operator": "In", "values": ["earth"]}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE1]}]}]},
            *[result(REQ0, DRIVER_A, p, DEV1) for p in (POOL1, POOL2, "pool-3", "pool-4")])]),
    "local-and-network-attached-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", labels("region", "region-1"), POOL1, DRIVER_A), one("slice-1", NODE1, POOL2, DRIVER_A)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ0, DRIVER_A, POOL2, DEV1))]),
    "several-different-drivers": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM0, request(REQ0, CLASS_B))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), device(DEV2)), one("slice-1", NODE1, POOL1, DRIVER_B)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1)),
              alloc(local(NODE1), result(REQ0, DRIVER_B, POOL1, DEV1))]),
    "already-allocated-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=None, allocated=[(DRIVER_A, POOL1, DEV1), (DRIVER_A, POOL1, DEV2)]),
    "admin-access-enabled": Row(
        [admin(claim(CLAIM0, request(REQ0, CLASS_A)))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1, admin=True))],
        allocated=[(DRIVER_A, POOL1, DEV1), (DRIVER_A, POOL1, DEV2)]),
    "with-constraint": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A), constraints=[
            {"matchAttribute": f"{DRIVER_A}/{a}"} for a in ("numa", "driverVersion", "stringAttribute", "boolAttribute")])],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, *[device(d, None, attrs(
            driverVersion="v:1.0.0", numa=1, stringAttribute="stringAttributeValue", boolAttribute=True))
            for d in (DEV1, DEV2)])],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ1, DRIVER_A, POOL1, DEV2))]),
    "with-constraint-non-existent-attribute": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), constraints=[{"matchAttribute": f"{DRIVER_A}/NonExistentAttribute"}])],
        [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)], want=None),
    "with-constraint-not-matching-int-attribute": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}])],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(numa=1)), device(DEV2, None, attrs(numa=2)))],
        want=None),
    **{f"with-constraint-not-matching-{kind}-attribute": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": f"{DRIVER_A}/{attr}"}])],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(**{attr: a})),
                device(DEV2, None, attrs(**{attr: b})))], want=None)
       for kind, attr, a, b in (("string", "stringAttribute", "stringAttributeValue", "stringAttributeValue2"),
                                ("bool", "boolAttribute", True, False),
                                ("version", "driverVersion", "v:1.0.0", "v:2.0.0"))},
    "with-constraint-not-matching-int-attribute-all-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"), constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}])],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(numa=1)), device(DEV2, None, attrs(numa=2)))],
        error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim "
              "constraint would not be satisfied"),
    "with-constraint-for-request": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A),
               constraints=[{"requests": [REQ0], "matchAttribute": f"{DRIVER_A}/driverVersion"}])],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(driverVersion="v:1.0.0")),
                device(DEV2, None, attrs(driverVersion="v:2.0.0")))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ1, DRIVER_A, POOL1, DEV2))]),
    "with-constraint-for-request-retry": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A),
               constraints=[{"requests": [REQ0], "matchAttribute": f"{DRIVER_A}/driverVersion"},
                            {"matchAttribute": f"{DRIVER_A}/stringAttribute"}])],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                device(DEV1, None, attrs(driverVersion="v:1.0.0", stringAttribute="a")),
                device(DEV2, None, attrs(driverVersion="v:2.0.0", stringAttribute="b")),
                device("device-3", None, attrs(driverVersion="v:3.0.0", stringAttribute="b")))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV2), result(REQ1, DRIVER_A, POOL1, "device-3"))]),
    "invalid-CEL-one-device": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, "noSuchVar"))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A)], error="undeclared reference"),
    "invalid-CEL-one-device-class": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))],
        [{"metadata": {"name": CLASS_A}, "spec": {"selectors": [{"cel": {"expression": "noSuchVar"}}]}}],
        [one("slice-1", NODE1, POOL1, DRIVER_A)], error="undeclared reference"),
    "invalid-CEL-all-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, "noSuchVar", mode="All"))], [cls(CLASS_A, DRIVER_A)],
        [one("slice-1", NODE1, POOL1, DRIVER_A)], error="undeclared reference"),
    "too-many-devices-single-request": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 500))], [cls(CLASS_A, DRIVER_A)], [],
        error="exceeds the claim limit"),
    "many-devices-okay": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 32))], [cls(CLASS_A, DRIVER_A)], [], want=None),
    "too-many-devices-total": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 32), request(REQ1, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [many(33)], error="exceeds the claim limit"),
    "exact-count-total-overflows-claim-limit": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2**62), request(REQ1, CLASS_A, 2**62))],
        [cls(CLASS_A, DRIVER_A)], [], error="exceeds the claim limit"),
    "exact-count-total-would-wrap-to-zero": Row(
        [claim(CLAIM0, *[request(f"req-{i}", CLASS_A, 2**62) for i in range(4)])],
        [cls(CLASS_A, DRIVER_A)], [], error="exceeds the claim limit"),
    "exact-count-sum-exceeds-claim-limit": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 20), request(REQ1, CLASS_A, 20))],
        [cls(CLASS_A, DRIVER_A)], [], error="request req-1: adding 20 devices exceeds the claim limit"),
    "exact-count-sum-exactly-fills-claim-limit": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 16), request(REQ1, CLASS_A, 16))],
        [cls(CLASS_A, DRIVER_A)], [many(32)],
        want=[alloc(local(NODE1), *[result(REQ0 if i < 16 else REQ1, DRIVER_A, POOL1, f"device-{i}")
                                    for i in range(32)])]),
    "all-devices-invalid-CEL": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 500))], [cls(CLASS_A, DRIVER_A)], [],
        error="exceeds the claim limit"),
    "prioritized-list-first-unavailable": Row(
        [claim(CLAIM0, first_available(REQ0, ("subReq-0", CLASS_B, 1), ("subReq-1", CLASS_A, 1)))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)], [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_A, POOL1, DEV1))]),
    "prioritized-list-non-available": Row(
        [claim(CLAIM0, first_available(REQ0, ("subReq-0", CLASS_B, 2), ("subReq-1", CLASS_A, 2)))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [one("slice-1", NODE1, POOL1, DRIVER_A), one("slice-2", NODE1, POOL2, DRIVER_B)], want=None),
    "tainted-two-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE), taint(device(DEV2), NO_EXECUTE))],
        want=None),
    "tainted-one-device-two-taints": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE, NO_EXECUTE))], want=None),
    "tainted-two-devices-tolerated": Row(
        [tolerate(claim(CLAIM0, request(REQ0, CLASS_A)), TOL_NO_EXECUTE)], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE), taint(device(DEV2), NO_EXECUTE))],
        want=[alloc(local(NODE1), {**result(REQ0, DRIVER_A, POOL1, DEV2), "tolerations": [TOL_NO_EXECUTE]})]),
    "tainted-two-devices-prioritized-list-tolerated": Row(
        [claim(CLAIM0, {"name": REQ0, "firstAvailable": [
            {"name": "subReq-0", "deviceClassName": CLASS_A, "allocationMode": "ExactCount", "count": 1},
            {"name": "subReq-1", "deviceClassName": CLASS_A, "allocationMode": "ExactCount", "count": 1,
             "tolerations": [TOL_NO_EXECUTE]}]})],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE), taint(device(DEV2), NO_EXECUTE))],
        want=[alloc(local(NODE1), {**result("req-0/subReq-1", DRIVER_A, POOL1, DEV2), "tolerations": [TOL_NO_EXECUTE]})]),
    "tainted-no-effect": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), {**NO_SCHEDULE, "effect": "None"}))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1))]),
    "tainted-one-device-two-taints-both-tolerated": Row(
        [tolerate(claim(CLAIM0, request(REQ0, CLASS_A)), TOL_NO_SCHEDULE, TOL_NO_EXECUTE)], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE, NO_EXECUTE))],
        want=[alloc(local(NODE1), {**result(REQ0, DRIVER_A, POOL1, DEV1),
                                   "tolerations": [TOL_NO_SCHEDULE, TOL_NO_EXECUTE]})]),
    "tainted-prioritized-list": Row(
        [claim(CLAIM0, first_available(REQ0, ("subReq-0", CLASS_B, 1), ("subReq-1", CLASS_A, 1)))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE))], want=None),
    "tainted-admin-access": Row(
        [admin(claim(CLAIM0, request(REQ0, CLASS_A)))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE))], want=None,
        allocated=[(DRIVER_A, POOL1, DEV1), (DRIVER_A, POOL1, DEV2)]),
    "tainted-all-devices-single": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, mode="All"))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, taint(device(DEV1), NO_SCHEDULE))], want=None),
    "with-distinct-constraints": Row(
        [claim(CLAIM0, *[request(f"req-{i}", CLASS_A) for i in range(4)], constraints=[
            {"distinctAttribute": f"{DRIVER_A}/boolAttribute", "requests": ["req-0", "req-1"]},
            {"distinctAttribute": f"{DRIVER_A}/driverVersion", "requests": ["req-0", "req-1", "req-2"]},
            {"distinctAttribute": f"{DRIVER_A}/numa", "requests": ["req-0", "req-1", "req-2", "req-3"]}])],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, *[
            multi(device(f"device-{i + 1}", None, attrs(driverVersion=f"v:{v}", numa=i, boolAttribute=b)))
            for i, (v, b) in enumerate((("1.0.0", True), ("1.0.1", False), ("1.0.2", True), ("1.0.0", True)))])],
        want=[alloc(local(NODE1), *[{**result(f"req-{i}", DRIVER_A, POOL1, f"device-{i + 1}"), "shareID": SHARE}
                                    for i in range(4)])]),
    "distinct-constraint-single-request-count-3-not-distinct": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 3), constraints=[{"distinctAttribute": f"{DRIVER_A}/stringAttribute"}])],
        [cls(CLASS_A, DRIVER_A)], [strings("value1", "value2", "value1")], want=None),
    "distinct-constraint-single-request-count-3-all-distinct": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 3), constraints=[{"distinctAttribute": f"{DRIVER_A}/stringAttribute"}])],
        [cls(CLASS_A, DRIVER_A)], [strings("value1", "value2", "value3")],
        want=[alloc(local(NODE1), *[result(REQ0, DRIVER_A, POOL1, f"device-{i}") for i in (1, 2, 3)])]),
    "distinct-constraint-two-requests-with-count-not-distinct": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), request(REQ1, CLASS_A), constraints=[
            {"distinctAttribute": f"{DRIVER_A}/stringAttribute", "requests": [REQ0, REQ1]}])],
        [cls(CLASS_A, DRIVER_A)], [strings("value1", "value2", "value1")], want=None),
    "distinct-constraint-single-request-multiple-devices-attribute-not-set": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 3), constraints=[{"distinctAttribute": f"{DRIVER_A}/numa"}])],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, *[device(f"device-{i}") for i in (1, 2, 3)])], want=None),
    "distinct-constraint-single-request-not-enough-distinct-values": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 3), constraints=[{"distinctAttribute": f"{DRIVER_A}/numa"}])],
        [cls(CLASS_A, DRIVER_A)], [numas(1, 2, 2, 2)], want=None),
    "distinct-constraint-single-request-multiple-devices-attribute-set": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 3), constraints=[{"distinctAttribute": f"{DRIVER_A}/numa"}])],
        [cls(CLASS_A, DRIVER_A)], [numas(1, 2, 1, 3)],
        want=[alloc(local(NODE1), *[result(REQ0, DRIVER_A, POOL1, f"device-{i}") for i in (1, 2, 4)])]),
    "prioritized-list-subrequests-with-expressions": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("1Gi")),
               first_available(REQ1, sub("subReq-0", CLASS_A, 1, mem("4Gi")), sub("subReq-1", CLASS_A, 2, mem("2Gi"))))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "2Gi"}), device(DEV2, {"memory": "2Gi"}),
                device("device-3", {"memory": "1Gi"}))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, "device-3"),
                    result("req-1/subReq-1", DRIVER_A, POOL1, DEV1), result("req-1/subReq-1", DRIVER_A, POOL1, DEV2))]),
    "prioritized-list-subrequests-with-constraints-ref-parent-request": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("8Gi")),
               first_available(REQ1, sub("subReq-0", CLASS_A, 1, mem("2Gi")), sub("subReq-1", CLASS_A, 1, mem("1Gi"))),
               constraints=[{"requests": [REQ0, REQ1], "matchAttribute": f"{DRIVER_A}/driverVersion"}])],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "8Gi"}, attrs(driverVersion="v:1.0.0"))),
         slice_("slice-2", NODE1, POOL2, DRIVER_A, device(DEV2, {"memory": "2Gi"}, attrs(driverVersion="v:2.0.0")),
                device("device-3", {"memory": "1Gi"}, attrs(driverVersion="v:1.0.0")))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result("req-1/subReq-1", DRIVER_A, POOL2, "device-3"))]),
    "prioritized-list-subrequests-with-constraints-ref-sub-request": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("8Gi")),
               first_available(REQ1, sub("subReq-0", CLASS_A, 1, mem("2Gi")), sub("subReq-1", CLASS_A, 1, mem("1Gi"))),
               constraints=[{"requests": [REQ0, "req-1/subReq-0"], "matchAttribute": f"{DRIVER_A}/driverVersion"}])],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "8Gi"}, attrs(driverVersion="v:1.0.0"))),
         slice_("slice-2", NODE1, POOL2, DRIVER_A, device(DEV2, {"memory": "2Gi"}, attrs(driverVersion="v:2.0.0")))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result("req-1/subReq-1", DRIVER_A, POOL2, DEV2))]),
    "prioritized-list-subrequests-with-allocation-mode-all": Row(
        [claim(CLAIM0, first_available(REQ0, sub("subReq-0", CLASS_A, mode="All"), sub("subReq-1", CLASS_A)))],
        [cls(CLASS_A, DRIVER_A)], [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), device(DEV2))],
        want=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_A, POOL1, DEV2))],
        allocated=[(DRIVER_A, POOL1, DEV1)]),
    "prioritized-list-allocation-mode-all-multiple-requests": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A),
               first_available(REQ1, sub("subReq-0", CLASS_A, mode="All"), sub("subReq-1", CLASS_A)))],
        [cls(CLASS_A, DRIVER_A)], [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1), device(DEV2))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result("req-1/subReq-1", DRIVER_A, POOL1, DEV2))]),
    "prioritized-list-multi-request": Row(
        [claim(CLAIM0, request(REQ1, CLASS_A, 1, mem("8Gi")),
               first_available(REQ0, sub("subReq-0", CLASS_A, 1, mem("8Gi")), sub("subReq-1", CLASS_A, 1, mem("4Gi"))))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "8Gi"})),
         slice_("slice-2", NODE1, POOL2, DRIVER_A, device(DEV2, {"memory": "4Gi"}))],
        want=[alloc(local(NODE1), result(REQ1, DRIVER_A, POOL1, DEV1), result("req-0/subReq-1", DRIVER_A, POOL2, DEV2))]),
    "prioritized-list-with-backtracking": Row(
        [claim(CLAIM0, first_available(REQ0, sub("subReq-0", CLASS_A, 1, mem("8Gi")), sub("subReq-1", CLASS_A, 1, mem("4Gi"))),
               request(REQ1, CLASS_A, 1, mem("8Gi")))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "8Gi"})),
         slice_("slice-2", NODE1, POOL2, DRIVER_A, device(DEV2, {"memory": "4Gi"}))],
        want=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_A, POOL2, DEV2), result(REQ1, DRIVER_A, POOL1, DEV1))]),
    "prioritized-list-too-many-in-first-subrequest": Row(
        [claim(CLAIM0, first_available(REQ0, ("subReq-0", CLASS_B, 500), ("subReq-1", CLASS_A, 1)))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)], [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_A, POOL1, DEV1))]),
}


SKIPPED: dict[str, str] = {}


@pytest.mark.parametrize("name", [
    pytest.param(n, id=n, marks=[pytest.mark.skip(reason=SKIPPED[n])] if n in SKIPPED else [])
    for n in ROWS])
def test_allocator(name: str) -> None:
    check(ROWS[name])
