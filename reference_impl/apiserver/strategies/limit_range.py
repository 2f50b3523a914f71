"""Defaulting and validation for core/v1 LimitRanges: ``SetDefaults_LimitRangeItem`` and
``pkg/apis/core/validation`` ValidateLimitRange.

A Container item's ``default`` falls back to ``max``, and ``defaultRequest`` to
``default``, then to ``min``: the LimitRanger admission plugin only reads the stored
(defaulted) object. Go ranges over maps in random order; here keys go sorted.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

from reference_impl.api.meta import label_key_errors, parse_quantity
from reference_impl.api.quantity import MAX_MILLI_VALUE, milli_value, quantity_string, value
from reference_impl.api.resource_names import (
    is_extended_resource_name,
    is_hugepage_resource_name,
    is_native_resource,
    is_standard_resource_name,
)
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["resource_name_causes"]

Obj = dict[str, Any]
LIMIT_TYPES: Final = ("Pod", "Container", "PersistentVolumeClaim")
_CONTAINER: Final = frozenset({"cpu", "memory", "ephemeral-storage"})


@preparer("LimitRange")
def prepare_limit_range(lr: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``limitrangeStrategy.PrepareForCreate``: a LimitRange created without a name gets a
    UUID one (derived from its uid here, so the seeded reference stays deterministic)."""
    meta = lr.get("metadata")
    if old is None and isinstance(meta, dict) and not meta.get("name") and meta.get("uid"):
        meta["name"] = str(uuid.uuid5(uuid.NAMESPACE_OID, str(meta["uid"])))


@defaulter("LimitRange")
def default_limit_range(lr: Obj, ctx: Context) -> None:
    """``SetDefaults_LimitRangeItem``, for Container items only."""
    for item in (lr.get("spec") or {}).get("limits") or []:
        if not isinstance(item, dict) or item.get("type") != "Container":
            continue
        default, request = dict(item.get("default") or {}), dict(item.get("defaultRequest") or {})
        for src, dst in ((item.get("max"), default), (default, request), (item.get("min"), request)):
            for k, v in (src or {}).items():
                dst.setdefault(k, v)
        for field, values in (("default", default), ("defaultRequest", request)):
            if values:  # an empty map is omitted on the wire
                item[field] = values


def resource_name_causes(name: str, path: str) -> list[Cause]:
    """``validateResourceName``: qualified; unprefixed ones must be standard."""
    errs = label_key_errors(name)
    if errs:
        return [fe.invalid(path, name, e) for e in errs]
    if "/" not in name and not is_standard_resource_name(name):
        return [fe.invalid(path, name, "must be a standard resource type or fully qualified")]
    return []


def _container_resource_name_causes(name: str, path: str) -> list[Cause]:
    """``ValidateContainerResourceName``."""
    causes = resource_name_causes(name, path)
    if "/" not in name:
        if name not in _CONTAINER and not is_hugepage_resource_name(name):
            causes.append(fe.invalid(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        causes.append(fe.invalid(path, name, "doesn't follow extended resource name standard"))
    return causes


def _name_causes(limit_type: str, name: str, path: str) -> list[Cause]:
    """``validateLimitRangeResourceName``: Pod and Container items hold container resources."""
    if limit_type in ("Pod", "Container"):
        return _container_resource_name_causes(name, path)
    return resource_name_causes(name, path)


def _type_causes(limit_type: str, path: str) -> list[Cause]:
    """``validateLimitRangeTypeName``."""
    errs = label_key_errors(limit_type)
    if errs:
        return [fe.invalid(path, limit_type, e) for e in errs]
    if "/" not in limit_type and limit_type not in LIMIT_TYPES:
        return [fe.invalid(path, limit_type, "must be a standard limit type or fully qualified")]
    return []


def _quantities(values: Any) -> dict[str, Any]:
    """The parseable entries (schema validation reports the rest)."""
    out: dict[str, Any] = {}
    for k, v in (values or {}).items() if isinstance(values, dict) else ():
        try:
            parse_quantity(v)
        except ValueError:
            continue
        out[str(k)] = v
    return out


@validator("LimitRange")
def validate_limit_range(lr: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateLimitRange`` (the update check is the same, plus metadata)."""
    causes: list[Cause] = []
    seen: set[str] = set()
    for i, item in enumerate((lr.get("spec") or {}).get("limits") or []):
        if isinstance(item, dict):
            causes += _item_causes(item, f"spec.limits[{i}]", seen)
    return causes


def _item_causes(item: Obj, path: str, seen: set[str]) -> list[Cause]:
    limit_type = str(item.get("type") or "")
    causes = _type_causes(limit_type, f"{path}.type")
    if limit_type in seen:
        causes.append(fe.duplicate(f"{path}.type", limit_type))
    seen.add(limit_type)
    fields = {f: _quantities(item.get(f)) for f in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")}  # fmt: skip
    named = ["max", "min"]
    if limit_type == "Pod":
        for f in ("default", "defaultRequest"):
            if item.get(f):
                causes.append(fe.forbidden(f"{path}.{f}", "may not be specified when `type` is 'Pod'"))
            fields[f] = {}
    else:
        named += ["default", "defaultRequest"]
    named.append("maxLimitRequestRatio")
    for f in named:
        for k in fields[f]:
            causes += _name_causes(limit_type, k, f"{path}.{f}[{k}]")
    if limit_type == "PersistentVolumeClaim" and not (
        "storage" in fields["min"] or "storage" in fields["max"]
    ):
        causes.append(fe.required(f"{path}.limits", "either minimum or maximum storage value is required, but neither was provided"))  # fmt: skip
    keys = sorted({k for f in named for k in fields[f]})
    for k in keys:
        causes += _key_causes(k, {f: fields[f].get(k) for f in fields}, path)
    return causes


def _key_causes(k: str, q: dict[str, Any], path: str) -> list[Cause]:
    """The cross-field checks of one resource name, in upstream's order."""
    out: list[Cause] = []
    lo, hi, dflt, req, ratio = (q[f] for f in ("min", "max", "default", "defaultRequest", "maxLimitRequestRatio"))  # fmt: skip
    s = quantity_string
    n = parse_quantity

    def bad(field: str, v: Any, msg: str) -> None:
        out.append(fe.invalid(f"{path}.{field}[{k}]", s(v), msg))

    if lo is not None and hi is not None and n(lo) > n(hi):
        bad("min", lo, f"min value {s(lo)} is greater than max value {s(hi)}")
    if req is not None and lo is not None and n(lo) > n(req):
        bad("defaultRequest", req, f"min value {s(lo)} is greater than default request value {s(req)}")
    if req is not None and hi is not None and n(req) > n(hi):
        bad("defaultRequest", req, f"default request value {s(req)} is greater than max value {s(hi)}")
    if req is not None and dflt is not None and n(req) > n(dflt):
        bad("defaultRequest", req, f"default request value {s(req)} is greater than default limit value {s(dflt)}")
    if dflt is not None and lo is not None and n(lo) > n(dflt):
        bad("default", lo, f"min value {s(lo)} is greater than default value {s(dflt)}")
    if dflt is not None and hi is not None and n(dflt) > n(hi):
        bad("default", hi, f"default value {s(dflt)} is greater than max value {s(hi)}")
    if ratio is not None and n(ratio) < 1:
        bad("maxLimitRequestRatio", ratio, f"ratio {s(ratio)} is less than 1")
    if ratio is not None and lo is not None and hi is not None:
        ratio_v, lo_v, hi_v = float(value(ratio)), value(lo), value(hi)
        if value(ratio) < MAX_MILLI_VALUE and lo_v < MAX_MILLI_VALUE and hi_v < MAX_MILLI_VALUE:
            ratio_v, lo_v, hi_v = milli_value(ratio) / 1000, milli_value(lo), milli_value(hi)
        limit = hi_v / lo_v if lo_v else float("inf") if hi_v > 0 else float("nan")
        if ratio_v > limit:
            bad("maxLimitRequestRatio", ratio, f"ratio {s(ratio)} is greater than max/min = {_go_f(limit)}")
    # GPUs, hugepages and the like cannot overcommit: default and defaultRequest must match.
    overcommit = is_native_resource(k) and not is_hugepage_resource_name(k)
    if not overcommit and dflt is not None and req is not None and n(dflt) != n(req):
        bad("defaultRequest", req, f"default value {s(dflt)} must equal to defaultRequest value {s(req)} in {k}")
    return out


def _go_f(x: float) -> str:
    """Go's ``%f``."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "+Inf" if x > 0 else "-Inf"
    return f"{x:.6f}"
