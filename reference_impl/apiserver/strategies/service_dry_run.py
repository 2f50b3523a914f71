"""The Service REST's allocators under ``dryRun=All`` (``Context.dry_run``): nothing is
held, and what a dry run hands out is not what a real write would get.

Cluster IPs (``ipallocator.go``'s ``dryRunAllocator`` behind ``MetaAllocator.DryRun``,
which picks one allocator of the family): an address asked for is only checked against
that allocator's host range (``allocateService`` returns before the free check), and an
address not asked for is the allocator's prefix address (``allocateNextService``: "Don't
bother finding a free value"). Node ports (``portallocator/operation.go``'s
``PortAllocationOperation`` with ``dryRun``): a port asked for is refused when another
Service or an earlier port of this write holds it, the range unchecked; a port not asked
for is one above the highest this write took, 32769 the first.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Any, Final

from reference_impl.apiserver.strategies.service_ip_ranges import IPRange
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Invalid

__all__ = ["DryRunPorts", "dry_run_ip"]

Obj = dict[str, Any]
_FIRST_DRY_PORT: Final = 32769  # AllocateNext's lastPort 32768, plus one


def dry_run_ip(svc: Obj, ips: list[str], ip: str, ranges: Sequence[IPRange]) -> str:
    """``allocIPs`` for one family through ``allocator.DryRun()``: ``ip`` when it lies in
    the first allocator's host range ("" asks for any: the prefix address); ``ranges``
    are the family's allocators (none: ``ErrNotReady``)."""
    name = str((svc.get("metadata") or {}).get("name", ""))
    if not ranges:
        why = (
            f"failed to allocate IP {ip}: allocator not ready"
            if ip
            else "failed to allocate IP: allocator not ready"
        )
        raise Invalid("Service", name, [fe.invalid("spec.clusterIPs", ips, why)])
    rng = ranges[0]
    if not ip:
        return str(rng.cidr.network_address)
    addr = ipaddress.ip_address(ip)
    if addr.version != rng.cidr.version or not rng.first <= int(addr) <= rng.last:
        why = f"the provided IP ({ip}) is not in the valid range. The range of valid IPs is {rng.cidr}"
        raise Invalid(
            "Service",
            name,
            [fe.invalid("spec.clusterIPs", ips, f"failed to allocate IP {ip}: {why}")],
        )
    return ip


class DryRunPorts(set[int]):
    """The node ports a dry-run write sees as held (other Services') plus the ones it
    takes, which it keeps in order (``op.allocated``) for ``allocate_next``."""

    def __init__(self, held: Iterable[int]) -> None:
        super().__init__(held)
        self.allocated: list[int] = []

    def add(self, port: int) -> None:
        super().add(port)
        self.allocated.append(port)

    def allocate_next(self) -> int:
        """``PortAllocationOperation.AllocateNext`` with ``dryRun``."""
        port = max(self.allocated) + 1 if self.allocated else _FIRST_DRY_PORT
        self.add(port)
        return port
