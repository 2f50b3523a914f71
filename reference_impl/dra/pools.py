"""ResourceSlices into pools and devices, after ``structured/pools.go`` (GatherPools).

A pool is ``(driver, pool name)``. Only slices with the highest ``pool.generation`` count,
and a pool is complete only with exactly ``resourceSliceCount`` slices of that generation;
incomplete pools are not allocated from, nor are invalid ones (buildPool: duplicate device
or counter set names, consumed counters the pool does not declare). Devices keep the order
the allocator tries them in: slice by slice, each as published. Device attributes and
capacities are parsed once per slice version, and the CEL activation is built lazily and
kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from reference_impl.api.meta import parse_quantity
from reference_impl.dra.cel import Selector, device_activation

__all__ = [
    "DeviceID", "DeviceInfo", "ParsedCache", "Pool", "TypedAttribute", "gather_pools", "qualify",
    "typed_attribute",
]

Obj = dict[str, Any]
DeviceID = tuple[str, str, str]  # (driver, pool, device)
TypedAttribute = tuple[str, tuple[Any, ...], bool]  # (kind, values, is_list)


def qualify(name: str, driver: str) -> str:
    """A fully qualified attribute name (unqualified names take the driver's domain)."""
    return name if "/" in name else f"{driver}/{name}"


@dataclass(slots=True)
class DeviceInfo:
    """One published device with what the allocator derives from it."""

    id: DeviceID
    raw: Obj
    node_name: str | None  # None: not node-local
    node_selector: Obj | None
    all_nodes: bool
    attributes: dict[str, TypedAttribute | None]  # qualified name -> typed value
    capacity: dict[str, Decimal]  # qualified name -> value
    taints: list[Obj]
    allow_multiple: bool
    counters: list[Obj]
    # The first attribute DeviceMatches cannot turn into a CEL value (no value set), if any.
    bad_attribute: str | None = None
    # The slice's skipNodeOperations (DRAOptionalNodeOperations; empty: none).
    skip_node_operations: tuple[str, ...] = ()
    _activation: dict[str, Any] | None = None
    # expression -> whether this device matches it (devices are immutable per slice version)
    selector_cache: dict[str, bool] = field(default_factory=dict)

    @property
    def activation(self) -> dict[str, Any]:
        """The CEL ``device`` variable (built on first use)."""
        if self._activation is None:
            self._activation = device_activation(self.id[0], self.raw)
        return self._activation

    def matches(self, selector: Selector) -> bool:
        """``selector``'s verdict for this device (CELError as ``Selector.matches``); by
        driver alone when that is all the expression reads, so no activation is built."""
        hit = selector.matches_scalars(self.id[0], self.allow_multiple)
        return selector.matches(self.activation) if hit is None else hit


@dataclass(slots=True)
class Pool:
    """The devices of one complete pool at its newest generation."""

    driver: str
    name: str
    generation: int
    devices: list[DeviceInfo] = field(default_factory=list)
    counter_sets: dict[str, dict[str, Decimal]] = field(default_factory=dict)
    # Why upstream's buildPool rejects the pool ("": valid). An invalid pool offers no
    # devices; ``reach`` keeps them (and ``anywhere`` its counter slices) to tell which
    # nodes it concerns.
    invalid: str = ""
    reach: list[DeviceInfo] = field(default_factory=list)
    anywhere: bool = False


def typed_attribute(attr: Mapping[str, Any]) -> TypedAttribute | None:
    """``(kind, values, is_list)`` of one DeviceAttribute: kind keeps ``1`` and ``True``
    apart, and a scalar is a one-value tuple (None: no value set)."""
    for k in ("bool", "int", "string", "version"):
        if k in attr:
            return k, (attr[k],), False
    for k in ("bools", "ints", "strings", "versions"):
        if k in attr:
            return k[:-1], tuple(attr[k]), True
    return None


def _device(slice_: Obj, dev: Obj) -> DeviceInfo:
    spec = slice_["spec"]
    driver, pool = spec["driver"], spec["pool"]["name"]
    per_device = bool(spec.get("perDeviceNodeSelection"))
    src = dev if per_device else spec
    raw_attrs = dev.get("attributes") or {}
    attributes = {qualify(k, driver): typed_attribute(v) for k, v in raw_attrs.items()}
    bad = None
    if None in attributes.values() or None in raw_attrs.values():  # C-level scans; rare
        bad = next((k for k, v in raw_attrs.items()
                    if v is None or attributes.get(qualify(k, driver)) is None), None)
    return DeviceInfo(
        id=(driver, pool, dev["name"]),
        raw=dev,
        node_name=src.get("nodeName") or None,
        node_selector=src.get("nodeSelector"),
        all_nodes=bool(src.get("allNodes")),
        attributes=attributes,
        capacity={
            qualify(k, driver): parse_quantity(v.get("value", 0))
            for k, v in (dev.get("capacity") or {}).items()
        },
        taints=list(dev.get("taints") or ()),
        allow_multiple=bool(dev.get("allowMultipleAllocations")),
        counters=list(dev.get("consumesCounters") or ()),
        bad_attribute=bad,
        skip_node_operations=tuple(spec.get("skipNodeOperations") or ()),
    )


ParsedCache = dict[str, tuple[str, list[DeviceInfo]]]  # slice name -> (resourceVersion, devices)


def _slice_devices(s: Obj, parsed: ParsedCache | None) -> list[DeviceInfo]:
    # A slice version's devices never change: callers that refresh often pass a cache.
    if parsed is None:
        return [_device(s, d) for d in s["spec"].get("devices") or ()]
    name, rv = s["metadata"]["name"], str(s["metadata"].get("resourceVersion", ""))
    hit = parsed.get(name)
    if hit is None or hit[0] != rv or not rv:
        hit = parsed[name] = (rv, [_device(s, d) for d in s["spec"].get("devices") or ()])
    return hit[1]


def _uses_compatibility_groups(spec: Obj) -> bool:
    """sliceUsesCompatibilityGroups: with the gate off such a slice is ignored, leaving its
    pool incomplete."""
    return any(use.get("compatibilityGroups") for d in spec.get("devices") or ()
               for use in d.get("consumesCounters") or ())


def _invalid(pool: Pool, dup_set: str) -> str:
    """buildPool's checks: unique device names, unique counter sets, and consumed
    counters that exist in the pool's counter sets (the first failure)."""
    names: set[str] = set()
    for d in pool.devices:
        if d.id[2] in names:
            return f"duplicate device name {d.id[2]}"
        names.add(d.id[2])
    if dup_set:
        return dup_set
    for d in pool.devices:
        for use in d.counters:
            cset = pool.counter_sets.get(use.get("counterSet", ""))
            if cset is None:
                return f"counter set {use.get('counterSet', '')} not found"
            for name in use.get("counters") or {}:
                if name not in cset:
                    return f"counter {name} not found in counter set {use['counterSet']}"
    return ""


def gather_pools(
    slices: Iterable[Obj], parsed: ParsedCache | None = None, compatibility_groups: bool = False,
) -> tuple[list[Pool], list[str]]:
    """Complete pools (sorted by driver, pool; upstream's order is a map's) and the names
    of incomplete ones. A pool's devices are in ``slices`` order, then slice order: the
    order the allocator tries them in. ``parsed`` (kept by the caller between calls) reuses
    the devices of unchanged slice versions. ``compatibility_groups``: the
    DRADeviceCompatibilityGroups gate."""
    newest: dict[tuple[str, str], list[Obj]] = {}
    gen: dict[tuple[str, str], int] = {}
    for s in slices:
        spec = s.get("spec") or {}
        if not compatibility_groups and _uses_compatibility_groups(spec):
            continue  # GatherPools: the gate is off, such slices are ignored (the pool is incomplete)
        key = (spec.get("driver", ""), (spec.get("pool") or {}).get("name", ""))
        g = int((spec.get("pool") or {}).get("generation", 0))
        if key not in gen or g > gen[key]:
            gen[key], newest[key] = g, [s]
        elif g == gen[key]:
            newest[key].append(s)
    pools: list[Pool] = []
    incomplete: list[str] = []
    for key in sorted(newest):
        group = newest[key]  # the slices in the order given (upstream: the lister's)
        want = int(group[0]["spec"]["pool"].get("resourceSliceCount", 1))
        if len(group) != want:  # upstream: complete with exactly resourceSliceCount slices
            incomplete.append(f"{key[0]}/{key[1]}")
            continue
        pool = Pool(key[0], key[1], gen[key])
        dup_set = ""
        for s in group:
            for cs in s["spec"].get("sharedCounters") or ():
                if cs["name"] in pool.counter_sets and not dup_set:
                    dup_set = f"duplicate counter set name {cs['name']}"
                pool.counter_sets[cs["name"]] = {
                    n: parse_quantity(c.get("value", 0)) for n, c in (cs.get("counters") or {}).items()
                }
                pool.anywhere = True
            # Upstream tries a pool's devices slice by slice, each in its listed order.
            pool.devices.extend(_slice_devices(s, parsed))
        pool.invalid = _invalid(pool, dup_set)
        if pool.invalid:
            pool.reach, pool.devices, pool.counter_sets = pool.devices, [], {}
        pools.append(pool)
    if parsed is not None:
        seen = {s["metadata"]["name"] for group in newest.values() for s in group}
        for gone in [n for n in parsed if n not in seen]:
            del parsed[gone]
    return pools, incomplete
