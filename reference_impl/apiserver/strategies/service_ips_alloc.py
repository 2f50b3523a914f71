"""Service cluster IPs on create and update: the service REST's ``allocateCreate`` and
``allocateUpdate`` (``pkg/registry/core/service/storage/alloc.go``) after the pre-check
(``service_ips``): ``initIPFamilyFields`` defaults ``ipFamilyPolicy`` and ``ipFamilies``
(refusing what a single-stack cluster cannot serve), then ``allocClusterIPs`` fills
``clusterIP``/``clusterIPs`` on create and on an update from ExternalName
(``updateClusterIPs`` case A).

The reference's cluster is single-stack IPv4 over the local cluster's
``--service-cluster-ip-range`` (10.0.0.0/24). Free addresses are the ones no stored
Service holds, so an update or delete that drops an address releases it; no IPAddress
objects are written. A dynamic address comes from the upper band first (KEP-3070: the
lowest ``calculateRangeOffset`` addresses are kept for static requests), lowest first
where upstream starts each band's scan at a random offset.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import ApiError, Cause, Invalid

__all__ = ["SERVICE_CIDR", "dynamic_order", "range_offset"]

Obj = dict[str, Any]
SERVICE_CIDR: Final = ipaddress.ip_network("10.0.0.0/24")
_FAMILY: Final = "IPv4"
_OTHER: Final = {"IPv4": "IPv6", "IPv6": "IPv4"}
_IP_OFFSET: Final = (16, 256, 16)  # ipallocator calculateRangeOffset: min, max, step


def range_offset(size: int, low: int, high: int, step: int) -> int:
    """``calculateRangeOffset`` (ipallocator/bitmap.go, portallocator/allocator.go):
    ``min(max(low, size/step), high)``, 0 for a range of ``low`` or fewer."""
    return 0 if size <= low else min(max(low, size // step), high)


def dynamic_order(first: int, last: int, offset: int) -> list[int]:
    """The order a dynamic allocation tries ``first..last``: the upper band from
    ``first + offset``, then the lower band (``randomScanStrategyWithOffset``,
    ``allocateNextService``), each lowest first."""
    cut = first + offset
    return [*range(cut, last + 1), *range(first, cut)]


_IP_ORDER: Final = [
    SERVICE_CIDR.network_address + i
    for i in dynamic_order(
        1, SERVICE_CIDR.num_addresses - 2, range_offset(SERVICE_CIDR.num_addresses, *_IP_OFFSET)
    )
]


def _family(ip: str) -> str:
    try:
        return f"IPv{ipaddress.ip_address(ip).version}"
    except ValueError:
        return ""


def _refuse(svc: Obj, causes: list[Cause]) -> Invalid:
    return Invalid("Service", str((svc.get("metadata") or {}).get("name", "")), causes)


def _update_prep(spec: Obj, ospec: Obj, causes: list[Cause]) -> None:
    """``initIPFamilyFields``'s update-only prep: SingleStack with the fields as they were
    trims them to the primary; any other policy may not shrink them."""
    ips, oips = spec.get("clusterIPs") or [], ospec.get("clusterIPs") or []
    fams, ofams = spec.get("ipFamilies") or [], ospec.get("ipFamilies") or []
    if spec.get("ipFamilyPolicy") == "SingleStack":
        if ips == oips and len(ips) > 1:
            spec["clusterIPs"] = ips[:1]
        if fams == ofams and len(fams) > 1:
            spec["ipFamilies"] = fams[:1]
        return
    policy = spec.get("ipFamilyPolicy")
    if ips and len(ips) < len(oips):
        causes.append(fe.invalid("spec.ipFamilyPolicy", policy, "must be 'SingleStack' to release the secondary cluster IP"))
    if fams and len(fams) < len(ofams):
        causes.append(fe.invalid("spec.ipFamilyPolicy", policy, "must be 'SingleStack' to release the secondary IP family"))


def _matching_prefer_dual_stack(spec: Obj, ospec: Obj | None) -> bool:
    """``isMatchingPreferDualStackClusterIPFields``: an update that leaves a
    PreferDualStack Service's type, IPs and families alone is left alone."""
    if ospec is None or spec.get("ipFamilyPolicy") is None:
        return False
    return (
        spec.get("type") == ospec.get("type")
        and spec.get("type") in ("ClusterIP", "NodePort", "LoadBalancer")
        and spec.get("ipFamilyPolicy") == "PreferDualStack"
        and ospec.get("ipFamilyPolicy") in (None, "PreferDualStack")
        and (spec.get("clusterIPs") or []) == (ospec.get("clusterIPs") or [])
        and (spec.get("ipFamilies") or []) == (ospec.get("ipFamilies") or [])
    )


def _init_ip_family_fields(svc: Obj, spec: Obj, ospec: Obj | None) -> None:
    """``initIPFamilyFields`` (the pre-validation is ``service_ips``'s)."""
    if spec.get("type") == "ExternalName" or _matching_prefer_dual_stack(spec, ospec):
        return
    headless = spec.get("clusterIP") == "None"
    if spec.get("ipFamilyPolicy") is None:
        selectorless = headless and not spec.get("selector")
        if ospec is not None and ospec.get("ipFamilyPolicy") is not None:
            spec["ipFamilyPolicy"] = ospec["ipFamilyPolicy"]
        else:
            spec["ipFamilyPolicy"] = "RequireDualStack" if selectorless else "SingleStack"
    causes: list[Cause] = []
    if ospec is not None:
        _update_prep(spec, ospec, causes)
    policy = spec["ipFamilyPolicy"]
    ips = [str(x) for x in spec.get("clusterIPs") or []]
    families: list[str] = [str(f) for f in spec.get("ipFamilies") or []]
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
    if spec.get("ipFamilies") is not None or families:
        spec["ipFamilies"] = families
    if causes:
        raise _refuse(svc, causes)
    if headless and not spec.get("selector"):
        families = families or [_FAMILY]
        if len(families) < 2 and policy != "SingleStack":
            families.append(_OTHER.get(families[0], "IPv4"))
        spec["ipFamilies"] = families
        return
    if policy == "RequireDualStack":
        causes.append(fe.invalid("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack services"))
    for i, fam in enumerate(families):
        if fam != _FAMILY:
            causes.append(fe.invalid(f"spec.ipFamilies[{i}]", fam, "not configured on this cluster"))
    if causes:
        raise _refuse(svc, causes)
    spec["ipFamilies"] = families or [_FAMILY]


def _in_use(ctx: Context, me: Obj) -> set[str]:
    meta = me.get("metadata") or {}
    used: set[str] = set()
    for other in ctx.list("v1", "Service", None):
        ometa = other.get("metadata") or {}
        if (ometa.get("namespace"), ometa.get("name")) != (meta.get("namespace"), meta.get("name")):
            used.update(str(ip) for ip in (other.get("spec") or {}).get("clusterIPs") or [])
    return used


def _alloc_cluster_ips(svc: Obj, spec: Obj, ctx: Context) -> None:
    """``allocClusterIPs``: the family's address as asked (in range and free), else a
    free one, the upper band first."""
    ips = [str(x) for x in spec.get("clusterIPs") or []]
    if ips and ips[0] == "None":
        return
    used = _in_use(ctx, svc)
    if ips:  # a single family here: the one asked for
        ip = ipaddress.ip_address(ips[0])
        # MetaAllocator: no ServiceCIDR holds it (ErrMismatchedNetwork), or its prefix does
        # but not as a host (ErrNotInRange), or an IPAddress exists (ErrAllocated).
        why = (
            "the provided network does not match the current range"
            if ip not in SERVICE_CIDR
            else f"the provided IP ({ips[0]}) is not in the valid range. The range of valid IPs is {SERVICE_CIDR}"
            if ip in (SERVICE_CIDR.network_address, SERVICE_CIDR.broadcast_address)
            else "provided IP is already allocated"
            if ips[0] in used
            else ""
        )
        if why:
            raise _refuse(svc, [fe.invalid("spec.clusterIPs", ips, f"failed to allocate IP {ips[0]}: {why}")])
        spec["clusterIP"] = ips[0]
        return
    free = next((str(ip) for ip in _IP_ORDER if str(ip) not in used), None)
    if free is None:
        name = str((svc.get("metadata") or {}).get("name", ""))
        raise ApiError(  # NewInternalError over ipallocator.ErrFull
            f'Internal error occurred: failed to allocate a serviceIP for Service "{name}": range is full'
        )
    spec["clusterIP"], spec["clusterIPs"] = free, [free]


@preparer("Service")
def allocate_cluster_ips(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``allocateCreate``/``allocateUpdate``'s IP half (ExternalName Services get none; an
    update allocates only when leaving ExternalName, the rest of ``updateClusterIPs``
    being dual-stack work)."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        return
    ospec: Obj | None = None
    if old is not None:
        ospec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
    _init_ip_family_fields(svc, spec, ospec)
    if spec.get("type") == "ExternalName":
        return
    if ospec is None or ospec.get("type") == "ExternalName":
        _alloc_cluster_ips(svc, spec, ctx)
