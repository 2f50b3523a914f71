"""One ResourceSlice device (``validateDevice``): name, attributes and capacities,
taints, counter consumption, per-device node selection and binding conditions."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.node_selector import node_selector
from reference_impl.apiserver.validation.resource.capacity import capacity
from reference_impl.apiserver.validation.resource.lists import (
    as_dict,
    as_list,
    validate_map,
    validate_set,
    validate_slice,
)
from reference_impl.apiserver.validation.resource.names import dns_label, node_name, qualified_name
from reference_impl.apiserver.validation.resource.taints import (
    TAINTS_MAX,
    binding_parameters,
    declared_taint,
    device_taint,
)
from reference_impl.errors import Cause

__all__ = ["CONSUMES_MAX", "LIST_FIELDS", "attribute_union", "counter_map", "device"]

ATTRS_AND_CAPS_MAX: Final = 32
ATTR_VALUES_MAX: Final = 48
ATTR_VALUE_MAX_LENGTH: Final = 64
CONSUMES_MAX: Final = 2
COUNTERS_MAX: Final = 32
LIST_FIELDS: Final = ("bools", "ints", "strings", "versions")
_FIELDS: Final = ("int", "bool", "string", "version", "ints", "bools", "strings", "versions")
_UNION: Final = ", ".join(f"`{x}`" for x in _FIELDS)
_NUM: Final = r"(0|[1-9]\d*)"
_PRE: Final = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD: Final = r"[0-9a-zA-Z-]+"
# Go's RE2 ``\d`` and ``$`` are ASCII-only and end-of-text: re.ASCII and fullmatch.
_SEMVER: Final = re.compile(rf"{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?", re.ASCII)
_PER_DEVICE_MSG: Final = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                          "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")


def _string(v: Any, path: str) -> list[Cause]:
    return [f.too_long(path, ATTR_VALUE_MAX_LENGTH)] if len(str(v)) > ATTR_VALUE_MAX_LENGTH else []


def _version(v: Any, path: str) -> list[Cause]:
    out = [] if _SEMVER.fullmatch(str(v)) else [f.invalid(path, str(v), "must be a string compatible with semver.org spec 2.0.0")]
    return out + ([f.too_long(path, ATTR_VALUE_MAX_LENGTH)] if len(str(v).encode()) > ATTR_VALUE_MAX_LENGTH else [])


def _attribute(a: Any, path: str) -> list[Cause]:
    a = as_dict(a)
    present = [k for k in _FIELDS if a.get(k) is not None]
    out: list[Cause] = []
    if "string" in present:
        out += _string(a["string"], f"{path}.string")
    if "version" in present:
        out += _version(a["version"], f"{path}.version")
    for k in LIST_FIELDS:
        if k in present:
            items = as_list(a[k])
            if not items:
                out.append(f.invalid(f"{path}.{k}", [], "must not be empty if specified"))
            check = _string if k == "strings" else _version if k == "versions" else None
            for i, v in enumerate(items):
                out += check(v, f"{path}.{k}[{i}]") if check else []
    return out + attribute_union(a, path)


def attribute_union(attribute: Any, path: str) -> list[Cause]:
    """The declarative union (authoritative): exactly one value, an empty list counting as unset."""
    a = as_dict(attribute)
    present = [k for k in _FIELDS if a.get(k) is not None and (k not in LIST_FIELDS or as_list(a[k]))]
    if not present:
        return [f.invalid(path, "", f"must specify one of: {_UNION}")]
    if len(present) > 1:
        return [f.invalid(path, "{" + ", ".join(present) + "}", f"must specify exactly one of: {_UNION}")]
    return []


def _num_values(attrs: dict[str, Any]) -> int:
    n = 0
    for a in (as_dict(v) for v in attrs.values()):
        k = sum(len(as_list(a.get(x))) for x in LIST_FIELDS)
        n += k or 1
    return n


def counter_map(counters: Any, path: str) -> list[Cause]:
    m = as_dict(counters)
    out = validate_map(m, COUNTERS_MAX, dns_label, None, path, truncate=63)
    if len(m) > COUNTERS_MAX:  # keysCovered: the declarative eachKey format runs past the limit too
        out += [c for k in sorted(m) for c in dns_label(k, path)]
    return out


def _consumption(c: Any, path: str) -> list[Cause]:
    c = as_dict(c)
    name, counters = str(c.get("counterSet") or ""), as_dict(c.get("counters"))
    out = [f.required(f"{path}.counterSet")] if not name else dns_label(name, f"{path}.counterSet")
    return out + ([f.required(f"{path}.counters")] if not counters else counter_map(counters, f"{path}.counters"))


def _node_selection(d: dict[str, Any], path: str, per_device: bool) -> list[Cause]:
    name, sel, all_ = d.get("nodeName"), d.get("nodeSelector"), d.get("allNodes")
    if not per_device:
        if name is not None or sel is not None or all_ is not None:
            return [f.invalid(path, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                              "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")]
        return []
    out: list[Cause] = []
    chosen: list[str] = []
    if name is not None:
        if name:
            chosen.append("`nodeName`")
            out += node_name(str(name), f"{path}.nodeName")
        else:
            out.append(f.invalid(f"{path}.nodeName", "", "must not be empty"))
    if sel is not None:
        chosen.append("`nodeSelector`")
        out += node_selector(sel, f"{path}.nodeSelector")
    if all_ is not None:
        if all_:
            chosen.append("`allNodes`")
        else:
            out.append(f.invalid(f"{path}.allNodes", False, "must be either unset or set to true"))
    if not chosen:
        out.append(f.required(path, _PER_DEVICE_MSG))
    elif len(chosen) > 1:
        out.append(f.invalid(path, "{" + ", ".join(chosen) + "}", _PER_DEVICE_MSG))
    return out


def device(d: Any, old: dict[str, Any] | None, path: str, per_device: bool) -> list[Cause]:
    d = as_dict(d)
    attrs, caps = as_dict(d.get("attributes")), as_dict(d.get("capacity"))
    out = dns_label(str(d.get("name") or ""), f"{path}.name")
    if len(attrs) + len(caps) > ATTRS_AND_CAPS_MAX:
        out.append(f.invalid(path, len(attrs) + len(caps), "the total number of attributes and capacities "
                             f"must not exceed {ATTRS_AND_CAPS_MAX}"))
    if (n := _num_values(attrs)) > ATTR_VALUES_MAX:
        out.append(f.invalid(path, n, f"the total number of attribute values must not exceed {ATTR_VALUES_MAX}"))
    out += validate_map(attrs, -1, qualified_name, _attribute, f"{path}.attributes")
    if old is None or as_dict(old.get("capacity")) != caps:
        multi = d.get("allowMultipleAllocations") is True
        out += validate_map(caps, -1, qualified_name, lambda c, p: capacity(c, p, multi), f"{path}.capacity")
    taints = as_list(d.get("taints"))
    if old is None or as_list(old.get("taints")) != taints:
        out += validate_slice(taints, TAINTS_MAX, lambda t, p: device_taint(t, None, p), f"{path}.taints")
        if len(taints) > TAINTS_MAX:  # the declarative (beta) rules have no limit to stop at
            out += [c for i, t in enumerate(taints) for c in declared_taint(t, f"{path}.taints[{i}]")]
    out += validate_set(as_list(d.get("consumesCounters")), CONSUMES_MAX, _consumption,
                        lambda c: str(as_dict(c).get("counterSet") or ""), f"{path}.consumesCounters", shown=lambda c: c)
    out += _node_selection(d, path, per_device)
    return out + binding_parameters(d.get("bindingConditions"), d.get("bindingFailureConditions"), path)
