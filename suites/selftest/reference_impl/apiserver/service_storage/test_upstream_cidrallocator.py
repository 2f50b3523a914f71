"""pkg/registry/core/service/ipallocator/cidrallocator_test.go (v1.37.2): the
MetaAllocator over several ServiceCIDRs (``ipalloc.Allocator``; DisableAllocatorDualWrite
is locked on, so the DualWrite rows do not apply). ``Free() > 0`` loops are "allocate
until full"; ``getAllocator`` is asked through an allocation."""

from __future__ import annotations

import ipaddress

from reference_impl.apiserver.strategies.service_cidr_alloc import (
    allocators,
    get_allocator,
)
from suites.selftest.reference_impl.apiserver.service_storage.ipalloc import (
    NET,
    Allocator,
    add_cidr,
    bare_server,
    used,
)

_MISMATCHED = "the provided network does not match the current range"


def _meta(family: str = "IPv4") -> Allocator:
    """``newTestMetaAllocatorWithFamily``: no ServiceCIDR yet."""
    return Allocator(bare_server(family), family)


def test_cidr_allocate_multiple() -> None:
    """TestCIDRAllocateMultiple: nothing without a ServiceCIDR; a /28 gives 14; a second
    /28 takes a static address and 13 more (28 in all); then full."""
    r = _meta()
    assert r.allocate_next() is None
    add_cidr(r.s, "test", "192.168.0.0/28")
    found = r.fill()
    assert len(found) == len(set(found)) == 14
    add_cidr(r.s, "test2", "10.0.0.0/28")
    assert r.allocate("10.0.0.11") == ""
    more = r.fill()
    assert len(set(found + more)) == len(found) + len(more) == 27
    assert len(used(r.s)) == 28
    assert r.allocate_next() is None


def test_cidr_allocate_shadow() -> None:
    """TestCIDRAllocateShadow: a /24's network address is in no allocator; once a /16
    holds it, it can be allocated."""
    r = _meta()
    add_cidr(r.s, "test", "192.168.1.0/24")
    assert r.allocate("192.168.1.0") == _MISMATCHED
    assert used(r.s) == set()
    add_cidr(r.s, "test2", "192.168.0.0/16")
    assert r.allocate("192.168.1.0") == ""
    assert used(r.s) == {"192.168.1.0"}


def test_cidr_allocate_grow() -> None:
    """TestCIDRAllocateGrow: a /28 gives 14; the /24 holding it 240 more (254 in all)."""
    r = _meta()
    add_cidr(r.s, "test", "192.168.0.0/28")
    found = r.fill()
    assert len(found) == 14
    add_cidr(r.s, "test2", "192.168.0.0/24")
    found += r.fill()
    assert len(found) == len(set(found)) == 254
    assert r.allocate_next() is None


def test_cidr_allocate_shrink() -> None:
    """TestCIDRAllocateShrink: a /24 gives 254, all released; with a /28 created and the
    /24 deleted, 14."""
    r = _meta()
    add_cidr(r.s, "test", "192.168.0.0/24")
    found = r.fill()
    assert len(found) == 254
    for ip in sorted(found):
        r.release(ip)
    assert used(r.s) == set()
    add_cidr(r.s, "cidr2", "192.168.0.0/28")
    r.s.delete(NET, "ServiceCIDR", "test")
    assert r.allocate("192.168.0.253") == _MISMATCHED
    assert len(r.fill()) == 14
    assert r.allocate_next() is None


def test_cidr_allocate_ipv6() -> None:
    """TestCIDRAllocateIPv6: a /120 gives 255 IPv6 addresses (no broadcast address),
    and all released leaves none used."""
    r = _meta("IPv6")
    assert r.allocate_next() is None
    add_cidr(r.s, "test", "fd00:1:2:3::/120")
    found = r.fill()
    assert len(found) == len(set(found)) == 255
    assert all(ipaddress.ip_address(ip).version == 6 for ip in found)
    for ip in found:
        r.release(ip)
    assert used(r.s) == set()


def test_cidr_allocate_dual_stack() -> None:
    """TestCIDRAllocateDualStack: an IPv6 MetaAllocator takes only the IPv6 range of a
    dual-stack ServiceCIDR; the IPv4 one has no allocator."""
    r = _meta("IPv6")
    add_cidr(r.s, "test", "192.168.0.0/24", "fd00:1:2:3::/120")
    cidrs = r.s.list(NET, "ServiceCIDR")
    assert get_allocator(allocators(cidrs, "IPv6"), "192.168.0.1", ready=False) is None
    ip = r.allocate_next()
    assert ip is not None
    assert ipaddress.ip_address(ip) in ipaddress.ip_network("fd00:1:2:3::/120")


def test_cidr_not_ready_or_deleting_takes_no_allocation() -> None:
    """syncAllocators: a ServiceCIDR whose Ready is False, or one being deleted, is no
    ready allocator: no address comes from it, asked for or not; a release works."""
    r = _meta()
    add_cidr(r.s, "test", "192.168.0.0/28", ready="False")
    assert r.allocate_next() is None
    assert r.allocate("192.168.0.3") == _MISMATCHED
    add_cidr(r.s, "test2", "10.0.0.0/28")
    ip = r.allocate_next()
    assert ip is not None
    held = r.s.get(NET, "ServiceCIDR", "test2")
    r.s.update({**held, "metadata": {**held["metadata"], "finalizers": ["example.com/keep"]}})
    r.s.delete(NET, "ServiceCIDR", "test2")  # marked: deleting
    assert r.allocate_next() is None
    assert r.allocate("10.0.0.3") == _MISMATCHED
    r.release(ip)
    assert used(r.s) == set()
