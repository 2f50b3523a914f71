"""The structured allocator with list-typed attributes in constraints
(DRAListTypeAttributes: ``matchAttribute`` as a non-empty intersection, ``distinctAttribute``
as pairwise disjoint sets), rows of upstream ``TestAllocator``
(allocatortesting/``allocator_testing.go``: the ``list-attributes-*`` and
``numanode-matchattribute-*`` rows)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.dra import Features
from suites.selftest.reference_impl.dra.upstream_dra_alloc_util import (
    CLAIM0,
    CLASS_A,
    DRIVER_A,
    NODE1,
    POOL1,
    REQ0,
    REQ1,
    Obj,
    Row,
    alloc,
    check,
    claim,
    cls,
    local,
    request,
    result,
    slice_,
)

ON = Features(list_type_attributes=True)
OFF = Features(list_type_attributes=False)
STR, NUMA, BOOL, VER = "stringAttribute", "numa", "boolAttribute", "driverVersion"
NUMA_NODE = "resource.kubernetes.io/numaNode"


def s(*v: str) -> Obj:
    return {"strings": list(v)}


def i(*v: int) -> Obj:
    return {"ints": list(v)}


def b(*v: bool) -> Obj:
    return {"bools": list(v)}


def v(*v: str) -> Obj:
    return {"versions": list(v)}


def one(x: str) -> Obj:
    return {"string": x}


def lrow(kind: str, attr: str, counts: list[int] | int, devices: dict[str, Obj],
         want: list[tuple[str, str]] | None, features: Features = ON, error: str = "",
         applies: list[str] | None = None) -> Row:
    """One claim, requests req-0.. with ``counts`` devices each, under one ``kind``
    (matchAttribute / distinctAttribute) constraint on ``attr``; devices in one slice."""
    name = attr if "/" in attr else f"{DRIVER_A}/{attr}"
    con: Obj = {kind: name}
    if applies:
        con["requests"] = applies
    reqs = [request(f"req-{n}", CLASS_A, c) for n, c in enumerate([counts] if isinstance(counts, int) else counts)]
    key = attr  # the attribute as the device publishes it (domain-qualified or not)
    if "/" in attr and attr.startswith(DRIVER_A + "/"):
        key = attr.split("/", 1)[1]
    devs = [{"name": n, "attributes": {key: a}} for n, a in devices.items()]
    out: Any = None if want is None else [alloc(local(NODE1), *[result(r, DRIVER_A, POOL1, d) for r, d in want])]
    return Row([claim(CLAIM0, *reqs, constraints=[con])], [cls(CLASS_A, DRIVER_A)],
               [slice_("slice-1", NODE1, POOL1, DRIVER_A, *devs)], want=out, error=error, features=features)


M, D = "matchAttribute", "distinctAttribute"
D1, D2, D3, D4, D0 = "device-1", "device-2", "device-3", "device-4", "device-0"


def both(*devs: str) -> list[tuple[str, str]]:
    return [(REQ0, d) for d in devs]


ROWS: dict[str, Row] = {
    "list-attributes-match-constaint-scalar-string-values": lrow(
        M, STR, 2, {D1: one("value1"), D2: one("value1")}, both(D1, D2)),
    "list-attributes-match-constaint-list-of-string-values-with-common-elements": lrow(
        M, STR, 2, {D1: s("value1", "value2", "value3"), D2: s("value2", "value3", "value4")}, both(D1, D2)),
    "list-attributes-match-constaint-list-of-string-values-with-partially-common-elements": lrow(
        M, STR, 3, {D1: s("value1", "value2"), D2: s("value2", "value3"), D3: s("value3", "value1")}, None),
    "list-attributes-match-constraint-backtrack-needs-intersection-restore": lrow(
        M, STR, 3, {D1: s("value1", "value2"), D2: s("value1"), D3: s("value2"), D4: s("value2")},
        both(D1, D3, D4)),
    "list-attributes-match-constaint-list-of-string-values-without-common-elements": lrow(
        M, STR, [1, 1], {D1: s("value1", "value2"), D2: s("value3", "value4")}, None),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements": lrow(
        M, STR, 2, {D1: one("value1"), D2: s("value1", "value2")}, both(D1, D2)),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-common-elements": lrow(
        M, STR, 3, {D1: one("value1"), D2: s("value1", "value2"), D3: s("value2", "value3")}, None),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-elements": lrow(
        M, STR, 2, {D1: one("value1"), D2: s("value2", "value3")}, None),
    "list-attributes-match-constaint-list-of-int-values-with-common-elements": lrow(
        M, NUMA, 2, {D1: i(0, 1, 2), D2: i(1, 2, 3)}, both(D1, D2)),
    "numanode-matchattribute-overlapping-lists-are-co-placed": lrow(
        M, NUMA_NODE, 2, {D1: i(4), D2: i(4, 5, 6, 7)}, both(D1, D2)),
    "numanode-matchattribute-disjoint-lists-are-not-allocated": lrow(
        M, NUMA_NODE, 2, {D1: i(0), D2: i(4, 5, 6, 7)}, None),
    "list-attributes-match-constaint-list-of-bool-values-with-common-elements": lrow(
        M, BOOL, 2, {D1: b(True, False), D2: b(True)}, both(D1, D2)),
    "list-attributes-match-constaint-list-of-version-values-with-common-elements": lrow(
        M, VER, 2, {D1: v("1.0.0", "1.1.0", "2.0.0"), D2: v("1.1.0", "2.0.0", "2.1.0")}, both(D1, D2)),
    "list-attributes-match-constaint-with-empty-or-unknown-type": lrow(
        M, STR, 2, {D1: {}, D2: s()}, None, error="unsupported attribute value"),
    "list-attributes-disabled-match-constraint-with-lists": lrow(
        M, STR, 2, {D1: s("value1", "value2", "value3"), D2: s("value2", "value3", "value4")}, None, OFF),
    "list-attributes-distinct-constraint-scalar-string-values-all-distinct": lrow(
        D, STR, 2, {D1: one("value1"), D2: one("value2")}, both(D1, D2)),
    "list-attributes-distinct-constraint-scalar-string-values-not-distinct": lrow(
        D, STR, 2, {D1: one("value1"), D2: one("value1")}, None),
    "list-attributes-distinct-constraint-single-request-count-3-not-distinct": lrow(
        D, STR, 3, {D1: one("value1"), D2: one("value2"), D3: one("value1")}, None),
    "list-attributes-distinct-constraint-single-request-count-3-all-distinct": lrow(
        D, STR, 3, {D1: one("value1"), D2: one("value2"), D3: one("value3")}, both(D1, D2, D3)),
    "list-attributes-distinct-constraint-list-of-string-values-all-distinct": lrow(
        D, STR, 2, {D1: s("value1", "value2"), D2: s("value2", "value3"), D3: s("value3", "value4")}, both(D1, D3)),
    "list-attributes-distinct-constraint-list-of-string-values-with-common-elements": lrow(
        D, STR, 2, {D1: s("value1", "value2", "value3"), D2: s("value2", "value4", "value5")}, None),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct": lrow(
        D, STR, 2, {D1: one("value1"), D2: s("value1", "value2"), D3: s("value2", "value3")}, both(D1, D3)),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements": lrow(
        D, STR, 2, {D1: one("value1"), D2: s("value1", "value2")}, None),
    "list-attributes-distinct-constraint-list-of-int-values-all-distinct": lrow(
        D, NUMA, 2, {D1: i(0, 1), D2: i(1, 2), D3: i(2, 3)}, both(D1, D3)),
    "list-attributes-distinct-constraint-list-of-bool-values-all-distinct": lrow(
        D, BOOL, 2, {D1: b(True), D2: b(True, False), D3: b(False)}, both(D1, D3)),
    "list-attributes-distinct-constraint-list-of-version-values-all-distinct": lrow(
        D, VER, 2, {D1: v("1.0.0", "1.1.0"), D2: v("1.1.0", "2.0.0"), D3: v("2.0.0", "2.1.0")}, both(D1, D3)),
    "list-attributes-distinct-constaint-with-empty-or-unknown-type": lrow(
        D, VER, 2, {D1: v(), D2: {}}, None, error="unsupported attribute value"),
    "list-attributes-disabled-distinct-constraint-with-lists": lrow(
        D, STR, 2, {D1: s("value1", "value2", "value3"), D2: s("value2", "value3", "value4")}, None, OFF),
    "list-attributes-distinct-constraint-backtrack-needs-remove": lrow(
        D, STR, [1, 1, 1], {D1: s("value1", "value2", "value3"), D2: s("value3", "value4", "value5"),
                            D3: s("value1", "value2"), D4: s("value3", "value4"), D0: s("value5", "value6")},
        [(REQ0, D3), (REQ1, D4), ("req-2", D0)], applies=[REQ0, REQ1, "req-2"]),
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in ROWS])
def test_allocator_list_attributes(name: str) -> None:
    check(ROWS[name])
