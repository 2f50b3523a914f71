"""The structured allocator with partitionable devices (shared counters), rows of
upstream ``TestAllocator`` (allocatortesting/``allocator_testing.go``, the
``partitionable-devices-*`` rows)."""

from __future__ import annotations

import pytest

from suites.selftest.reference_impl.dra.upstream_dra_alloc_util import (
    CLAIM0,
    CLASS_A,
    DEV1,
    DEV2,
    DRIVER_A,
    NODE1,
    POOL1,
    REQ0,
    REQ1,
    Row,
    alloc,
    check,
    claim,
    cls,
    consuming,
    counter_slice,
    local,
    request,
    result,
    slice_,
)

DEV3 = "device-3"


def _cs1(memory: str) -> tuple[str, dict[str, str]]:
    return ("counter-set-1", {"memory": memory})


ROWS: dict[str, Row] = {
    "partitionable-devices-single-device": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, consuming(DEV1, _cs1("4Gi"), from_counters=False), count=2),
         counter_slice("slice-2", 2, _cs1("8Gi"))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1))]),
    "partitionable-devices-multiple-devices": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, consuming(DEV1, _cs1("4Gi")), consuming(DEV2, _cs1("6Gi")),
                consuming(DEV3, _cs1("4Gi")), count=2),
         counter_slice("slice-2", 2, _cs1("8Gi"))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV1), result(REQ1, DRIVER_A, POOL1, DEV3))]),
    "partitionable-devices-no-capacity-available": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, consuming(DEV1, _cs1("4Gi")), consuming(DEV2, _cs1("16Gi"))),
         counter_slice("slice-2", 1, _cs1("18Gi"))],
        want=None, allocated=[(DRIVER_A, POOL1, DEV2)]),
    "partitionable-devices-overallocated-capacity-pool": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A, consuming(DEV1, _cs1("4Gi")), consuming(DEV2, _cs1("20Gi"))),
         counter_slice("slice-2", 1, _cs1("18Gi"))],
        want=None, allocated=[(DRIVER_A, POOL1, DEV2)]),
    "partitionable-devices-multiple-counters": Row(
        [claim(CLAIM0, request(REQ0, CLASS_A), request(REQ1, CLASS_A))], [cls(CLASS_A, DRIVER_A)],
        [slice_("slice-1", NODE1, POOL1, DRIVER_A,
                consuming(DEV1, ("counter-set-1", {"memory": "4Gi", "cpus": "6"}),
                          ("counter-set-2", {"cpus": "4", "memory": "2Gi"})),
                consuming(DEV2, ("counter-set-1", {"memory": "6Gi", "cpus": "4"}),
                          ("counter-set-2", {"cpus": "6", "memory": "6Gi"})),
                consuming(DEV3, ("counter-set-1", {"memory": "4Gi", "cpus": "4"}),
                          ("counter-set-2", {"cpus": "4", "memory": "4Gi"})), count=2),
         counter_slice("slice-2", 2, ("counter-set-1", {"cpus": "8", "memory": "18Gi"}),
                       ("counter-set-2", {"cpus": "12", "memory": "18Gi"}))],
        want=[alloc(local(NODE1), result(REQ0, DRIVER_A, POOL1, DEV2), result(REQ1, DRIVER_A, POOL1, DEV3))]),
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in ROWS])
def test_allocator_partitionable(name: str) -> None:
    check(ROWS[name])
