"""ResourceClaim ``/status`` (``validateResourceClaimStatusUpdate``): reservedFor, the
allocation (immutable once set) and device statuses."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.apiserver.validation import field as f
from reference_impl.apiserver.validation.conditions import conditions
from reference_impl.apiserver.validation.node_selector import node_selector
from reference_impl.apiserver.validation.resource.claim import RequestNames, request_ref
from reference_impl.apiserver.validation.resource.config import device_configuration, raw_extension
from reference_impl.apiserver.validation.resource.lists import (
    as_dict,
    as_list,
    validate_set,
    validate_slice,
)
from reference_impl.apiserver.validation.resource.names import (
    dns_label,
    driver_name,
    pool_name,
    uid,
)
from reference_impl.apiserver.validation.resource.taints import binding_parameters, toleration
from reference_impl.errors import Cause

__all__ = ["claim_status", "skip_node_operations"]

RESERVED_FOR_MAX: Final = 256
RESULTS_MAX: Final = 32
DEVICE_CONDITIONS_MAX: Final = 8
DATA_MAX: Final = 10 * 1024
IPS_MAX: Final = 16
_SOURCES: Final = ("FromClaim", "FromClass")


def _device_id(d: dict[str, Any]) -> tuple[str, str, str, str]:
    return (str(d.get("driver") or ""), str(d.get("pool") or ""), str(d.get("device") or ""),
            str(d.get("shareID") or ""))


def skip_node_operations(ops: Any, path: str) -> list[Cause]:
    s = {str(o) for o in as_list(ops)}
    if "NodePrepareResources" in s and not s & {"NodeUnprepareResources", "*"}:
        return [f.invalid(path, as_list(ops), "NodePrepareResources cannot be skipped unless "
                          "NodeUnprepareResources is also skipped")]
    return []


def _consumer(ref: Any, path: str) -> list[Cause]:
    r = as_dict(ref)
    return [f.required(f"{path}.{k}") for k in ("resource", "name", "uid") if not r.get(k)]


def _result(r: Any, path: str, names: RequestNames) -> list[Cause]:
    r = as_dict(r)
    out = request_ref(str(r.get("request") or ""), f"{path}.request", names)
    out += driver_name(str(r.get("driver") or ""), f"{path}.driver", declarative=True)
    out += pool_name(str(r.get("pool") or ""), f"{path}.pool", declarative=True)
    out += dns_label(str(r.get("device") or ""), f"{path}.device")
    out += binding_parameters(r.get("bindingConditions"), r.get("bindingFailureConditions"), path)
    for i, t in enumerate(as_list(r.get("tolerations"))):
        out += toleration(t, f"{path}.tolerations[{i}]")
    if r.get("shareID") is not None:
        out += uid(str(r["shareID"]), f"{path}.shareID")
    return out + skip_node_operations(r.get("skipNodeOperations"), f"{path}.skipNodeOperations")


def _alloc_config(c: Any, path: str, names: RequestNames) -> list[Cause]:
    c = as_dict(c)
    source, out = str(c.get("source") or ""), []
    if not source:
        out.append(f.required(f"{path}.source"))
    elif source not in _SOURCES:
        out.append(f.not_supported(f"{path}.source", source, _SOURCES))
    refs = [str(x) if x is not None else "" for x in as_list(c.get("requests"))]
    out += validate_set(refs, RESULTS_MAX, lambda x, p: request_ref(x, p, names), lambda x: x, f"{path}.requests")
    return out + device_configuration(c, path, False)


def _allocation(a: Any, path: str, names: RequestNames) -> list[Cause]:
    a = as_dict(a)
    devices, p = as_dict(a.get("devices")), f"{path}.devices"
    out = validate_slice(as_list(devices.get("results")), RESULTS_MAX, lambda r, q: _result(r, q, names), f"{p}.results")
    out += validate_slice(as_list(devices.get("config")), 2 * RESULTS_MAX,
                          lambda c, q: _alloc_config(c, q, names), f"{p}.config")
    if a.get("nodeSelector") is not None:
        out += node_selector(a["nodeSelector"], f"{path}.nodeSelector")
    return out


def _ip(value: str, path: str) -> list[Cause]:
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        iface = None
    if iface is None or "/" not in value:
        return [f.invalid(path, value, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)")]
    canonical = f"{iface.ip.compressed}/{iface.network.prefixlen}"
    return [] if value == canonical else [f.invalid(path, value, f"must be in canonical form ({f.quote(canonical)})")]


def _device_status(d: Any, path: str, allocated: set[tuple[str, str, str, str]]) -> list[Cause]:
    d = as_dict(d)
    out = driver_name(str(d.get("driver") or ""), f"{path}.driver")
    out += pool_name(str(d.get("pool") or ""), f"{path}.pool")
    out += dns_label(str(d.get("device") or ""), f"{path}.device")
    if d.get("shareID") is not None:
        out += uid(str(d["shareID"]), f"{path}.shareID")
    did = _device_id(d)
    if did not in allocated:
        shown = dict(zip(("Driver", "Pool", "Device", "ShareID"), did, strict=True))  # Go's struct
        out.append(f.invalid(path, shown, "must be an allocated device in the claim"))
    conds = as_list(d.get("conditions"))
    if len(conds) > DEVICE_CONDITIONS_MAX:
        out.append(f.too_many(f"{path}.conditions", len(conds), DEVICE_CONDITIONS_MAX))
    out += conditions(conds, f"{path}.conditions")
    if d.get("data") is not None:
        out += raw_extension(d["data"], f"{path}.data", False, DATA_MAX)
    net = d.get("networkData")
    if isinstance(net, dict):
        p = f"{path}.networkData"
        if len(str(net.get("interfaceName") or "").encode()) > 256:
            out.append(f.too_long(f"{p}.interfaceName", 256))
        if len(str(net.get("hardwareAddress") or "").encode()) > 128:
            out.append(f.too_long(f"{p}.hardwareAddress", 128))
        ips = [str(x) if x is not None else "" for x in as_list(net.get("ips"))]
        out += validate_set(ips, IPS_MAX, _ip, lambda x: x, f"{p}.ips")
    return out


def claim_status(status: Any, old_status: Any, deleted: bool, names: RequestNames, path: str) -> list[Cause]:
    s, old = as_dict(status), as_dict(old_status)
    reserved = as_list(s.get("reservedFor"))
    out = validate_set(reserved, RESERVED_FOR_MAX, _consumer, lambda r: str(as_dict(r).get("uid") or ""),
                       f"{path}.reservedFor", shown=lambda r: r)
    alloc, old_alloc = s.get("allocation"), old.get("allocation")
    allocated = {_device_id(as_dict(r)) for r in as_list(as_dict(as_dict(alloc).get("devices")).get("results"))}
    out += validate_set(as_list(s.get("devices")), -1, lambda d, p: _device_status(d, p, allocated),
                        lambda d: _device_id(as_dict(d)), f"{path}.devices", shown=lambda d: d)
    if reserved:
        if alloc is None:
            out.append(f.forbidden(f"{path}.reservedFor", "may not be specified when `allocated` is not set"))
        elif deleted:
            old_uids = {str(as_dict(r).get("uid") or "") for r in as_list(old.get("reservedFor"))}
            if any(str(as_dict(r).get("uid") or "") not in old_uids for r in reserved):
                out.append(f.forbidden(f"{path}.reservedFor", "new entries may not be added while "
                                       "`deallocationRequested` or `deletionTimestamp` are set"))
    if alloc is not None and old_alloc is not None:
        if alloc != old_alloc:
            out.append(f.invalid(f"{path}.allocation", None, "field cannot be modified once set"))
    elif alloc is not None:
        out += _allocation(alloc, f"{path}.allocation", names)
    return out
