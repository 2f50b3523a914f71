"""``DropDisabledFields`` of ``pkg/api/resourceclaimspec/util.go`` (1.37.2), shared by the
ResourceClaim and ResourceClaimTemplate strategies: request fields of DRA gates that are
off are cleared unless the old spec already used that feature."""

from __future__ import annotations

from collections.abc import Iterable
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


def _requests(spec: Obj | None) -> list[Obj]:
    return _dicts(_devices(spec).get("requests"))


def _exactly(spec: Obj | None) -> list[Obj]:
    return [r["exactly"] for r in _requests(spec) if isinstance(r.get("exactly"), dict)]


def _all(spec: Obj | None) -> list[Obj]:
    """Every request's ``exactly``, then every subrequest (lists: this runs on each claim
    write)."""
    requests = _requests(spec)
    out = [r["exactly"] for r in requests if isinstance(r.get("exactly"), dict)]
    out += [s for r in requests for s in _dicts(r.get("firstAvailable"))]
    return out


def consumable_capacity_in_use(spec: Obj | None) -> bool:
    """``DRAConsumableCapacityFeatureInUse``."""
    if any(c.get("distinctAttribute") is not None for c in _dicts(_devices(spec).get("constraints"))):
        return True
    return any(r.get("capacity") is not None for r in _all(spec))


def derived_attributes_in_use(spec: Obj | None) -> bool:
    """``draDerivedAttributesInUse``."""
    return any(r.get("derivedAttributes") for r in _all(spec))


def _drop(in_use: bool, holders: Iterable[Obj], key: str) -> None:
    if in_use:
        return
    for h in holders:
        h.pop(key, None)


def drop_disabled_fields(spec: Obj, old_spec: Obj | None, gates: FeatureGates) -> None:
    """``DropDisabledFields``; ``old_spec`` is None on create. The prioritized list goes
    first, so the later steps do not walk subrequests that were just dropped. A gate that
    is on drops nothing, so neither spec is walked for it (most are on)."""
    on = gates.enabled
    if not on("DRAPrioritizedList"):
        in_use = any(r.get("firstAvailable") for r in _requests(old_spec))
        _drop(in_use, _requests(spec), "firstAvailable")
    if not on("DRADeviceTaints"):
        in_use = any(r.get("tolerations") for r in _all(old_spec))
        _drop(in_use, _all(spec), "tolerations")
    if not on("DRAAdminAccess"):
        in_use = any(r.get("adminAccess") is not None for r in _exactly(old_spec))
        _drop(in_use, _exactly(spec), "adminAccess")
    if not on("DRAConsumableCapacity"):
        in_use = consumable_capacity_in_use(old_spec)
        _drop(in_use, _dicts(_devices(spec).get("constraints")), "distinctAttribute")
        _drop(in_use, _all(spec), "capacity")
    if not on("DRADerivedAttributes"):
        in_use = derived_attributes_in_use(old_spec)
        _drop(in_use, _all(spec), "derivedAttributes")
