"""``ValidateNode``'s pod CIDRs and ``ValidateNodeUpdate``'s immutability (core 1.37.2):
each entry of ``spec.podCIDRs`` is a CIDR (strict legacy validation), several must be one
per IP family; once set they never change; a set providerID neither changes nor clears.
The v1 conversion keeps ``spec.podCIDR`` and ``spec.podCIDRs[0]`` in step."""

from __future__ import annotations

import ipaddress
from typing import Any

from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.strategies.node import node_update_causes
from reference_impl.apiserver.strategies.service_fields import legacy_cidr_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.ip_formats import parse_ip_sloppy
from reference_impl.errors import Cause

__all__ = ["cidr_update_causes"]

Obj = dict[str, Any]
_PATH = "spec.podCIDRs"


def _spec(node: Obj | None) -> Obj:
    spec = (node or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def _cidrs(node: Obj | None) -> list[str]:
    spec = _spec(node)
    cidrs = spec.get("podCIDRs") or ([spec["podCIDR"]] if spec.get("podCIDR") else [])
    return [str(c) for c in cidrs]


@defaulter("Node")
def mirror_pod_cidr(node: Obj, ctx: Context) -> None:
    """The v1 conversion round trip: podCIDR is authoritative when it disagrees with
    podCIDRs[0] (or podCIDRs is empty); podCIDR then mirrors podCIDRs[0]."""
    spec = _spec(node)
    cidr, cidrs = spec.get("podCIDR"), spec.get("podCIDRs")
    if cidr and (not isinstance(cidrs, list) or not cidrs or cidrs[0] != cidr):
        spec["podCIDRs"] = [cidr]
    elif isinstance(cidrs, list) and cidrs:
        spec["podCIDR"] = cidrs[0]


def _families(cidrs: list[str]) -> set[type] | None:
    """The families of ``netutils.IsDualStackCIDRStrings``; None when one fails to parse."""
    out: set[type] = set()
    for c in cidrs:
        ip, _, bits = c.partition("/")
        addr = parse_ip_sloppy(ip)
        limit = 32 if isinstance(addr, ipaddress.IPv4Address) else 128
        if addr is None or not bits.isdigit() or int(bits) > limit:
            return None
        out.add(type(addr))
    return out


def _create_causes(cidrs: list[str]) -> list[Cause]:
    causes = [c for i, v in enumerate(cidrs) for c in legacy_cidr_causes(f"{_PATH}[{i}]", v)]
    if len(cidrs) > 1:
        families = _families(cidrs)
        if families is None:
            causes.append(Cause(_PATH, "InternalError", "Internal error: invalid PodCIDRs"))
        dual = families == {ipaddress.IPv4Address, ipaddress.IPv6Address}
        if not dual or len(cidrs) > 2:
            causes.append(
                fe.invalid(_PATH, cidrs, "may specify no more than one CIDR for each IP family")
            )
    return causes


def cidr_update_causes(node: Obj, old: Obj) -> list[Cause]:
    """``ValidateNodeUpdate``'s rules: set pod CIDRs and a set providerID stay."""
    causes: list[Cause] = []
    ocidrs = _cidrs(old)
    if ocidrs and ocidrs != _cidrs(node):
        causes.append(
            fe.forbidden(_PATH, 'node updates may not change podCIDR except from "" to valid')
        )
    opid, pid = str(_spec(old).get("providerID") or ""), str(_spec(node).get("providerID") or "")
    if opid and pid and opid != pid:
        causes.append(fe.invalid("spec.providerID", None, "field cannot be modified once set"))
    elif opid and not pid:
        causes.append(fe.invalid("spec.providerID", None, "field cannot be cleared once set"))
    return causes


@validator("Node")
def validate_node_cidrs(node: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Every pod CIDR parses; on update, set CIDRs and providerID stay."""
    causes = _create_causes(_cidrs(node))
    return causes if old is None else causes + cidr_update_causes(node, old)


@validator("Node", status=True)
def validate_node_status(node: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The status strategy's ValidateUpdate: ``ValidateNodeUpdate`` alone (no ValidateNode,
    so neither the swap status nor the pod CIDRs' format is checked)."""
    if old is None:
        return []
    return node_update_causes(node, old) + cidr_update_causes(node, old)
