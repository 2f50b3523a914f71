"""Defaulting and validation for resource.k8s.io (``pkg/apis/resource/validation``).

DeviceClass, ResourceClaim (+ status), ResourceClaimTemplate, ResourceSlice and
DeviceTaintRule (+ status). CEL expressions are compiled by ``reference_impl.dra.validation``
(the CEL library lives above the apiserver layer), which registers its own validators for
the same kinds, so an invalid expression is an Invalid at ``...selectors[i].cel.expression``.
Taint times are set in ``resource_time.py`` (they need the clock and the old object).
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.api.meta import label_key_errors, label_value_errors
from reference_impl.apiserver.registry import Context, validator
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
MAX_RESERVED_FOR: Final = 256
MAX_TAINTS: Final = 16
MAX_CONDITIONS: Final = 8
MAX_SLICE_DEVICES: Final = 128
MAX_SLICE_DEVICES_TAINTED: Final = 64
_TAINT_EFFECTS: Final = ("None", "NoSchedule", "NoExecute")
_MODES: Final = ("ExactCount", "All")


def _too_many(path: str, n: int, limit: int) -> Cause:
    return Cause(path, "FieldValueTooMany", f"Too many: {n}: must have at most {limit} items")


def _selectors(sels: list[Obj] | None, path: str) -> list[Cause]:
    out: list[Cause] = []
    for i, s in enumerate(sels or ()):
        cel = s.get("cel")
        if not isinstance(cel, dict):
            out.append(Cause(f"{path}[{i}].cel", "FieldValueRequired", "Required value"))
            continue
        if not isinstance(cel.get("expression"), str) or not cel["expression"]:
            out.append(Cause(f"{path}[{i}].cel.expression", "FieldValueRequired", "Required value"))
    return out


def _tolerations(tols: list[Obj] | None, path: str) -> list[Cause]:
    # Upstream declares DeviceTolerationsMaxLength (16) but enforces no limit on request
    # tolerations (1.37.2 accepts 17), and a toleration may name every taint effect.
    out: list[Cause] = []
    for i, t in enumerate(tols or []):
        p = f"{path}[{i}]"
        key, value, op = t.get("key") or "", t.get("value") or "", t.get("operator", "Equal")
        out += [Cause(f"{p}.key", "FieldValueInvalid", m) for m in label_key_errors(key) if key]
        if op == "Exists" and value:
            out.append(Cause(f"{p}.value", "FieldValueInvalid", "must be empty for operator `Exists`"))
        elif op == "Equal":
            out += [Cause(f"{p}.value", "FieldValueInvalid", m) for m in label_value_errors(value)]
        elif op not in ("Equal", "Exists"):
            out.append(Cause(f"{p}.operator", "FieldValueNotSupported",
                             'supported values: "Equal", "Exists"'))
        if t.get("effect", "") not in ("", *_TAINT_EFFECTS):
            out.append(Cause(f"{p}.effect", "FieldValueNotSupported",
                             'supported values: "NoExecute", "NoSchedule", "None"'))
    return out


def _exact(req: Obj, path: str, sub: bool = False) -> list[Cause]:
    out: list[Cause] = []
    if not req.get("deviceClassName"):
        out.append(Cause(f"{path}.deviceClassName", "FieldValueRequired", "Required value"))
    mode = req.get("allocationMode", "ExactCount")
    if mode not in _MODES:
        out.append(Cause(f"{path}.allocationMode", "FieldValueNotSupported",
                         'supported values: "All", "ExactCount"'))
    if mode == "ExactCount" and int(req.get("count", 1)) <= 0:
        out.append(Cause(f"{path}.count", "FieldValueInvalid", "must be greater than zero"))
    out += _selectors(req.get("selectors"), f"{path}.selectors")
    out += _tolerations(req.get("tolerations"), f"{path}.tolerations")
    return out


def _claim_spec(spec: Obj | None, path: str) -> list[Cause]:
    devices = (spec or {}).get("devices") or {}
    out: list[Cause] = []
    names: set[str] = set()
    for i, r in enumerate(devices.get("requests") or ()):
        p = f"{path}.devices.requests[{i}]"
        if r.get("name") in names:
            out.append(Cause(f"{p}.name", "FieldValueDuplicate", f'Duplicate value: "{r.get("name")}"'))
        names.add(str(r.get("name")))
        if ("exactly" in r) == ("firstAvailable" in r):
            out.append(Cause(p, "FieldValueInvalid", "exactly one of `exactly` or `firstAvailable` is required"))
        if "exactly" in r:
            out += _exact(r["exactly"], f"{p}.exactly")
        for j, sub in enumerate(r.get("firstAvailable") or ()):
            out += _exact(sub, f"{p}.firstAvailable[{j}]", sub=True)
    for i, c in enumerate(devices.get("constraints") or ()):
        if bool(c.get("matchAttribute")) == bool(c.get("distinctAttribute")):
            out.append(Cause(f"{path}.devices.constraints[{i}]", "FieldValueInvalid",
                             "exactly one of `matchAttribute` or `distinctAttribute` is required"))
    return out


def _immutable(obj: Obj, old: Obj | None, field: str) -> list[Cause]:
    if old is not None and (old.get(field) or {}) != (obj.get(field) or {}):
        return [Cause(field, "FieldValueInvalid", "field is immutable")]
    return []


@validator("DeviceClass")
def validate_device_class(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Selectors must compile."""
    return _selectors((obj.get("spec") or {}).get("selectors"), "spec.selectors")


@validator("ResourceClaim")
def validate_claim(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Requests, selectors, tolerations and constraints; the spec is immutable."""
    return _claim_spec(obj.get("spec"), "spec") + _immutable(obj, old, "spec")


@validator("ResourceClaimTemplate")
def validate_claim_template(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """As a claim's spec, under ``spec.spec``; immutable."""
    return _claim_spec((obj.get("spec") or {}).get("spec"), "spec.spec") + _immutable(obj, old, "spec")


def _taint(t: Obj, path: str) -> list[Cause]:
    out: list[Cause] = []
    if not t.get("key"):
        out.append(Cause(f"{path}.key", "FieldValueRequired", "Required value"))
    if t.get("effect") not in _TAINT_EFFECTS:
        out.append(Cause(f"{path}.effect", "FieldValueNotSupported",
                         'supported values: "NoExecute", "NoSchedule", "None"'))
    return out


_VALUE_FIELDS: Final = ("int", "bool", "string", "version", "ints", "bools", "strings", "versions")
_UNION: Final = ", ".join(f"`{f}`" for f in _VALUE_FIELDS)


def _attributes(attrs: Obj, path: str) -> list[Cause]:
    # ``validateDeviceAttribute``: exactly one value; a list value must not be empty.
    out: list[Cause] = []
    for name, a in sorted(attrs.items()):
        p = f"{path}[{name}]"
        set_ = [f for f in _VALUE_FIELDS if isinstance(a, dict) and a.get(f) is not None]
        for f in set_:
            if f.endswith("s") and isinstance(a[f], list) and not a[f]:
                out.append(Cause(f"{p}.{f}", "FieldValueInvalid",
                                 "Invalid value: []: must not be empty if specified"))
        if len(set_) != 1:  # the declarative union's wording
            what = "one of" if not set_ else "exactly one of"
            shown = "" if not set_ else "{" + ", ".join(set_) + "}"
            out.append(Cause(p, "FieldValueInvalid", f'Invalid value: "{shown}": must specify {what}: {_UNION}'))
    return out


@validator("ResourceSlice")
def validate_slice(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """One node-access field, a positive slice count, device and taint limits."""
    spec = obj.get("spec") or {}
    out: list[Cause] = []
    access = [f for f in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection") if spec.get(f)]
    if len(access) != 1:
        out.append(Cause("spec", "FieldValueRequired" if not access else "FieldValueInvalid",
                         "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"))
    if int((spec.get("pool") or {}).get("resourceSliceCount", 0)) <= 0:
        out.append(Cause("spec.pool.resourceSliceCount", "FieldValueInvalid", "must be greater than zero"))
    devices = spec.get("devices") or []
    limit = MAX_SLICE_DEVICES_TAINTED if any(d.get("taints") or d.get("consumesCounters") for d in devices) else MAX_SLICE_DEVICES
    if len(devices) > limit:
        out.append(_too_many("spec.devices", len(devices), limit))
    for i, d in enumerate(devices):
        out += _attributes(d.get("attributes") or {}, f"spec.devices[{i}].attributes")
        taints = d.get("taints") or []
        if len(taints) > MAX_TAINTS:
            out.append(_too_many(f"spec.devices[{i}].taints", len(taints), MAX_TAINTS))
        for j, t in enumerate(taints):
            out += _taint(t, f"spec.devices[{i}].taints[{j}]")
    for f in ("driver", "nodeName"):
        if old is not None and (old.get("spec") or {}).get(f) != spec.get(f):
            out.append(Cause(f"spec.{f}", "FieldValueInvalid", "field is immutable"))
    return out


@validator("DeviceTaintRule")
def validate_rule(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The taint's key and effect."""
    taint = (obj.get("spec") or {}).get("taint")
    if not isinstance(taint, dict):
        return [Cause("spec.taint", "FieldValueRequired", "Required value")]
    return _taint(taint, "spec.taint")


def _cidr(ip: str) -> bool:
    try:
        ipaddress.ip_interface(ip)
    except ValueError:
        return False
    return "/" in ip


@validator("ResourceClaim", status=True)
def validate_claim_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """reservedFor ≤ 256; device status entries need an allocation result, ≤ 8 conditions
    and CIDR ``ips``."""
    status = obj.get("status") or {}
    out: list[Cause] = []
    reserved = status.get("reservedFor") or []
    if len(reserved) > MAX_RESERVED_FOR:
        out.append(_too_many("status.reservedFor", len(reserved), MAX_RESERVED_FOR))
    if reserved and not status.get("allocation"):
        out.append(Cause("status.reservedFor", "FieldValueForbidden",
                         "may not be specified when `allocated` is not set"))
    results = {
        (r.get("driver"), r.get("pool"), r.get("device"), r.get("shareID") or "")
        for r in ((status.get("allocation") or {}).get("devices") or {}).get("results") or ()
    }
    for i, d in enumerate(status.get("devices") or ()):
        p = f"status.devices[{i}]"
        if (d.get("driver"), d.get("pool"), d.get("device"), d.get("shareID") or "") not in results:
            out.append(Cause(p, "FieldValueInvalid", "must be an allocated device in the claim"))
        conds = d.get("conditions") or []
        if len(conds) > MAX_CONDITIONS:
            out.append(_too_many(f"{p}.conditions", len(conds), MAX_CONDITIONS))
        for j, ip in enumerate((d.get("networkData") or {}).get("ips") or ()):
            if not _cidr(str(ip)):
                out.append(Cause(f"{p}.networkData.ips[{j}]", "FieldValueInvalid",
                                 "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"))
    return out


@validator("DeviceTaintRule", status=True)
def validate_rule_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """At most 8 conditions."""
    conds = (obj.get("status") or {}).get("conditions") or []
    return [_too_many("status.conditions", len(conds), MAX_CONDITIONS)] if len(conds) > MAX_CONDITIONS else []
