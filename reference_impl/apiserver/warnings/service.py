"""``pkg/api/service/warnings.go`` (``GetWarningsForService``, the Service strategy's
WarningsOnCreate/Update) and the status strategy's load-balancer IP warnings
(``pkg/registry/core/service/strategy.go``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.util import cidr_warnings, ip_warnings, quote

__all__ = ["service_status_warnings", "service_warnings"]

Obj = dict[str, Any]

_HINTS: Final = "service.kubernetes.io/topology-aware-hints"
_MODE: Final = "service.kubernetes.io/topology-mode"


def _ip_set(spec: Obj) -> bool:
    """``helper.IsServiceIPSet``: a cluster IP other than "" and "None"."""
    return spec.get("clusterIP", "") not in ("", "None")


@warner("Service")
def service_warnings(svc: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``GetWarningsForService``."""
    out: list[str] = []
    spec = svc.get("spec") or {}
    if _HINTS in (svc["metadata"].get("annotations") or {}):
        out.append(f"annotation {_HINTS} is deprecated, please use {_MODE} instead")
    if _ip_set(spec):
        for i, ip in enumerate(spec.get("clusterIPs") or ()):
            out += ip_warnings(f"spec.clusterIPs[{i}]", ip)
    svc_type = spec.get("type", "")
    external = spec.get("externalIPs") or []
    headless = svc_type == "ClusterIP" and spec.get("clusterIP") == "None"
    if headless:
        if spec.get("loadBalancerIP"):
            out.append("spec.loadBalancerIP is ignored for headless services")
        if external:
            out.append("spec.externalIPs is ignored for headless services")
        if spec.get("sessionAffinity", "") != "None":
            out.append("spec.SessionAffinity is ignored for headless services")
    for i, ip in enumerate(external):
        out += ip_warnings(f"spec.externalIPs[{i}]", ip)
    if external and not headless and svc_type != "ExternalName":
        out.append("spec.externalIPs is deprecated and may no longer be implemented in some clusters")
    if spec.get("loadBalancerIP"):
        out += ip_warnings("spec.loadBalancerIP", spec["loadBalancerIP"])
    for i, cidr in enumerate(spec.get("loadBalancerSourceRanges") or ()):
        out += cidr_warnings(f"spec.loadBalancerSourceRanges[{i}]", cidr)
    if svc_type == "ExternalName" and external:
        out.append('spec.externalIPs is ignored when spec.type is "ExternalName"')
    if svc_type != "ExternalName" and spec.get("externalName"):
        out.append('spec.externalName is ignored when spec.type is not "ExternalName"')
    if spec.get("trafficDistribution") == "PreferClose":
        out.append(f"spec.trafficDistribution: {quote('PreferClose')} is deprecated; use "
                   f"{quote('PreferSameZone')}")  # fmt: skip
    return out


@warner("Service", status=True)
def service_status_warnings(svc: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """serviceStatusStrategy.WarningsOnUpdate: non-standard load-balancer ingress IPs."""
    ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    out: list[str] = []
    for i, item in enumerate(ingress):
        if item.get("ip"):
            out += ip_warnings(f"status.loadBalancer.ingress[{i}]", item["ip"])
    return out
