"""Capacity a request consumes from a multi-allocatable device (KEP-5075).

A request names amounts per capacity (``capacity.requests``); what is not named takes
the device's ``requestPolicy.default``, or the whole capacity. The amount is rounded up
to the next ``validValues`` entry, or to ``validRange.min + n * step``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from reference_impl.api.meta import parse_quantity
from reference_impl.dra.pools import DeviceInfo

__all__ = ["consumption", "format_quantity", "round_up"]

Obj = dict[str, Any]


def format_quantity(v: Decimal) -> str:
    """A consumed amount as the allocation result writes it."""
    return str(int(v)) if v == v.to_integral_value() else str(v)


def consumption(spec: Obj, d: DeviceInfo) -> dict[str, Decimal]:
    """Capacity ``spec`` takes from the shared device ``d``, by qualified capacity name."""
    asked = {
        (k if "/" in k else f"{d.id[0]}/{k}"): parse_quantity(v)
        for k, v in ((spec.get("capacity") or {}).get("requests") or {}).items()
    }
    raw_caps = d.raw.get("capacity") or {}
    out: dict[str, Decimal] = {}
    for cap, total in d.capacity.items():
        raw = raw_caps.get(cap.rpartition("/")[2]) or raw_caps.get(cap) or {}
        policy = raw.get("requestPolicy") or {}
        amount = asked.get(cap)
        if amount is None:
            amount = parse_quantity(policy["default"]) if "default" in policy else total
        out[cap] = round_up(amount, policy)
    return out


def round_up(amount: Decimal, policy: Obj) -> Decimal:
    """``amount`` rounded up as the capacity's request policy says."""
    values = [parse_quantity(v) for v in policy.get("validValues") or ()]
    if values:
        return next((v for v in values if v >= amount), amount)
    rng = policy.get("validRange")
    if rng:
        lo = parse_quantity(rng.get("min", 0))
        if amount <= lo:
            return lo
        if rng.get("step"):
            step = parse_quantity(rng["step"])
            n = -((lo - amount) // step)
            return lo + n * step
    return amount
