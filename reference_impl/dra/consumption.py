"""Capacity a request consumes from a device (KEP-5075, ``consumable_capacity.go``).

A request names amounts per capacity (``capacity.requests``); what is not named takes
the device's ``requestPolicy.default``, or the whole capacity. The amount is rounded up
to the next ``validValues`` entry, or to ``validRange.min + n * step``: in whole units
(``Quantity.Value()``, rounded up) unless DRAFractionalCapacityRange lets the range work
in thousandths. ``fits`` is ``CmpRequestOverCapacity``: a request naming a capacity the
device lacks, or an amount its policy does not allow, does not fit; an amount that
int64 arithmetic cannot hold, or a negative one, is an error (``CapacityError``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.api.quantity import format_quantity as quantity_format_string
from reference_impl.api.quantity import quantity_format
from reference_impl.dra.pools import DeviceInfo

__all__ = ["CapacityError", "asks_capacity", "consumed_strings", "consumption", "fits", "round_up"]

Obj = dict[str, Any]
_MAX: Final = 2**63 - 1
_NOT_REPRESENTABLE: Final = "capacity request cannot be represented in the device's range arithmetic"


class CapacityError(Exception):
    """An amount upstream's arithmetic cannot represent, or a negative one."""


def asks_capacity(spec: Obj) -> bool:
    """Whether the request names capacity amounts."""
    return bool((spec.get("capacity") or {}).get("requests"))


def _asked(spec: Obj, driver: str) -> dict[str, Decimal]:
    return {
        (k if "/" in k else f"{driver}/{k}"): parse_quantity(v)
        for k, v in ((spec.get("capacity") or {}).get("requests") or {}).items()
    }


def _policy(d: DeviceInfo, cap: str) -> Obj:
    raw_caps = d.raw.get("capacity") or {}
    raw = raw_caps.get(cap.rpartition("/")[2]) or raw_caps.get(cap) or {}
    return raw.get("requestPolicy") or {}


def consumption(spec: Obj, d: DeviceInfo, fractional: bool = False) -> dict[str, Decimal]:
    """Capacity ``spec`` takes from ``d``, by qualified capacity name
    (``GetConsumedCapacityFromRequest``); CapacityError: not representable."""
    asked = _asked(spec, d.id[0])
    out: dict[str, Decimal] = {}
    for cap, total in d.capacity.items():
        policy = _policy(d, cap)
        amount = asked.get(cap)
        try:
            if amount is None:  # fillEmptyRequest
                out[cap] = parse_quantity(policy["default"]) if "default" in policy else total
            else:
                out[cap] = round_up(amount, policy, fractional)
        except CapacityError as e:
            raise CapacityError(f'capacity "{cap.rpartition("/")[2]}": {e}') from None
    return out


def consumed_strings(spec: Obj, d: DeviceInfo, fractional: bool = False) -> dict[str, str]:
    """The consumed amounts as upstream's result writes them: ``Quantity.String()`` in the
    format of the quantity each amount comes from (the request, the policy's default, min,
    step or valid value, or the capacity)."""
    asked = {(k if "/" in k else f"{d.id[0]}/{k}"): v
             for k, v in ((spec.get("capacity") or {}).get("requests") or {}).items()}
    raw_caps = d.raw.get("capacity") or {}
    out: dict[str, str] = {}
    for cap, amount in consumption(spec, d, fractional).items():
        policy, src = _policy(d, cap), asked.get(cap)
        if src is None:
            raw_cap = raw_caps.get(cap.rpartition("/")[2]) or raw_caps.get(cap) or {}
            src = policy["default"] if "default" in policy else raw_cap.get("value", 0)
        elif (rng := policy.get("validRange")) and "min" in rng:
            if parse_quantity(src) < parse_quantity(rng["min"]):
                src = rng["min"]
            elif "step" in rng:
                src = rng["step"]  # the rounded amount takes the step's format
        else:
            src = next((v for v in policy.get("validValues") or () if parse_quantity(v) == amount), src)
        out[cap] = quantity_format_string(amount, quantity_format(src))
    return out


def fits(spec: Obj, d: DeviceInfo, used: Mapping[str, Decimal], fractional: bool = False) -> bool:
    """Whether ``spec`` fits what is left of ``d`` after ``used`` (CmpRequestOverCapacity)."""
    if any(cap not in d.capacity for cap in _asked(spec, d.id[0])):
        return False  # requestsContainNonExistCapacity
    amounts = consumption(spec, d, fractional)
    for cap, amount in amounts.items():
        if amount < 0:
            raise CapacityError(f'capacity "{cap.rpartition("/")[2]}": capacity value is negative')
    for cap, amount in amounts.items():
        if _violates(amount, _policy(d, cap), fractional):
            return False
        if used.get(cap, Decimal(0)) + amount > d.capacity[cap]:
            return False
    return True


def round_up(amount: Decimal, policy: Obj, fractional: bool = False) -> Decimal:
    """``amount`` rounded up as the capacity's request policy says (calculateConsumedCapacity)."""
    rng = policy.get("validRange")
    if rng and "min" in rng:
        return _round_range(amount, rng, fractional)
    values = [parse_quantity(v) for v in policy.get("validValues") or ()]
    return next((v for v in values if amount <= v), amount)


def _ceil(q: Decimal) -> int:
    return math.ceil(q)


def _milli_ok(q: Decimal) -> bool:
    """safeMilliValue: ``q`` is a whole number of thousandths within int64."""
    m = q * 1000
    return m == m.to_integral_value() and abs(m) <= _MAX


def _use_milli(rng: Obj, fractional: bool) -> bool:
    if not fractional:
        return False
    for key in ("min", "max", "step"):
        if key in rng and not _milli_ok(parse_quantity(rng[key])):
            return False
    return not ("step" in rng and parse_quantity(rng["step"]) * 1000 < 1)


def _round_range(amount: Decimal, rng: Obj, fractional: bool) -> Decimal:
    """roundUpRange."""
    lo = parse_quantity(rng["min"])
    if amount < lo:
        return lo
    if "step" not in rng:
        return amount
    step = parse_quantity(rng["step"])
    if _use_milli(rng, fractional):
        if not _milli_ok(amount):
            raise CapacityError(f"{_NOT_REPRESENTABLE}: request {amount} is not a representable milli value")
        req, st, mn = int(amount * 1000), _ceil(step * 1000), _ceil(lo * 1000)
        n = -(-(req - mn) // st)
        if n > (_MAX - mn) // st:
            raise CapacityError(f"{_NOT_REPRESENTABLE}: rounding request {amount} up to the next step "
                                "passes the milli-value range")
        return Decimal(mn + st * n) / 1000
    if amount > _MAX:
        raise CapacityError(f"{_NOT_REPRESENTABLE}: request {amount} exceeds MaxInt64")
    req, st, mn = _ceil(amount), _ceil(step), _ceil(lo)
    n = -(-(req - mn) // st)
    if mn >= 0 and n > (_MAX - mn) // st:
        raise CapacityError(f"{_NOT_REPRESENTABLE}: rounding request {amount} up to the next step passes MaxInt64")
    return Decimal(mn + st * n)


def _violates(amount: Decimal, policy: Obj, fractional: bool) -> bool:
    """violatesPolicy: the default is always allowed; else within the range and on a step,
    or one of the valid values."""
    if not policy:
        return False
    if "default" in policy and amount == parse_quantity(policy["default"]):
        return False
    rng = policy.get("validRange")
    if rng is not None:
        if "max" in rng and amount > parse_quantity(rng["max"]):
            return True
        if "step" in rng:
            step, lo = parse_quantity(rng["step"]), parse_quantity(rng.get("min", 0))
            if _use_milli(rng, fractional):
                if not _milli_ok(amount):
                    return True
                return (int(amount * 1000) - _ceil(lo * 1000)) % _ceil(step * 1000) != 0
            return (_ceil(amount) - _ceil(lo)) % _ceil(step) != 0
        return False
    values = policy.get("validValues") or ()
    return bool(values) and all(amount != parse_quantity(v) for v in values)
