"""The service allocators' observable behaviour (v1.37.2), through ``APIServer``:
ipallocator bitmap_test.go and portallocator allocator_test.go ``Test_calculateRangeOffset``
(the static band's size), ipallocator_test.go TestAllocateReservedIPAllocator and
portallocator allocator_test.go TestAllocateReserved (dynamic allocations fill the upper
band first; the lower band stays free for requests until the upper one is full), and the
allocators' errors (out of range, already allocated, full) as a create answers them.

The reference keeps no bitmaps: IPAddress objects hold the addresses and the Services
stored the ports, so the cases create and delete Services over the reference's
10.0.0.0/24 and 30000-32767."""

from __future__ import annotations

import ipaddress

import pytest

from reference_impl.apiserver.strategies.service_ips_alloc import range_offset
from reference_impl.errors import ApiError, Invalid
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    make_service,
    new_server,
)

_IP_CASES = [
    ("full mask IPv4", "192.168.1.1/32", 0),
    ("full mask IPv6", "fd00::1/128", 0),
    ("very small mask IPv4", "192.168.1.1/30", 0),
    ("very small mask IPv6", "fd00::1/126", 0),
    ("small mask IPv4", "192.168.1.1/28", 0),
    ("small mask IPv4 /27", "192.168.1.1/27", 16),
    ("small mask IPv6", "fd00::1/124", 0),
    ("small mask IPv6 /122", "fd00::1/122", 16),
    ("medium mask IPv4", "192.168.1.1/22", 64),
    ("medium mask IPv6", "fd00::1/118", 64),
    ("large mask IPv4", "192.168.1.1/8", 256),
    ("large mask IPv6", "fd00::1/12", 256),
]


@pytest.mark.parametrize(
    ("cidr", "want"), [c[1:] for c in _IP_CASES], ids=[c[0] for c in _IP_CASES]
)
def test_calculate_range_offset_ip(cidr: str, want: int) -> None:
    """ipallocator Test_calculateRangeOffset (min 16, max 256, step 16)."""
    size = ipaddress.ip_network(cidr, strict=False).num_addresses
    assert range_offset(min(size, 2**63 - 1), 16, 256, 16) == want  # RangeSize caps at MaxInt64


_PORT_CASES = [
    ("default node port range", 2768, 86),
    ("very small node port range", 10, 0),
    ("small node port range (lower boundary)", 16, 0),
    ("small node port range", 128, 16),
    ("medium node port range", 2048, 64),
    ("large node port range (upper boundary)", 4096, 128),
    ("large node port range", 8192, 128),
]


@pytest.mark.parametrize(
    ("size", "want"), [c[1:] for c in _PORT_CASES], ids=[c[0] for c in _PORT_CASES]
)
def test_calculate_range_offset_port(size: int, want: int) -> None:
    """portallocator Test_calculateRangeOffset (min 16, max 128, step 32)."""
    assert range_offset(size, 16, 128, 32) == want


def test_allocate_reserved_ip() -> None:
    """TestAllocateReservedIPAllocator over 10.0.0.0/24 (offset 16): 238 dynamic
    allocations take .17-.254; the 16 static addresses can then be asked for; the range is
    full; one released address is the next dynamic one."""
    s = new_server()
    got = [s.create(make_service(f"d{i}"))["spec"]["clusterIP"] for i in range(254 - 16)]
    assert sorted(int(ipaddress.ip_address(ip)) & 0xFF for ip in got) == list(range(17, 255))
    for i in range(1, 17):
        assert s.create(make_service(f"s{i}", cluster_ips=(f"10.0.0.{i}",)))
    with pytest.raises(ApiError) as full:
        s.create(make_service("over"))
    assert full.value.code == 500
    assert "range is full" in str(full.value)
    s.delete("v1", "Service", "s10", "default")
    assert s.create(make_service("again"))["spec"]["clusterIP"] == "10.0.0.10"


@pytest.mark.parametrize(
    ("ip", "why"),
    [
        ("10.0.1.1", "the provided network does not match the current range"),
        ("10.0.0.0", "the provided network does not match the current range"),
        ("10.0.0.255", "the provided network does not match the current range"),
    ],
)  # fmt: skip
def test_allocate_ip_not_in_range(ip: str, why: str) -> None:
    """MetaAllocator (MultiCIDRServiceAllocator, locked on): an address no ServiceCIDR
    holds is ErrMismatchedNetwork, and so are the prefix's network and broadcast
    addresses: ``getAllocator`` asks ``servicecidr.PrefixContainsIP``, which leaves them
    out, so the allocator's own ErrNotInRange check is never reached."""
    with pytest.raises(Invalid) as err:
        new_server().create(make_service("foo", cluster_ips=(ip,)))
    assert [(c.field, c.message) for c in err.value.causes] == [
        ("spec.clusterIPs", f'Invalid value: ["{ip}"]: failed to allocate IP {ip}: {why}')
    ]


def test_allocate_ip_taken() -> None:
    """ErrAllocated, and the address free again once its Service is gone."""
    s = new_server()
    s.create(make_service("a", cluster_ips=("10.0.0.5",)))
    with pytest.raises(Invalid) as err:
        s.create(make_service("b", cluster_ips=("10.0.0.5",)))
    assert "failed to allocate IP 10.0.0.5: provided IP is already allocated" in str(err.value)
    s.delete("v1", "Service", "a", "default")
    assert s.create(make_service("b", cluster_ips=("10.0.0.5",)))["spec"]["clusterIP"] == "10.0.0.5"


def test_allocate_reserved_port() -> None:
    """portallocator TestAllocateReserved over 30000-32767 (offset 86): dynamic node ports
    start above 30085, and a port of the static band can be asked for."""
    s = new_server()
    first = s.create(make_service("a", type_="NodePort"))["spec"]["ports"][0]["nodePort"]
    assert first == 30086
    svc = s.create(make_service("b", type_="NodePort", node_ports=(30000,)))
    assert svc["spec"]["ports"][0]["nodePort"] == 30000
    with pytest.raises(Invalid) as err:
        s.create(make_service("c", type_="NodePort", node_ports=(30086,)))
    assert [(c.field, c.message) for c in err.value.causes] == [
        ("spec.ports[0].nodePort", "Invalid value: 30086: provided port is already allocated")
    ]


def _many_ports(n: int) -> list[dict[str, object]]:
    return [{"name": f"p{i}", "port": 1000 + i, "protocol": "TCP"} for i in range(n)]


def test_allocate_node_ports_until_full() -> None:
    """portallocator TestAllocate's shape over 30000-32767: dynamic ports take the upper
    band (30086-32767) and then the static one until all 2768 are held; the next is
    refused as full (an internal error, ``initNodePorts``); a deleted Service's ports are
    allocated again."""
    s = new_server()
    held: list[int] = []
    for i, n in enumerate([100] * 27 + [68]):
        svc = s.create(make_service(f"s{i}", type_="NodePort", ports=_many_ports(n)))
        held += [p["nodePort"] for p in svc["spec"]["ports"]]
    assert held == [*range(30086, 32768), *range(30000, 30086)]
    with pytest.raises(ApiError) as full:
        s.create(make_service("over", type_="NodePort"))
    assert full.value.code == 500
    assert str(full.value) == (
        "Internal error occurred: failed to allocate a nodePort: range is full"
    )
    s.delete("v1", "Service", "s3", "default")
    again = s.create(make_service("again", type_="NodePort"))
    assert again["spec"]["ports"][0]["nodePort"] == 30386
