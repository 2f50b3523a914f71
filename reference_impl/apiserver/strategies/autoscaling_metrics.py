"""autoscaling/v2 HPA metric specs: ``validateMetricSpec`` and its per-source validators
(1.37.2): one populated source of the given type, metric identifiers, described objects
and the targets each source needs."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, label_key_errors, parse_quantity
from reference_impl.api.resource_names import (
    is_extended_resource_name,
    is_hugepage_resource_name,
    is_native_resource,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["container_resource_name_errors", "metric_spec_causes"]

Obj = dict[str, Any]
# validMetricSourceTypes and the order in which validateMetricSpec looks at the sources.
_TYPES: Final = ("ContainerResource", "External", "Object", "Pods", "Resource")
_SOURCES: Final = (
    ("object", "Object"),
    ("external", "External"),
    ("pods", "Pods"),
    ("resource", "Resource"),
    ("containerResource", "ContainerResource"),
)


_CONTAINER_RESOURCES: Final = ("cpu", "memory", "ephemeral-storage")


def _segment_errors(name: str) -> list[str]:
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def container_resource_name_errors(name: str) -> list[str]:
    """``ValidateContainerResourceName``: a qualified name; unprefixed, a standard container
    resource (cpu, memory, ephemeral-storage, hugepages-*); prefixed, native or extended."""
    errs = list(label_key_errors(name))
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not is_hugepage_resource_name(name):
            errs.append("must be a standard resource for containers")
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errs.append("doesn't follow extended resource name standard")
    return errs


def _positive(v: Any) -> bool:
    try:
        return parse_quantity(v) > 0
    except ValueError:
        return True  # a malformed quantity never decodes


def _target(t: Obj, path: str) -> list[Cause]:
    out: list[Cause] = []
    ttype = t.get("type") or ""
    if not ttype:
        out.append(fe.required(f"{path}.type", "must specify a metric target type"))
    if ttype not in ("Utilization", "Value", "AverageValue"):
        out.append(fe.invalid(f"{path}.type", ttype, "must be either Utilization, Value, or AverageValue"))
    for f in ("value", "averageValue"):
        if t.get(f) is not None and not _positive(t[f]):
            out.append(fe.invalid(f"{path}.{f}", t[f], "must be positive"))
    util = t.get("averageUtilization")
    if isinstance(util, int) and util < 1:
        out.append(fe.invalid(f"{path}.averageUtilization", util, "must be greater than 0"))
    return out


def _identifier(m: Any, path: str) -> list[Cause]:
    name = str((m if isinstance(m, dict) else {}).get("name") or "")
    if not name:
        return [fe.required(f"{path}.name", "must specify a metric name")]
    return [fe.invalid(f"{path}.name", name, e) for e in _segment_errors(name)]


def _described(ref: Any, path: str) -> list[Cause]:
    """``ValidateCrossVersionObjectReference`` with AllowEmptyAPIGroup (metrics)."""
    ref = ref if isinstance(ref, dict) else {}
    out: list[Cause] = []
    for f in ("kind", "name"):
        value = str(ref.get(f) or "")
        if not value:
            out.append(fe.required(f"{path}.{f}"))
        out += [fe.invalid(f"{path}.{f}", value, e) for e in _segment_errors(value)]
    version = str(ref.get("apiVersion") or "")
    if version.count("/") > 1:
        out.append(fe.invalid(f"{path}.apiVersion", version, f"unexpected GroupVersion string: {version}"))
    return out


def _source(kind: str, src: Obj, path: str) -> list[Cause]:
    raw = src.get("target")
    t: Obj = raw if isinstance(raw, dict) else {}
    tp = f"{path}.target"
    out: list[Cause] = []
    if kind == "object":
        out += _described(src.get("describedObject"), f"{path}.describedObject")
    if kind in ("object", "external", "pods"):
        out += _identifier(src.get("metric"), f"{path}.metric")
    if kind in ("resource", "containerResource") and not src.get("name"):
        out.append(fe.required(f"{path}.name", "must specify a resource name"))
    elif kind == "containerResource":
        name = str(src.get("name"))
        out += [fe.invalid(f"{path}.name", name, e) for e in container_resource_name_errors(name)]
    if kind == "containerResource":
        container = str(src.get("container") or "")
        if not container:
            out.append(fe.required(f"{path}.container", "must specify a container"))
        out += [fe.invalid(f"{path}.container", container, e) for e in (dns1123_label_errors(container) if container else [])]
    out += _target(t, tp)
    value, average, util = t.get("value"), t.get("averageValue"), t.get("averageUtilization")
    if kind in ("object", "external") and value is None and average is None:
        out.append(fe.required(f"{tp}.averageValue", "must set either a target value or averageValue"))
    if kind == "external" and value is not None and average is not None:
        out.append(fe.forbidden(f"{tp}.value", "may not set both a target value for metric and a per-pod target"))
    if kind == "pods" and average is None:
        out.append(fe.required(f"{tp}.averageValue", "must specify a positive target averageValue"))
    if kind in ("resource", "containerResource"):
        if util is None and average is None:
            out.append(fe.required(f"{tp}.averageUtilization", "must set either a target raw value or a target utilization"))
        if util is not None and average is not None:
            out.append(fe.forbidden(f"{tp}.averageValue", "may not set both a target raw value and a target utilization"))
    return out


def metric_spec_causes(m: Obj, path: str) -> list[Cause]:
    """``validateMetricSpec`` for one entry of ``spec.metrics``."""
    out: list[Cause] = []
    mtype = m.get("type") or ""
    if not mtype:
        out.append(fe.required(f"{path}.type", "must specify a metric source type"))
    if mtype not in _TYPES:
        out.append(fe.not_supported(f"{path}.type", mtype, _TYPES))
    present = [f for f, _ in _SOURCES if m.get(f) is not None]
    if present:
        first = present[0]
        src = m[first] if isinstance(m[first], dict) else {}
        out += _source(first, src, f"{path}.{first}")
    expected = dict((t, f) for f, t in _SOURCES).get(str(mtype))
    if expected is not None and m.get(expected) is None:
        out.append(fe.required(f"{path}.{expected}", "must populate information for the given metric source"))
    if len(present) != 1:
        for f in present:
            if f != expected:
                out.append(fe.forbidden(f"{path}.{f}", "must populate the given metric source only"))
    return out
