"""Device capacity (``validateMulti/SingleAllocatableDeviceCapacity``): a request policy
only on multi-allocatable devices, and then a consistent default, values or range."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list, validate_set
from reference_impl.errors import Cause

__all__ = ["capacity"]

VALID_VALUES_MAX: Final = 10


def _q(v: Any) -> Decimal | None:
    try:
        return parse_quantity(str(v))
    except (ValueError, TypeError):
        return None


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
    out += validate_set(values, VALID_VALUES_MAX, one, lambda v: str(_q(v)), path)
    if default not in [q for q in qs if q is not None]:
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
    if step is not None:
        if step <= 0:
            out.append(f.invalid(f"{path}.step", str(rng["step"]), "must be greater than zero"))
        else:
            if lo + step > cap:
                out.append(f.invalid(f"{path}.step", str(rng["step"]),
                                     f"one step {lo + step} is larger than capacity value: {cap_s}"))
            for v, v_s in ((default, default_s), (hi, str(rng.get("max")))):
                if v is not None and (v - lo) % step != 0:
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
