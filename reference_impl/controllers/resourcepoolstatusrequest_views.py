"""The advanced pool views of a ResourcePoolStatusRequest, after
``pkg/controller/resourcepoolstatusrequest/views.go``.

For one complete pool: ``partitionSummary`` groups counter-consuming devices by
(grouping attribute, partition type) and says how many more of each fit the shared
counters left after in-use devices; ``shareableSummary`` sums the capacity of devices
with ``allowMultipleAllocations`` against the capacity claims consumed. A structural
problem is reported as a prefixed ``validationError`` instead of a view; the device
counts stay valid. Objects are the v1 wire shape; the views come back as wire dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.quantity import Quantity, format_quantity
from reference_impl.api.quantity_wire import wire_quantity
from reference_impl.apiserver.quota.resources import q_add, q_sub

__all__ = [
    "MAX_STATUS_LIST_ITEMS",
    "PREFIX_PARTITION_COST_MISMATCH",
    "PREFIX_PARTITION_SUMMARY_OVER_CAP",
    "PREFIX_PARTITION_TYPE_MISSING",
    "PREFIX_POOL_INCOMPLETE",
    "PREFIX_SHAREABLE_OVER_CAP",
    "ZERO",
    "DeviceRecord",
    "PoolViewInput",
    "add_quantity",
    "compute_partition_summary",
    "compute_pool_views",
    "compute_shareable_summary",
    "resolve_device_partitions",
    "resolve_partition_type",
    "slice_device_records",
]

Obj = dict[str, Any]
Counters = dict[str, dict[str, Decimal]]  # counter set -> counter -> amount left

# The status lists carry +k8s:maxItems=32: a longer view is an error, not truncated.
MAX_STATUS_LIST_ITEMS: Final = 32
# Machine-readable prefixes of a pool's validationError; only the first is transient.
PREFIX_POOL_INCOMPLETE: Final = "PoolIncomplete:"
PREFIX_PARTITION_TYPE_MISSING: Final = "PartitionTypeMissing:"
PREFIX_PARTITION_COST_MISMATCH: Final = "PartitionCostMismatch:"
PREFIX_PARTITION_SUMMARY_OVER_CAP: Final = "PartitionSummaryOverCap:"
PREFIX_SHAREABLE_OVER_CAP: Final = "ShareableSummaryOverCap:"
# resource.Quantity{}: no format until something is added to it; prints "0".
ZERO: Final = Quantity(Decimal(0), "")


# ``Quantity.Add`` / ``Quantity.Sub``: a zero quantity takes the other's format.
add_quantity = q_add


def _non_negative_diff(a: Quantity, b: Quantity) -> Quantity:
    """``nonNegativeDiff``: max(0, a-b), a zero result in ``a``'s format."""
    out = q_sub(a, b)
    return Quantity(Decimal(0), a.fmt) if out.amount < 0 else out


def _amount(counter: object) -> Decimal:
    """The amount of a ``Counter`` (``{"value": quantity}``)."""
    return Quantity.of((counter or {}).get("value", "0") if isinstance(counter, dict) else "0").amount


@dataclass(slots=True)
class DeviceRecord:
    """``deviceRecord``: what the views need of one device of the pool."""

    name: str
    # The grouping attribute: the device's slice's partitionTypeAttribute, or the
    # request's default when no slice of the pool declares one; "" for none.
    partition_attr: str = ""
    partition_type: str = ""
    has_partition_type: bool = False
    consumes_counters: list[Obj] = field(default_factory=list)
    allow_multiple: bool = False
    capacity: dict[str, Obj] = field(default_factory=dict)
    attributes: dict[str, Obj] = field(default_factory=dict)


@dataclass(slots=True)
class PoolViewInput:
    """``poolViewInput``: one complete pool's devices, counters and claims' usage."""

    driver: str
    pool_name: str
    devices: list[DeviceRecord] = field(default_factory=list)
    shared_counters: list[Obj] = field(default_factory=list)  # merged over the pool's slices
    in_use: set[str] = field(default_factory=set)  # devices with a non-adminAccess result
    consumed_capacity: dict[str, Quantity] = field(default_factory=dict)


def slice_device_records(slice_: Obj) -> list[DeviceRecord]:
    """``sliceDeviceRecords``: one record per device, seeded with the slice's own
    partitionTypeAttribute."""
    spec = slice_.get("spec") or {}
    attr = str(spec.get("partitionTypeAttribute") or "")
    return [
        DeviceRecord(
            name=str(d.get("name", "")),
            partition_attr=attr,
            consumes_counters=list(d.get("consumesCounters") or ()),
            allow_multiple=d.get("allowMultipleAllocations") is True,
            capacity=dict(d.get("capacity") or {}),
            attributes=dict(d.get("attributes") or {}),
        )
        for d in spec.get("devices") or ()
    ]


def resolve_partition_type(driver: str, attrs: dict[str, Obj], fqn: str) -> tuple[str, bool]:
    """``resolvePartitionType``: the string value of attribute ``fqn``. A name in the
    driver's domain may also be stored bare; the explicit key wins. A missing or
    non-string attribute gives ("", False)."""
    attr = attrs.get(fqn)
    if attr is None and fqn.startswith(driver + "/"):
        attr = attrs.get(fqn.removeprefix(driver + "/"))
    value = attr.get("string") if isinstance(attr, dict) else None
    return (value, True) if isinstance(value, str) else ("", False)


def resolve_device_partitions(request_attr: str | None, pool: PoolViewInput) -> None:
    """``resolveDevicePartitions``: a device's own slice declaration wins; the request's
    attribute applies only when no slice of the pool declares one."""
    pool_declares = any(d.partition_attr for d in pool.devices)
    for d in pool.devices:
        if not d.partition_attr:
            if pool_declares or request_attr is None:
                continue
            d.partition_attr = request_attr
        d.partition_type, d.has_partition_type = resolve_partition_type(
            pool.driver, d.attributes, d.partition_attr
        )


def compute_pool_views(pool: PoolViewInput) -> tuple[list[Obj] | None, Obj | None, str]:
    """``computePoolViews``: (partitionSummary, shareableSummary, validationError). A
    grouped pool without shared counters, or any view error, drops the partition view."""
    summary: list[Obj] | None = None
    error = ""
    grouped = any(d.partition_attr for d in pool.devices)
    if grouped and not pool.shared_counters:
        error = (f"{PREFIX_PARTITION_TYPE_MISSING} pool {pool.driver}/{pool.pool_name} "
                 "declares partitionTypeAttribute but publishes no sharedCounters")
    elif grouped:
        summary, error = compute_partition_summary(pool)
    shareable, shareable_error = compute_shareable_summary(pool)
    error = error or shareable_error  # the first error is kept
    if shareable_error:
        shareable = None
    if error:
        summary = None
    return summary, shareable, error


@dataclass(slots=True)
class _Group:
    cost: str  # every device of a type must draw the same counters
    total: int = 0
    fresh: list[DeviceRecord] = field(default_factory=list)  # not in use


def compute_partition_summary(pool: PoolViewInput) -> tuple[list[Obj] | None, str]:
    """``computePartitionSummary``: per (attribute, type), the device total and how many
    fresh devices still fit, each group measured alone against the counters left after
    the in-use devices. Devices that consume no counters, or have no grouping
    attribute, are not partitions."""
    groups: dict[tuple[str, str], _Group] = {}
    for d in pool.devices:
        if not d.consumes_counters or not d.partition_attr:
            continue
        if not d.has_partition_type:
            return None, (
                f"{PREFIX_PARTITION_TYPE_MISSING} device {_go_quote(d.name)} in pool "
                f"{pool.driver}/{pool.pool_name} does not carry partition type attribute "
                f"{_go_quote(d.partition_attr)}"
            )
        cost = _cost_key(d.consumes_counters)
        g = groups.setdefault((d.partition_attr, d.partition_type), _Group(cost))
        if cost != g.cost:
            return None, (
                f"{PREFIX_PARTITION_COST_MISMATCH} devices of partition type "
                f"{_go_quote(d.partition_type)} in pool {pool.driver}/{pool.pool_name} "
                "consume different counters"
            )
        g.total += 1
        if d.name not in pool.in_use:
            g.fresh.append(d)
    baseline = _available_counters(pool)
    result = []
    for (attr, typ), g in sorted(groups.items(), key=lambda kv: kv[0]):
        avail = {s: dict(c) for s, c in baseline.items()}
        allocatable = 0
        for d in g.fresh:
            if _fits(d.consumes_counters, avail):
                allocatable += 1
                _deduct(d.consumes_counters, avail)
        entry: Obj = {"attribute": attr, "type": typ, "total": g.total, "allocatable": allocatable}
        result.append({k: v for k, v in entry.items() if v != ""})  # omitempty strings
    if len(result) > MAX_STATUS_LIST_ITEMS:
        return None, (
            f"{PREFIX_PARTITION_SUMMARY_OVER_CAP} pool {pool.driver}/{pool.pool_name} has "
            f"{len(result)} partition types, exceeding the maximum of {MAX_STATUS_LIST_ITEMS}"
        )
    return result, ""


def compute_shareable_summary(pool: PoolViewInput) -> tuple[Obj | None, str]:
    """``computeShareableSummary``: fully/partially available shareable devices and, per
    capacity name (sorted), total, consumed and available; None without shareable devices."""
    full = partial = 0
    totals: dict[str, Quantity] = {}
    shareable = False
    for d in pool.devices:
        if not d.allow_multiple:
            continue
        shareable = True
        if d.name in pool.in_use:
            partial += 1
        else:
            full += 1
        for key, cap in d.capacity.items():
            value = cap.get("value", "0") if isinstance(cap, dict) else "0"
            totals[key] = add_quantity(totals.get(key, ZERO), Quantity.of(value))
    if not shareable:
        return None, ""
    capacity = []
    for key in sorted(totals):
        total = totals[key]
        consumed = pool.consumed_capacity.get(key, ZERO)
        available = _non_negative_diff(total, consumed)
        capacity.append({"name": key, "total": _q(total), "consumed": _q(consumed),
                         "available": _q(available)})  # fmt: skip
    if len(capacity) > MAX_STATUS_LIST_ITEMS:
        return None, (
            f"{PREFIX_SHAREABLE_OVER_CAP} pool {pool.driver}/{pool.pool_name} has "
            f"{len(capacity)} shareable capacity keys, exceeding the maximum of "
            f"{MAX_STATUS_LIST_ITEMS}"
        )
    out: Obj = {"fullyAvailableDevices": full, "partiallyAvailableDevices": partial}
    if capacity:
        out["capacity"] = capacity
    return out, ""


def _q(q: Quantity) -> str:
    return format_quantity(q.amount, q.fmt)


def _available_counters(pool: PoolViewInput) -> Counters:
    """``availableCounters``: the shared counters less each in-use device's cost, once
    per device (not per claim), as the scheduler counts."""
    avail: Counters = {}
    for cs in pool.shared_counters:
        m = avail.setdefault(str(cs.get("name", "")), {})
        for name, c in (cs.get("counters") or {}).items():
            m[name] = _amount(c)
    for d in pool.devices:
        if d.name in pool.in_use:
            _deduct(d.consumes_counters, avail)
    return avail


def _fits(cost: list[Obj], avail: Counters) -> bool:
    """``deviceFits``: every counter the device draws is published and has enough left."""
    for cc in cost:
        have_set = avail.get(str(cc.get("counterSet", "")), {})
        for name, c in (cc.get("counters") or {}).items():
            if name not in have_set or have_set[name] < _amount(c):
                return False
    return True


def _deduct(cost: list[Obj], avail: Counters) -> None:
    """``deductCounters``: subtract a device's cost; unknown sets and counters are skipped."""
    for cc in cost:
        have_set = avail.get(str(cc.get("counterSet", "")))
        if have_set is None:
            continue
        for name, c in (cc.get("counters") or {}).items():
            if name in have_set:
                have_set[name] -= _amount(c)


def _cost_key(cost: list[Obj]) -> str:
    """``consumesCountersKey``: a stable text of a device's counter cost."""
    parts = [
        f"{cc.get('counterSet', '')}/{name}={wire_quantity((c or {}).get('value', '0'))}"
        for cc in cost
        for name, c in (cc.get("counters") or {}).items()
    ]
    return ",".join(sorted(parts))


def _go_quote(s: str) -> str:
    """Go's ``%q`` for the plain ASCII names the API allows."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
