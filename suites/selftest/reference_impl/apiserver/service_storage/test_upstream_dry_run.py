"""storage_test.go's dry-run tests (k8s.io/kubernetes@v1.37.2
``pkg/registry/core/service/storage``): ``TestCreateDryRun``, ``TestDeleteDryRun`` and
``TestUpdateDryRun``, on the reference apiserver's ``dry_run=True`` writes.

Upstream's ``ipIsAllocated``/``portIsAllocated`` ask the allocator's ``Has``, false for
what lies outside its range; a dry run hands out exactly such values (the prefix address,
node ports from 32769), which a probe Service cannot ask for. So "allocated" here is the
reference's allocation state itself (a stored Service holding the value, an IPAddress
named after the address), plus svctest's probe where the value is in range.
"""

from __future__ import annotations

import copy
import ipaddress

import pytest

from reference_impl.apiserver.server import APIServer
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    CIDRS,
    make_service,
    new_server,
    port_is_allocated,
    prove_cluster_ips_allocated,
    prove_cluster_ips_deallocated,
    prove_hcnp_allocated,
    prove_node_ports_allocated,
)
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    ip_is_allocated as probe_ip,
)

Obj = dict[str, object]
NETWORKING_V1 = "networking.k8s.io/v1"


def _in_range(ip: str) -> bool:
    addr = ipaddress.ip_address(ip)
    net = ipaddress.ip_network(CIDRS[f"IPv{addr.version}"])
    last = int(net.broadcast_address) - (1 if addr.version == 4 else 0)
    return int(net.network_address) < int(addr) <= last


def ip_is_allocated(s: APIServer, ip: str) -> bool:
    held = any(ip in (svc["spec"].get("clusterIPs") or []) for svc in s.list("v1", "Service"))
    named = s.try_get(NETWORKING_V1, "IPAddress", ip) is not None
    return held or named or (_in_range(ip) and probe_ip(s, ip))


def node_port_is_allocated(s: APIServer, port: int) -> bool:
    held = any(
        port == svc["spec"].get("healthCheckNodePort")
        or any(p.get("nodePort") == port for p in svc["spec"].get("ports") or [])
        for svc in s.list("v1", "Service")
    )
    return held or (30000 <= port <= 32767 and port_is_allocated(s, port))


def _valid_ip(ip: object) -> bool:
    try:
        ipaddress.ip_address(str(ip))
    except ValueError:
        return False
    return True


V4, V6 = ("IPv4",), ("IPv6",)
V4V6, V6V4 = ("IPv4", "IPv6"), ("IPv6", "IPv4")

CREATE_ROWS = [
    pytest.param(V4, make_service("foo"), id="singlestack:v4_clusterip:unset"),
    pytest.param(
        V4, make_service("foo", cluster_ips=("10.0.0.1",)), id="singlestack:v4_clusterip:set"
    ),
    pytest.param(V6, make_service("foo"), id="singlestack:v6_clusterip:unset"),
    pytest.param(
        V6, make_service("foo", cluster_ips=("2000::1",)), id="singlestack:v6_clusterip:set"
    ),
    pytest.param(
        V4V6, make_service("foo", policy="PreferDualStack"), id="dualstack:v4v6_clusterip:unset"
    ),
    pytest.param(
        V4V6,
        make_service("foo", policy="PreferDualStack", cluster_ips=("10.0.0.1", "2000::1")),
        id="dualstack:v4v6_clusterip:set",
    ),  # fmt: skip
    pytest.param(
        V4, make_service("foo", type_="NodePort"), id="singlestack:v4_type:NodePort_nodeport:unset"
    ),
    pytest.param(
        V4,
        make_service("foo", type_="LoadBalancer", node_ports=(30093,)),
        id="singlestack:v4_type:LoadBalancer_nodePort:set",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("families", "svc"), CREATE_ROWS)
def test_TestCreateDryRun(families: tuple[str, ...], svc: Obj) -> None:
    s = new_server(families)
    rev = s.store.revision
    created = s.create(copy.deepcopy(svc), dry_run=True)
    spec = created["spec"]
    assert _valid_ip(spec["clusterIP"]), spec
    assert all(_valid_ip(ip) for ip in spec["clusterIPs"]), spec
    assert s.store.revision == rev and s.try_get("v1", "Service", "foo", "default") is None
    # proveClusterIPsDeallocated(createdSvc, nil) and, past ClusterIP, the node ports'.
    for ip in spec["clusterIPs"]:
        assert not ip_is_allocated(s, ip), ip
    if svc["spec"]["type"] != "ClusterIP":  # type: ignore[index]
        for p in spec["ports"]:
            assert p.get("nodePort"), p
            assert not node_port_is_allocated(s, p["nodePort"]), p


DELETE_ROWS = [
    pytest.param(make_service("foo", type_="LoadBalancer", families=V4, etp="Local"), id="v4"),
    pytest.param(
        make_service(
            "foo", type_="LoadBalancer", policy="RequireDualStack", families=V4V6, etp="Local"
        ),
        id="v4v6",
    ),  # fmt: skip
]


def _prove_all_allocated(s: APIServer, svc: Obj, created: Obj) -> None:
    prove_cluster_ips_allocated(s, svc, created)
    prove_node_ports_allocated(s, created)
    prove_hcnp_allocated(s, created)


@pytest.mark.parametrize("svc", DELETE_ROWS)
def test_TestDeleteDryRun(svc: Obj) -> None:
    s = new_server(tuple(svc["spec"]["ipFamilies"]))  # type: ignore[index]
    created = s.create(copy.deepcopy(svc))
    _prove_all_allocated(s, svc, created)
    rev = s.store.revision
    s.delete("v1", "Service", "foo", "default", dry_run=True)
    assert s.store.revision == rev
    _prove_all_allocated(s, svc, created)


def _lb_local() -> Obj:
    return make_service("foo", type_="LoadBalancer", etp="Local")


def _external() -> Obj:
    return make_service("foo", type_="ExternalName")


# (cluster families, created, update, verifyDryAllocs)
UPDATE_ROWS = [
    pytest.param(V4, _external(), _lb_local(), True, id="singlestack:v4_NoAllocs-Allocs"),
    pytest.param(V4, _lb_local(), _external(), False, id="singlestack:v4_Allocs-NoAllocs"),
    pytest.param(V6, _external(), _lb_local(), True, id="singlestack:v6_NoAllocs-Allocs"),
    pytest.param(V6, _lb_local(), _external(), False, id="singlestack:v6_Allocs-NoAllocs"),
    pytest.param(V4V6, _external(), _lb_local(), True, id="dualstack:v4v6_NoAllocs-Allocs"),
    pytest.param(V4V6, _lb_local(), _external(), False, id="dualstack:v4v6_Allocs-NoAllocs"),
    pytest.param(V6V4, _external(), _lb_local(), True, id="dualstack:v6v4_NoAllocs-Allocs"),
    pytest.param(V6V4, _lb_local(), _external(), False, id="dualstack:v6v4_Allocs-NoAllocs"),
]


@pytest.mark.parametrize(("families", "svc", "update", "dry_allocs"), UPDATE_ROWS)
def test_TestUpdateDryRun(
    families: tuple[str, ...], svc: Obj, update: Obj, dry_allocs: bool
) -> None:
    s = new_server(families)
    created = s.create(copy.deepcopy(svc))
    if dry_allocs:
        prove_cluster_ips_deallocated(s, None, created)
    else:
        prove_cluster_ips_allocated(s, None, created)
    rev = s.store.revision
    updated = s.update(copy.deepcopy(update), dry_run=True)
    assert s.store.revision == rev
    assert s.get("v1", "Service", "foo", "default") == created
    spec, cspec = updated["spec"], created["spec"]
    if dry_allocs:  # assigned, not allocated
        assert _valid_ip(spec["clusterIP"]), spec
        for ip in spec["clusterIPs"]:
            assert _valid_ip(ip) and not ip_is_allocated(s, ip), ip
        for p in spec["ports"]:
            assert p.get("nodePort") and not node_port_is_allocated(s, p["nodePort"]), p
        assert spec.get("healthCheckNodePort"), spec
        assert not node_port_is_allocated(s, spec["healthCheckNodePort"])
    else:  # unassigned, not released
        assert not spec.get("clusterIP") and not spec.get("clusterIPs"), spec
        for ip in cspec["clusterIPs"]:
            assert ip_is_allocated(s, ip), ip
        assert all(not p.get("nodePort") for p in spec["ports"]), spec
        for p in cspec["ports"]:
            assert node_port_is_allocated(s, p["nodePort"]), p
        assert not spec.get("healthCheckNodePort"), spec
        assert node_port_is_allocated(s, cspec["healthCheckNodePort"])


def test_dry_run_values_are_upstreams() -> None:
    """What the dry-run allocators hand out: the prefix address (``allocateNextService``),
    node ports from 32769 (``PortAllocationOperation.AllocateNext``), the health-check
    port after them; an address asked for is not checked for being free."""
    s = new_server(V4V6)
    taken = s.create(make_service("taken", cluster_ips=("10.0.0.7",)))
    out = s.create(
        make_service("foo", type_="LoadBalancer", etp="Local", policy="PreferDualStack"),
        dry_run=True,
    )
    assert out["spec"]["clusterIPs"] == ["10.0.0.0", "2000::"]
    assert [p["nodePort"] for p in out["spec"]["ports"]] == [32769]
    assert out["spec"]["healthCheckNodePort"] == 32770
    again = s.create(make_service("bar", cluster_ips=taken["spec"]["clusterIPs"]), dry_run=True)
    assert again["spec"]["clusterIPs"] == ["10.0.0.7"]
    with pytest.raises(Exception, match="is not in the valid range"):
        s.create(make_service("baz", cluster_ips=("10.1.0.0",), families=V4), dry_run=True)


def test_dry_run_then_real_create_takes_the_ip() -> None:
    """A dry run that asks for an address holds nothing: a real create then takes it."""
    s = new_server(V4)
    s.create(make_service("dry", cluster_ips=("10.0.0.9",)), dry_run=True)
    real = s.create(make_service("real", cluster_ips=("10.0.0.9",)))
    assert real["spec"]["clusterIPs"] == ["10.0.0.9"]
