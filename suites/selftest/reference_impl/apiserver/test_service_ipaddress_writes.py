"""The Service REST's IPAddress objects (``service_ipaddresses``): one per cluster IP,
named after it, with the allocator's labels and the Service as parentRef; released when
the Service drops the address or goes; an address some IPAddress holds is refused."""

from __future__ import annotations

import pytest

from reference_impl.apiserver.server import APIServer
from reference_impl.errors import Invalid
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    make_service,
    new_server,
)

NET = "networking.k8s.io/v1"
LABELS = {"ipaddress.kubernetes.io/ip-family": "IPv4",
          "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}  # fmt: skip


def _ips(s: APIServer) -> dict[str, dict[str, str]]:
    return {o["metadata"]["name"]: o["spec"]["parentRef"] for o in s.list(NET, "IPAddress")}


def test_cluster_ip_gets_ip_address_and_loses_it_on_delete() -> None:
    s = new_server()
    ip = s.create(make_service("a"))["spec"]["clusterIP"]
    got = s.get(NET, "IPAddress", ip)
    assert got["metadata"]["labels"] == LABELS
    assert got["spec"]["parentRef"] == {"resource": "services", "namespace": "default", "name": "a"}
    s.delete("v1", "Service", "a", "default")
    assert _ips(s) == {}


def test_headless_and_external_name_get_none() -> None:
    s = new_server()
    s.create(make_service("h", cluster_ips=("None",)))
    s.create(make_service("e", type_="ExternalName"))
    assert _ips(s) == {}


def test_type_changes_release_and_allocate() -> None:
    """ClusterIP -> ExternalName releases the address; back to ClusterIP allocates one."""
    s = new_server()
    svc = s.create(make_service("a"))
    spec = {k: v for k, v in svc["spec"].items() if k not in ("clusterIP", "clusterIPs",
            "ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy")}  # fmt: skip
    svc = s.update(
        {**svc, "spec": {**spec, "type": "ExternalName", "externalName": "x.example.com"}}
    )
    assert _ips(s) == {}
    spec = {k: v for k, v in svc["spec"].items() if k != "externalName"}
    svc = s.update({**svc, "spec": {**spec, "type": "ClusterIP"}})
    assert list(_ips(s)) == [svc["spec"]["clusterIP"]]


def test_dual_stack_downgrade_releases_secondary() -> None:
    s = new_server(("IPv4", "IPv6"))
    svc = s.create(make_service("a", policy="RequireDualStack"))
    v4, v6 = svc["spec"]["clusterIPs"]
    assert set(_ips(s)) == {v4, v6}
    assert (
        s.get(NET, "IPAddress", v6)["metadata"]["labels"]["ipaddress.kubernetes.io/ip-family"]
        == "IPv6"
    )
    spec = {**svc["spec"], "ipFamilyPolicy": "SingleStack"}
    s.update({**svc, "spec": spec})
    assert set(_ips(s)) == {v4}


def test_ip_address_held_by_another_refuses_and_is_skipped() -> None:
    """An IPAddress another writer made: asking its address is ErrAllocated; a dynamic
    allocation passes over it."""
    s = new_server()
    s.create({"apiVersion": NET, "kind": "IPAddress", "metadata": {"name": "10.0.0.17"},
              "spec": {"parentRef": {"resource": "gateways", "group": "example.com",
                                     "namespace": "default", "name": "g"}}})  # fmt: skip
    with pytest.raises(Invalid, match="provided IP is already allocated"):
        s.create(make_service("a", cluster_ips=("10.0.0.17",)))
    assert s.create(make_service("b"))["spec"]["clusterIP"] == "10.0.0.18"
    assert _ips(s)["10.0.0.17"]["name"] == "g"


def test_service_cidr_added_serves_new_range() -> None:
    """A second ServiceCIDR's addresses can be asked for (an IP belongs to the
    ServiceCIDRs containing it)."""
    s = new_server()
    with pytest.raises(Invalid, match="does not match the current range"):
        s.create(make_service("a", cluster_ips=("10.1.0.5",)))
    s.create({"apiVersion": NET, "kind": "ServiceCIDR", "metadata": {"name": "extra"},
              "spec": {"cidrs": ["10.1.0.0/24"]}})  # fmt: skip
    assert s.create(make_service("a", cluster_ips=("10.1.0.5",)))["spec"]["clusterIP"] == "10.1.0.5"
    assert _ips(s)["10.1.0.5"]["name"] == "a"
