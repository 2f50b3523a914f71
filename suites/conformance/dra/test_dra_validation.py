"""DRA-CORE: the apiserver rejects invalid resource.k8s.io objects as upstream validates them.

A sample of upstream's ``pkg/apis/resource/validation`` rules (names and formats, list
limits, cross-field rules, CEL type checks, ResourceSlice node selection, /status rules):
each bad write MUST fail with Invalid naming exactly these field paths and error types,
and a good one MUST succeed. The full table, checked against the real apiserver with
``dryRun=All``, is ``fixtures/validation_diff``.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import DRA_API
from reference_impl.errors import Invalid

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]

Obj = dict[str, Any]
BAD = "!@#$%^"


def _claim(name: str, ns: str, *requests: Obj, **devices: Any) -> Obj:
    reqs = list(requests) or [{"name": "req-0", "exactly": {"deviceClassName": "gpu"}}]
    return {"apiVersion": DRA_API, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": ns},
            "spec": {"devices": {"requests": reqs, **devices}}}


def _req(**exactly: Any) -> Obj:
    return {"name": "req-0", "exactly": {"deviceClassName": "gpu", **exactly}}


def _slice(name: str, *devices: Obj, **spec: Any) -> Obj:
    body: Obj = {"driver": "dra.example.com", "pool": {"name": "pool", "resourceSliceCount": 1},
                 "nodeName": "worker", "devices": list(devices) or [{"name": "dev-0"}]}
    body.update(spec)
    return {"apiVersion": DRA_API, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {k: v for k, v in body.items() if v is not None}}


def _sel(expr: str) -> list[Obj]:
    return [{"cel": {"expression": expr}}]


REQ = "spec.devices.requests[0]"
CLAIMS: list[tuple[str, Any, set[tuple[str, str]]]] = [
    ("bad-class-name", lambda ns: _claim("c", ns, _req(deviceClassName=BAD)),
     {("FieldValueInvalid", f"{REQ}.exactly.deviceClassName")}),
    ("bad-request-name", lambda ns: _claim("c", ns, {"name": BAD, "exactly": {"deviceClassName": "gpu"}}),
     {("FieldValueInvalid", f"{REQ}.name")}),
    ("duplicate-request", lambda ns: _claim("c", ns, _req(), _req()),
     {("FieldValueDuplicate", "spec.devices.requests[1]")}),
    ("too-many-requests", lambda ns: _claim("c", ns, *[{"name": f"r{i}", "exactly": {"deviceClassName": "g"}}
                                                      for i in range(33)]),
     {("FieldValueTooMany", "spec.devices.requests")}),
    ("neither-exactly-nor-first-available", lambda ns: _claim("c", ns, {"name": "req-0"}),
     {("FieldValueRequired", REQ)}),
    ("all-with-count", lambda ns: _claim("c", ns, _req(allocationMode="All", count=2)),
     {("FieldValueInvalid", f"{REQ}.exactly.count")}),
    ("cel-undeclared", lambda ns: _claim("c", ns, _req(selectors=_sel("noSuchVar.driver == 'x'"))),
     {("FieldValueInvalid", f"{REQ}.exactly.selectors[0].cel.expression")}),
    ("cel-not-bool", lambda ns: _claim("c", ns, _req(selectors=_sel("device.driver"))),
     {("FieldValueInvalid", f"{REQ}.exactly.selectors[0].cel.expression")}),
    ("cel-too-long", lambda ns: _claim("c", ns, _req(selectors=_sel("true" + " " * 10237))),
     {("FieldValueTooLong", f"{REQ}.exactly.selectors[0].cel.expression")}),
    ("cel-too-costly", lambda ns: _claim("c", ns, _req(selectors=_sel(
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, "
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(d, "
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(e, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(f, "
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(g, int('1'.find('[0-9]*')) < 100)))))))"))),
     {("FieldValueForbidden", f"{REQ}.exactly.selectors[0].cel.expression")}),
    ("constraint-unknown-request", lambda ns: _claim("c", ns, constraints=[
        {"requests": ["nope"], "matchAttribute": "dra.example.com/numa"}]),
     {("FieldValueInvalid", "spec.devices.constraints[0].requests[0]")}),
    ("constraint-not-fully-qualified", lambda ns: _claim("c", ns, constraints=[{"matchAttribute": "numa"}]),
     {("FieldValueInvalid", "spec.devices.constraints[0].matchAttribute")}),
    ("opaque-parameters-too-large", lambda ns: _claim("c", ns, config=[
        {"opaque": {"driver": "dra.example.com", "parameters": {"a": "x" * 10240}}}]),
     {("FieldValueTooLong", "spec.devices.config[0].opaque.parameters")}),
    ("null-request", lambda ns: _claim("c", ns, None),  # JSON null reads as an empty request
     {("FieldValueInvalid", f"{REQ}.name"), ("FieldValueRequired", REQ)}),
]

SLICES: list[tuple[str, Obj, set[tuple[str, str]]]] = [
    ("bad-driver", _slice("s", driver=BAD), {("FieldValueInvalid", "spec.driver")}),
    ("empty-node-name", _slice("s", nodeName=""),
     {("FieldValueInvalid", "spec.nodeName"), ("FieldValueRequired", "spec")}),
    ("all-nodes-false", _slice("s", nodeName=None, allNodes=False),
     {("FieldValueInvalid", "spec.allNodes"), ("FieldValueRequired", "spec")}),
    ("two-node-selections", _slice("s", allNodes=True), {("FieldValueInvalid", "spec")}),
    ("bad-device-name", _slice("s", {"name": BAD}), {("FieldValueInvalid", "spec.devices[0].name")}),
    ("too-many-attributes", _slice("s", {"name": "d", "attributes": {f"a{i}": {"int": i} for i in range(33)}}),
     {("FieldValueInvalid", "spec.devices[0]")}),
    ("bad-attribute-name", _slice("s", {"name": "d", "attributes": {"9bad": {"int": 1}}}),
     {("FieldValueInvalid", "spec.devices[0].attributes")}),
    ("shared-counters-and-devices", _slice("s", sharedCounters=[{"name": "c", "counters": {"m": {"value": "1"}}}]),
     {("FieldValueInvalid", "spec")}),
    ("binding-failure-without-conditions", _slice("s", {"name": "d", "bindingFailureConditions": ["f"]}),
     {("FieldValueInvalid", "spec.devices[0].bindingConditions")}),
]


def _pairs(e: Invalid) -> set[tuple[str, str]]:
    return {(c.reason, c.field) for c in e.causes}


@pytest.mark.parametrize(("make", "want"), [(m, w) for _, m, w in CLAIMS], ids=[c[0] for c in CLAIMS])
def test_invalid_claims_are_rejected_with_upstreams_field_errors(
    target: Target, namespace: str, make: Any, want: set[tuple[str, str]]
) -> None:
    """DRA-CORE, ResourceClaim validation.

    Creating a ResourceClaim that breaks one of upstream's rules MUST fail with Invalid
    whose causes are exactly these (reason, field path) pairs, and store nothing.
    """
    body = make(namespace)
    with pytest.raises(Invalid) as err:
        target.apply(body)
    assert _pairs(err.value) == want
    assert not target.list(DRA_API, "ResourceClaim", namespace)


@pytest.mark.parametrize(("body", "want"), [(b, w) for _, b, w in SLICES], ids=[s[0] for s in SLICES])
def test_invalid_slices_are_rejected_with_upstreams_field_errors(
    target: Target, body: Obj, want: set[tuple[str, str]]
) -> None:
    """DRA-CORE, ResourceSlice validation.

    Creating a ResourceSlice that breaks one of upstream's rules (a false or empty node
    selection counts as unset and is itself an error) MUST fail with Invalid whose causes
    are exactly these (reason, field path) pairs.
    """
    with pytest.raises(Invalid) as err:
        target.apply({**body, "metadata": {"name": "garhwal-validation-slice"}})
    assert _pairs(err.value) == want


def test_claim_allocation_cannot_change_once_set(target: Target, namespace: str) -> None:
    """DRA-CORE, ResourceClaim /status.

    An allocation MUST be accepted once through /status when its results name requests of
    the claim, and any later change to it MUST fail with Invalid at ``status.allocation``;
    reservedFor MUST NOT be set without an allocation.
    """
    claim = target.apply(_claim("c", namespace))
    result = {"request": "req-0", "driver": "dra.example.com", "pool": "pool", "device": "dev-0"}
    with pytest.raises(Invalid) as err:
        target.patch_status({**claim, "status": {"reservedFor": [
            {"resource": "pods", "name": "p", "uid": "6a0a2b3c-1111-2222-3333-444455556666"}]}})
    assert _pairs(err.value) == {("FieldValueForbidden", "status.reservedFor")}
    with pytest.raises(Invalid) as err:
        target.patch_status({**claim, "status": {"allocation": {"devices": {"results": [
            {**result, "request": "nope"}]}}}})
    assert _pairs(err.value) == {("FieldValueInvalid", "status.allocation.devices.results[0].request")}
    allocated = target.patch_status({**claim, "status": {"allocation": {"devices": {"results": [result]}}}})
    changed = {"allocation": {"devices": {"results": [{**result, "device": "dev-1"}]}}}
    with pytest.raises(Invalid) as err:
        target.patch_status({**allocated, "status": changed})
    assert _pairs(err.value) == {("FieldValueInvalid", "status.allocation")}
    stored = target.get(DRA_API, "ResourceClaim", "c", namespace)
    assert stored["status"]["allocation"]["devices"]["results"][0]["device"] == "dev-0"


def test_device_class_selectors_must_type_check(target: Target) -> None:
    """DRA-CORE, DeviceClass validation.

    A DeviceClass whose selector does not evaluate to bool, or whose extended resource
    name is not domain-prefixed, MUST be rejected at those fields.
    """
    body = {"apiVersion": DRA_API, "kind": "DeviceClass", "metadata": {"name": "garhwal-validation-class"},
            "spec": {"selectors": _sel("1 + 2"), "extendedResourceName": "gpu"}}
    with pytest.raises(Invalid) as err:
        target.apply(body)
    assert _pairs(err.value) == {("FieldValueInvalid", "spec.selectors[0].cel.expression"),
                                 ("FieldValueInvalid", "spec.extendedResourceName")}
