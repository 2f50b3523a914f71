"""Deterministic pod and host addresses, as KWOK's per-node CIDR allocator hands them out.

Node *i* (in registration order) gets ``10.244.i.0/24`` unless it has ``spec.podCIDR``,
and host IP ``10.0.x.y``; pod IPs are the lowest free address from ``.2`` up, released
when the pod goes away. A full range hands out nothing (the CNI's "no IP addresses
available in range set"): the pod's sandbox cannot start until an address is released.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

__all__ = ["NodeAddresses"]


@dataclass(slots=True)
class _Pool:
    network: ipaddress.IPv4Network
    used: dict[str, int] = field(default_factory=dict)  # pod uid -> host offset


class NodeAddresses:
    """Host IPs and per-node pod IP pools."""

    def __init__(self) -> None:
        self._order: dict[str, int] = {}
        self._pools: dict[str, _Pool] = {}

    def register(self, node: str, pod_cidr: str | None = None) -> int:
        """Give ``node`` an index (once) and a pod CIDR; returns the index."""
        if node not in self._order:
            self._order[node] = len(self._order)
        i = self._order[node]
        if node not in self._pools:
            cidr = pod_cidr or f"10.244.{i % 256}.0/24"
            self._pools[node] = _Pool(ipaddress.ip_network(cidr, strict=False))  # type: ignore[arg-type]
        return i

    def host_ip(self, node: str) -> str:
        """The node's InternalIP."""
        n = self.register(node) + 2
        return f"10.0.{n // 256}.{n % 256}"

    def pod_ip(self, node: str, pod_uid: str) -> str:
        """The pod's IP on ``node``, allocated on first call; "" while the range is full."""
        self.register(node)
        pool = self._pools[node]
        off = pool.used.get(pod_uid)
        if off is None:
            taken = set(pool.used.values())
            free = (o for o in range(2, pool.network.num_addresses - 1) if o not in taken)
            off = next(free, None)
            if off is None:
                return ""
            pool.used[pod_uid] = off
        return str(pool.network.network_address + off)

    def release(self, node: str, pod_uid: str) -> None:
        """Free a pod's address."""
        pool = self._pools.get(node)
        if pool is not None:
            pool.used.pop(pod_uid, None)
