"""Endpoints (core v1; ``ValidateEndpoints{Create,Update}`` of upstream v1.37.2 and the v1
defaulting of ``EndpointPort.protocol``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors, label_key_errors
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.service_fields import endpoint_ip_causes, legacy_ip_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["default_endpoints", "validate_endpoints"]

Obj = dict[str, Any]
_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


@defaulter("Endpoints")
def default_endpoints(ep: Obj, ctx: Context) -> None:
    """``SetDefaults_EndpointPort``: an empty protocol is TCP."""
    for subset in map(_o, _l(ep.get("subsets"))):
        for port in map(_o, _l(subset.get("ports"))):
            if not port.get("protocol"):
                port["protocol"] = "TCP"


def _address_causes(addr: Obj, path: str) -> list[Cause]:
    """``validateEndpointAddress``."""
    ip = str(addr.get("ip") or "")
    out = legacy_ip_causes(f"{path}.ip", ip)
    hostname = str(addr.get("hostname") or "")
    if hostname:
        out += [fe.invalid(f"{path}.hostname", hostname, e) for e in dns1123_label_errors(hostname)]
    node = addr.get("nodeName")
    if node is not None:
        out += [fe.invalid(f"{path}.nodeName", node, e) for e in dns1123_subdomain_errors(str(node))]
    return out + endpoint_ip_causes(f"{path}.ip", ip)


def _port_causes(port: Obj, require_name: bool, path: str) -> list[Cause]:
    """``validateEndpointPort``."""
    out: list[Cause] = []
    name = str(port.get("name") or "")
    if require_name and not name:
        out.append(fe.required(f"{path}.name"))
    elif name:
        out += [fe.invalid(f"{path}.name", name, e) for e in dns1123_label_errors(name)]
    num = port.get("port")
    if not isinstance(num, int) or not 1 <= num <= 65535:
        out.append(fe.invalid(f"{path}.port", num or 0, "must be between 1 and 65535, inclusive"))
    protocol = str(port.get("protocol") or "")
    if not protocol:
        out.append(fe.required(f"{path}.protocol"))
    elif protocol not in _PROTOCOLS:
        out.append(fe.not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
    app = port.get("appProtocol")
    if app is not None:
        out += [fe.invalid(f"{path}.appProtocol", app, e) for e in label_key_errors(str(app))]
    return out


def _subset_causes(subsets: list[Any]) -> list[Cause]:
    """``validateEndpointSubsets``."""
    out: list[Cause] = []
    for i, ss in enumerate(map(_o, subsets)):
        p = f"subsets[{i}]"
        ready, not_ready, ports = _l(ss.get("addresses")), _l(ss.get("notReadyAddresses")), _l(ss.get("ports"))
        if not ready and not not_ready:
            out.append(fe.required(p, "must specify `addresses` or `notReadyAddresses`"))
        for j, a in enumerate(ready):
            out += _address_causes(_o(a), f"{p}.addresses[{j}]")
        for j, a in enumerate(not_ready):
            out += _address_causes(_o(a), f"{p}.notReadyAddresses[{j}]")
        for j, port in enumerate(ports):
            out += _port_causes(_o(port), len(ports) > 1, f"{p}.ports[{j}]")
    return out


@validator("Endpoints")
def validate_endpoints(ep: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The subsets; on update, subsets left as they were pass (older servers took them)."""
    out = _subset_causes(_l(ep.get("subsets")))
    if out and old is not None and _l(old.get("subsets")) == _l(ep.get("subsets")):
        return []
    return out
