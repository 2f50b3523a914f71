"""ResourceSlice spec (``validateResourceSliceSpec``): driver and pool, exactly one way of
selecting nodes (a false or empty value counts as unset, and is itself an error), devices
or shared counters, and the fields immutable on update."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.node_selector import node_selector
from reference_impl.apiserver.validation.resource.claim_status import skip_node_operations
from reference_impl.apiserver.validation.resource.declared import declared_device
from reference_impl.apiserver.validation.resource.device import LIST_FIELDS, counter_map, device
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list, validate_set
from reference_impl.apiserver.validation.resource.names import (
    dns_label,
    driver_name,
    node_name,
    pool_name,
)
from reference_impl.errors import Cause

__all__ = ["slice_spec"]

MAX_DEVICES: Final = 128
MAX_DEVICES_ADVANCED: Final = 64
COUNTER_SETS_MAX: Final = 8
_ONE_OF: Final = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"


def _node_access(s: dict[str, Any], path: str) -> list[Cause]:
    chosen: list[str] = []
    out: list[Cause] = []
    if s.get("nodeName") is not None:
        if s["nodeName"]:
            chosen.append("`nodeName`")
            out += node_name(str(s["nodeName"]), f"{path}.nodeName")
        else:
            out.append(f.invalid(f"{path}.nodeName", "", "must be either unset or set to a non-empty string"))
    if s.get("nodeSelector") is not None:
        chosen.append("`nodeSelector`")
        out += node_selector(s["nodeSelector"], f"{path}.nodeSelector")
        terms = as_list(as_dict(s["nodeSelector"]).get("nodeSelectorTerms"))
        if len(terms) != 1:
            out.append(f.invalid(f"{path}.nodeSelector.nodeSelectorTerms", terms, "must have exactly one node selector term"))
    for k in ("allNodes", "perDeviceNodeSelection"):
        if s.get(k) is not None:
            if s[k] is True:
                chosen.append(f"`{k}`")
            else:
                out.append(f.invalid(f"{path}.{k}", False, "must be either unset or set to true"))
    if not chosen:
        out.append(f.required(path, _ONE_OF))
    elif len(chosen) > 1:
        out.append(f.invalid(path, "{" + ", ".join(chosen) + "}", f"{_ONE_OF}, but multiple fields are set"))
    return out


def _advanced(devices: list[Any]) -> bool:
    for d in (as_dict(x) for x in devices):
        if as_list(d.get("taints")) or as_list(d.get("consumesCounters")):
            return True
        if any(as_dict(a).get(k) is not None for a in as_dict(d.get("attributes")).values() for k in LIST_FIELDS):
            return True
    return False


def _counter_set(c: Any, path: str) -> list[Cause]:
    c = as_dict(c)
    name, counters = str(c.get("name") or ""), as_dict(c.get("counters"))
    out = [f.required(f"{path}.name")] if not name else dns_label(name, f"{path}.name")
    return out + ([f.required(f"{path}.counters")] if not counters else counter_map(counters, f"{path}.counters"))


def slice_spec(spec: Any, old_spec: Any, path: str) -> list[Cause]:
    s = as_dict(spec)
    pool = as_dict(s.get("pool"))
    out = driver_name(str(s.get("driver") or ""), f"{path}.driver")
    out += pool_name(str(pool.get("name") or ""), f"{path}.pool.name")
    count, gen = pool.get("resourceSliceCount") or 0, pool.get("generation") or 0
    if count <= 0:
        out.append(f.invalid(f"{path}.pool.resourceSliceCount", count, "must be greater than zero"))
    if gen < 0:
        out.append(f.invalid(f"{path}.pool.generation", gen, "must be greater than or equal to zero"))
    old = as_dict(old_spec) if old_spec is not None else None
    if old is not None:
        for p, new_v, old_v in (("pool.name", pool.get("name"), as_dict(old.get("pool")).get("name")),
                                ("driver", s.get("driver"), old.get("driver")),
                                ("nodeName", s.get("nodeName"), old.get("nodeName"))):
            if (new_v or "") != (old_v or "") or (new_v is None) != (old_v is None):
                out.append(f.invalid(f"{path}.{p}", new_v, "field is immutable"))
    out += _node_access(s, path)
    if s.get("sharedCounters") is not None and s.get("devices") is not None:
        out.append(f.invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))
    devices = as_list(s.get("devices"))
    old_devices = {str(as_dict(d).get("name")): as_dict(d) for d in as_list((old or {}).get("devices"))}
    per_device = s.get("perDeviceNodeSelection") is True
    limit = MAX_DEVICES_ADVANCED if _advanced(devices) else MAX_DEVICES
    out += validate_set(devices, limit,
                        lambda d, p: device(d, old_devices.get(str(as_dict(d).get("name"))), p, per_device),
                        lambda d: str(as_dict(d).get("name") or ""), f"{path}.devices")
    if len(devices) > limit:  # no declarative limit on the list: its item rules still run
        out += [c for i, d in enumerate(devices) for c in declared_device(d, f"{path}.devices[{i}]")]
    out += validate_set(as_list(s.get("sharedCounters")), COUNTER_SETS_MAX, _counter_set,
                        lambda c: str(as_dict(c).get("name") or ""), f"{path}.sharedCounters", shown=lambda c: c)
    return out + skip_node_operations(s.get("skipNodeOperations"), f"{path}.skipNodeOperations")
