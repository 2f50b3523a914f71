"""Fixtures and the driver for upstream ``TestAllocator`` rows
(k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting,
``allocator_testing.go``): the upstream builders (claim, request, slice, device ...) as
v1 dicts, and ``check`` which runs one row against the reference's ``Allocator``."""


from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.api.meta import parse_quantity
from reference_impl.dra import (
    AllocatedState,
    AllocationError,
    Allocator,
    Features,
    for_pools,
    gather_pools,
)
from reference_impl.dra.pools import DeviceID
from reference_impl.dra.state import apply_allocation

Obj = dict[str, Any]
NODE1, NODE2 = "node-1", "node-2"
CLASS_A, DRIVER_A, DRIVER_B = "class-a", "driver-a", "driver-b"
POOL1, POOL2 = "pool-1", "pool-2"
REQ0, REQ1 = "req-0", "req-1"
CLAIM0, CLAIM1 = "claim-0", "claim-1"
DEV1, DEV2 = "device-1", "device-2"
CLASS_B = "class-b"
ALL = "<all nodes>"


def node(name: str, region: str) -> Obj:
    return {"metadata": {"name": name, "labels": {"region": region, "planet": "earth"}}}


def cls(name: str, driver: str) -> Obj:
    return {"metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}}


def request(name: str, class_name: str, count: int = 1, *selectors: str, mode: str = "ExactCount") -> Obj:
    exactly: Obj = {"deviceClassName": class_name, "allocationMode": mode}
    if mode == "ExactCount":
        exactly["count"] = count
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"name": name, "exactly": exactly}


def claim(name: str, *requests: Obj, constraints: list[Obj] | None = None) -> Obj:
    devices: Obj = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return {"metadata": {"name": name}, "spec": {"devices": devices}}


def device(name: str, capacity: dict[str, str] | None = None, attributes: Obj | None = None) -> Obj:
    d: Obj = {"name": name}
    if capacity:
        d["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    if attributes:
        d["attributes"] = attributes
    return d


def slice_(name: str, where: str | Obj, pool: str, driver: str, *devices: Obj,
           count: int = 1, generation: int = 1) -> Obj:
    """slice(): ``where`` is a node name, ALL (allNodes) or a NodeSelector."""
    spec: Obj = {"driver": driver, "devices": list(devices),
                 "pool": {"name": pool, "resourceSliceCount": count, "generation": generation}}
    if where == ALL:
        spec["allNodes"] = True
    elif isinstance(where, dict):
        spec["nodeSelector"] = where
    else:
        spec["nodeName"] = where
    return {"metadata": {"name": name}, "spec": spec}


def one(name: str, node_name: str | Obj, pool: str, driver: str) -> Obj:
    """sliceWithOneDevice: a slice with "device-1"."""
    return slice_(name, node_name, pool, driver, device(DEV1))


def result(request: str, driver: str, pool: str, dev: str, admin: bool = False) -> Obj:
    out: Obj = {"request": request, "driver": driver, "pool": pool, "device": dev}
    if admin:
        out["adminAccess"] = True
    return out


def local(node_name: str) -> Obj:
    """localNodeSelector."""
    return {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def labels(key: str, *values: str) -> Obj:
    """nodeLabelSelector."""
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}


def alloc(selector: Obj | None, *results: Obj) -> Obj:
    out: Obj = {"devices": {"results": list(results)}}
    if selector is not None:
        out["nodeSelector"] = selector
    return out


def attrs(**values: Any) -> Obj:
    """Device attributes: int, bool, or str values; "v:<x>" is a version."""
    out: Obj = {}
    for k, v in values.items():
        if isinstance(v, bool):
            out[k] = {"bool": v}
        elif isinstance(v, int):
            out[k] = {"int": v}
        elif v.startswith("v:"):
            out[k] = {"version": v[2:]}
        else:
            out[k] = {"string": v}
    return out


def first_available(name: str, *subs: tuple[str, str, int] | Obj) -> Obj:
    """requestWithPrioritizedList of subRequest(name, class, count) (or ``sub`` dicts)."""
    return {"name": name, "firstAvailable": [s if isinstance(s, dict) else sub(*s) for s in subs]}


def sub(name: str, class_name: str, count: int = 1, *selectors: str, mode: str = "ExactCount") -> Obj:
    """subRequest: its fields are a request's ``exactly`` fields plus a name."""
    return {"name": name, **request("", class_name, count, *selectors, mode=mode)["exactly"]}


def many(n: int) -> Obj:
    """sliceWithMultipleDevices: device-0 .. device-<n-1>."""
    return slice_("slice-1", NODE1, POOL1, DRIVER_A, *[device(f"device-{i}") for i in range(n)])


def mem(q: str) -> str:
    return f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{q}")) >= 0'


NO_SCHEDULE = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
NO_EXECUTE = {"key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}
TOL_NO_SCHEDULE = {"operator": "Exists", "key": "taint-key", "effect": "NoSchedule"}
TOL_NO_EXECUTE = {"operator": "Equal", "key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}


def taint(d: Obj, *taints: Obj) -> Obj:
    d["taints"] = list(taints)
    return d


def tolerate(c: Obj, *tolerations: Obj) -> Obj:
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"]["tolerations"] = list(tolerations)
    return c


SHARE = "x"  # upstream replaces each ShareID with fixedShareID; the share_id here is fixed


def multi(d: Obj) -> Obj:
    d["allowMultipleAllocations"] = True
    return d


def strings(*values: str) -> Obj:
    return slice_("slice-1", NODE1, POOL1, DRIVER_A,
                  *[device(f"device-{i + 1}", None, attrs(stringAttribute=v)) for i, v in enumerate(values)])


def numas(*values: int) -> Obj:
    return slice_("slice-1", NODE1, POOL1, DRIVER_A,
                  *[device(f"device-{i + 1}", None, attrs(numa=v)) for i, v in enumerate(values)])


def admin(c: Obj) -> Obj:
    c["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    return c


def consuming(name: str, *uses: tuple[str, dict[str, str]], from_counters: bool = True) -> Obj:
    """device(...).withDeviceCounterConsumption(counterSet, counters...): with
    ``from_counters`` its capacity is what it consumes (``fromCounters``)."""
    d: Obj = {"name": name, "consumesCounters": [
        {"counterSet": cs, "counters": {k: {"value": v} for k, v in counters.items()}} for cs, counters in uses]}
    if from_counters:
        d["capacity"] = {k: {"value": v} for _, counters in uses for k, v in counters.items()}
    return d


def counter_slice(name: str, pool_count: int, *sets: tuple[str, dict[str, str]], where: str | Obj = NODE1,
                  pool: str = POOL1, driver: str = DRIVER_A) -> Obj:
    """sliceWithCounterSets (on node-1, pool-1, driver-a unless told)."""
    s = slice_(name, where, pool, driver, count=pool_count)
    del s["spec"]["devices"]
    s["spec"]["sharedCounters"] = [{"name": n, "counters": {k: {"value": v} for k, v in c.items()}}
                                   for n, c in sets]
    return s


@dataclass
class Row:
    claims: list[Obj]
    classes: list[Obj]
    slices: list[Obj]
    want: list[Obj] | None = None  # None: no allocation (nil results)
    error: str = ""  # a substring of the expected error
    node: Obj = field(default_factory=lambda: node(NODE1, "region-1"))
    allocated: list[DeviceID] = field(default_factory=list)
    features: Features = field(default_factory=Features)
    # allocatedCapacityDevices / allocatedSharedDeviceIDs: one share per device with
    # the capacity it consumes ({} for a share without consumed capacity)
    shared: dict[DeviceID, dict[str, str]] = field(default_factory=dict)


def run(row: Row) -> list[Obj] | None:
    pools, _ = gather_pools(row.slices, None, row.features.compatibility_groups)
    devices, counters = for_pools(pools)
    state = AllocatedState()
    by_id = {d.id: d for d in devices}
    for driver, pool, dev in row.allocated:  # AllocatedState.AllocatedDevices (known or not)
        # Upstream's allocator charges an allocated device's counters itself.
        result = {"request": "r", "driver": driver, "pool": pool, "device": dev}
        apply_allocation(state, {"devices": {"results": [result]}}, by_id)
    for (driver, pool, dev), caps in row.shared.items():
        result = {"request": "r", "driver": driver, "pool": pool, "device": dev, "shareID": SHARE}
        if caps:
            result["consumedCapacity"] = caps
        apply_allocation(state, {"devices": {"results": [result]}}, by_id)
    classes = {c["metadata"]["name"]: c for c in row.classes}
    if not row.claims:
        return []
    return Allocator(devices, counters, classes, [], state, lambda: SHARE, features=row.features,
                     invalid=[p for p in pools if p.invalid]).allocate(row.claims, row.node)


def canon(results: list[Obj] | None) -> list[Any] | None:
    # gomega.ConsistOf on the results of each claim: order-insensitive.
    if not results:
        return None
    # Config is compared as it is (upstream: nil, or allocationResultWithConfigs' list).
    return [(sorted(map(_result, a["devices"]["results"])), _selector(a.get("nodeSelector")),
             repr(a["devices"].get("config"))) for a in results]


def _result(r: Obj) -> str:
    # Quantities compare by value (upstream's 2 and "2" are one amount).
    caps = r.get("consumedCapacity")
    if caps:
        r = {**r, "consumedCapacity": {k: parse_quantity(v).normalize() for k, v in caps.items()}}
    return repr(sorted(r.items()))


def _selector(sel: Obj | None) -> Any:
    # matchNodeSelector: the order of terms, requirements and values is irrelevant.
    if sel is None:
        return None
    return sorted(
        repr({k: sorted(repr({**r, "values": sorted(r.get("values") or [])}) for r in term.get(k) or [])
              for k in ("matchExpressions", "matchFields")})
        for term in sel.get("nodeSelectorTerms") or [])


def check(row: Row) -> None:
    """Upstream's expectation for ``row``: the error (a substring) or the results."""
    if row.error:
        with pytest.raises(AllocationError) as e:
            run(row)
        assert row.error in str(e.value)
        return
    assert canon(run(row)) == canon(row.want)
