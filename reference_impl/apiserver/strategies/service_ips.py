"""Service cluster IPs before allocation: the service REST's create/update hook runs
``ValidateServiceClusterIPsRelatedFields`` as a "loose pre-validation" and answers its
errors alone (``pkg/registry/core/service/storage/alloc.go``), before the strategy's
validation. Creates and updates then allocate (``service_ips_alloc``)."""

from __future__ import annotations

import ipaddress
from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause, Invalid

__all__ = [
    "cluster_ip_causes",
    "ip_families_update_causes",
    "normalize_cluster_ips",
    "patch_allocated_cluster_ips",
]

Obj = dict[str, Any]
_FAMILIES: Final = ("IPv4", "IPv6")
_POLICIES: Final = ("PreferDualStack", "RequireDualStack", "SingleStack")


def _valid_ip(ip: str) -> bool:
    try:
        ipaddress.ip_address(ip)
    except ValueError:
        return False
    return True


def _is_v4(ip: str) -> bool:
    """Go's family of a valid IP: an IPv4-mapped IPv6 address counts as IPv4."""
    addr = ipaddress.ip_address(ip)
    return addr.version == 4 or getattr(addr, "ipv4_mapped", None) is not None


def cluster_ip_causes(spec: Obj) -> list[Cause]:
    """The errors of ``ValidateServiceClusterIPsRelatedFields``."""
    if spec.get("type") == "ExternalName":
        return []
    out: list[Cause] = []
    ip, ips = str(spec.get("clusterIP") or ""), [str(x) for x in spec.get("clusterIPs") or []]
    if ip:
        if not ips:
            out.append(fe.required("spec.clusterIPs"))
        elif ips[0] != ip:
            out.append(fe.invalid("spec.clusterIPs", ips, "first value must match `clusterIP`"))
    elif ips:
        out.append(fe.invalid("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified"))
    seen: set[str] = set()
    for i, fam in enumerate(spec.get("ipFamilies") or []):
        if fam not in _FAMILIES:
            out.append(fe.not_supported(f"spec.ipFamilies[{i}]", fam, _FAMILIES))
        if fam in seen:
            out.append(fe.duplicate(f"spec.ipFamilies[{i}]", fam))
        seen.add(str(fam))
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in _POLICIES:
        out.append(fe.not_supported("spec.ipFamilyPolicy", policy, _POLICIES))
    bad = False
    for i, value in enumerate(ips):
        if i == 0 and value == "None":
            if len(ips) > 1:
                bad = True
                out.append(fe.invalid("spec.clusterIPs", ips, "'None' must be the first and only value"))
            continue
        if not _valid_ip(value):
            bad = True
            out.append(fe.invalid(f"spec.clusterIPs[{i}]", value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
    if len(ips) > 2:
        out.append(fe.invalid("spec.clusterIPs", ips, "may only hold up to 2 values"))
    # IsDualStackIPStrings: more than one IP needs one of each family.
    if bad:
        return out
    if len(ips) > 1 and len({_is_v4(x) for x in ips}) < 2:
        out.append(fe.invalid("spec.clusterIPs", ips, "may specify no more than one IP for each IP family"))
    if ips != ["None"]:  # each IP matches its family, when given
        for i, (value, fam) in enumerate(zip(ips, spec.get("ipFamilies") or [], strict=False)):
            want = {"IPv4": True, "IPv6": False}.get(str(fam))
            if want is not None and _is_v4(value) != want:
                msg = f"expected an {fam} value as indicated by `ipFamilies[{i}]`"
                out.append(fe.invalid(f"spec.clusterIPs[{i}]", value, msg))
    return out


def ip_families_update_causes(spec: Obj, ospec: Obj) -> list[Cause]:
    """``validateUpgradeDowngradeIPFamilies``: the primary family never changes (nor any
    while the count stays), and releasing the secondary needs SingleStack. Headless
    Services, and Services becoming or leaving headless, may change families."""
    if "ExternalName" in (spec.get("type"), ospec.get("type")):
        return []
    if spec.get("clusterIPs") == ["None"] or ospec.get("clusterIPs") == ["None"]:
        return []
    new, prior = list(spec.get("ipFamilies") or []), list(ospec.get("ipFamilies") or [])
    ips, path, msg = list(spec.get("clusterIPs") or []), "spec.ipFamilies[0]", "may not change once set"
    if len(prior) == len(new):
        return [fe.invalid(path, new, msg) for i, fam in enumerate(prior) if fam != new[i]]
    out: list[Cause] = []
    if len(prior) > len(new):
        if not ips:
            out.append(fe.invalid(path, new, "primary ipFamily can not be unset"))
        if new and new[0] != prior[0]:
            out.append(fe.invalid(path, ips, msg))  # upstream names the clusterIPs here
        if len(new) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            out.append(fe.invalid("spec.ipFamilyPolicy", spec.get("ipFamilyPolicy"), "must be set to 'SingleStack' when releasing the secondary ipFamily"))
    elif prior and new[0] != prior[0]:
        out.append(fe.invalid(path, ips, msg))
    return out


def normalize_cluster_ips(spec: Obj, ospec: Obj | None) -> None:
    """``normalizeClusterIPs``: a create's clusterIP alone fills clusterIPs; on update, a
    changed clusterIP with clusterIPs as they were takes the plural with it (emptied with
    it, or set to the new value)."""
    ip = spec.get("clusterIP") or ""
    if ospec is None:
        if ip and not spec.get("clusterIPs"):
            spec["clusterIPs"] = [ip]
        return
    oip = ospec.get("clusterIP") or ""
    if ospec.get("clusterIPs") and not spec.get("clusterIPs") and ip == oip:
        spec["clusterIPs"] = list(ospec.get("clusterIPs") or [])
    if ip == oip or (spec.get("clusterIPs") or []) != (ospec.get("clusterIPs") or []):
        return
    if not ip:
        spec.pop("clusterIPs", None)
    else:
        spec["clusterIPs"] = [ip]


def patch_allocated_cluster_ips(spec: Obj, ospec: Obj) -> None:
    """``patchAllocatedValues``' IP half: cluster IPs an update left empty keep the old
    ones while both types need one."""
    if "ExternalName" in (spec.get("type"), ospec.get("type")):
        return
    if not spec.get("clusterIP") and ospec.get("clusterIP"):
        spec["clusterIP"] = ospec["clusterIP"]
    if not spec.get("clusterIPs") and ospec.get("clusterIPs"):
        spec["clusterIPs"] = list(ospec["clusterIPs"])


@preparer("Service")
def precheck_cluster_ips(svc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The storage's ``patchAllocatedValues`` on update and ``normalizeClusterIPs``, then
    the allocator's pre-check."""
    spec = svc.setdefault("spec", {})
    ospec = (old or {}).get("spec") if old is not None else None
    if isinstance(ospec, dict):
        patch_allocated_cluster_ips(spec, ospec)
    normalize_cluster_ips(spec, ospec if isinstance(ospec, dict) else None)
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]
    causes = cluster_ip_causes(spec)
    if causes:
        raise Invalid("Service", str(svc["metadata"].get("name", "")), causes)
