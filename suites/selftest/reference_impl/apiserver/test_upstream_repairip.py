"""pkg/registry/core/service/ipallocator/controller/repairip_test.go (v1.37.2):
TestRepairServiceIP (``runOnce`` over listers; the client actions and recorded events)
and TestRepairIPAddress_syncIPAddress (one ``syncIPAddress``; the client actions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from reference_impl.apiserver import repair_ip
from reference_impl.errors import NotFound

Obj = dict[str, Any]
V4, V6 = "10.0.0.0/16", "2001:db8::/64"
NOW = datetime(2012, 1, 1, tzinfo=UTC)  # testTimeNow


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _svc(name: str, ips: list[str], created: datetime, typ: str = "ClusterIP") -> Obj:
    spec: Obj = {"type": typ}
    if ips:
        spec |= {"clusterIP": ips[0], "clusterIPs": ips}
    else:
        spec["externalName"] = "foo.bar.com"
    return {"metadata": {"namespace": "bar", "name": name, "creationTimestamp": _ts(created)},
            "spec": spec}  # fmt: skip


def _ip(name: str, svc: str, created: datetime, **over: Any) -> Obj:
    obj = repair_ip.new_ip_address(name, {"metadata": {"namespace": "bar", "name": svc}})
    obj["metadata"]["creationTimestamp"] = _ts(created)
    for k, v in over.items():
        if k == "labels":
            obj["metadata"]["labels"] = v
        else:
            obj["spec"]["parentRef"] = v
    return obj


def _cidr(name: str, *cidrs: str) -> Obj:
    return {"metadata": {"name": name}, "spec": {"cidrs": [c for c in cidrs if c]}}


class FakeRepair:
    """``newFakeRepair``: listers over the row's objects; creates and deletes reach the
    IPAddress lister (the fake client's reactors); events as the FakeRecorder's."""

    def __init__(self, now: datetime, svcs: list[Obj], ips: list[Obj], cidrs: list[Obj]):
        self._now = now
        self.svcs = {(s["metadata"]["namespace"], s["metadata"]["name"]): s for s in svcs}
        self.ips = {i["metadata"]["name"]: i for i in ips}
        self.cidrs = cidrs
        self.actions: list[tuple[str, str]] = []
        self.events: list[str] = []

    def services(self) -> list[Obj]:
        return list(self.svcs.values())

    def service(self, namespace: str, name: str) -> Obj | None:
        return self.svcs.get((namespace, name))

    def ip_addresses(self) -> list[Obj]:
        return list(self.ips.values())

    def ip_address(self, name: str) -> Obj | None:
        return self.ips.get(name)

    def service_cidrs(self) -> list[Obj]:
        return self.cidrs

    def create_ip_address(self, obj: Obj) -> None:
        self.actions.append(("create", "ipaddresses"))
        self.ips[obj["metadata"]["name"]] = obj  # no creationTimestamp: Go's zero time

    def delete_ip_address(self, name: str) -> None:
        self.actions.append(("delete", "ipaddresses"))
        if self.ips.pop(name, None) is None:
            raise NotFound(name)

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None:
        self.events.append(f"{event_type} {reason} {message}")

    def now(self) -> datetime:
        return self._now


S = timedelta(seconds=1)
K = _cidr("kubernetes", V4, V6)
CREATE = ("create", "ipaddresses")
DELETE = ("delete", "ipaddresses")
NOT_ALLOC = "Warning ClusterIPNotAllocated "
OUT = "Warning ClusterIPOutOfRange Cluster IP "
OOR = " is not within any configured Service CIDR; please recreate service"
LEAK = "Warning IPAddressNotAllocated IPAddress: "
WRONG = "Warning IPAddressWrongReference IPAddress: 10.0.1.2 for Service bar/test-svc has a " \
        "wrong reference; cleaning up"  # fmt: skip

# (name, svcs, ips, cidrs, test time, expected IPs, actions, events)
SERVICE_ROWS: list[tuple[str, list[Obj], list[Obj], list[Obj], datetime, list[str],
                         list[tuple[str, str]], list[str]]] = [  # fmt: skip
    ("no changes needed single stack", [_svc("test-svc", ["10.0.1.1"], NOW + S)],
     [_ip("10.0.1.1", "test-svc", NOW)], [K], NOW, ["10.0.1.1"], [], []),
    ("no changes needed dual stack", [_svc("test-svc", ["10.0.1.1", "2001:db8::10"], NOW + S)],
     [_ip("10.0.1.1", "test-svc", NOW), _ip("2001:db8::10", "test-svc", NOW)], [K], NOW,
     ["10.0.1.1", "2001:db8::10"], [], []),
    ("no changes needed dual stack multiple cidrs",
     [_svc("test-svc", ["192.168.0.1", "2001:db8:a:b::10"], NOW + S)],
     [_ip("192.168.0.1", "test-svc", NOW), _ip("2001:db8:a:b::10", "test-svc", NOW)],
     [K, _cidr("custom", "192.168.0.0/24", "2001:db8:a:b::/64")], NOW,
     ["192.168.0.1", "2001:db8:a:b::10"], [], []),
    ("create IPAddress single stack", [_svc("test-svc", ["10.0.1.1"], NOW + S)], [], [K], NOW,
     ["10.0.1.1"], [CREATE],
     [NOT_ALLOC + "Cluster IP [IPv4]: 10.0.1.1 is not allocated; repairing"]),
    ("create IPAddresses dual stack", [_svc("test-svc", ["10.0.1.1", "2001:db8::10"], NOW + S)],
     [], [K], NOW, ["10.0.1.1", "2001:db8::10"], [CREATE, CREATE],
     [NOT_ALLOC + "Cluster IP [IPv4]: 10.0.1.1 is not allocated; repairing",
      NOT_ALLOC + "Cluster IP [IPv6]: 2001:db8::10 is not allocated; repairing"]),
    ("create IPAddress single stack from secondary", [_svc("test-svc", ["192.168.1.1"], NOW + S)],
     [], [K, _cidr("custom", "192.168.1.0/24")], NOW, ["192.168.1.1"], [CREATE],
     [NOT_ALLOC + "Cluster IP [IPv4]: 192.168.1.1 is not allocated; repairing"]),
    ("reconcile IPAddress single stack wrong reference",
     [_svc("test-svc", ["10.0.1.1"], NOW + S)], [_ip("10.0.1.1", "test-svc2", NOW)], [K], NOW,
     ["10.0.1.1"], [DELETE, CREATE],
     [NOT_ALLOC + "the ClusterIP [IPv4]: 10.0.1.1 for Service bar/test-svc has a wrong "
      "reference; repairing"]),
    ("reconcile IPAddresses dual stack",
     [_svc("test-svc", ["10.0.1.1", "2001:db8::10"], NOW - S)],
     [_ip("10.0.1.1", "test-svc2", NOW), _ip("2001:db8::10", "test-svc2", NOW)], [K], NOW,
     ["10.0.1.1", "2001:db8::10"], [DELETE, CREATE, DELETE, CREATE],
     [NOT_ALLOC + "the ClusterIP [IPv4]: 10.0.1.1 for Service bar/test-svc has a wrong "
      "reference; repairing",
      NOT_ALLOC + "the ClusterIP [IPv6]: 2001:db8::10 for Service bar/test-svc has a wrong "
      "reference; repairing"]),
    ("one IP out of range", [_svc("test-svc", ["192.168.1.1", "2001:db8::10"], NOW + S)],
     [_ip("192.168.1.1", "test-svc", NOW), _ip("2001:db8::10", "test-svc", NOW)], [K], NOW,
     ["2001:db8::10"], [], [OUT + "[IPv4]: 192.168.1.1" + OOR]),
    ("one IP orphan within grace period", [], [_ip("10.0.1.1", "test-svc", NOW)], [K], NOW,
     [], [], []),
    ("one IP orphan after grace period", [], [_ip("10.0.1.1", "test-svc", NOW)], [K],
     NOW + 70 * S, [], [DELETE],
     [LEAK + "10.0.1.1 for Service bar/test-svc appears to have leaked: cleaning up"]),
    ("one IP out of range matching the network address",
     [_svc("test-svc", ["10.0.0.0"], NOW + S)], [_ip("10.0.0.0", "test-svc", NOW)], [K], NOW,
     ["10.0.0.0"], [], [OUT + "[IPv4]: 10.0.0.0" + OOR]),
    ("one IP out of range matching the broadcast address",
     [_svc("test-svc", ["10.0.255.255"], NOW + S)], [_ip("10.0.255.255", "test-svc", NOW)],
     [K], NOW, ["10.0.255.255"], [], [OUT + "[IPv4]: 10.0.255.255" + OOR]),
    ("one IPv6 out of range matching the subnet address",
     [_svc("test-svc", ["2001:db8::"], NOW + S)], [_ip("2001:db8::", "test-svc", NOW)], [K],
     NOW, ["2001:db8::"], [], [OUT + "[IPv6]: 2001:db8::" + OOR]),
    ("one IPv6 matching the broadcast address",
     [_svc("test-svc", ["2001:db8::ffff:ffff:ffff:ffff"], NOW + S)],
     [_ip("2001:db8::ffff:ffff:ffff:ffff", "test-svc", NOW)], [K], NOW,
     ["2001:db8::ffff:ffff:ffff:ffff"], [], []),
    ("one IP orphan matching the broadcast address within grace period", [],
     [_ip("10.0.255.255", "test-svc", NOW)], [K], NOW, [], [], []),
    ("one IP orphan matching the broadcast address after grace period", [],
     [_ip("10.0.255.255", "test-svc", NOW)], [K], NOW + 90 * S, [], [DELETE],
     [LEAK + "10.0.255.255 for Service bar/test-svc appears to have leaked: cleaning up"]),
    ("Two IPAddresses referencing the same service", [_svc("test-svc", ["10.0.1.1"], NOW + S)],
     [_ip("10.0.1.1", "test-svc", NOW), _ip("10.0.1.2", "test-svc", NOW)], [K], NOW, [],
     [DELETE], [WRONG]),
    ("Two IPAddresses referencing the same service when service create is called again and ip "
     "address is in grace period", [_svc("test-svc", ["10.0.1.1"], NOW + S)],
     [_ip("10.0.1.1", "test-svc", NOW), _ip("10.0.1.2", "test-svc", NOW + 2 * S)], [K],
     NOW + 3 * S, [], [], []),
    ("Two IPAddresses referencing the same service when service create is called again and ip "
     "address is not in grace period", [_svc("test-svc", ["10.0.1.1"], NOW + S)],
     [_ip("10.0.1.1", "test-svc", NOW), _ip("10.0.1.2", "test-svc", NOW + 2 * S)], [K],
     NOW + 10 * S, [], [DELETE], [WRONG]),
    ("Two Services with same ClusterIP",
     [_svc("test-svc", ["10.0.1.1"], NOW + S), _svc("test-svc2", ["10.0.1.1"], NOW + S)],
     [_ip("10.0.1.1", "test-svc2", NOW)], [K], NOW, [], [],
     ["Warning ClusterIPAlreadyAllocated Cluster IP [IPv4]:10.0.1.1 was assigned to multiple "
      "services; please recreate service"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("svcs", "ips", "cidrs", "now", "expected_ips", "actions", "events"),
    [pytest.param(*row[1:], id=row[0]) for row in SERVICE_ROWS],
)
def test_repair_service_ip(
    svcs: list[Obj], ips: list[Obj], cidrs: list[Obj], now: datetime,
    expected_ips: list[str], actions: list[tuple[str, str]], events: list[str],
) -> None:  # fmt: skip
    r = FakeRepair(now, svcs, ips, cidrs)
    repair_ip.do_run_once(r)
    for ip in expected_ips:
        assert r.ip_address(ip) is not None, ip
    assert r.actions == actions
    assert r.events == events


_V4_LABELS = {"ipaddress.kubernetes.io/ip-family": "IPv4",
              "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}  # fmt: skip
_V6_LABELS = {**_V4_LABELS, "ipaddress.kubernetes.io/ip-family": "IPv6"}
_REF = {"group": "", "resource": "services", "name": "foo", "namespace": "bar"}

# (name, ip, svc (None: newService("foo", [ip name])), test time, actions)
SYNC_IP_ROWS: list[tuple[str, Obj, Obj | None, datetime, list[tuple[str, str]]]] = [
    ("ExternalName Service with late IPAddress", _ip("10.0.1.1", "foo", NOW + 10 * S),
     _svc("foo", [], NOW, "ExternalName"), NOW + 2 * S, []),
    ("ExternalName Service with late IPAddress after threshold",
     _ip("10.0.1.1", "foo", NOW + 10 * S), _svc("foo", [], NOW, "ExternalName"), NOW + 71 * S,
     [DELETE]),
    ("correct ipv4 address", _ip("10.0.1.1", "foo", NOW, labels=_V4_LABELS), None, NOW, []),
    ("correct ipv6 address", _ip("2001:db8::11", "foo", NOW, labels=_V6_LABELS), None, NOW, []),
    ("not managed by this controller",
     _ip("2001:db8::11", "foo", NOW,
         labels={**_V6_LABELS, "ipaddress.kubernetes.io/managed-by": "controller-foo"},
         ref={**_REF, "group": "networking.gateway.k8s.io", "resource": "gateway"}),
     None, NOW, []),
    ("out of range", _ip("fd00:db8::11", "foo", NOW, labels=_V6_LABELS), None, NOW, []),
    ("leaked ip", _ip("10.0.1.1", "noexist", NOW, labels=_V6_LABELS), None, NOW + 90 * S,
     [DELETE]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("ip", "svc", "now", "actions"), [pytest.param(*row[1:], id=row[0]) for row in SYNC_IP_ROWS]
)
def test_repair_ip_address_sync_ip_address(
    ip: Obj, svc: Obj | None, now: datetime, actions: list[tuple[str, str]]
) -> None:
    name = ip["metadata"]["name"]
    service = svc or _svc("foo", [name], datetime.now(UTC))
    r = FakeRepair(now, [service], [ip], [])
    repair_ip.sync_ip_address(r, name)
    assert r.actions == actions


def test_cluster_repair_loop_deletes_a_leaked_ip_address_after_the_grace_period() -> None:
    """The reference's wiring (``repair_ip.install``): an allocator-owned IPAddress whose
    Service does not exist stays for 60 s, then goes, with the leak event; a Service's
    cluster IP is left alone."""
    from reference_impl.cluster import Cluster

    c = Cluster()
    leaked = repair_ip.new_ip_address("10.0.0.200", {"metadata": {"namespace": "bar",
                                                                  "name": "gone"}})  # fmt: skip
    c.create(leaked)
    c.advance(30)
    assert c.api.try_get("networking.k8s.io/v1", "IPAddress", "10.0.0.200") is not None
    c.advance(31)
    assert c.api.try_get("networking.k8s.io/v1", "IPAddress", "10.0.0.200") is None
    details = [r.detail for r in c.trace.records if r.component == repair_ip.CONTROLLER_NAME]
    assert details == [
        "Warning IPAddress: 10.0.0.200 for Service bar/gone appears to have leaked: cleaning up"
    ]
    assert c.api.try_get("networking.k8s.io/v1", "IPAddress", "10.0.0.1") is not None
