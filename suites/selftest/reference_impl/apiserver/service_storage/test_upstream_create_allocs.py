"""pkg/registry/core/service/storage/storage_test.go (v1.37.2) create and delete tests,
through ``APIServer``: TestCreateIgnoresIPsForExternalName, TestCreateInitClusterIPsFromClusterIP,
TestCreateInvalidClusterIPInputs, TestCreateDeleteReuse, TestCreateInitNodePorts,
TestCreateSkipsAllocationsForHeadless and TestDeleteWithFinalizer.

Rows run on a server configured with the row's cluster families (``newStorage``'s
10.0.0.0/16 and 2000::/108); the single-stack IPv4 rows that name no cluster run on the
reference's default one. The reference has no dry-run writes, so TestCreateDryRun,
TestDeleteDryRun and TestUpdateDryRun are not ported."""

from __future__ import annotations

from typing import Any, Final

import pytest

from reference_impl.errors import ApiError, Invalid
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    CLUSTERS,
    make_service,
    new_server,
    port_is_allocated,
    prove_cluster_ips_allocated,
    prove_cluster_ips_deallocated,
    prove_hcnp_allocated,
    prove_hcnp_deallocated,
    prove_node_ports_allocated,
    prove_node_ports_deallocated,
)

Obj = dict[str, Any]
V4, V6 = "IPv4", "IPv6"

# TestCreateIgnoresIPsForExternalName: (cluster, name, policy, families, refused).
_EXTERNAL_NAME = [
    ("singlestack:v6", "Policy:unset_Families:unset", None, None, False),
    ("singlestack:v6", "Policy:SingleStack_Families:v6", "SingleStack", (V6,), True),
    ("singlestack:v6", "Policy:PreferDualStack_Families:v4v6", "PreferDualStack", (V4, V6), True),
    ("singlestack:v6", "Policy:RequireDualStack_Families:v6v4", "RequireDualStack", (V6, V4), True),
    ("dualstack:v6v4", "Policy:unset_Families:unset", None, None, False),
    ("dualstack:v6v4", "Policy:SingleStack_Families:v6", "SingleStack", (V6,), True),
    ("dualstack:v6v4", "Policy:PreferDualStack_Families:v6v4", "PreferDualStack", (V6, V4), True),
    ("dualstack:v6v4", "Policy:RequireDualStack_Families:v4v6", "RequireDualStack", (V4, V6), True),
]


@pytest.mark.parametrize(
    ("cluster", "name", "policy", "families", "refused"),
    _EXTERNAL_NAME,
    ids=[f"{r[0]}/{r[1]}" for r in _EXTERNAL_NAME],
)
def test_create_ignores_ips_for_external_name(
    cluster: str, name: str, policy: str | None, families: tuple[str, ...] | None, refused: bool
) -> None:
    """ExternalName Services get no IP fields; family fields set on one are refused."""
    svc = make_service("foo", policy=policy, families=families)
    svc["spec"]["type"], svc["spec"]["externalName"] = "ExternalName", "example.com"
    s = new_server(CLUSTERS[cluster])
    if refused:
        with pytest.raises(Invalid):
            s.create(svc)
        return
    spec = s.create(svc)["spec"]
    assert spec.get("ipFamilyPolicy") is None
    assert not spec.get("ipFamilies")
    assert not spec.get("clusterIP")
    assert not spec.get("clusterIPs")


_FROM_CLUSTER_IP = [
    ("singlestack:v4", ""),
    ("singlestack:v4", "10.0.0.1"),
    ("singlestack:v6", ""),
    ("singlestack:v6", "2000::1"),
    ("dualstack:v4v6", ""),
    ("dualstack:v4v6", "10.0.0.1"),
    ("dualstack:v6v4", ""),
    ("dualstack:v6v4", "2000::1"),
]


@pytest.mark.parametrize(
    ("cluster", "ip"),
    _FROM_CLUSTER_IP,
    ids=[f"{c}_clusterip:{'set' if ip else 'unset'}" for c, ip in _FROM_CLUSTER_IP],
)
def test_create_init_cluster_ips_from_cluster_ip(cluster: str, ip: str) -> None:
    svc = make_service("foo")
    if ip:
        svc["spec"]["clusterIP"] = ip  # SetClusterIP: the singular only
    spec = new_server(CLUSTERS[cluster]).create(svc)["spec"]
    assert spec.get("clusterIP")
    if ip:
        assert spec["clusterIP"] == ip
    assert spec.get("clusterIPs")
    assert spec["clusterIPs"][0] == spec["clusterIP"]


def _ips(*ips: str) -> Obj:
    return {"cluster_ips": ips}


# TestCreateInvalidClusterIPInputs: the rows on a single-stack IPv4 cluster, then
# (``_INVALID_DUAL``) the ones on a dual-stack v4v6 cluster.
_INVALID: list[tuple[str, Obj, tuple[str, ...]]] = [
    ("bad_ipFamilyPolicy", {"policy": "garbage"}, ("Unsupported value",)),
    (
        "requiredual_ipFamilyPolicy_on_singlestack",
        {"policy": "RequireDualStack"},
        ("cluster is not configured for dual-stack",),
    ),
    ("bad_ipFamilies_0_value", {"families": ("garbage",)}, ("Unsupported value",)),
    ("bad_ipFamilies_1_value", {"families": (V4, "garbage")}, ("Unsupported value",)),
    ("wrong_ipFamily", {"families": (V6,)}, ("not configured on this cluster",)),
    (
        "too_many_ipFamilies_on_singlestack",
        {"families": (V4, V6)},
        ("when multiple IP families are specified",),
    ),
    ("dup_ipFamily_singlestack", {"families": (V4, V4)}, ("Duplicate value",)),
    ("bad_IP", _ips("garbage"), ("must be a valid IP",)),
    ("IP_wrong_family", _ips("2000::1"), ("not configured on this cluster",)),
    (
        "IP_doesnt_match_family",
        {"families": (V4,), **_ips("2000::1")},
        ("expected an IPv4 value as indicated",),
    ),
    (
        "too_many_IPs_singlestack",
        _ips("10.0.0.1", "10.0.0.2"),
        ("no more than one IP for each IP family",),
    ),
    ("dup_IPs", _ips("10.0.0.1", "10.0.0.1"), ("no more than one IP for each IP family",)),
    ("empty_IP", _ips(""), ("must be empty when", "must be a valid IP")),
    ("None_IP_1", _ips("10.0.0.1", "None"), ("must be a valid IP",)),
]


_INVALID_DUAL: list[tuple[str, Obj, tuple[str, ...]]] = [
    ("bad_ipFamilies_2_value", {"families": (V4, V6, "garbage")}, ("Unsupported value",)),
    ("dup_ipFamily_dualstack", {"families": (V4, V6, V6)}, ("Duplicate value",)),
    (
        "too_many_IPs_dualstack",
        _ips("10.0.0.1", "2000::1", "10.0.0.2"),
        ("only hold up to 2 values",),
    ),
]
_INVALID_ALL = [(None, *r) for r in _INVALID] + [((V4, V6), *r) for r in _INVALID_DUAL]


@pytest.mark.parametrize(
    ("cluster", "tweaks", "expect"),
    [(r[0], *r[2:]) for r in _INVALID_ALL],
    ids=[r[1] for r in _INVALID_ALL],
)
def test_create_invalid_cluster_ip_inputs(
    cluster: tuple[str, ...] | None, tweaks: Obj, expect: tuple[str, ...]
) -> None:
    with pytest.raises(Invalid) as err:
        new_server(cluster).create(make_service("foo", **tweaks))
    text = str(err.value)
    for want in expect:
        assert want in text


_REUSE: list[tuple[str, str | None, tuple[str, ...]]] = [
    ("v4", None, (V4,)),
    ("v6", None, (V6,)),
    ("v4v6", "PreferDualStack", (V4, V6)),
]


@pytest.mark.parametrize(
    ("policy", "families"), [r[1:] for r in _REUSE], ids=[r[0] for r in _REUSE]
)
def test_create_delete_reuse(policy: str | None, families: tuple[str, ...]) -> None:
    """TestCreateDeleteReuse on a dual-stack v4v6 cluster: a deleted Service's IPs and node
    ports can be asked for again."""
    s = new_server((V4, V6))
    svc = make_service("foo", type_="NodePort", policy=policy, families=families)
    created = s.create(svc)
    prove_cluster_ips_allocated(s, svc, created)
    prove_node_ports_allocated(s, created)
    s.delete("v1", "Service", "foo", "default")
    prove_cluster_ips_deallocated(s, created, None)
    prove_node_ports_deallocated(s, created, None)
    svc2 = make_service("foo2", type_="NodePort", policy=policy, families=families)
    svc2["spec"]["clusterIP"] = created["spec"]["clusterIP"]
    svc2["spec"]["clusterIPs"] = created["spec"]["clusterIPs"]
    svc2["spec"]["ports"] = created["spec"]["ports"]
    again = s.create(svc2)
    prove_cluster_ips_allocated(s, svc2, again)
    prove_node_ports_allocated(s, again)
    assert again["spec"]["clusterIPs"] == created["spec"]["clusterIPs"]
    assert again["spec"]["ports"] == created["spec"]["ports"]


def _port(name: str, port: int, proto: str = "TCP") -> Obj:
    return {"name": name, "port": port, "targetPort": port, "protocol": proto}


_TWO = [_port("p", 80), _port("q", 443)]
_DNS = [_port("p", 53), _port("q", 53, "UDP")]
_CONFLICT = [_port("p", 93), _port("q", 76, "UDP")]
_UNIQUE: Final = "unique"

# TestCreateInitNodePorts: (name, type, ports, nodePorts, allocateLBNodePorts, expect),
# expect None for refused, else whether node ports are allocated. The two "ExternalName"
# rows are ClusterIP Services upstream too (the type is never set).
_NODE_PORTS: list[tuple[str, str, list[Obj] | None, Any, bool | None, bool | None]] = [
    ("type:ExternalName", "ClusterIP", None, None, None, False),
    ("type:ExternalName_with_NodePorts", "ClusterIP", None, _UNIQUE, None, None),
    ("type:ClusterIP", "ClusterIP", None, None, None, False),
    ("type:ClusterIP_with_NodePorts", "ClusterIP", None, _UNIQUE, None, None),
    ("type:NodePort_single_port_unspecified", "NodePort", None, None, None, True),
    ("type:NodePort_single_port_specified", "NodePort", None, _UNIQUE, None, True),
    ("type:NodePort_multiport_unspecified", "NodePort", _TWO, None, None, True),
    ("type:NodePort_multiport_specified", "NodePort", _TWO, _UNIQUE, None, True),
    ("type:NodePort_multiport_same", "NodePort", _TWO, (30080, 30080), None, None),
    ("type:NodePort_multiport_multiproto_unspecified", "NodePort", _DNS, None, None, True),
    ("type:NodePort_multiport_multiproto_specified", "NodePort", _DNS, _UNIQUE, None, True),
    ("type:NodePort_multiport_multiproto_same", "NodePort", _DNS, (30053, 30053), None, True),
    ("type:NodePort_multiport_multiproto_conflict", "NodePort", _CONFLICT, (30093, 30093), None, None),
    ("type:LoadBalancer_single_port_unspecified:on_alloc:false", "LoadBalancer", None, None, False, False),
    ("type:LoadBalancer_single_port_unspecified:on_alloc:true", "LoadBalancer", None, None, True, True),
    ("type:LoadBalancer_single_port_specified:on_alloc:false", "LoadBalancer", None, _UNIQUE, False, True),
    ("type:LoadBalancer_single_port_specified:on_alloc:true", "LoadBalancer", None, _UNIQUE, True, True),
    ("type:LoadBalancer_multiport_unspecified:on_alloc:false", "LoadBalancer", _TWO, None, False, False),
    ("type:LoadBalancer_multiport_unspecified:on_alloc:true", "LoadBalancer", _TWO, None, True, True),
    ("type:LoadBalancer_multiport_specified:on_alloc:false", "LoadBalancer", _TWO, _UNIQUE, False, True),
    ("type:LoadBalancer_multiport_specified:on_alloc:true", "LoadBalancer", _TWO, _UNIQUE, True, True),
    ("type:LoadBalancer_multiport_same", "LoadBalancer", _TWO, (30080, 30080), None, None),
    ("type:LoadBalancer_multiport_multiproto_unspecified", "LoadBalancer", _DNS, None, None, True),
    ("type:LoadBalancer_multiport_multiproto_specified", "LoadBalancer", _DNS, _UNIQUE, None, True),
    ("type:LoadBalancer_multiport_multiproto_same", "LoadBalancer", _DNS, (30053, 30053), None, True),
    ("type:LoadBalancer_multiport_multiproto_conflict", "LoadBalancer", _CONFLICT, (30093, 30093), None, None),
]  # fmt: skip


@pytest.mark.parametrize("row", _NODE_PORTS, ids=[r[0] for r in _NODE_PORTS])
def test_create_init_node_ports(
    row: tuple[str, str, list[Obj] | None, Any, bool | None, bool | None],
) -> None:
    _, type_, ports, node_ports, alloc, expect = row
    nports = len(ports or [None])
    wanted = tuple(30000 + i for i in range(nports)) if node_ports == _UNIQUE else node_ports
    svc = make_service(
        "foo", type_=type_, ports=ports, node_ports=wanted, alloc_lb_node_ports=alloc
    )
    s = new_server()
    if expect is None:
        with pytest.raises(ApiError):
            s.create(svc)
        return
    created = s.create(svc)
    got = {i: p for i, p in enumerate(created["spec"]["ports"]) if p.get("nodePort")}
    assert bool(got) == expect, got
    if not expect:
        return
    assert len(got) == nports
    for p in got.values():
        assert port_is_allocated(s, p["nodePort"]), p
    for i, want in enumerate(wanted or ()):
        assert got[i]["nodePort"] == want
        del got[i]
    seen: dict[int, int] = {}
    for p in got.values():  # the same node port only for one port number's protocols
        assert seen.setdefault(p["nodePort"], p["port"]) == p["port"], p


_HEADLESS = [
    ("singlestack:v4", "ClusterIP", False),
    ("singlestack:v6", "ClusterIP", False),
    ("dualstack:v4v6", "ClusterIP", False),
    ("dualstack:v6v4", "ClusterIP", False),
    ("singlestack:v4_type:NodePort", "NodePort", True),
    ("singlestack:v6_type:LoadBalancer", "LoadBalancer", True),
]


@pytest.mark.parametrize(("name", "type_", "refused"), _HEADLESS, ids=[r[0] for r in _HEADLESS])
def test_create_skips_allocations_for_headless(name: str, type_: str, refused: bool) -> None:
    """Headless Services allocate no IP; headless NodePort/LoadBalancer is refused."""
    svc = make_service("foo", type_=type_)
    svc["spec"]["clusterIP"] = "None"
    s = new_server(CLUSTERS[name.split("_")[0]])
    if refused:
        with pytest.raises(Invalid):
            s.create(svc)
        return
    spec = s.create(svc)["spec"]
    assert spec["clusterIP"] == "None"
    assert spec["clusterIPs"] == ["None"]


def test_delete_with_finalizer() -> None:
    """TestDeleteWithFinalizer (a single-stack cluster): allocations outlive the delete
    request while a finalizer holds the Service, and go with it."""
    s = new_server()
    svc = make_service("foo", type_="LoadBalancer", etp="Local")
    svc["metadata"]["finalizers"] = ["example.com/test"]
    created = s.create(svc)
    assert s.get("v1", "Service", "foo", "default") == created
    for _ in range(2):
        prove_cluster_ips_allocated(s, svc, created)
        prove_node_ports_allocated(s, created)
        prove_hcnp_allocated(s, created)
        deleted = s.delete("v1", "Service", "foo", "default")
        assert deleted is not None and deleted["metadata"].get("deletionTimestamp")
    deleted["metadata"]["finalizers"] = []
    s.update(deleted)
    assert s.try_get("v1", "Service", "foo", "default") is None
    prove_cluster_ips_deallocated(s, created, None)
    prove_node_ports_deallocated(s, created, None)
    prove_hcnp_deallocated(s, created, None)
