"""``ValidateNode``'s pod CIDRs (core 1.37.2): each entry of ``spec.podCIDRs`` (defaulted
from ``spec.podCIDR``) is a CIDR, reported at ``spec.podCIDRs[i]``."""

from __future__ import annotations

import ipaddress
from typing import Any

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []


def _is_cidr(value: str) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return "/" in value


@validator("Node")
def validate_node_cidrs(
    node: dict[str, Any], old: dict[str, Any] | None, ctx: Context
) -> list[Cause]:
    """Every pod CIDR parses."""
    spec = node.get("spec") or {}
    cidrs = spec.get("podCIDRs") or ([spec["podCIDR"]] if spec.get("podCIDR") else [])
    if old is not None:
        ospec = old.get("spec") or {}
        ocidrs = ospec.get("podCIDRs") or ([ospec["podCIDR"]] if ospec.get("podCIDR") else [])
        # ValidateNodeUpdate: once set, podCIDRs only stay as they are.
        if ocidrs and list(ocidrs) != list(cidrs):
            return [
                fe.forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid')
            ]
    return [
        fe.invalid(
            f"spec.podCIDRs[{i}]",
            str(c),
            "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        )
        for i, c in enumerate(cidrs)
        if not _is_cidr(str(c))
    ]
