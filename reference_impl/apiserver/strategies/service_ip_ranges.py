"""The Service IP allocators of kube-apiserver's ``--service-cluster-ip-range``: one range
per family, the first CIDR the primary (``ipallocator.NewIPAllocator`` over each,
``pkg/registry/core/service/ipallocator/ipallocator.go``).

The reference keeps no allocation state: the held addresses are the ones stored Services
hold. A range offers ``network+1`` to its last host (an IPv4 range stops before the
broadcast address, an IPv6 range includes it); dynamic addresses come from the upper band
first (KEP-3070 ``calculateRangeOffset``), lowest first where upstream starts each band's
scan at a random offset.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = [
    "Held",
    "IPRange",
    "dynamic_order",
    "family_of",
    "held_ips",
    "range_offset",
    "ranges_by_family",
]

Held = set[tuple[int, int]]
_IP_OFFSET: Final = (16, 256, 16)  # ipallocator calculateRangeOffset: min, max, step
_MAX_INT64: Final = (1 << 63) - 1


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


def family_of(ip: str) -> str:
    """``familyOf``: "IPv4" (an IPv4-mapped IPv6 address too), "IPv6", or "" when not an IP."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return ""
    if addr.version == 4 or getattr(addr, "ipv4_mapped", None) is not None:
        return "IPv4"
    return "IPv6"


@dataclass(frozen=True, slots=True)
class IPRange:
    """One family's allocator: its prefix and the bounds of what it hands out."""

    cidr: ipaddress.IPv4Network | ipaddress.IPv6Network
    first: int
    last: int
    offset: int

    @property
    def family(self) -> str:
        return f"IPv{self.cidr.version}"

    def static_error(self, ip: str, held: Held) -> str:
        """Why ``AllocateService`` refuses ``ip``, or "": not in this prefix
        (``ErrMismatchedNetwork``), outside the host range (``ErrNotInRange``), held
        (``ErrAllocated``)."""
        addr = ipaddress.ip_address(ip)
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped  # net.IP's String() prints the IPv4 form
        if addr.version != self.cidr.version or addr not in self.cidr:
            return "the provided network does not match the current range"
        if not self.first <= int(addr) <= self.last:
            return (
                f"the provided IP ({ip}) is not in the valid range. "
                f"The range of valid IPs is {self.cidr}"
            )
        return "provided IP is already allocated" if (addr.version, int(addr)) in held else ""

    def next_free(self, held: Held) -> str | None:
        """``AllocateNextService``: the upper band, then the lower one; None when full."""
        cut = self.first + self.offset
        for lo, hi in ((cut, self.last), (self.first, cut - 1)):
            for value in range(lo, hi + 1):  # ends within len(held) + 1 steps
                if (self.cidr.version, value) not in held:
                    return str(ipaddress.ip_address(value))
        return None


def _range(cidr: str) -> IPRange:
    net = ipaddress.ip_network(cidr, strict=False)
    base = int(net.network_address)
    last = int(net.broadcast_address) - (1 if net.version == 4 else 0)
    size = min(net.num_addresses, _MAX_INT64)  # netutils.RangeSize
    return IPRange(net, base + 1, last, range_offset(size, *_IP_OFFSET))


@functools.cache
def ranges_by_family(cidrs: tuple[str, ...]) -> dict[str, IPRange]:
    """The allocators by family, the primary (``defaultServiceIPFamily``) first. A second
    CIDR of the primary's family is refused, as kube-apiserver's flag validation does."""
    out: dict[str, IPRange] = {}
    for cidr in cidrs:
        r = _range(cidr)
        if r.family in out or len(cidrs) > 2:
            raise ValueError(f"--service-cluster-ip-range must be dual-stack: {cidrs}")
        out[r.family] = r
    return out


def held_ips(ips: Iterable[str]) -> Held:
    """The stored addresses as (version, integer) (``None`` and what does not parse hold
    nothing)."""
    out: Held = set()
    for ip in ips:
        try:
            addr = ipaddress.ip_address(ip)
            out.add((addr.version, int(addr)))
        except ValueError:
            continue
    return out
