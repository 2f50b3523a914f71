"""Rows of upstream ``TestAllocator`` (allocatortesting/``allocator_testing.go``) that need
allocator features the reference does not model, listed so that the port accounts for
every row; each is skipped with the reason."""

from __future__ import annotations

import pytest

_GROUPS = ("DRADeviceCompatibilityGroups (alpha, off) is not modelled: the reference ignores "
           "slices whose devices declare compatibility groups, as upstream does with the gate off "
           "(those rows run in test_upstream_dra_allocator_counters.py)")
_NODE_OPS = ("DRAOptionalNodeOperations (skipNodeOperations on slices and results, the node's "
             "declared feature) is not modelled by the reference's allocator")
_PARTITIONABLE = ("the reference always runs with DRAPartitionableDevices on (beta, on in 1.37); "
                  "the gate-off pool gathering is not modelled")

SKIPPED = {
    **{f"compatibility-groups-{n}": _GROUPS for n in (
        "compatible", "incompatible", "taint-rollback", "incompatible-with-allocated-peer",
        "compatible-with-allocated-peer", "multiple-counter-sets", "multiple-counter-sets-spanning-device",
        "with-prioritized-list", "with-consumable-capacity", "multiple-claims", "multiple-claims-incompatible")},
    "optional-node-operations": _NODE_OPS,
    "optional-node-operations-missing-feature": _NODE_OPS,
    "partitionable-devices-disabled-device-consumes-counters": _PARTITIONABLE,
    "partitionable-devices-disabled-other-device-do-not-consume-counters": _PARTITIONABLE,
    "partitionable-devices-disabled-per-device-node-selection": _PARTITIONABLE,
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n, marks=pytest.mark.skip(reason=r)) for n, r in SKIPPED.items()])
def test_allocator_unmodelled(name: str) -> None:
    pytest.fail(f"{name}: not modelled")
