"""Defaulting and validation for core/v1 LimitRanges: ``SetDefaults_LimitRangeItem`` and
``pkg/apis/core/validation`` ValidateLimitRange.

A Container item's ``default`` falls back to ``max``, and ``defaultRequest`` to
``default``, then to ``min``: the LimitRanger admission plugin only reads the stored
(defaulted) object. Go ranges over maps in random order; here keys go sorted.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import label_key_errors, parse_quantity
from reference_impl.api.quantity import MAX_MILLI_VALUE, milli_value, quantity_string, value
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
LIMIT_TYPES: Final = ("Pod", "Container", "PersistentVolumeClaim")
_STANDARD: Final = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
    "services.loadbalancers",
})  # fmt: skip
_CONTAINER: Final = frozenset({"cpu", "memory", "ephemeral-storage"})


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


def _native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _resource_name_causes(name: str, path: str) -> list[Cause]:
    """``validateResourceName``: qualified; unprefixed ones must be standard."""
    errs = label_key_errors(name)
    if errs:
        return [fe.invalid(path, name, e) for e in errs]
    if "/" not in name and name not in _STANDARD and not name.startswith("requests.hugepages-"):
        return [fe.invalid(path, name, "must be a standard resource type or fully qualified")]
    return []


def _container_resource_name_causes(name: str, path: str) -> list[Cause]:
    """``ValidateContainerResourceName``."""
    causes = _resource_name_causes(name, path)
    if "/" not in name:
        if name not in _CONTAINER and not _hugepages(name):
            causes.append(fe.invalid(path, name, "must be a standard resource for containers"))
    elif not _native(name) and (
        name.startswith("requests.") or label_key_errors(f"requests.{name}")
    ):
        causes.append(fe.invalid(path, name, "doesn't follow extended resource name standard"))
    return causes


def _name_causes(limit_type: str, name: str, path: str) -> list[Cause]:
    """``validateLimitRangeResourceName``: Pod and Container items hold container resources."""
    if limit_type in ("Pod", "Container"):
        return _container_resource_name_causes(name, path)
    return _resource_name_causes(name, path)


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
    overcommit = _native(k) and not _hugepages(k)
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
