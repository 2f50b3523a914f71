"""Service cluster IPs on create and update: the service REST's ``allocateCreate`` and
``allocateUpdate`` (``pkg/registry/core/service/storage/alloc.go``) after the pre-check
(``service_ips``): ``initIPFamilyFields`` defaults ``ipFamilyPolicy`` and ``ipFamilies``
(refusing what the cluster's families cannot serve), then ``allocClusterIPs`` fills
``clusterIP``/``clusterIPs`` on create and ``updateClusterIPs`` on update (from
ExternalName: all; an upgrade to dual-stack: the secondary).

The cluster's families are the apiserver's ``--service-cluster-ip-range``
(``Context.service_cidrs``; by default single-stack IPv4 10.0.0.0/24, the local
cluster's); the addresses come from the ServiceCIDR objects of each family, and an
address is free when no IPAddress object is named after it (``service_cidr_alloc``).
"""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.strategies.service_cidr_alloc import (
    NETWORKING_V1,
    allocate_next,
    allocate_static,
    allocators,
    held_addresses,
)
from reference_impl.apiserver.strategies.service_dry_run import dry_run_ip
from reference_impl.apiserver.strategies.service_ip_ranges import (
    IPRange,
    dynamic_order,
    family_of,
    held_ips,
    range_offset,
    ranges_by_family,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import ApiError, Cause, Invalid

__all__ = ["SERVICE_CIDR", "dynamic_order", "range_offset"]

Obj = dict[str, Any]
SERVICE_CIDR: Final = ipaddress.ip_network("10.0.0.0/24")  # the default range
_OTHER: Final = {"IPv4": "IPv6", "IPv6": "IPv4"}


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


def _init_ip_family_fields(
    svc: Obj, spec: Obj, ospec: Obj | None, ranges: dict[str, IPRange]
) -> None:
    """``initIPFamilyFields`` (the pre-validation is ``service_ips``'s); ``ranges`` are the
    cluster's allocators, the primary first."""
    if spec.get("type") == "ExternalName" or _matching_prefer_dual_stack(spec, ospec):
        return
    primary = next(iter(ranges))
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
            fam = family_of(ip) or "unknown"
            if fam not in ranges:
                causes.append(fe.invalid(f"spec.clusterIPs[{i}]", ips, f"{fam} is not configured on this cluster"))
            else:
                families.append(fam)
    if spec.get("ipFamilies") is not None or families:
        spec["ipFamilies"] = families
    if causes:
        raise _refuse(svc, causes)
    if headless and not spec.get("selector"):
        families = families or [primary]
        if len(families) < 2 and policy != "SingleStack":
            families.append(_OTHER.get(families[0], "IPv4"))
        spec["ipFamilies"] = families
        return
    if policy == "RequireDualStack" and len(ranges) < 2:
        causes.append(fe.invalid("spec.ipFamilyPolicy", policy, "this cluster is not configured for dual-stack services"))
    for i, fam in enumerate(families):
        if fam not in ranges:
            causes.append(fe.invalid(f"spec.ipFamilies[{i}]", fam, "not configured on this cluster"))
    if causes:
        raise _refuse(svc, causes)
    families = families or [primary]
    if policy != "SingleStack" and len(families) == 1 and len(ranges) == 2:
        families.append(_OTHER[families[0]])
    spec["ipFamilies"] = families


def _alloc_ips(svc: Obj, spec: Obj, wanted: dict[int, str], ctx: Context) -> None:
    """``allocIPs`` over ``clusterIPs`` index -> the address asked for ("" for any), through
    the family's ``MetaAllocator`` (``service_cidr_alloc``): an address asked for must lie in
    a ready ServiceCIDR and be free; any other is the next free one of the first allocator
    not full. The indexes go in order where upstream walks a map. The IPAddress objects are
    written once the Service is stored (``service_ipaddresses``)."""
    held = held_addresses(ctx)
    cidrs = ctx.lister_list(NETWORKING_V1, "ServiceCIDR", None)
    ips: list[str] = spec["clusterIPs"]
    for i, ip in wanted.items():
        allocs = allocators(cidrs, str(spec["ipFamilies"][i]))
        if ctx.dry_run:  # allocator.DryRun(): one allocator, nothing held
            ips[i] = dry_run_ip(svc, ips, ip, [a.range for a in allocs])
            continue
        if ip:
            why = allocate_static(allocs, ip, held)
            if why:
                raise _refuse(svc, [fe.invalid("spec.clusterIPs", ips, f"failed to allocate IP {ip}: {why}")])
            held.update(held_ips([ip]))
            continue
        free = allocate_next(allocs, held)
        if free is None:
            name = str((svc.get("metadata") or {}).get("name", ""))
            raise ApiError(  # NewInternalError over ipallocator.ErrFull
                f'Internal error occurred: failed to allocate a serviceIP for Service "{name}": range is full'
            )
        ips[i] = free
        held.update(held_ips([free]))
    if ips:
        spec["clusterIP"] = ips[0]


def _alloc_cluster_ips(svc: Obj, spec: Obj, ctx: Context) -> None:
    """``allocClusterIPs``: one address per family, "" marking the ones to pick."""
    ips = [str(x) for x in spec.get("clusterIPs") or []]
    if ips and ips[0] == "None":
        return
    families = spec.get("ipFamilies") or []
    ips += [""] * (len(families) - len(ips))
    spec["clusterIPs"] = ips
    _alloc_ips(svc, spec, {i: ips[i] for i in range(len(families))}, ctx)


def _update_cluster_ips(svc: Obj, spec: Obj, ospec: Obj, ctx: Context) -> None:
    """``updateClusterIPs``: from ExternalName all (case A); an upgrade to two families
    the secondary (case C). Releases (cases B and D) follow the stored update
    (``service_ipaddresses``)."""
    if _matching_prefer_dual_stack(spec, ospec):
        return
    if ospec.get("type") == "ExternalName" and spec.get("type") != "ExternalName":
        _alloc_cluster_ips(svc, spec, ctx)
        return
    if (ospec.get("clusterIPs") or [None])[0] == "None" or spec.get("type") == "ExternalName":
        return
    if len(ospec.get("ipFamilies") or []) == 1 and len(spec.get("ipFamilies") or []) == 2:
        ips = [str(x) for x in spec.get("clusterIPs") or []]
        if len(ips) < 2:
            ips.append("")
        spec["clusterIPs"] = ips
        _alloc_ips(svc, spec, {1: ips[1]}, ctx)


@preparer("Service")
def allocate_cluster_ips(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``allocateCreate``/``allocateUpdate``'s IP half (ExternalName Services get none)."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        return
    ranges = ranges_by_family(ctx.service_cidrs)
    ospec: Obj | None = None
    if old is not None:
        ospec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
    _init_ip_family_fields(svc, spec, ospec, ranges)
    if spec.get("type") == "ExternalName":
        return
    if ospec is None:
        _alloc_cluster_ips(svc, spec, ctx)
    else:
        _update_cluster_ips(svc, spec, ospec, ctx)
