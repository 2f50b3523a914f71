"""NetworkPolicy and IngressClass (networking.k8s.io; ``pkg/apis/networking/validation``,
``pkg/apis/networking/v1/defaults.go`` and ``pkg/registry/networking/{networkpolicy,
ingressclass}/strategy.go`` of upstream v1.37.2). Generation is handled in ``generation.py``."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.batch import domain_prefixed_path_causes
from reference_impl.apiserver.strategies.pod_containers import port_name_errors, port_number_errors
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.strategies.service_fields import legacy_cidr_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import parse_ip_sloppy
from reference_impl.apiserver.validation.tag_formats import path_segment_name_errors
from reference_impl.errors import Cause

__all__ = [
    "default_ingress_class",
    "default_network_policy",
    "ingress_class_parameters_causes",
    "validate_ingress_class",
    "validate_network_policy",
]

Obj = dict[str, Any]
_PROTOCOLS: Final = ("TCP", "UDP", "SCTP")
_POLICY_TYPES: Final = ("Ingress", "Egress")
_SCOPES: Final = ("Cluster", "Namespace")
_MAX_CONTROLLER: Final = 250
_RULES: Final = (("ingress", "from"), ("egress", "to"))
_NO_PORT: Final = "may not be specified when `port` is not specified"
_NAMED_PORT: Final = "may not be specified when `port` is non-numeric"
_BELOW_PORT: Final = "must be greater than or equal to `port`"
_TOO_MANY_TYPES: Final = "may not specify more than two policyTypes"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


@defaulter("NetworkPolicy")
def default_network_policy(np: Obj, ctx: Context) -> None:
    """``SetDefaults_NetworkPolicy`` and ``SetDefaults_NetworkPolicyPort``."""
    if np.get("spec") is None:  # a struct in Go: an absent spec is defaulted too
        np["spec"] = {}
    spec = np.get("spec")
    if not isinstance(spec, dict):
        return
    for rules, _ in _RULES:
        for rule in _l(spec.get(rules)):
            for port in _l(_o(rule).get("ports")):
                if isinstance(port, dict) and port.get("protocol") is None:
                    port["protocol"] = "TCP"
    if not spec.get("policyTypes"):
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]


@defaulter("IngressClass")
def default_ingress_class(ic: Obj, ctx: Context) -> None:
    """``SetDefaults_IngressClass``: parameters without a scope are cluster-scoped."""
    params = _o(ic.get("spec")).get("parameters")
    if isinstance(params, dict) and params.get("scope") is None:
        params["scope"] = "Cluster"


def _port_causes(port: Obj, path: str) -> list[Cause]:
    """``ValidateNetworkPolicyPort``."""
    out: list[Cause] = []
    proto, value, end = port.get("protocol"), port.get("port"), _int(port.get("endPort"))
    if proto is not None and proto not in _PROTOCOLS:
        out.append(fe.not_supported(f"{path}.protocol", proto, _PROTOCOLS))
    if value is None:
        if end is not None:
            out.append(fe.invalid(f"{path}.endPort", end, _NO_PORT))
        return out
    num = _int(value)
    if num is not None:
        out += [fe.invalid(f"{path}.port", num, m) for m in port_number_errors(num)]
        if end is not None:
            if end < num:
                out.append(fe.invalid(f"{path}.endPort", end, _BELOW_PORT))
            out += [fe.invalid(f"{path}.endPort", end, m) for m in port_number_errors(end)]
        return out
    if end is not None:
        out.append(fe.invalid(f"{path}.endPort", end, _NAMED_PORT))
    return out + [fe.invalid(f"{path}.port", value, m) for m in port_name_errors(str(value))]


def _sloppy_cidr(value: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """``netutils.ParseCIDRSloppy``: the masked network, or None when it does not parse."""
    ip, sep, bits = value.partition("/")
    addr = parse_ip_sloppy(ip)
    if addr is None or not sep or not bits.isdigit() or int(bits) > addr.max_prefixlen:
        return None
    return ipaddress.ip_network((addr, int(bits)), strict=False)


def _ip_block_causes(ipb: Obj, path: str, allowed: list[str]) -> list[Cause]:
    """``ValidateIPBlock``: CIDRs already in the old policy are not revalidated."""
    cidr = str(ipb.get("cidr") or "")
    if not cidr:
        return [fe.required(f"{path}.cidr")]
    out = legacy_cidr_causes(f"{path}.cidr", cidr, allowed)
    net = _sloppy_cidr(cidr)
    if net is None:
        return out
    for i, exc in enumerate(_l(ipb.get("except"))):
        p = f"{path}.except[{i}]"
        out += legacy_cidr_causes(p, str(exc), allowed)
        sub = _sloppy_cidr(str(exc))
        if sub is None:
            continue
        inside = sub.version == net.version and sub.network_address in net
        if not inside or net.prefixlen >= sub.prefixlen:
            out.append(fe.invalid(p, exc, "must be a strict subset of `cidr`"))
    return out


def _peer_causes(peer: Obj, path: str, allowed: list[str]) -> list[Cause]:
    """``ValidateNetworkPolicyPeer``: exactly one kind of peer when ipBlock is one of them."""
    out: list[Cause] = []
    count = 0
    for key in ("podSelector", "namespaceSelector"):
        if peer.get(key) is not None:
            count += 1
            out += label_selector_causes(peer[key], f"{path}.{key}")
    if peer.get("ipBlock") is not None:
        count += 1
        out += _ip_block_causes(_o(peer["ipBlock"]), f"{path}.ipBlock", allowed)
    if count == 0:
        out.append(fe.required(path, "must specify a peer"))
    elif count > 1 and peer.get("ipBlock") is not None:
        out.append(fe.forbidden(path, "may not specify both ipBlock and another peer"))
    return out


def _spec_causes(spec: Obj, allowed: list[str]) -> list[Cause]:
    """``ValidateNetworkPolicySpec``."""
    out = label_selector_causes(spec.get("podSelector"), "spec.podSelector")
    for rules, peers in _RULES:
        for i, rule in enumerate(_l(spec.get(rules))):
            rp = f"spec.{rules}[{i}]"
            for j, port in enumerate(_l(_o(rule).get("ports"))):
                out += _port_causes(_o(port), f"{rp}.ports[{j}]")
            for j, peer in enumerate(_l(_o(rule).get(peers))):
                out += _peer_causes(_o(peer), f"{rp}.{peers}[{j}]", allowed)
    types = _l(spec.get("policyTypes"))
    if len(types) > len(_POLICY_TYPES):
        return [*out, fe.invalid("spec.policyTypes", types, _TOO_MANY_TYPES)]
    for i, t in enumerate(types):
        if t not in _POLICY_TYPES:
            out.append(fe.not_supported(f"spec.policyTypes[{i}]", t, _POLICY_TYPES))
    return out


def _old_cidrs(old: Obj | None) -> list[str]:
    """The CIDRs of the stored policy's ipBlocks (``ValidateNetworkPolicyUpdate``)."""
    spec, out = _o(_o(old).get("spec")), []
    for rules, peers in _RULES:
        for rule in _l(spec.get(rules)):
            for peer in _l(_o(rule).get(peers)):
                ipb = _o(peer).get("ipBlock")
                if isinstance(ipb, dict):
                    out += [str(ipb.get("cidr") or ""), *map(str, _l(ipb.get("except")))]
    return out


@validator("NetworkPolicy")
def validate_network_policy(np: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateNetworkPolicy`` / ``ValidateNetworkPolicyUpdate`` (the spec part)."""
    return _spec_causes(_o(np.get("spec")), _old_cidrs(old) if old is not None else [])


def _name_part_causes(params: Obj, key: str, path: str) -> list[Cause]:
    value = str(params.get(key) or "")
    if not value:
        return [fe.required(f"{path}.{key}")]
    return [fe.invalid(f"{path}.{key}", value, m) for m in path_segment_name_errors(value)]


def ingress_class_parameters_causes(params: Any, path: str) -> list[Cause]:
    """``validateIngressClassParametersReference``."""
    if not isinstance(params, dict):
        return []
    out: list[Cause] = []
    group = params.get("apiGroup")
    if group is not None:
        errs = dns1123_subdomain_errors(str(group))
        out += [fe.invalid(f"{path}.apiGroup", group, m) for m in errs]
    out += _name_part_causes(params, "kind", path) + _name_part_causes(params, "name", path)
    scope, ns = params.get("scope"), params.get("namespace")
    if scope is None:
        return [*out, fe.required(f"{path}.scope")]
    if scope not in _SCOPES:
        return [*out, fe.not_supported(f"{path}.scope", scope, _SCOPES)]
    if scope == "Namespace":
        if ns is None:
            out.append(fe.required(f"{path}.namespace", "`parameters.scope` is set to 'Namespace'"))
        else:
            out += [fe.invalid(f"{path}.namespace", ns, m) for m in dns1123_label_errors(str(ns))]
    elif ns is not None:
        out.append(fe.forbidden(f"{path}.namespace", "`parameters.scope` is set to 'Cluster'"))
    return out


@validator("IngressClass")
def validate_ingress_class(ic: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateIngressClass`` / ``ValidateIngressClassUpdate`` (the spec part)."""
    spec, out = _o(ic.get("spec")), []
    controller = str(spec.get("controller") or "")
    if old is not None:
        old_controller = str(_o(old.get("spec")).get("controller") or "")
        if controller != old_controller:
            out.append(fe.invalid("spec.controller", controller, "field is immutable"))
    if len(controller) > _MAX_CONTROLLER:
        out.append(fe.too_long("spec.controller", _MAX_CONTROLLER))
    out += domain_prefixed_path_causes("spec.controller", controller)
    return out + ingress_class_parameters_causes(spec.get("parameters"), "spec.parameters")
