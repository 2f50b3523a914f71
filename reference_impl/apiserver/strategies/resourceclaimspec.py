"""``DropDisabledFields`` of ``pkg/api/resourceclaimspec/util.go`` (1.37.2), shared by the
ResourceClaim and ResourceClaimTemplate strategies: request fields of DRA gates that are
off are cleared unless the old spec already used that feature."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference_impl.features import FeatureGates

__all__ = [
    "consumable_capacity_in_use",
    "derived_attributes_in_use",
    "drop_disabled_fields",
]

Obj = dict[str, Any]


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _devices(spec: Obj | None) -> Obj:
    d = (spec or {}).get("devices")
    return d if isinstance(d, dict) else {}


def _exactly(spec: Obj | None) -> Iterator[Obj]:
    for r in _dicts(_devices(spec).get("requests")):
        if isinstance(r.get("exactly"), dict):
            yield r["exactly"]


def _subrequests(spec: Obj | None) -> Iterator[Obj]:
    for r in _dicts(_devices(spec).get("requests")):
        yield from _dicts(r.get("firstAvailable"))


def _all(spec: Obj | None) -> Iterator[Obj]:
    yield from _exactly(spec)
    yield from _subrequests(spec)


def consumable_capacity_in_use(spec: Obj | None) -> bool:
    """``DRAConsumableCapacityFeatureInUse``."""
    if any(c.get("distinctAttribute") is not None for c in _dicts(_devices(spec).get("constraints"))):
        return True
    return any(r.get("capacity") is not None for r in _all(spec))


def derived_attributes_in_use(spec: Obj | None) -> bool:
    """``draDerivedAttributesInUse``."""
    return any(r.get("derivedAttributes") for r in _all(spec))


def _drop(gates: FeatureGates, gate: str, in_use: bool, holders: list[Obj], key: str) -> None:
    if gates.enabled(gate) or in_use:
        return
    for h in holders:
        h.pop(key, None)


def drop_disabled_fields(spec: Obj, old_spec: Obj | None, gates: FeatureGates) -> None:
    """``DropDisabledFields``; ``old_spec`` is None on create. The prioritized list goes
    first, so the later steps do not walk subrequests that were just dropped."""
    requests = _dicts(_devices(spec).get("requests"))
    in_use = any(r.get("firstAvailable") for r in _dicts(_devices(old_spec).get("requests")))
    _drop(gates, "DRAPrioritizedList", in_use, requests, "firstAvailable")
    in_use = any(r.get("tolerations") for r in _all(old_spec))
    _drop(gates, "DRADeviceTaints", in_use, list(_all(spec)), "tolerations")
    in_use = any(r.get("adminAccess") is not None for r in _exactly(old_spec))
    _drop(gates, "DRAAdminAccess", in_use, list(_exactly(spec)), "adminAccess")
    in_use = consumable_capacity_in_use(old_spec)
    constraints = _dicts(_devices(spec).get("constraints"))
    _drop(gates, "DRAConsumableCapacity", in_use, constraints, "distinctAttribute")
    _drop(gates, "DRAConsumableCapacity", in_use, list(_all(spec)), "capacity")
    in_use = derived_attributes_in_use(old_spec)
    _drop(gates, "DRADerivedAttributes", in_use, list(_all(spec)), "derivedAttributes")
