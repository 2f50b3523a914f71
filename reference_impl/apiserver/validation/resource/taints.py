"""Device taints, tolerations, DeviceTaintRule (+ status) and binding conditions."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import label_value_errors
from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.conditions import conditions
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list, validate_slice
from reference_impl.apiserver.validation.resource.names import (
    dns_label,
    driver_name,
    label_name,
    pool_name,
)
from reference_impl.errors import Cause

__all__ = [
    "BINDING_CONDITIONS_MAX", "TAINTS_MAX", "binding_parameters", "declared_taint", "device_taint",
    "rule_spec", "rule_status", "toleration",
]

TAINTS_MAX: Final = 16
RULE_CONDITIONS_MAX: Final = 8
BINDING_CONDITIONS_MAX: Final = 4
_EFFECTS: Final = ("NoExecute", "NoSchedule", "None")


def _label_value(value: str, path: str) -> list[Cause]:
    return [f.invalid(path, value, m) for m in label_value_errors(value)]


def device_taint(taint: Any, old: Any, path: str) -> list[Cause]:
    """``validateDeviceTaint``: the key is a label name; the effect is checked when new."""
    t = as_dict(taint)
    key, value, effect = str(t.get("key") or ""), str(t.get("value") or ""), str(t.get("effect") or "")
    out = label_name(key, f"{path}.key")
    if value:
        out += _label_value(value, f"{path}.value")
    if old is None or str(as_dict(old).get("effect") or "") != effect:
        out += declared_taint(t, path)
    return out


def declared_taint(taint: Any, path: str) -> list[Cause]:
    """``Validate_DeviceTaint`` (declarative, beta): the effect is required and known."""
    effect = str(as_dict(taint).get("effect") or "")
    if not effect:
        return [f.required(f"{path}.effect")]
    return [] if effect in _EFFECTS else [f.not_supported(f"{path}.effect", effect, _EFFECTS)]


def toleration(tol: Any, path: str) -> list[Cause]:
    """``validateDeviceToleration``."""
    t = as_dict(tol)
    key, value = str(t.get("key") or ""), str(t.get("value") or "")
    op, effect = str(t.get("operator") or ""), str(t.get("effect") or "")
    out = label_name(key, f"{path}.key") if key else []
    if op == "Exists":
        if value:
            out.append(f.invalid(f"{path}.value", value, "must be empty for operator `Exists`"))
    elif op == "Equal":
        out += _label_value(value, f"{path}.value")
    elif not op:
        out.append(f.required(f"{path}.operator"))
    else:
        out.append(f.not_supported(f"{path}.operator", op, ("Equal", "Exists")))
    if effect and effect not in _EFFECTS:
        out.append(f.not_supported(f"{path}.effect", effect, _EFFECTS))
    return out


def binding_parameters(conds: Any, failures: Any, path: str) -> list[Cause]:
    """``validateDeviceBindingParameters``: ≤4 label names each, unique, disjoint, both or none."""
    bc = [str(c) if c is not None else "" for c in as_list(conds)]
    bf = [str(c) if c is not None else "" for c in as_list(failures)]
    pc, pf = f"{path}.bindingConditions", f"{path}.bindingFailureConditions"
    out = validate_slice(bc, BINDING_CONDITIONS_MAX, lambda v, p: label_name(v, p), pc)
    out += validate_slice(bf, BINDING_CONDITIONS_MAX, lambda v, p: label_name(v, p), pf)
    seen: set[str] = set()
    for i, c in enumerate(bc):
        if c in seen:
            out.append(f.duplicate(f"{pc}[{i}]", c))
        seen.add(c)
    seen_f: set[str] = set()
    for i, c in enumerate(bf):
        if c in seen_f:
            out.append(f.duplicate(f"{pf}[{i}]", c))
        seen_f.add(c)
        if c in seen:
            out.append(f.invalid(f"{pf}[{i}]", c, "bindingFailureConditions must not overlap with bindingConditions"))
    if not bc and bf:
        out.append(f.invalid(pc, None, "bindingConditions are required to use bindingFailureConditions"))
    if not bf and bc:
        out.append(f.invalid(pf, None, "bindingFailureConditions are required to use bindingConditions"))
    return out


def rule_spec(spec: Any, old_spec: Any, path: str) -> list[Cause]:
    """``validateDeviceTaintRuleSpec``: the selector's names and the taint."""
    s, out = as_dict(spec), []
    sel = s.get("deviceSelector")
    if isinstance(sel, dict):
        p = f"{path}.deviceSelector"
        if sel.get("driver") is not None:
            out += driver_name(str(sel["driver"]), f"{p}.driver")
        if sel.get("pool") is not None:
            out += pool_name(str(sel["pool"]), f"{p}.pool")
        if sel.get("device") is not None:
            out += dns_label(str(sel["device"]), f"{p}.device")
    old_taint = as_dict(old_spec).get("taint", {}) if old_spec is not None else None
    return out + device_taint(s.get("taint"), old_taint, f"{path}.taint")


def rule_status(status: Any, path: str) -> list[Cause]:
    """``ValidateDeviceTaintRuleStatusUpdate``: valid conditions, at most 8."""
    conds = as_list(as_dict(status).get("conditions"))
    out = conditions(conds, f"{path}.conditions")
    if len(conds) > RULE_CONDITIONS_MAX:
        out.append(f.too_many(f"{path}.conditions", len(conds), RULE_CONDITIONS_MAX))
    return out
