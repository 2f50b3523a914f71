"""pkg/registry/core/service/storage/storage_test.go (v1.37.2) TestFeature* tables
(TestFeatureType, TestFeatureExternalTrafficPolicy, TestFeaturePorts, TestFeatureSelector,
TestFeatureSessionAffinity, TestFeatureExternalName, TestFeatureClusterIPs), each row a
create, an optional update and a delete through ``APIServer`` with
``helpTestCreateUpdateDelete``'s checks: what is stored, and which cluster IPs, node ports
and health-check node ports are held or released after each write.

They run, as upstream's, on a dual-stack v4v6 cluster (``newStorage``'s 10.0.0.0/16 and
2000::/108)."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest

from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    Case,
    create_update_delete,
    make_service,
    new_server,
)

Obj = dict[str, Any]
M = functools.partial(make_service, "foo")
EN, CIP, NP, LB = "ExternalName", "ClusterIP", "NodePort", "LoadBalancer"


def _ip(**kw: Any) -> Case:
    """A case expecting cluster IPs."""
    return Case(M(**kw), cluster_ips=True)


def _np(svc: Obj, hcnp: bool = False) -> Case:
    """A case expecting cluster IPs and node ports."""
    return Case(svc, cluster_ips=True, node_ports=True, hcnp=hcnp)


def _err(**kw: Any) -> Case:
    return Case(M(**kw), error=True)


def _headless(type_: str = CIP) -> Obj:
    """SetHeadless."""
    svc = M(type_=type_)
    svc["spec"]["clusterIP"], svc["spec"]["clusterIPs"] = "None", ["None"]
    return svc


_TYPE: list[tuple[str, Case, Case | None]] = [
    ("ExternalName-ClusterIP", Case(M(type_=EN)), _ip(type_=CIP)),
    ("ClusterIP-ExternalName", _ip(type_=CIP), Case(M(type_=EN))),
    ("ExternalName-NodePort", Case(M(type_=EN)), _np(M(type_=NP))),
    ("NodePort-ExternalName", _np(M(type_=NP)), Case(M(type_=EN))),
    ("ExternalName-LoadBalancer", Case(M(type_=EN)), _np(M(type_=LB))),
    ("LoadBalancer-ExternalName", _np(M(type_=LB)), Case(M(type_=EN))),
    ("ClusterIP-NodePort", _ip(type_=CIP), _np(M(type_=NP))),
    ("NodePort-ClusterIP", _np(M(type_=NP)), _ip(type_=CIP)),
    ("ClusterIP-LoadBalancer", _ip(type_=CIP), _np(M(type_=LB))),
    ("LoadBalancer-ClusterIP", _np(M(type_=LB)), _ip(type_=CIP)),
    ("NodePort-LoadBalancer", _np(M(type_=NP)), _np(M(type_=LB))),
    ("LoadBalancer-NodePort", _np(M(type_=LB)), _np(M(type_=NP))),
    ("Headless-ExternalName", Case(_headless(), headless=True), Case(M(type_=EN))),
    ("ExternalName-Headless", Case(M(type_=EN)), Case(_headless(), headless=True)),
    ("Headless-NodePort", Case(_headless(), headless=True), Case(M(type_=NP), error=True)),
    ("NodePort-Headless", _np(M(type_=NP)), Case(_headless(), error=True)),
    ("Headless-LoadBalancer", Case(_headless(), headless=True), Case(M(type_=LB), error=True)),
    ("LoadBalancer-Headless", _np(M(type_=LB)), Case(_headless(), error=True)),
]

_L, _C = "Local", "Cluster"
_ETP: list[tuple[str, Case, Case | None]] = [
    ("ExternalName_policy:none_hcnp:specified", _err(type_=EN, etp="", hcnp=30000), None),
    ("ExternalName_policy:Cluster_hcnp:none", _err(type_=EN, etp=_C), None),
    ("ExternalName_policy:Cluster_hcnp:specified", _err(type_=EN, etp=_C, hcnp=30000), None),
    ("ExternalName_policy:Local_hcnp:none", _err(type_=EN, etp=_L), None),
    ("ExternalName_policy:Local_hcnp:specified", _err(type_=EN, etp=_L, hcnp=30000), None),
    (
        "ClusterIP_policy:none_hcnp:none_policy:Cluster_hcnp:none",
        _ip(type_=CIP, etp=""),
        _err(type_=CIP, etp=_C),
    ),
    ("ClusterIP_policy:none_hcnp:specified", _err(type_=CIP, etp="", hcnp=30000), None),
    ("ClusterIP_policy:Cluster_hcnp:none", _err(type_=CIP, etp=_C), None),
    ("ClusterIP_policy:Cluster_hcnp:specified", _err(type_=CIP, etp=_C, hcnp=30000), None),
    ("ClusterIP_policy:Local_hcnp:none", _err(type_=CIP, etp=_L), None),
    ("ClusterIP_policy:Local_hcnp:specified", _err(type_=CIP, etp=_L, hcnp=30000), None),
    ("NodePort_policy:none_hcnp:none", _err(type_=NP, etp=""), None),
    ("NodePort_policy:none_hcnp:specified", _err(type_=NP, etp="", hcnp=30000), None),
    (
        "NodePort_policy:Cluster_hcnp:none_policy:Local_hcnp:none",
        _np(M(type_=NP, etp=_C)),
        _np(M(type_=NP, etp=_L)),
    ),
    ("NodePort_policy:Cluster_hcnp:specified", _err(type_=NP, etp=_C, hcnp=30000), None),
    (
        "NodePort_policy:Local_hcnp:none_policy:Cluster_hcnp:none",
        _np(M(type_=NP, etp=_L)),
        _np(M(type_=NP, etp=_C)),
    ),
    ("NodePort_policy:Local_hcnp:specified", _err(type_=NP, etp=_L, hcnp=30000), None),
    ("LoadBalancer_policy:none_hcnp:none", _err(type_=LB, etp=""), None),
    ("LoadBalancer_policy:none_hcnp:specified", _err(type_=LB, etp="", hcnp=30000), None),
    (
        "LoadBalancer_policy:Cluster_hcnp:none_policy:Local_hcnp:none",
        _np(M(type_=LB, etp=_C)),
        _np(M(type_=LB, etp=_L), hcnp=True),
    ),
    (
        "LoadBalancer_policy:Cluster_hcnp:none_policy:Local_hcnp:specified",
        _np(M(type_=LB, etp=_C)),
        _np(M(type_=LB, etp=_L, hcnp=30000), hcnp=True),
    ),
    ("LoadBalancer_policy:Cluster_hcnp:specified", _err(type_=LB, etp=_C, hcnp=30000), None),
    (
        "LoadBalancer_policy:Local_hcnp:none_policy:Cluster_hcnp:none",
        _np(M(type_=LB, etp=_L), hcnp=True),
        _np(M(type_=LB, etp=_C)),
    ),
    (
        "LoadBalancer_policy:Local_hcnp:specified_policy:Cluster_hcnp:none",
        _np(M(type_=LB, etp=_L, hcnp=30000), hcnp=True),
        _np(M(type_=LB, etp=_C)),
    ),
    (
        "LoadBalancer_policy:Local_hcnp:specified_policy:Cluster_hcnp:different",
        _np(M(type_=LB, etp=_L, hcnp=30000), hcnp=True),
        _err(type_=LB, etp=_L, hcnp=30001),
    ),
    (
        "LoadBalancer_policy:Local_hcnp:none_policy:Inalid",
        _np(M(type_=LB, etp=_L), hcnp=True),
        _err(type_=LB, etp="Invalid"),
    ),
    ("LoadBalancer_policy:Local_hcnp:negative", _err(type_=LB, etp=_L, hcnp=-1), None),
]


def _ports(*specs: tuple[str, int, str]) -> list[Obj]:
    return [{"name": n, "port": p, "targetPort": p, "protocol": proto} for n, p, proto in specs]


_P80, _Q443 = ("p", 80, "TCP"), ("q", 443, "TCP")
_PORTS: list[tuple[str, Case, Case | None]] = [
    ("add_port", _ip(ports=_ports(_P80)), _ip(ports=_ports(_P80, _Q443))),
    (
        "add_port_ClusterIP-NodePort",
        _ip(ports=_ports(_P80)),
        _np(M(type_=NP, ports=_ports(_P80, _Q443))),
    ),
    (
        "add_port_NodePort-ClusterIP",
        _np(M(type_=NP, ports=_ports(_P80))),
        _ip(ports=_ports(_P80, _Q443)),
    ),
    ("remove_port", _ip(ports=_ports(_P80, _Q443)), _ip(ports=_ports(_P80))),
    (
        "remove_port_ClusterIP-NodePort",
        _ip(ports=_ports(_P80, _Q443)),
        _np(M(type_=NP, ports=_ports(_P80))),
    ),
    (
        "remove_port_NodePort-ClusterIP",
        _np(M(type_=NP, ports=_ports(_P80, _Q443))),
        _ip(ports=_ports(_P80)),
    ),
    (
        "swap_ports",
        _np(M(type_=NP, ports=_ports(_P80, _Q443))),
        _np(M(type_=NP, ports=_ports(_Q443, _P80))),
    ),
    (
        "modify_ports",
        _np(M(type_=NP, ports=_ports(_P80, _Q443))),
        _np(M(type_=NP, ports=_ports(("p", 8080, "TCP"), ("q", 8443, "TCP")))),
    ),
    (
        "modify_protos",
        _np(M(type_=NP, ports=_ports(_P80, _Q443))),
        _np(M(type_=NP, ports=_ports(("p", 80, "UDP"), ("q", 443, "UDP")))),
    ),
    (
        "modify_ports_and_protos",
        _np(M(type_=NP, ports=_ports(_P80, _Q443))),
        _np(M(type_=NP, ports=_ports(("r", 53, "TCP"), ("s", 53, "UDP")))),
    ),
    (
        "add_alt_proto",
        _np(M(type_=NP, ports=_ports(("p", 53, "TCP")))),
        _np(M(type_=NP, ports=_ports(("p", 53, "TCP"), ("q", 53, "UDP")))),
    ),
    (
        "wipe_all",
        _np(M(type_=NP, ports=_ports(_P80, _Q443))),
        Case(M(type_=NP, ports=[]), error=True, node_ports=True),
    ),
]


def _no_selector() -> Obj:
    svc = M()
    del svc["spec"]["selector"]
    return svc


_SELECTOR: list[tuple[str, Case, Case | None]] = [
    ("valid-valid", _ip(), _ip(selector={"updated": "value"})),
    ("valid-nil", _ip(), Case(_no_selector(), cluster_ips=True)),
    ("valid-empty", _ip(), _ip(selector={})),
    ("nil-valid", Case(_no_selector(), cluster_ips=True), _ip()),
    ("empty-valid", _ip(selector={}), _ip()),
]


def _affinity_only(affinity: str, base: str) -> Obj:
    """SetSessionAffinity(base), then the affinity alone changed."""
    svc = M(affinity=base)
    svc["spec"]["sessionAffinity"] = affinity
    return svc


_AFFINITY: list[tuple[str, Case, Case | None]] = [
    ("None-ClientIPNoConfig", _ip(affinity="None"), Case(_affinity_only("ClientIP", "None"), error=True)),
    ("None-ClientIP", _ip(affinity="None"), _ip(affinity="ClientIP")),
    ("ClientIP-NoneWithConfig", _ip(affinity="ClientIP"), Case(_affinity_only("None", "ClientIP"), error=True)),
    ("ClientIP-None", _ip(affinity="ClientIP"), _ip(affinity="None")),
]  # fmt: skip

_EXTERNAL_NAME: list[tuple[str, Case, Case | None]] = [
    ("valid-valid", Case(M(type_=EN)), Case(M(type_=EN, external_name="updated.example.com"))),
    ("valid-blank", Case(M(type_=EN)), Case(M(type_=EN, external_name=""), error=True)),
]


def _cluster_ip(ip: str) -> Obj:
    """SetClusterIP: the singular only."""
    svc = M()
    svc["spec"]["clusterIP"] = ip
    return svc


_CLUSTER_IPS: list[tuple[str, Case, Case | None]] = [
    ("clusterIP:valid-headless", _ip(), Case(_headless(), error=True)),
    (
        "clusterIP:headless-valid",
        Case(_headless(), headless=True),
        Case(_cluster_ip("10.0.0.93"), error=True),
    ),
    (
        "clusterIP:valid-valid",
        Case(_cluster_ip("10.0.0.93"), cluster_ips=True),
        Case(_cluster_ip("10.0.0.76"), error=True),
    ),
    (
        "clusterIPs:valid-valid",
        _ip(policy="PreferDualStack", cluster_ips=("10.0.0.93", "2000::93")),
        Case(M(policy="PreferDualStack", cluster_ips=("10.0.0.76", "2000::76")), error=True),
    ),
]

_TABLES = {
    "TestFeatureType": _TYPE,
    "TestFeatureExternalTrafficPolicy": _ETP,
    "TestFeaturePorts": _PORTS,
    "TestFeatureSelector": _SELECTOR,
    "TestFeatureSessionAffinity": _AFFINITY,
    "TestFeatureExternalName": _EXTERNAL_NAME,
    "TestFeatureClusterIPs": _CLUSTER_IPS,
}
_ROWS = [(f"{test}/{row[0]}", row[1], row[2]) for test, rows in _TABLES.items() for row in rows]


# Upstream writes internal objects, which skip v1 defaulting; through the v1 API (and on a
# live cluster) SetDefaults_Service fills what these rows leave out, so the write passes.
_V1_DEFAULTED = {
    "TestFeatureExternalTrafficPolicy/NodePort_policy:none_hcnp:none": "externalTrafficPolicy",
    "TestFeatureExternalTrafficPolicy/LoadBalancer_policy:none_hcnp:none": "externalTrafficPolicy",
    "TestFeatureSessionAffinity/None-ClientIPNoConfig": "sessionAffinityConfig",
    "TestFeatureSessionAffinity/ClientIP-NoneWithConfig": "sessionAffinityConfig (dropped)",
}


def _param(name: str, create: Case, update: Case | None) -> Any:
    field = _V1_DEFAULTED.get(name)
    marks = [pytest.mark.skip(reason=f"v1 defaulting sets {field}")] if field else []
    return pytest.param(create, update, id=name, marks=marks)


@pytest.mark.parametrize(("create", "update"), [_param(*r) for r in _ROWS])
def test_feature(create: Case, update: Case | None) -> None:
    create_update_delete(create, update, ("IPv4", "IPv6"))


@pytest.mark.parametrize("name", sorted(_V1_DEFAULTED))
def test_v1_defaulting_rows_pass(name: str) -> None:
    """The rows skipped above: through the v1 API the last write succeeds, the field
    defaulted (ETP Cluster; a ClientIP config of 10800s; None's config dropped)."""
    create, update = next(r[1:] for r in _ROWS if r[0] == name)
    s = new_server()
    if update is None:
        spec = s.create(copy.deepcopy(create.svc))["spec"]
        assert spec["externalTrafficPolicy"] == "Cluster"
        return
    created = s.create(copy.deepcopy(create.svc))
    sent = copy.deepcopy(update.svc)
    sent["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    spec = s.update(sent)["spec"]
    want = (
        {"clientIP": {"timeoutSeconds": 10800}} if spec["sessionAffinity"] == "ClientIP" else None
    )
    assert spec.get("sessionAffinityConfig") == want
