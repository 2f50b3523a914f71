"""Service cluster IPs on create: the service REST's ``allocateCreate``
(``pkg/registry/core/service/storage/alloc.go``) after the pre-check
(``service_ips``): ``initIPFamilyFields`` defaults ``ipFamilyPolicy`` and ``ipFamilies``
(refusing what a single-stack cluster cannot serve), then ``allocClusterIPs`` fills
``clusterIP``/``clusterIPs``.

The reference's cluster is single-stack IPv4 over the local cluster's
``--service-cluster-ip-range`` (10.0.0.0/24). Free addresses are the ones no stored
Service holds, lowest first (upstream scans from a random offset); no IPAddress objects
are written. Updates keep what was allocated (``precheck_cluster_ips``).
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause, Invalid

__all__ = ["SERVICE_CIDR"]

Obj = dict[str, Any]
SERVICE_CIDR: Final = ipaddress.ip_network("10.0.0.0/24")
_FAMILY: Final = "IPv4"
_OTHER: Final = {"IPv4": "IPv6", "IPv6": "IPv4"}


def _family(ip: str) -> str:
    try:
        return f"IPv{ipaddress.ip_address(ip).version}"
    except ValueError:
        return ""


def _refuse(svc: Obj, causes: list[Cause]) -> Invalid:
    return Invalid("Service", str((svc.get("metadata") or {}).get("name", "")), causes)


def _init_ip_family_fields(svc: Obj, spec: Obj) -> bool:
    """``initIPFamilyFields`` for a create; False when no IP is to be allocated (a
    selectorless headless Service)."""
    headless = spec.get("clusterIP") == "None"
    if spec.get("ipFamilyPolicy") is None:
        selectorless = headless and not spec.get("selector")
        spec["ipFamilyPolicy"] = "RequireDualStack" if selectorless else "SingleStack"
    policy = spec["ipFamilyPolicy"]
    ips = [str(x) for x in spec.get("clusterIPs") or []]
    families: list[str] = [str(f) for f in spec.get("ipFamilies") or []]
    causes: list[Cause] = []
    if policy == "SingleStack":
        if len(ips) == 2:
            causes.append(fe.invalid("spec.ipFamilyPolicy", policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
        if len(families) == 2:
            causes.append(fe.invalid("spec.ipFamilyPolicy", policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
    for i, ip in enumerate(ips):
        if ip == "None":
            break
        if i >= len(families):
            fam = _family(ip)
            if fam != _FAMILY:
                causes.append(fe.invalid(f"spec.clusterIPs[{i}]", ips, f"{fam} is not configured on this cluster"))
            else:
                families.append(fam)
    if causes:
        raise _refuse(svc, causes)
    if headless and not spec.get("selector"):
        families = families or [_FAMILY]
        if len(families) < 2 and policy != "SingleStack":
            families.append(_OTHER.get(families[0], "IPv4"))
        spec["ipFamilies"] = families
        return False
    if policy == "RequireDualStack":
        causes.append(fe.invalid("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack services"))
    for i, fam in enumerate(families):
        if fam != _FAMILY:
            causes.append(fe.invalid(f"spec.ipFamilies[{i}]", fam, "not configured on this cluster"))
    if causes:
        raise _refuse(svc, causes)
    spec["ipFamilies"] = families or [_FAMILY]
    return True


def _in_use(ctx: Context, me: Obj) -> set[str]:
    meta = me.get("metadata") or {}
    used: set[str] = set()
    for other in ctx.list("v1", "Service", None):
        ometa = other.get("metadata") or {}
        if (ometa.get("namespace"), ometa.get("name")) != (meta.get("namespace"), meta.get("name")):
            used.update(str(ip) for ip in (other.get("spec") or {}).get("clusterIPs") or [])
    return used


def _alloc_cluster_ips(svc: Obj, spec: Obj, ctx: Context) -> None:
    """``allocClusterIPs``: the family's address as asked (in range and free), else the
    lowest free one."""
    ips = [str(x) for x in spec.get("clusterIPs") or []]
    if ips and ips[0] == "None":
        return
    used = _in_use(ctx, svc)
    if ips:  # a single family here: the one asked for
        ip = ipaddress.ip_address(ips[0])
        usable = ip in SERVICE_CIDR and ip not in (SERVICE_CIDR.network_address, SERVICE_CIDR.broadcast_address)
        why = (
            f"the provided IP ({ips[0]}) is not in the valid range. The range of valid IPs is {SERVICE_CIDR}"
            if not usable
            else "provided IP is already allocated"
            if ips[0] in used
            else ""
        )
        if why:
            raise _refuse(svc, [fe.invalid("spec.clusterIPs", ips, f"failed to allocate IP {ips[0]}: {why}")])
        return
    free = next((str(ip) for ip in SERVICE_CIDR.hosts() if str(ip) not in used), None)
    if free is None:
        raise _refuse(svc, [fe.invalid("spec.clusterIPs", ips, "failed to allocate IP: range is full")])
    spec["clusterIP"], spec["clusterIPs"] = free, [free]


@preparer("Service")
def allocate_cluster_ips(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``allocateCreate``'s IP half, for creates (ExternalName Services get none)."""
    spec = svc.get("spec")
    if old is not None or not isinstance(spec, dict) or spec.get("type") == "ExternalName":
        return
    if _init_ip_family_fields(svc, spec):
        _alloc_cluster_ips(svc, spec, ctx)
