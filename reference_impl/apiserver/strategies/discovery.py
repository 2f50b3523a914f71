"""EndpointSlice (discovery.k8s.io; ``pkg/apis/discovery/validation``, the v1 defaults and
``pkg/registry/discovery/endpointslice/strategy.go`` of upstream v1.37.2)."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.api.formats import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_value_errors,
)
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.service_fields import endpoint_ip_causes, legacy_ip_causes
from reference_impl.apiserver.strategies.storage import qualified_name_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import ip_errors, parse_ip_sloppy
from reference_impl.errors import Cause

__all__ = ["default_endpoint_slice", "drop_topology_on_v1", "validate_endpoint_slice"]

Obj = dict[str, Any]
_ADDRESS_TYPES: Final = ("FQDN", "IPv4", "IPv6")  # sets.List order
_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_MAX_ADDRESSES: Final = 100
_MAX_PORTS: Final = 20000
_MAX_ENDPOINTS: Final = 1000
_MAX_HINTS: Final = 8
_HOSTNAME_LABEL: Final = "kubernetes.io/hostname"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


@defaulter("EndpointSlice")
def default_endpoint_slice(eps: Obj, ctx: Context) -> None:
    """``SetDefaults_EndpointPort``: no name is "", no protocol is TCP."""
    for port in _l(eps.get("ports")):
        if isinstance(port, dict):
            port.setdefault("name", "")
            port.setdefault("protocol", "TCP")


def _topology_node_names(old: Obj | None) -> set[str]:
    """``getDeprecatedTopologyNodeNames``."""
    names = (_o(_o(ep).get("deprecatedTopology")).get(_HOSTNAME_LABEL) for ep in _l(_o(old).get("endpoints")))
    return {str(n) for n in names if n}


@preparer("EndpointSlice")
def drop_topology_on_v1(eps: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``dropTopologyOnV1``: a v1 write loses deprecatedTopology (unless its endpoints are
    unchanged); a hostname label the old slice had fills an unset nodeName."""
    if old is not None and old.get("endpoints") == eps.get("endpoints"):
        return
    previous = _topology_node_names(old)
    for ep in _l(eps.get("endpoints")):
        if not isinstance(ep, dict):
            continue
        host = _o(ep.get("deprecatedTopology")).get(_HOSTNAME_LABEL)
        if ep.get("nodeName") is None and host in previous and not dns1123_subdomain_errors(str(host)):
            ep["nodeName"] = host
        ep.pop("deprecatedTopology", None)


def _address_type_causes(address_type: str) -> list[Cause]:
    """``validateAddressType``."""
    if not address_type:
        return [fe.required("addressType")]
    if address_type not in _ADDRESS_TYPES:
        return [fe.not_supported("addressType", address_type, _ADDRESS_TYPES)]
    return []


def _port_causes(ports: list[Any]) -> list[Cause]:
    """``validatePorts``."""
    if len(ports) > _MAX_PORTS:
        return [fe.too_many("ports", len(ports), _MAX_PORTS)]
    out: list[Cause] = []
    names: list[str] = []
    for i, port in enumerate(ports):
        port, path = _o(port), f"ports[{i}]"
        name = str(port.get("name") or "")
        if name:
            out += [fe.invalid(f"{path}.name", name, m) for m in dns1123_label_errors(name)]
        if name in names:
            out.append(fe.duplicate(f"{path}.name", name))
        else:
            names.append(name)
        protocol = port.get("protocol")
        if protocol is None:
            out.append(fe.required(f"{path}.protocol"))
        elif protocol not in _PROTOCOLS:
            out.append(fe.not_supported(f"{path}.protocol", protocol, _PROTOCOLS))
        if port.get("appProtocol") is not None:
            out += qualified_name_causes(str(port["appProtocol"]), f"{path}.appProtocol")
    return out


def _fqdn_causes(path: str, name: str) -> list[Cause]:
    """``IsFullyQualifiedDomainName``: the first failure only."""
    if not name:
        return [fe.required(path)]
    name = name.removesuffix(".")
    if errs := dns1123_subdomain_errors(name):
        return [fe.invalid(path, name, ",".join(errs))]
    if len(name.split(".")) < 2:
        return [fe.invalid(path, name, "should be a domain with at least two segments separated by dots")]
    for label in name.split("."):
        if errs := dns1123_label_errors(label):
            return [fe.invalid(path, label, ",".join(errs))]
    return []


def _ip_causes(path: str, index: int, address: str, version: int) -> list[Cause]:
    """An IPv4 address is a legacy field, an IPv6 one strict; either must be of its
    family and a usable endpoint IP."""
    item = f"{path}[{index}]"
    if version == 4:
        errs = legacy_ip_causes(item, address)
    else:
        errs = [fe.invalid(item, address, m) for m in ip_errors(address)]
    if errs:
        return errs
    addr = parse_ip_sloppy(address)
    out: list[Cause] = []
    is_v4 = isinstance(addr, ipaddress.IPv4Address) or (
        isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None
    )
    if is_v4 != (version == 4):
        out.append(fe.invalid(path, address, f"must be an IPv{version} address"))
    return out + endpoint_ip_causes(item, address)


def _declared_address_causes(addresses: list[Any], path: str) -> list[Cause]:
    """The declarative ``required`` and ``maxItems=100`` of an endpoint's addresses: they
    answer for the handwritten checks, and run on every endpoint even past the limit."""
    if not addresses:
        return [fe.required(path)]
    return [fe.too_many(path, len(addresses), _MAX_ADDRESSES)] if len(addresses) > _MAX_ADDRESSES else []


def _address_causes(addresses: list[Any], address_type: str, path: str) -> list[Cause]:
    out = _declared_address_causes(addresses, path)
    for i, address in enumerate(map(str, addresses)):
        if address_type == "IPv4":
            out += _ip_causes(path, i, address, 4)
        elif address_type == "IPv6":
            out += _ip_causes(path, i, address, 6)
        elif address_type == "FQDN":
            out += _fqdn_causes(f"{path}[{i}]", address)
    return out


def _name_list_causes(items: list[Any], path: str, check: Any) -> list[Cause]:
    """One list of ``validateHints``: unique names, each passing ``check``."""
    out: list[Cause] = []
    seen: list[str] = []
    for i, item in enumerate(items):
        name, p = str(_o(item).get("name") or ""), f"{path}[{i}].name"
        if name in seen:
            out.append(fe.duplicate(p, name))
        else:
            seen.append(name)
        out += [fe.invalid(p, name, m) for m in check(name)]
    return out


def _hint_causes(hints: Obj, path: str) -> list[Cause]:
    """``validateHints``: too many zones stops before the nodes are looked at."""
    zones, nodes = _l(hints.get("forZones")), _l(hints.get("forNodes"))
    if len(zones) > _MAX_HINTS:
        return [fe.too_many(f"{path}.forZones", len(zones), _MAX_HINTS)]
    out = _name_list_causes(zones, f"{path}.forZones", label_value_errors)
    if len(nodes) > _MAX_HINTS:
        return out + [fe.too_many(f"{path}.forNodes", len(nodes), _MAX_HINTS)]
    return out + _name_list_causes(nodes, f"{path}.forNodes", dns1123_subdomain_errors)


def _endpoint_causes(ep: Obj, address_type: str, path: str) -> list[Cause]:
    out = _address_causes(_l(ep.get("addresses")), address_type, f"{path}.addresses")
    if ep.get("nodeName") is not None:
        node = str(ep["nodeName"])
        out += [fe.invalid(f"{path}.nodeName", node, m) for m in dns1123_subdomain_errors(node)]
    # deprecatedTopology never reaches validation on v1: the preparer drops it.
    if ep.get("hostname") is not None:
        host = str(ep["hostname"])
        out += [fe.invalid(f"{path}.hostname", host, m) for m in dns1123_label_errors(host)]
    if isinstance(ep.get("hints"), dict):
        out += _hint_causes(ep["hints"], f"{path}.hints")
    return out


def _endpoints_causes(endpoints: list[Any], address_type: str) -> list[Cause]:
    """``validateEndpoints``."""
    if len(endpoints) > _MAX_ENDPOINTS:
        declared = (
            c
            for i, ep in enumerate(endpoints)
            for c in _declared_address_causes(_l(_o(ep).get("addresses")), f"endpoints[{i}].addresses")
        )
        return [fe.too_many("endpoints", len(endpoints), _MAX_ENDPOINTS), *declared]
    return [c for i, ep in enumerate(endpoints) for c in _endpoint_causes(_o(ep), address_type, f"endpoints[{i}]")]


@validator("EndpointSlice")
def validate_endpoint_slice(eps: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateEndpointSlice``; on update errors in unchanged endpoints are forgiven, and
    ``ValidateEndpointSliceUpdate`` keeps addressType immutable."""
    address_type = str(eps.get("addressType") or "")
    out = _address_type_causes(address_type) + _port_causes(_l(eps.get("ports")))
    endpoint_errs = _endpoints_causes(_l(eps.get("endpoints")), address_type)
    if old is not None and _l(old.get("endpoints")) == _l(eps.get("endpoints")):
        endpoint_errs = []
    out += endpoint_errs
    if old is not None and address_type != str(old.get("addressType") or ""):
        # the declarative immutable rule answers, naming no value
        out.append(fe.invalid("addressType", None, "field is immutable"))
    return out
