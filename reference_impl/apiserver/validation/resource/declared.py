"""The beta declarative rules of one ResourceSlice device (``Validate_Device`` in
``pkg/apis/resource/v1/zz_generated.validations.go``). The device list has no declarative
size limit, so these still run when the handwritten ``validateSet`` stops at
``ResourceSliceMaxDevices`` and reports only TooMany; the list does not correlate old
devices, so nothing ratchets here."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.resource.device import CONSUMES_MAX, attribute_union
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.apiserver.validation.resource.names import dns_label
from reference_impl.apiserver.validation.resource.taints import (
    BINDING_CONDITIONS_MAX,
    declared_taint,
)
from reference_impl.errors import Cause

__all__ = ["declared_device"]


def _consumption(c: Any, path: str) -> list[Cause]:
    """``Validate_DeviceCounterConsumption``: counterSet and counters required, short names."""
    c = as_dict(c)
    name, counters = str(c.get("counterSet") or ""), as_dict(c.get("counters"))
    out = dns_label(name, f"{path}.counterSet") if name else [f.required(f"{path}.counterSet")]
    if not counters:
        return out + [f.required(f"{path}.counters")]
    return out + [e for k in sorted(counters) for e in dns_label(k, f"{path}.counters")]


def _consumptions(items: list[Any], path: str) -> list[Cause]:
    """maxItems (short-circuiting), unique by counterSet, then each entry."""
    if len(items) > CONSUMES_MAX:
        return [f.too_many(path, len(items), CONSUMES_MAX)]
    out: list[Cause] = []
    seen: set[str] = set()
    for i, c in enumerate(items):
        name = str(as_dict(c).get("counterSet") or "")
        if name in seen:
            out.append(f.duplicate(f"{path}[{i}]", c))
        seen.add(name)
        out += _consumption(c, f"{path}[{i}]")
    return out


def declared_device(device: Any, path: str) -> list[Cause]:
    """Attribute unions, counter consumption, taint effects, binding condition list sizes."""
    d = as_dict(device)
    out = [e for k, a in sorted(as_dict(d.get("attributes")).items())
           for e in attribute_union(a, f"{path}.attributes[{k}]")]
    out += _consumptions(as_list(d.get("consumesCounters")), f"{path}.consumesCounters")
    out += [e for i, t in enumerate(as_list(d.get("taints"))) for e in declared_taint(t, f"{path}.taints[{i}]")]
    for name in ("bindingConditions", "bindingFailureConditions"):
        if (n := len(as_list(d.get(name)))) > BINDING_CONDITIONS_MAX:
            out.append(f.too_many(f"{path}.{name}", n, BINDING_CONDITIONS_MAX))
    return out
