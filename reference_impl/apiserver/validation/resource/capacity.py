"""Device capacity (``validateMulti/SingleAllocatableDeviceCapacity``): a request policy
only on multi-allocatable devices, and then a consistent default, values or range.

``DRAFractionalCapacityRange`` (beta in 1.37) defaults on only with
``--min-compatibility-version>=1.37``; a 1.37 apiserver's default is 1.36, so upstream
checks values with 64-bit integer arithmetic (``Quantity.Value()``, which rounds away from
zero): ``FRACTIONAL`` is off, as on a default v1.37.2 apiserver."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list, validate_set
from reference_impl.errors import Cause

__all__ = ["capacity"]

VALID_VALUES_MAX: Final = 10
FRACTIONAL: Final = False
_MAX_INT64: Final = 2**63 - 1


def _q(v: Any) -> Decimal | None:
    try:
        return parse_quantity(str(v))
    except (ValueError, TypeError):
        return None


def _int(q: Decimal) -> int:
    """``Quantity.Value()``: rounded up, away from zero."""
    return int(math.copysign(math.ceil(abs(q)), q)) if q else 0


def _milli_exact(q: Decimal) -> bool:
    """Whether ``q`` survives ``NewMilliQuantity(q.MilliValue())``."""
    m = q * 1000
    return m == m.to_integral_value() and abs(m) <= _MAX_INT64


def _fractional(q: Decimal | None) -> bool:
    return q is not None and q != q.to_integral_value()


def _values(default: Decimal, cap: Decimal, values: list[Any], path: str, shown: tuple[str, str]) -> list[Cause]:
    default_s, cap_s = shown
    qs = [_q(v) for v in values]
    out: list[Cause] = []
    for i in range(len(qs) - 1):
        a, b = qs[i], qs[i + 1]
        if a is not None and b is not None and a > b:
            out.append(f.invalid(f"{path}[{i + 1}]", str(values[i + 1]), "values must be sorted in ascending order"))

    def one(v: Any, p: str) -> list[Cause]:
        q = _q(v)
        return [f.invalid(p, str(v), f"option is larger than capacity value: {cap_s}")] if q is not None and q > cap else []
    def key(v: Any) -> str:
        q = _q(v)
        return "" if q is None else str(q.normalize()) if FRACTIONAL else str(_int(q))
    out += validate_set(values, VALID_VALUES_MAX, one, key, path)
    # upstream notes the default while checking the items, which a too-long list skips
    found = len(values) <= VALID_VALUES_MAX and default in [q for q in qs if q is not None]
    if not found:
        out.append(f.invalid(path, default_s, "default value is not valid according to the requestPolicy"))
    return out


def _range(default: Decimal, cap: Decimal, rng: dict[str, Any], path: str, shown: tuple[str, str]) -> list[Cause]:
    default_s, cap_s = shown
    lo, hi, step = _q(rng.get("min")), _q(rng.get("max")), _q(rng.get("step"))
    if lo is None:
        return [f.required(f"{path}.min", "required when validRange is defined")]
    out: list[Cause] = []
    if lo > cap:
        out.append(f.invalid(f"{path}.min", str(rng["min"]), f"min is larger than capacity value: {cap_s}"))
    if default < lo:
        out.append(f.invalid(f"{path}.default", default_s, f"default is less than min: {rng['min']}"))
    if hi is not None:
        if lo > hi:
            out.append(f.invalid(f"{path}.max", str(rng["min"]), f"min is larger than max: {rng['max']}"))
        if hi > cap:
            out.append(f.invalid(f"{path}.max", str(rng["max"]), f"max is larger than capacity value: {cap_s}"))
        if default > hi:
            out.append(f.invalid(f"{path}.default", default_s, f"default is more than max: {rng['max']}"))
    named = (("default", default, default_s), ("min", lo, str(rng["min"])),
             ("max", hi, str(rng.get("max"))), ("step", step, str(rng.get("step"))))
    milli = FRACTIONAL and any(_fractional(q) for q in (lo, hi, step, default))
    if milli:
        unsafe = [f.invalid(f"{path}.{n}", s, "value cannot be represented as a milli value")
                  for n, q, s in named if q is not None and not _milli_exact(q)]
        if unsafe:
            return out + unsafe
    if step is not None:
        out += _step(named, cap, cap_s, rng, milli, path)
    return out


def _int64_range(q: Decimal, s: str, path: str) -> list[Cause]:
    """``validateInt64Range``: where ``Quantity.Value()`` can be reasoned about."""
    if q < 0:
        return [f.invalid(path, s, "must be greater than or equal to 0")]
    if q > _MAX_INT64:
        return [f.invalid(path, s, "must not be larger than 9223372036854775807")]
    return []


def _step(named: tuple[tuple[str, Decimal | None, str], ...], cap: Decimal, cap_s: str,
          rng: dict[str, Any], milli: bool, path: str) -> list[Cause]:
    """The step of ``validateRequestPolicyRange``: positive, one step within the
    capacity, bounds in int64 (integer mode), default and max on the step grid."""
    (_, default, default_s), (_, lo, _), (_, hi, _), (_, step, step_s) = named
    assert lo is not None and step is not None and default is not None
    if step <= 0:
        return [f.invalid(f"{path}.step", step_s, "must be greater than zero")]
    out: list[Cause] = []
    if lo + step > cap:
        out.append(f.invalid(f"{path}.step", step_s, f"one step {lo + step} is larger than capacity value: {cap_s}"))
    if not milli:
        unsafe = [e for n, q, s in named if q is not None for e in _int64_range(q, s, f"{path}.{n}")]
        if unsafe:
            return out + unsafe

    def units(q: Decimal) -> int:
        return int(q * 1000) if milli else _int(q)
    for v, v_s in ((default, default_s), (hi, str(rng.get("max")))):
        if v is not None and (units(v) - units(lo)) % units(step) != 0:
            out.append(f.invalid(f"{path}.step", v_s, f"value is not a multiple of a given step "
                                 f"({rng['step']}) from ({rng['min']})"))
    return out


def _policy(cap_value: Any, policy: dict[str, Any], path: str) -> list[Cause]:
    values, rng = as_list(policy.get("validValues")), policy.get("validRange")
    if values and rng is not None:
        return [f.forbidden(path, 'exactly one policy can be specified, cannot specify "validValues" and '
                            '"validRange" at the same time')]
    cap, default = _q(cap_value), _q(policy.get("default")) if policy.get("default") is not None else None
    if cap is None or not (values or rng is not None):
        return []
    what = "validValues" if values else "validRange"
    if default is None:
        return [f.required(f"{path}.default", f"required when {what} is defined")]
    shown = (str(policy.get("default")), str(cap_value))
    if values:
        return _values(default, cap, values, f"{path}.validValues", shown)
    return _range(default, cap, as_dict(rng), f"{path}.validRange", shown)


def capacity(c: Any, path: str, multi: bool) -> list[Cause]:
    c = as_dict(c)
    policy = c.get("requestPolicy")
    if policy is None:
        return []
    if not multi:
        return [f.forbidden(f"{path}.requestPolicy", "allowMultipleAllocations must be true")]
    return _policy(c.get("value"), as_dict(policy), f"{path}.requestPolicy")
