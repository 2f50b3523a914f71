"""Upstream's ``pkg/controller/resourcepoolstatusrequest/views_test.go`` (v1.37.2), row by
row, against ``reference_impl.controllers.resourcepoolstatusrequest_views``.

Counter sets, counter costs and capacities are the v1 wire shape; the views come back as
wire dicts (quantities as their canonical strings).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api.quantity import Quantity
from reference_impl.controllers.resourcepoolstatusrequest_views import (
    PREFIX_PARTITION_COST_MISMATCH,
    PREFIX_PARTITION_TYPE_MISSING,
    DeviceRecord,
    PoolViewInput,
    compute_partition_summary,
    compute_pool_views,
    compute_shareable_summary,
    resolve_device_partitions,
    resolve_partition_type,
)

Obj = dict[str, Any]
DRIVER = "gpu.example.com"
PROFILE = "gpu.example.com/profile"


def counter_set(name: str, counters: dict[str, str]) -> Obj:
    """``counterSet``."""
    return {"name": name, "counters": {k: {"value": v} for k, v in counters.items()}}


def consumes(set_: str, counters: dict[str, str]) -> Obj:
    """``consumes``."""
    return {"counterSet": set_, "counters": {k: {"value": v} for k, v in counters.items()}}


def partition_device(name: str, partition_type: str, *cost: Obj) -> DeviceRecord:
    """``partitionDevice``: a counter-consuming device, grouping already resolved."""
    return DeviceRecord(name, PROFILE, partition_type, True, list(cost))


def _mem(set_: str, amount: str) -> Obj:
    return consumes(set_, {"memory": amount})


SC = [counter_set("gpu-0", {"memory": "80Gi"})]
FULL_HALF_HALF = [
    partition_device("full-0", "Full", _mem("gpu-0", "80Gi")),
    partition_device("half-0", "Half", _mem("gpu-0", "40Gi")),
    partition_device("half-1", "Half", _mem("gpu-0", "40Gi")),
]


@pytest.mark.parametrize(("devices", "in_use", "counters", "want", "total", "want_err"), [
    pytest.param(FULL_HALF_HALF, set(), SC, {"Full": 1, "Half": 2}, {"Full": 1, "Half": 2}, "",
                 id="all-fresh-independent-per-type"),
    pytest.param(FULL_HALF_HALF, {"full-0"}, SC, {"Full": 0, "Half": 0}, {"Full": 1, "Half": 2}, "",
                 id="in-use-full-consumes-counter"),
    pytest.param([partition_device(f"full-{i}", "Full", _mem("gpu-1", "80Gi")) for i in range(3)], set(),
                 [counter_set("gpu-1", {"memory": "800Gi"})], {"Full": 3}, {"Full": 3}, "",
                 id="fresh-device-clamp-binds-before-counter"),
    pytest.param([partition_device("full-0", "Full", _mem("gpu-0", "80Gi")),
                  DeviceRecord("mystery", PROFILE, consumes_counters=[_mem("gpu-0", "40Gi")])],
                 set(), SC, {}, {}, PREFIX_PARTITION_TYPE_MISSING, id="missing-attribute"),
    pytest.param([partition_device("half-0", "Half", _mem("gpu-0", "40Gi")),
                  partition_device("half-1", "Half", _mem("gpu-0", "50Gi"))],
                 set(), SC, {}, {}, PREFIX_PARTITION_COST_MISMATCH, id="cost-mismatch-within-type"),
])  # fmt: skip
def test_compute_partition_summary(
    devices: list[DeviceRecord], in_use: set[str], counters: list[Obj],
    want: dict[str, int], total: dict[str, int], want_err: str,
) -> None:
    """``TestComputePartitionSummary``."""
    got, err = compute_partition_summary(PoolViewInput(DRIVER, "pool-0", devices, counters, in_use))
    if want_err:
        assert err.startswith(want_err), err
        assert got is None
        return
    assert err == ""
    assert got is not None
    assert {p["type"]: p["allocatable"] for p in got} == want
    assert {p["type"]: p["total"] for p in got} == total
    assert all(p["attribute"] == PROFILE for p in got)


def test_missing_attribute_and_cost_mismatch_messages() -> None:
    """The two error rows' whole messages (``computePartitionSummary``'s Sprintf)."""
    mystery = DeviceRecord("mystery", PROFILE, consumes_counters=[_mem("gpu-0", "40Gi")])
    _, err = compute_partition_summary(PoolViewInput(DRIVER, "pool-0", [mystery], SC))
    assert err == ('PartitionTypeMissing: device "mystery" in pool gpu.example.com/pool-0 '
                   'does not carry partition type attribute "gpu.example.com/profile"')
    halves = [partition_device("half-0", "Half", _mem("gpu-0", "40Gi")),
              partition_device("half-1", "Half", _mem("gpu-0", "50Gi"))]
    _, err = compute_partition_summary(PoolViewInput(DRIVER, "pool-0", halves, SC))
    assert err == ('PartitionCostMismatch: devices of partition type "Half" in pool '
                   "gpu.example.com/pool-0 consume different counters")


def test_compute_partition_summary_multi_counter_set() -> None:
    """``TestComputePartitionSummary_MultiCounterSet``: the tighter counter set binds."""
    sc = [counter_set("mem", {"memory": "160Gi"}), counter_set("cores", {"sm": "8"})]
    devices = [partition_device(n, "Full", _mem("mem", "80Gi"), consumes("cores", {"sm": "8"}))
               for n in ("full-0", "full-1")]
    got, err = compute_partition_summary(PoolViewInput(DRIVER, "p", devices, sc))
    assert err == ""
    assert got == [{"attribute": PROFILE, "type": "Full", "total": 2, "allocatable": 1}]


def test_compute_pool_views_hybrid() -> None:
    """``TestComputePoolViews_Hybrid``: a typed, shareable device yields both views."""
    device = partition_device("full-0", "Full", _mem("gpu-0", "80Gi"))
    device.allow_multiple, device.capacity = True, {"memory": {"value": "80Gi"}}
    ps, sh, err = compute_pool_views(PoolViewInput(DRIVER, "p", [device], SC))
    assert err == ""
    assert ps is not None and len(ps) == 1
    assert sh is not None and sh["fullyAvailableDevices"] == 1


def _shareable(name: str, **capacity: str) -> DeviceRecord:
    return DeviceRecord(name, allow_multiple=True, capacity={k: {"value": v} for k, v in capacity.items()})


def test_compute_shareable_summary() -> None:
    """``TestComputeShareableSummary``."""
    devices = [_shareable("shareable-0", memory="40Gi"), _shareable("shareable-1", memory="40Gi"),
               DeviceRecord("plain")]
    got, err = compute_shareable_summary(PoolViewInput(
        DRIVER, "pool-0", devices, in_use={"shareable-0"}, consumed_capacity={"memory": Quantity.of("10Gi")}))
    assert err == ""
    assert got == {"fullyAvailableDevices": 1, "partiallyAvailableDevices": 1, "capacity": [
        {"name": "memory", "total": "80Gi", "consumed": "10Gi", "available": "70Gi"}]}


def test_compute_shareable_summary_multiple_capacities() -> None:
    """``TestComputeShareableSummary_MultipleCapacities``: per key, sorted by name."""
    devices = [_shareable(n, memory="40Gi", cores="4") for n in ("shareable-0", "shareable-1")]
    consumed = {"memory": Quantity.of("10Gi"), "cores": Quantity.of("1")}
    got, err = compute_shareable_summary(PoolViewInput(
        DRIVER, "pool-0", devices, in_use={"shareable-0"}, consumed_capacity=consumed))
    assert err == ""
    assert got == {"fullyAvailableDevices": 1, "partiallyAvailableDevices": 1, "capacity": [
        {"name": "cores", "total": "8", "consumed": "1", "available": "7"},
        {"name": "memory", "total": "80Gi", "consumed": "10Gi", "available": "70Gi"}]}


def test_compute_shareable_summary_no_shareable_devices() -> None:
    """``TestComputeShareableSummary_NoShareableDevices``."""
    assert compute_shareable_summary(PoolViewInput("", "", [DeviceRecord("plain")])) == (None, "")


def test_compute_pool_views_partition_attribute_gates_view() -> None:
    """``TestComputePoolViews_PartitionAttributeGatesView``: no grouping attribute, no view."""
    typed = PoolViewInput(DRIVER, "p", [partition_device("d0", "Full", _mem("gpu-0", "80Gi"))], SC)
    ps, _, err = compute_pool_views(typed)
    assert err == "" and ps
    untyped = PoolViewInput(DRIVER, "p", [DeviceRecord("d0", consumes_counters=[_mem("gpu-0", "10Gi")])], SC)
    ps2, _, err = compute_pool_views(untyped)
    assert err == "" and ps2 is None


ATTRS: Obj = {"gpu.example.com/profile": {"string": "Full"}, "gpu.example.com/shape": {"string": "Small"}}
SHAPE = "gpu.example.com/shape"


@pytest.mark.parametrize(("request_attr", "devices", "want_attr", "want_type"), [
    pytest.param(SHAPE, [("d0", PROFILE)], [PROFILE], ["Full"], id="slice declaration wins over request default"),
    pytest.param(SHAPE, [("d0", "")], [SHAPE], ["Small"], id="request default fills devices when no slice declares"),
    pytest.param(SHAPE, [("d0", PROFILE), ("d1", "")], [PROFILE, ""], ["Full", ""],
                 id="request default ignored when any slice declares"),
    pytest.param(None, [("d0", PROFILE), ("d1", SHAPE)], [PROFILE, SHAPE], ["Full", "Small"],
                 id="differing slice attributes are each kept"),
    pytest.param(None, [("d0", "")], [""], [""], id="neither slice nor request names one"),
])  # fmt: skip
def test_resolve_device_partitions(
    request_attr: str | None, devices: list[tuple[str, str]], want_attr: list[str], want_type: list[str]
) -> None:
    """``TestResolveDevicePartitions``."""
    pool = PoolViewInput(DRIVER, "", [DeviceRecord(n, a, attributes=ATTRS) for n, a in devices])
    resolve_device_partitions(request_attr, pool)
    assert [d.partition_attr for d in pool.devices] == want_attr
    assert [d.partition_type if d.has_partition_type else "" for d in pool.devices] == want_type


def test_resolve_partition_type() -> None:
    """``TestResolvePartitionType``."""
    attrs: Obj = {"profile": {"string": "Full"}, "other.com/x": {"string": "ignore"},
                  "gpu.example.com/numeric-key": {"int": 3}}
    assert resolve_partition_type(DRIVER, attrs, PROFILE) == ("Full", True)  # bare, driver domain
    assert resolve_partition_type(DRIVER, attrs, "gpu.example.com/numeric-key")[1] is False
    assert resolve_partition_type(DRIVER, attrs, "gpu.example.com/missing")[1] is False
    assert resolve_partition_type(DRIVER, attrs, "other.com/x") == ("ignore", True)
    both: Obj = {"profile": {"string": "Bare"}, PROFILE: {"string": "Explicit"}}
    for _ in range(20):
        assert resolve_partition_type(DRIVER, both, PROFILE) == ("Explicit", True)
