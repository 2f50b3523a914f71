"""pkg/controller/servicecidrs/servicecidrs_controller_test.go (v1.37.2):
TestControllerSync (each row's actions as the state they leave: the finalizer added,
the Ready condition written, the finalizer removed so the ServiceCIDR goes),
TestController_canDeleteCIDR, TestController_ipToCidrs and TestController_cidrToCidrs."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.controllers import start_controllers
from reference_impl.controllers.servicecidrs import (
    SERVICE_CIDR_PROTECTION_FINALIZER,
    can_delete_cidr,
    containing_service_cidrs,
    overlapping_service_cidrs,
)
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NET = "networking.k8s.io/v1"
K = "kubernetes"  # defaultservicecidr.DefaultServiceCIDRName
V4, V6 = "192.168.0.0/24", "2001:db2::/64"


def make_service_cidr(name: str, primary: str, secondary: str = "") -> Obj:
    """``makeServiceCIDR``."""
    cidrs = [primary, secondary] if secondary else [primary]
    return {"apiVersion": NET, "kind": "ServiceCIDR", "metadata": {"name": name},
            "spec": {"cidrs": cidrs}}  # fmt: skip


def make_ip_address(name: str) -> Obj:
    """``makeIPAddress`` (with a parentRef, which the apiserver requires)."""
    family = "IPv6" if ipaddress.ip_address(name).version == 6 else "IPv4"
    return {
        "apiVersion": NET, "kind": "IPAddress",
        "metadata": {"name": name, "labels": {
            "ipaddress.kubernetes.io/ip-family": family,
            "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}},
        "spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "s"}},
    }  # fmt: skip


# -- TestControllerSync ----------------------------------------------------------------


def _server() -> tuple[SimClock, APIServer]:
    clock = SimClock()
    s = APIServer(MVCCStore(), clock, Rng(3).child("apiserver"), FeatureGates())
    s.delete(NET, "ServiceCIDR", K)  # newController starts from the rows' objects only
    return clock, s


def _start(clock: SimClock, s: APIServer) -> None:
    rng, gates = Rng(3), FeatureGates()
    ctx = ComponentContext(s, InformerFactory(s), clock, rng, gates, Trace(clock))
    start_controllers(ctx, flags=("service-cidr-controller",))
    clock.settle()


def _deleting(clock: SimClock, s: APIServer, name: str, age: float) -> None:
    """``deletingServiceCIDR`` (age 0) / ``deletedServiceCIDR`` (past the 10 s grace)."""
    obj = make_service_cidr(name, V4, V6)
    obj["metadata"]["finalizers"] = [SERVICE_CIDR_PROTECTION_FINALIZER]
    s.create(obj)
    s.delete(NET, "ServiceCIDR", name)
    clock.run_until(Instant(clock.now() + seconds(age)))


_SYNC_CASES: list[tuple[str, str, list[Obj], list[str], str]] = [
    # (row, the synced ServiceCIDR's state: "deleted"/"deleting"/"" (live), other
    #  ServiceCIDRs, IPAddresses, what the actions leave)
    ("default service CIDR must have finalizer", "", [], [], "finalizer+ready"),
    ("service CIDR must have finalizer", "", [], [], "finalizer+ready"),
    ("service CIDR being deleted must remove the finalizer", "deleted", [], [], "gone"),
    ("service CIDR being deleted but within the grace period must be requeued not remove the finalizer",
     "deleting", [], [], "kept"),
    ("service CIDR being deleted with IPv4 addresses should update the status",
     "deleted", [], ["192.168.0.1"], "terminating"),
    ("service CIDR being deleted and overlapping same range and IPv4 addresses should remove the finalizer",
     "deleted", [make_service_cidr("overlapping", V4, V6)], ["192.168.0.1"], "gone"),
    ("service CIDR being deleted and overlapping and IPv4 addresses should remove the finalizer",
     "deleted", [make_service_cidr("overlapping", "192.168.0.0/16", V6)], ["192.168.0.1"], "gone"),
    ("service CIDR being deleted and not overlapping and IPv4 addresses should update the status",
     "deleted", [make_service_cidr("overlapping", "192.168.255.0/26", V6)], ["192.168.0.1"], "terminating"),
    ("service CIDR being deleted with IPv6 addresses should update the status",
     "deleted", [], ["2001:db2::1"], "terminating"),
    ("service CIDR being deleted and overlapping same range and IPv6 addresses should remove the finalizer",
     "deleted", [make_service_cidr("overlapping", V4, V6)], ["2001:db2::1"], "gone"),
    ("service CIDR being deleted and overlapping and IPv6 addresses should remove the finalizer",
     "deleted", [make_service_cidr("overlapping", "192.168.0.0/16", "2001:db2::/48")], ["2001:db2::1"], "gone"),
    ("service CIDR being deleted and not overlapping and IPv6 addresses should update the status",
     "deleted", [make_service_cidr("overlapping", "192.168.255.0/26", "2001:db2:a:b::/64")],
     ["2001:db2::1"], "terminating"),
]  # fmt: skip


def _ready(obj: Obj) -> Obj | None:
    conds = (obj.get("status") or {}).get("conditions") or []
    return next((c for c in conds if c.get("type") == "Ready"), None)


@pytest.mark.parametrize(
    ("state", "others", "ips", "want"),
    [c[1:] for c in _SYNC_CASES],
    ids=[c[0] for c in _SYNC_CASES],
)
def test_controller_sync(state: str, others: list[Obj], ips: list[str], want: str) -> None:
    """The synced ServiceCIDR after its sync (the others keep their own finalizers)."""
    clock, s = _server()
    for ip in ips:
        s.create(make_ip_address(ip))
    name = {"deleted": "deleted-cidr", "deleting": "deleting-cidr"}.get(state, "no-finalizer")
    if state:
        _deleting(clock, s, name, 11.0 if state == "deleted" else 0.0)
    else:
        s.create(make_service_cidr(name, V4, V6))
    for o in others:
        s.create(o)
    _start(clock, s)
    got = s.try_get(NET, "ServiceCIDR", name)
    if want == "gone":
        assert got is None
        return
    assert got is not None
    assert got["metadata"].get("finalizers") == [SERVICE_CIDR_PROTECTION_FINALIZER]
    ready = _ready(got)
    if want == "finalizer+ready":
        assert ready is not None
        assert (ready["status"], ready["reason"], ready["message"]) == (
            "True",
            "",
            "Kubernetes Service CIDR is ready",
        )
    elif want == "terminating":
        assert ready is not None
        assert (ready["status"], ready["reason"]) == ("False", "Terminating")
        assert ready["message"].startswith(
            "There are still IPAddresses referencing the ServiceCIDR"
        )
    else:  # kept, within the grace period: requeued, and gone once it has passed
        assert ready is None
        clock.run_until(Instant(clock.now() + seconds(10)))
        clock.settle()
        assert s.try_get(NET, "ServiceCIDR", name) is None


def test_controller_sync_no_existing_service_cidrs() -> None:
    """ "no existing service CIDRs": nothing is written."""
    clock, s = _server()
    before = s.writes
    _start(clock, s)
    assert s.writes == before


def test_ready_false_cleared_once_orphan_ip_goes() -> None:
    """The Terminating condition is re-evaluated on an IPAddress event: deleting the last
    IPAddress lets the finalizer go after the grace."""
    clock, s = _server()
    s.create(make_ip_address("192.168.0.1"))
    _deleting(clock, s, "deleted-cidr", 11.0)
    _start(clock, s)
    got = s.get(NET, "ServiceCIDR", "deleted-cidr")
    assert (_ready(got) or {}).get("reason") == "Terminating"
    s.delete(NET, "IPAddress", "192.168.0.1")
    clock.settle()
    assert s.try_get(NET, "ServiceCIDR", "deleted-cidr") is None


# -- TestController_canDeleteCIDR ------------------------------------------------------

_CAN_DELETE_CASES: list[tuple[str, list[Obj], list[str], bool]] = [
    ("empty", [], [], True),
    ("CIDR and no IPs", [make_service_cidr(K, V4, V6)], [], True),
    ("CIDR with IPs", [make_service_cidr(K, V4, V6)], ["192.168.0.24"], False),
    ("CIDR without IPs", [make_service_cidr(K, V4, V6)], ["192.168.1.24"], True),
    ("CIDR with IPv4 address referencing the subnet address", [make_service_cidr(K, V4, V6)], ["192.168.0.0"], True),
    ("CIDR with IPv4 address referencing the broadcast address", [make_service_cidr(K, V4, V6)], ["192.168.0.255"], True),
    ("CIDR with IPv6 address referencing the broadcast address", [make_service_cidr(K, V4, V6)],
     ["2001:0db2::ffff:ffff:ffff:ffff"], False),
    ("CIDR with same range overlapping and IPs",
     [make_service_cidr(K, V4, V6), make_service_cidr("overlapping", V4, V6)], ["192.168.0.23"], True),
    ("CIDR with smaller range overlapping and IPs",
     [make_service_cidr(K, V4, V6), make_service_cidr("overlapping", "192.168.0.0/26", V6)], ["192.168.0.23"], True),
    ("CIDR with smaller range overlapping but IPs orphan",
     [make_service_cidr(K, V4, V6), make_service_cidr("overlapping", "192.168.0.0/28", V6)], ["192.168.0.23"], False),
    ("CIDR with larger range overlapping and IPs",
     [make_service_cidr(K, V4, V6), make_service_cidr("overlapping", "192.168.0.0/16", V6)], ["192.168.0.23"], True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("cidrs", "ips", "want"),
    [c[1:] for c in _CAN_DELETE_CASES],
    ids=[c[0] for c in _CAN_DELETE_CASES],
)
def test_controller_can_delete_cidr(cidrs: list[Obj], ips: list[str], want: bool) -> None:
    """canDeleteCIDR of "kubernetes" (192.168.0.0/24, 2001:db2::/64)."""
    ip_objs = [make_ip_address(str(ipaddress.ip_address(ip))) for ip in ips]
    assert can_delete_cidr(make_service_cidr(K, V4, V6), cidrs, ip_objs) is want


_BASE = [make_service_cidr(K, V4, V6)]
_UNRELATED = [
    make_service_cidr("unrelated", "10.0.0.0/24"),
    make_service_cidr("unrelated2", "10.0.0.0/16"),
]
_TWO = [*_BASE, make_service_cidr("overlapping", V4, V6)]
_THREE = [*_TWO, make_service_cidr("overlapping2", "192.168.0.0/26", "2001:db2::/96"), *_UNRELATED]

_IP_TO_CIDRS_CASES: list[tuple[str, list[Obj], str, list[str]]] = [
    ("empty", [], "192.168.0.23", []),
    ("one CIDR", [*_BASE, *_UNRELATED], "192.168.0.23", [K]),
    ("two equal CIDR", [*_BASE, make_service_cidr("overlapping", V4, "2001:db2::/96"), *_UNRELATED],
     "192.168.0.23", [K, "overlapping"]),
    ("three CIDR - two same and one larger", _THREE, "192.168.0.23", [K, "overlapping", "overlapping2"]),
    ("three CIDR - two same and one larger - IPv4 subnet address", _THREE, "192.168.0.0", []),
    ("three CIDR - two same and one larger - IPv4 broadcast address", _THREE, "192.168.0.63", [K, "overlapping"]),
    ("three CIDR - two same and one larger - IPv6 subnet address", _THREE, "2001:db2::", []),
    ("three CIDR - two same and one larger - IPv6 broadcast address", _THREE,
     "2001:db2::ffff:ffff:ffff:ffff", [K, "overlapping"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("cidrs", "ip", "want"),
    [c[1:] for c in _IP_TO_CIDRS_CASES],
    ids=[c[0] for c in _IP_TO_CIDRS_CASES],
)
def test_controller_ip_to_cidrs(cidrs: list[Obj], ip: str, want: list[str]) -> None:
    """containingServiceCIDRs."""
    assert containing_service_cidrs(cidrs, make_ip_address(ip)) == sorted(want)


_CIDR_TO_CIDRS_CASES: list[tuple[str, list[Obj], list[str]]] = [
    ("empty", [], []),
    ("one CIDR", [*_BASE, *_UNRELATED], [K]),
    ("two equal CIDR", [*_BASE, make_service_cidr("overlapping", V4, "2001:db2::/96"), *_UNRELATED],
     [K, "overlapping"]),
    ("three CIDR - two same and one larger", _THREE, [K, "overlapping", "overlapping2"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("cidrs", "want"),
    [c[1:] for c in _CIDR_TO_CIDRS_CASES],
    ids=[c[0] for c in _CIDR_TO_CIDRS_CASES],
)
def test_controller_cidr_to_cidrs(cidrs: list[Obj], want: list[str]) -> None:
    """overlappingServiceCIDRs of "kubernetes"."""
    assert overlapping_service_cidrs(cidrs, make_service_cidr(K, V4, V6)) == sorted(want)
