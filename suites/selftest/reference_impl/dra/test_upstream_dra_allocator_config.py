"""The configuration an allocation carries (class configs once per class, naming its
requests; claim configs that concern what was allocated; no request list on a config
that covers every request), rows of upstream ``TestAllocator``
(allocatortesting/``allocator_testing.go``: ``with-class-device-config*``,
``with-claim-config-for-two-requests``, ``claim-with-device-config``,
``prioritized-list-device-config``, ``prioritized-list-class-config``,
``claim-config-scoped-to-subrequests-of-one-request``,
``claim-config-covering-all-requests-is-cleared``)."""

from __future__ import annotations

import pytest

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
    check,
    claim,
    cls,
    device,
    first_available,
    local,
    one,
    request,
    result,
    slice_,
)

REQ2 = "req-2"
DEV0, DEV3 = "device-0", "device-3"
R0S0, R0S1 = "req-0/subReq-0", "req-0/subReq-1"


def opaque(driver: str, attribute: str) -> Obj:
    """deviceConfiguration."""
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def cls_config(name: str, driver: str, attribute: str) -> Obj:
    """classWithConfig."""
    c = cls(name, driver)
    c["spec"]["config"] = [opaque(driver, attribute)]
    return c


def claim_config(c: Obj, *configs: tuple[list[str], Obj]) -> Obj:
    """withConfigs(deviceClaimConfig(requests, configuration)...)."""
    c["spec"]["devices"]["config"] = [{**({"requests": r} if r else {}), **cfg} for r, cfg in configs]
    return c


def cfg(source: str, requests: list[str] | None, configuration: Obj) -> Obj:
    return {"source": source, **({"requests": requests} if requests else {}), **configuration}


def with_config(results: list[Obj], *configs: Obj) -> Obj:
    """allocationResultWithConfigs on node-1."""
    out = alloc(local(NODE1), *results)
    out["devices"]["config"] = list(configs)
    return out


def res(req: str, dev: str, pool: str = POOL1, driver: str = DRIVER_A) -> Obj:
    return result(req, driver, pool, dev)


def devices(n: int, name: str = "slice-1", driver: str = DRIVER_A) -> Obj:
    return slice_(name, NODE1, POOL1, driver, *[device(f"device-{i}") for i in range(n)])


def pl_a_or_b(count_a: int = 1, count_b: int = 1) -> Obj:
    return first_available(REQ0, ("subReq-0", CLASS_A, count_a), ("subReq-1", CLASS_B, count_b))


AB = [cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)]

ROWS: dict[str, Row] = {
    "with-class-device-config": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls_config(CLASS_A, DRIVER_A, "classAttribute")],
        [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=[with_config([res(REQ0, DEV1)], cfg("FromClass", None, opaque(DRIVER_A, "classAttribute")))]),
    "with-class-device-config-with-multiple-request-and-configs": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A), request(REQ2, CLASS_B))],
        [cls_config(CLASS_A, DRIVER_A, "classAttribute-A"), cls_config(CLASS_B, DRIVER_B, "classAttribute-B")],
        [devices(2), one("slice-2", NODE1, POOL1, DRIVER_B)],
        want=[with_config([res(REQ0, DEV0), res(REQ1, DEV1), res(REQ2, DEV1, driver=DRIVER_B)],
                          cfg("FromClass", [REQ0, REQ1], opaque(DRIVER_A, "classAttribute-A")),
                          cfg("FromClass", [REQ2], opaque(DRIVER_B, "classAttribute-B")))]),
    "with-claim-config-for-two-requests": Row(
        [claim_config(claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A), request(REQ2, CLASS_A)),
                      ([REQ0, REQ1], opaque(DRIVER_A, "deviceAttribute")))],
        [cls(CLASS_A, DRIVER_A)], [devices(3)],
        want=[with_config([res(REQ0, DEV0), res(REQ1, DEV1), res(REQ2, DEV2)],
                          cfg("FromClaim", [REQ0, REQ1], opaque(DRIVER_A, "deviceAttribute")))]),
    "claim-with-device-config": Row(
        [claim_config(claim(CLAIM0, request(REQ0, CLASS_A)), ([], opaque(DRIVER_A, "deviceAttribute")))],
        [cls(CLASS_A, DRIVER_A)], [one("slice-1", NODE1, POOL1, DRIVER_A)],
        want=[with_config([res(REQ0, DEV1)], cfg("FromClaim", None, opaque(DRIVER_A, "deviceAttribute")))]),
    "prioritized-list-device-config": Row(
        [claim_config(claim(CLAIM0, pl_a_or_b(1, 2)), ([R0S0], opaque(DRIVER_A, "foo")),
                      ([R0S1], opaque(DRIVER_B, "bar")))],
        AB, [slice_("slice-1", NODE1, POOL1, DRIVER_B, device(DEV1), device(DEV2))],
        want=[with_config([res(R0S1, DEV1, driver=DRIVER_B), res(R0S1, DEV2, driver=DRIVER_B)],
                          cfg("FromClaim", None, opaque(DRIVER_B, "bar")))]),
    "prioritized-list-class-config": Row(
        [claim(CLAIM0, pl_a_or_b(2, 2))], [cls_config(CLASS_A, DRIVER_A, "foo"), cls_config(CLASS_B, DRIVER_B, "bar")],
        [slice_("slice-1", NODE1, POOL1, DRIVER_B, device(DEV1), device(DEV2)),
         slice_("slice-2", NODE1, POOL2, DRIVER_A, device(DEV3))],
        want=[with_config([res(R0S1, DEV1, driver=DRIVER_B), res(R0S1, DEV2, driver=DRIVER_B)],
                          cfg("FromClass", None, opaque(DRIVER_B, "bar")))]),
    "claim-config-scoped-to-subrequests-of-one-request": Row(
        [claim_config(claim(CLAIM0, pl_a_or_b(), request(REQ1, CLASS_A)), ([R0S0, R0S1], opaque(DRIVER_A, "scoped")))],
        AB, [devices(2)],
        want=[with_config([res(R0S0, DEV0), res(REQ1, DEV1)], cfg("FromClaim", [R0S0, R0S1], opaque(DRIVER_A, "scoped")))]),
    "claim-config-covering-all-requests-is-cleared": Row(
        [claim_config(claim(CLAIM0, pl_a_or_b(), request(REQ1, CLASS_A)), ([R0S0, REQ1], opaque(DRIVER_A, "all")))],
        AB, [devices(2)],
        want=[with_config([res(R0S0, DEV0), res(REQ1, DEV1)], cfg("FromClaim", None, opaque(DRIVER_A, "all")))]),
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in ROWS])
def test_allocator_config(name: str) -> None:
    check(ROWS[name])
