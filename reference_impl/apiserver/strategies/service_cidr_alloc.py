"""The ClusterIP allocators over ServiceCIDR objects: ``MetaAllocator``
(``pkg/registry/core/service/ipallocator/cidrallocator.go``) in front of one
``ipallocator.Allocator`` per CIDR (``ipallocator.go``), whose allocation state is the
IPAddress objects (MultiCIDRServiceAllocator and DisableAllocatorDualWrite are locked on
in 1.37: no bitmap is written).

The reference reads both kinds from storage on each allocation: the allocators are the
stored ServiceCIDRs' CIDRs of one family, and an address is held when an IPAddress named
after it exists. Where upstream walks a Go map of allocators, they go in ServiceCIDR name
order, each one's CIDRs in spec order.
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.strategies.service_ip_ranges import (
    Held,
    IPRange,
    held_ips,
    ranges_by_family,
)

__all__ = [
    "ERR_MISMATCHED_NETWORK",
    "IPADDRESS_FAMILY_LABEL",
    "IPADDRESS_MANAGED_BY_LABEL",
    "IPALLOCATOR_NAME",
    "NETWORKING_V1",
    "Allocator",
    "allocate_next",
    "allocate_static",
    "allocators",
    "get_allocator",
    "held_addresses",
    "is_ready",
    "prefix_contains_ip",
]

Obj = dict[str, Any]
NETWORKING_V1: Final = "networking.k8s.io/v1"
IPALLOCATOR_NAME: Final = "ipallocator.k8s.io"  # ipallocator.ControllerName
IPADDRESS_FAMILY_LABEL: Final = "ipaddress.kubernetes.io/ip-family"
IPADDRESS_MANAGED_BY_LABEL: Final = "ipaddress.kubernetes.io/managed-by"
ERR_MISMATCHED_NETWORK: Final = "the provided network does not match the current range"


@dataclass(frozen=True, slots=True)
class Allocator:
    """One CIDR's allocator and whether it takes new allocations."""

    range: IPRange
    ready: bool


def is_ready(cidr: Obj) -> bool:
    """``isReady``: the Ready condition's status when there is one, else ready (the
    controller-manager may not run)."""
    for cond in (cidr.get("status") or {}).get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            return cond.get("status") == "True"
    return True


def _range(cidr: str, family: str) -> IPRange | None:
    """``NewIPAllocator`` over ``cidr`` when it is of ``family``; None when it is not, or
    is an IPv6 prefix shorter than /64 (refused)."""
    try:
        net = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return None
    if f"IPv{net.version}" != family or (net.version == 6 and net.prefixlen < 64):
        return None
    return ranges_by_family((str(net),))[family]


def allocators(service_cidrs: list[Obj], family: str) -> list[Allocator]:
    """``syncAllocators``: one allocator per CIDR of ``family``, ready when one of the
    ServiceCIDRs holding it is Ready and not being deleted."""
    out: dict[str, Allocator] = {}
    for sc in service_cidrs:
        ready = is_ready(sc) and not (sc.get("metadata") or {}).get("deletionTimestamp")
        for cidr in (sc.get("spec") or {}).get("cidrs") or []:
            rng = _range(str(cidr), family)
            if rng is None:
                continue
            key = str(rng.cidr)
            prior = out.get(key)
            out[key] = Allocator(rng, ready or (prior is not None and prior.ready))
    return list(out.values())


def _addr(ip: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``servicecidr.IPToAddr``: an IPv4-mapped IPv6 address as IPv4."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def prefix_contains_ip(cidr: ipaddress.IPv4Network | ipaddress.IPv6Network, ip: str) -> bool:
    """``servicecidr.PrefixContainsIP``: in the prefix, not its network address, and (IPv4)
    not its broadcast address."""
    addr = _addr(ip)
    if addr is None or addr.version != cidr.version or addr not in cidr:
        return False
    if addr == cidr.network_address:
        return False
    return addr.version == 6 or addr != cidr.broadcast_address


def get_allocator(allocs: list[Allocator], ip: str, ready: bool = True) -> IPRange | None:
    """``getAllocator``: the first allocator containing ``ip`` (a ready one when
    ``ready``); None is ``ErrMismatchedNetwork``."""
    for a in allocs:
        if prefix_contains_ip(a.range.cidr, ip) and (a.ready or not ready):
            return a.range
    return None


def allocate_static(allocs: list[Allocator], ip: str, held: Held) -> str:
    """``MetaAllocator.AllocateService``'s checks: why ``ip`` is refused, or "" (the
    IPAddress create's AlreadyExists is ``ErrAllocated``)."""
    rng = get_allocator(allocs, ip)
    return ERR_MISMATCHED_NETWORK if rng is None else rng.static_error(ip, held)


def allocate_next(allocs: list[Allocator], held: Held) -> str | None:
    """``MetaAllocator.AllocateNextService``: the first ready allocator's next free
    address, the next allocator's when one is full; None is ``ErrFull``."""
    return next((f for a in allocs if a.ready and (f := a.range.next_free(held))), None)


@functools.lru_cache(maxsize=1 << 16)
def _held_key(name: str) -> frozenset[tuple[int, int]]:
    return frozenset(held_ips([name]))


def held_addresses(ctx: Context) -> Held:
    """The addresses an IPAddress object holds, whoever created it (the allocator's
    ``ipAddressLister``)."""
    out: Held = set()
    for o in ctx.lister_list(NETWORKING_V1, "IPAddress", None):
        out |= _held_key(str((o.get("metadata") or {}).get("name", "")))
    return out
