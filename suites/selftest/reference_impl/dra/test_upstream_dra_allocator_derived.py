"""The structured allocator with derived attributes (DRADerivedAttributes: per-request CEL
attributes that constraints compare), rows of upstream ``TestAllocator``
(allocatortesting/``allocator_testing.go``: the ``derived-attributes*`` rows)."""

from __future__ import annotations

import pytest

from reference_impl.dra import Features
from suites.selftest.reference_impl.dra.upstream_dra_alloc_util import (
    CLAIM0,
    CLASS_A,
    CLASS_B,
    DEV1,
    DEV2,
    DRIVER_A,
    DRIVER_B,
    NODE1,
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
    device,
    first_available,
    local,
    request,
    result,
    slice_,
    sub,
)

DEV3, DEV4 = "device-3", "device-4"
ON = Features(derived_attributes=True)
EXAMPLE = "dra.example.com"


def derived(r: Obj, name: str, expr: str) -> Obj:
    """requestWithDerivedAttributes (an ``exactly`` request or a sub)."""
    r.get("exactly", r)["derivedAttributes"] = [{"name": name, "expression": expr}]
    return r


def attr(driver: str, name: str) -> str:
    return f'device.attributes["{driver}"]["{name}"]'


def match(name: str, *requests: str) -> list[Obj]:
    return [{"matchAttribute": name, "requests": list(requests)}]


ROWS: dict[str, Row] = {
    "derived-attributes": Row(
        [claim(CLAIM0, derived(request(REQ0, CLASS_A), "derived/sharedNumaNode", attr(DRIVER_A, "numa")),
               derived(request(REQ1, CLASS_B), "derived/sharedNumaNode", attr(DRIVER_B, "numaNode")),
               constraints=match("derived/sharedNumaNode", REQ0, REQ1))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV2, None, attrs(numa="numa-0")),
                device(DEV1, None, attrs(numa="numa-1"))),
         slice_("slice-2", NODE1, POOL2, DRIVER_B, device(DEV3, None, attrs(numaNode="numa-1")),
                device(DEV4, None, attrs(numaNode="numa-2")))],
        features=ON,
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ1, DRIVER_B, POOL2, DEV3))]),
    "derived-attributes-with-prioritized-list": Row(
        [claim(CLAIM0, first_available(REQ0, derived(sub("subReq-0", CLASS_A), "derived/match", attr(DRIVER_A, "foo")),
                                       derived(sub("subReq-1", CLASS_A), "derived/match", attr(DRIVER_A, "bar"))),
               derived(request(REQ1, CLASS_B), "derived/match", attr(DRIVER_B, "baz")),
               constraints=match("derived/match", REQ0, REQ1))],
        [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(foo="A", bar="B"))),
         slice_("slice-2", NODE1, POOL2, DRIVER_B, device(DEV2, None, attrs(baz="B")))],
        features=ON,
        want=[alloc(local(NODE1), result("req-0/subReq-1", DRIVER_A, POOL1, DEV1),
                    result(REQ1, DRIVER_B, POOL2, DEV2))]),
    "derived-attributes-override": Row(
        [claim(CLAIM0, derived(request(REQ0, CLASS_A), f"{EXAMPLE}/myAttr", '"value-2"'), request(REQ1, CLASS_A),
               constraints=match(f"{EXAMPLE}/myAttr", REQ0, REQ1))],
        [cls(CLASS_A, EXAMPLE)],
        [slice_("slice-1", NODE1, POOL1, EXAMPLE, device(DEV1, None, attrs(myAttr="value-1")),
                device(DEV2, None, attrs(myAttr="value-2")))],
        features=ON,
        want=[alloc(local(NODE1), result(REQ0, EXAMPLE, POOL1, DEV1), result(REQ1, EXAMPLE, POOL1, DEV2))]),
    "derived-attributes-cel-missing-attribute": Row(
        [claim(CLAIM0, derived(request(REQ0, CLASS_A), "derived/missing", attr(DRIVER_A, "missingAttr")),
               constraints=match("derived/missing", REQ0))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(existingAttr="yes")))],
        features=ON, error="no such key: missingAttr"),
    "derived-attributes-type-mismatch": Row(
        [claim(CLAIM0, derived(request(REQ0, CLASS_A, 2), "derived/myAttr", attr(DRIVER_A, "static")),
               constraints=match("derived/myAttr", REQ0))],
        [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, device(DEV1, None, attrs(static="value")),
                device(DEV2, None, attrs(static=1)))],
        features=ON),
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in ROWS])
def test_allocator_derived_attributes(name: str) -> None:
    check(ROWS[name])
