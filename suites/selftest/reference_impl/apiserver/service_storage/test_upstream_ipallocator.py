"""pkg/registry/core/service/ipallocator/ipallocator_test.go (v1.37.2): one allocator over
one ServiceCIDR, its state the IPAddress objects (``ipalloc.Allocator``). The dynamic
order is the reference's (lowest free of the upper band, then of the lower one) where
upstream starts each band at a random offset; the rows assert what upstream's do: how
many, none twice, full after, a release allocated again."""

from __future__ import annotations

import ipaddress

import pytest

from suites.selftest.reference_impl.apiserver.service_storage.ipalloc import (
    Allocator,
    add_cidr,
    bare_server,
    used,
)

_ALLOCATE_CASES = [
    ("IPv4", "IPv4", "192.168.1.0/24", 254, "192.168.1.5",
     ["192.168.0.1", "192.168.1.0", "192.168.1.255", "192.168.2.2"], "192.168.1.1"),
    ("IPv6", "IPv6", "2001:db8:1::/116", 4095, "2001:db8:1::5",
     ["2001:db8::1", "2001:db8:1::", "2001:db8:2::2"], "2001:db8:1::1"),
]  # fmt: skip
_ALLOCATED = "provided IP is already allocated"


def _allocator(cidr: str, family: str = "IPv4") -> Allocator:
    """``newTestAllocator``: one Ready ServiceCIDR "test" over ``cidr``."""
    s = bare_server(family)
    add_cidr(s, "test", cidr)
    return Allocator(s, family)


@pytest.mark.parametrize(
    ("family", "cidr", "free", "released", "out_of_range", "already"),
    [c[1:] for c in _ALLOCATE_CASES],
    ids=[c[0] for c in _ALLOCATE_CASES],
)
def test_allocate_ip_allocator(
    family: str, cidr: str, free: int, released: str, out_of_range: list[str], already: str
) -> None:
    """TestAllocateIPAllocator: ``free`` addresses, none twice, then full; a released
    address is the next one; addresses outside the range (its network and IPv4
    broadcast addresses too) and a held one are refused; the released one can be asked
    for."""
    r = _allocator(cidr, family)
    assert used(r.s) == set()
    found = r.fill()
    assert len(found) == len(set(found)) == free
    assert r.allocate_next() is None
    assert released in found
    r.release(released)
    assert len(used(r.s)) == free - 1
    assert r.allocate_next() == released
    r.release(released)
    for ip in out_of_range:
        assert r.allocate(ip), ip
    assert r.allocate(already) == _ALLOCATED
    assert len(used(r.s)) == free - 1
    assert r.allocate(released) == ""
    assert len(used(r.s)) == free


def test_allocate_tiny_ip_allocator() -> None:
    """TestAllocateTinyIPAllocator: a /32 holds nothing to allocate."""
    assert _allocator("192.168.1.0/32").allocate_next() is None


def test_allocate_reserved_ip_allocator() -> None:
    """TestAllocateReservedIPAllocator over 192.168.1.0/25 (offset 16): the dynamic
    allocations take the upper block; the static block can then be asked for; with all
    held, a released address is the next dynamic one."""
    r = _allocator("192.168.1.0/25")
    offset, size = 16, 126
    for _ in range(size - offset):
        assert r.allocate_next() is not None
    assert {f"192.168.1.{i + 1}" for i in range(offset, size)} == used(r.s)
    for i in range(offset):
        assert r.allocate(f"192.168.1.{i + 1}") == ""
    assert r.allocate_next() is None
    r.release("192.168.1.10")
    assert r.allocate_next() == "192.168.1.10"
    assert r.allocate_next() is None


def test_allocate_small_ip_allocator() -> None:
    """TestAllocateSmallIPAllocator: a /30 holds 2; both allocated are held and refused
    when asked for; then it stays full."""
    r = _allocator("192.168.1.240/30")
    found = {r.allocate_next(), r.allocate_next()}
    assert found == used(r.s) == {"192.168.1.241", "192.168.1.242"}
    for ip in used(r.s):
        assert r.allocate(ip) == _ALLOCATED
    for _ in range(100):
        assert r.allocate_next() is None


def test_allocate_next_collision() -> None:
    """TestAllocateNext_Collision's outcome: an address another writer holds (an
    IPAddress not in this allocator's view when it picked) is skipped, not an error."""
    r = _allocator("192.168.1.0/24")
    first = r.allocate_next()
    assert first is not None
    r.release(first)
    r.s.create({
        "apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
        "metadata": {"name": first},
        "spec": {"parentRef": {"resource": "services", "namespace": "other", "name": "x"}},
    })  # fmt: skip
    ip = r.allocate_next()
    assert ip is not None and ip != first
    assert ipaddress.ip_address(ip) in ipaddress.ip_network("192.168.1.0/24")
