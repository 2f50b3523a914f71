"""More of ``validateService`` (core 1.37.2): external IPs, load-balancer source ranges
(field and annotation), the topology annotations; ``ValidateLoadBalancerStatus`` for
/status writes; and the service strategy's ``dropTypeDependentFields`` plus the storage's
``patchAllocatedValues`` for cluster IPs on update. IP and CIDR values use
``IsValidIPForLegacyField``/``IsValidCIDRForLegacyField`` with StrictIPCIDRValidation on."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.api.meta import dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.service_ips import ip_families_update_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import (
    parse_cidr_errors,
    parse_ip_sloppy,
    strict_ip_errors,
)
from reference_impl.errors import Cause

__all__ = ["endpoint_ip_causes", "legacy_cidr_causes", "legacy_ip_causes"]

Obj = dict[str, Any]
_LSR: Final = "service.beta.kubernetes.io/load-balancer-source-ranges"
_HINTS: Final = "service.kubernetes.io/topology-aware-hints"
_MODE: Final = "service.kubernetes.io/topology-mode"
_IP_MODES: Final = ("Proxy", "VIP")


def legacy_ip_causes(path: str, value: str, old: list[str] | None = None) -> list[Cause]:
    """``IsValidIPForLegacyField`` (strict): a value already in ``old`` passes."""
    if value in (old or []):
        return []
    addr = parse_ip_sloppy(value)
    if addr is None:
        return [
            fe.invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")
        ]
    return [fe.invalid(path, value, e) for e in strict_ip_errors(value, addr)]


def legacy_cidr_causes(path: str, value: str, old: list[str] | None = None) -> list[Cause]:
    """``IsValidCIDRForLegacyField`` (strict): a value already in ``old`` passes."""
    if value in (old or []):
        return []
    return [fe.invalid(path, value, e) for e in parse_cidr_errors(value)]


def _endpoint_ip_causes(path: str, value: str) -> list[Cause]:
    """``ValidateEndpointIP``: not unspecified, loopback, link-local or link-local multicast."""
    addr = parse_ip_sloppy(value)
    if addr is None:
        return [fe.invalid(path, value, "must be a valid IP address")]
    bad = [
        (addr.is_unspecified, f"may not be unspecified ({value})"),
        (addr.is_loopback, "may not be in the loopback range (127.0.0.0/8, ::1/128)"),
        (addr.is_link_local, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"),
        (addr in ipaddress.ip_network("224.0.0.0/24") or addr in ipaddress.ip_network("ff02::/16"),
         "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"),
    ]  # fmt: skip
    return [fe.invalid(path, value, msg) for hit, msg in bad if hit]


def endpoint_ip_causes(path: str, value: str) -> list[Cause]:
    """``ValidateEndpointIP``, for Endpoints addresses."""
    return _endpoint_ip_causes(path, value)


def _spec(svc: Obj | None) -> Obj:
    spec = (svc or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def _annotations(svc: Obj | None) -> Obj:
    ann = ((svc or {}).get("metadata") or {}).get("annotations")
    return ann if isinstance(ann, dict) else {}


def _strs(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _source_range_causes(svc: Obj, old: Obj | None) -> list[Cause]:
    """The source ranges field (space-padding allowed), else the legacy annotation
    (checked only when new or changed); the field's type rule is ``validate_service``'s."""
    spec, kind = _spec(svc), _spec(svc).get("type")
    ranges = _strs(spec.get("loadBalancerSourceRanges"))
    if ranges:
        prior = [v.strip() for v in _strs(_spec(old).get("loadBalancerSourceRanges"))]
        path = "spec.LoadBalancerSourceRanges"
        return [
            c
            for i, v in enumerate(ranges)
            for c in legacy_cidr_causes(f"{path}[{i}]", v.strip(), prior)
        ]
    ann = _annotations(svc)
    if _LSR not in ann:
        return []
    path, value = f"metadata.annotations[{_LSR}]", str(ann[_LSR])
    causes: list[Cause] = []
    if kind != "LoadBalancer":
        causes.append(fe.forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
    if (old is None or _annotations(old).get(_LSR) != value) and value.strip():
        causes += [c for v in value.strip().split(",") for c in legacy_cidr_causes(path, v.strip())]
    return causes


@validator("Service")
def validate_service_fields(svc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Topology annotations, external IPs (new ones valid and not special), source ranges."""
    ann = _annotations(svc)
    causes: list[Cause] = []
    if _HINTS in ann and _MODE in ann and ann[_HINTS] != ann[_MODE]:
        causes.append(fe.invalid(f"metadata.annotations[{_MODE}]", ann[_MODE],
                                 f"must match annotations[{_HINTS}] when both are specified"))  # fmt: skip
    prior = _strs(_spec(old).get("externalIPs"))
    for i, ip in enumerate(_strs(_spec(svc).get("externalIPs"))):
        errs = legacy_ip_causes(f"spec.externalIPs[{i}]", ip, prior)
        causes += errs or _endpoint_ip_causes(f"spec.externalIPs[{i}]", ip)
    if old is not None:
        causes += _cluster_ips_update_causes(_spec(svc), _spec(old))
        causes += ip_families_update_causes(_spec(svc), _spec(old))
    return causes + _source_range_causes(svc, old)


def _cluster_ips_update_causes(spec: Obj, ospec: Obj) -> list[Cause]:
    """``validateUpgradeDowngradeClusterIPs``: the primary cluster IP never changes (nor
    any when the count stays), and releasing the secondary needs SingleStack."""
    if "ExternalName" in (spec.get("type"), ospec.get("type")):
        return []
    new, prior = _strs(spec.get("clusterIPs")), _strs(ospec.get("clusterIPs"))
    if new == ["None"] and prior == ["None"]:
        return []
    path, msg = "spec.clusterIPs", "may not change once set"
    if len(prior) == len(new):
        return [fe.invalid(f"{path}[{i}]", new, msg) for i, ip in enumerate(prior) if ip != new[i]]
    causes: list[Cause] = []
    if not new:
        causes.append(fe.invalid(f"{path}[0]", new, "primary clusterIP can not be unset"))
    elif prior and new[0] != prior[0]:
        causes.append(fe.invalid(f"{path}[0]", new, msg))
    if len(prior) > len(new) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
        causes.append(fe.invalid("spec.ipFamilyPolicy", spec.get("ipFamilyPolicy"),
                                 "must be set to 'SingleStack' when releasing the secondary clusterIP"))  # fmt: skip
    return causes


def _ingress_causes(ing: Obj, path: str, prior: list[str]) -> list[Cause]:
    causes: list[Cause] = []
    ip, mode, host = str(ing.get("ip") or ""), ing.get("ipMode"), str(ing.get("hostname") or "")
    if ip:
        causes += legacy_ip_causes(f"{path}.ip", ip, prior)
    if mode is None:
        if ip:
            causes.append(fe.required(f"{path}.ipMode", "must be specified when `ip` is set"))
    elif not ip:
        causes.append(fe.forbidden(f"{path}.ipMode", "may not be specified when `ip` is not set"))
    elif mode not in _IP_MODES:
        causes.append(fe.not_supported(f"{path}.ipMode", mode, _IP_MODES))
    if host:
        causes += [fe.invalid(f"{path}.hostname", host, e) for e in dns1123_subdomain_errors(host)]
        if parse_ip_sloppy(host) is not None:
            causes.append(
                fe.invalid(f"{path}.hostname", host, "must be a DNS name, not an IP address")
            )
    return causes


@defaulter("Service")
def default_ingress_ip_mode(svc: Obj, ctx: Context) -> None:
    """``SetDefaults_Service``: a LoadBalancer's ingress with an IP and no ipMode is VIP."""
    if _spec(svc).get("type") != "LoadBalancer":
        return
    for ing in ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []:
        if isinstance(ing, dict) and ing.get("ip") and ing.get("ipMode") is None:
            ing["ipMode"] = "VIP"


@preparer("Service", status=True)
def default_status_ip_mode(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The same default on /status writes (upstream defaults every decoded body)."""
    default_ingress_ip_mode(svc, ctx)


@validator("Service", status=True)
def validate_load_balancer_status(svc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateLoadBalancerStatus``: ingress only for LoadBalancers; each ingress's IP
    (old ones exempt), its ipMode and hostname."""
    lb = (svc.get("status") or {}).get("loadBalancer") or {}
    ingress = [i for i in lb.get("ingress") or [] if isinstance(i, dict)]
    path = "status.loadBalancer.ingress"
    if _spec(svc).get("type") != "LoadBalancer":
        return (
            [fe.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")]
            if ingress
            else []
        )
    olb = ((old or {}).get("status") or {}).get("loadBalancer") or {}
    prior = [str(i["ip"]) for i in olb.get("ingress") or [] if isinstance(i, dict) and i.get("ip")]
    return [c for n, ing in enumerate(ingress) for c in _ingress_causes(ing, f"{path}[{n}]", prior)]


def _externally_accessible(spec: Obj) -> bool:
    kind = spec.get("type")
    return kind in ("NodePort", "LoadBalancer") or (
        kind == "ClusterIP" and bool(spec.get("externalIPs"))
    )


def _needs_node_port(spec: Obj) -> bool:
    kind = spec.get("type")
    return kind == "NodePort" or (
        kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False
    )


def _node_ports(spec: Obj) -> set[Any]:
    """The non-zero node ports (``sameNodePorts``'s sets)."""
    return {p.get("nodePort") for p in spec.get("ports") or [] if isinstance(p, dict) and p.get("nodePort")}


@preparer("Service")
def drop_type_dependent_fields(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The strategy's ``dropTypeDependentFields``: fields the new type no longer uses are cleared when the
    update left them as they were (the health-check port is ``service_ports``'s)."""
    spec, ospec = _spec(svc), _spec(old)
    if old is None or not spec:
        return
    same = {k: spec.get(k) == ospec.get(k) for k in
            ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "loadBalancerClass",
             "externalTrafficPolicy", "allocateLoadBalancerNodePorts")}  # fmt: skip
    if ospec.get("type") != "ExternalName" and spec.get("type") == "ExternalName":
        if same["clusterIP"] and same["clusterIPs"]:
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        for key in ("ipFamilies", "ipFamilyPolicy"):
            if same[key]:
                spec.pop(key, None)
    if (
        _needs_node_port(ospec)
        and not _needs_node_port(spec)
        # sameNodePorts: ports may change as long as no net-new node port appears.
        and _node_ports(spec) <= _node_ports(ospec)
    ):
        for p in spec.get("ports") or []:
            if isinstance(p, dict):
                p.pop("nodePort", None)
    was_lb, is_lb = ospec.get("type") == "LoadBalancer", spec.get("type") == "LoadBalancer"
    if was_lb and not is_lb:
        if (
            same["allocateLoadBalancerNodePorts"]
            and ospec.get("allocateLoadBalancerNodePorts") is not None
        ):
            spec.pop("allocateLoadBalancerNodePorts", None)
        if same["loadBalancerClass"]:
            spec.pop("loadBalancerClass", None)
    if (
        _externally_accessible(ospec)
        and not _externally_accessible(spec)
        and same["externalTrafficPolicy"]
    ):
        spec.pop("externalTrafficPolicy", None)
