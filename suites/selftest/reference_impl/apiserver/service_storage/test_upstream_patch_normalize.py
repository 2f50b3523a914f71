"""pkg/registry/core/service/storage/storage_test.go (v1.37.2) TestNormalizeClusterIPs and
TestPatchAllocatedValues: the storage's update fix-ups, function by function
(``normalize_cluster_ips``; ``patch_allocated_cluster_ips`` with ``patch_allocated_ports``
being ``patchAllocatedValues``). These work on the fields alone, so the dual-stack rows
run as upstream's do."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver.strategies.service_ips import (
    normalize_cluster_ips,
    patch_allocated_cluster_ips,
)
from reference_impl.apiserver.strategies.service_ports import patch_allocated_ports
from suites.selftest.reference_impl.apiserver.service_storage.svctest import make_service

Obj = dict[str, Any]
_V6 = "2000::1"


def _ips(ip: str, ips: list[str] | None) -> Obj:
    """makeServiceWithClusterIp."""
    spec: Obj = {"clusterIP": ip} if ip else {}
    if ips is not None:
        spec["clusterIPs"] = ips
    return spec


_TEN, _ELEVEN = "10.0.0.10", "10.0.0.11"
_NORMALIZE: list[tuple[str, Obj | None, Obj, str, list[str] | None]] = [
    ("new - only clusterip used", None, _ips(_TEN, None), _TEN, [_TEN]),
    ("new - only clusterips used", None, _ips("", [_TEN]), "", [_TEN]),
    ("new - both used", None, _ips(_TEN, [_TEN]), _TEN, [_TEN]),
    ("update - no change", _ips(_TEN, [_TEN]), _ips(_TEN, [_TEN]), _TEN, [_TEN]),
    ("update - malformed change", _ips(_TEN, [_TEN]), _ips(_ELEVEN, [_ELEVEN]), _ELEVEN, [_ELEVEN]),
    (
        "update - malformed change on secondary ip",
        _ips(_TEN, [_TEN, _V6]),
        _ips(_ELEVEN, [_ELEVEN, "3000::1"]),
        _ELEVEN,
        [_ELEVEN, "3000::1"],
    ),
    ("update - upgrade", _ips(_TEN, [_TEN]), _ips(_TEN, [_TEN, _V6]), _TEN, [_TEN, _V6]),
    ("update - downgrade", _ips(_TEN, [_TEN, _V6]), _ips(_TEN, [_TEN]), _TEN, [_TEN]),
    ("update - user cleared cluster IP", _ips(_TEN, [_TEN]), _ips("", [_TEN]), "", None),
    ("update - user cleared clusterIPs", _ips(_TEN, [_TEN]), _ips(_TEN, None), _TEN, [_TEN]),
    ("update - user cleared both", _ips(_TEN, [_TEN]), _ips("", None), "", None),
    (
        "update - user cleared ClusterIP but changed clusterIPs",
        _ips(_TEN, [_TEN]),
        _ips("", [_ELEVEN]),
        "",
        [_ELEVEN],
    ),
    (
        "update - user cleared ClusterIPs but changed ClusterIP",
        _ips(_TEN, [_TEN, _V6]),
        _ips(_ELEVEN, None),
        _ELEVEN,
        None,
    ),
    (
        "update - user changed from None to ClusterIP",
        _ips("None", ["None"]),
        _ips(_TEN, ["None"]),
        _TEN,
        [_TEN],
    ),
    (
        "update - user changed from ClusterIP to None",
        _ips(_TEN, [_TEN]),
        _ips("None", [_TEN]),
        "None",
        ["None"],
    ),
    (
        "update - user changed from ClusterIP to None and changed ClusterIPs in a dual stack "
        "(new client making a mistake)",
        _ips(_TEN, [_TEN, _V6]),
        _ips("None", [_ELEVEN, _V6]),
        "None",
        [_ELEVEN, _V6],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "ip", "ips"), [r[1:] for r in _NORMALIZE], ids=[r[0] for r in _NORMALIZE]
)
def test_normalize_cluster_ips(old: Obj | None, new: Obj, ip: str, ips: list[str] | None) -> None:
    spec = copy.deepcopy(new)
    normalize_cluster_ips(spec, copy.deepcopy(old))
    assert (spec.get("clusterIP") or "") == ip
    assert (spec.get("clusterIPs") or []) == (ips or [])


_DUAL = ("10.0.0.93", "2000::76")


def _svc(type_: str, **kw: Any) -> Obj:
    return make_service("foo", type_=type_, **kw)["spec"]


def _unique(type_: str, **kw: Any) -> Obj:
    """SetClusterIPs(dual), SetUniqueNodePorts, SetHealthCheckNodePort(31234)."""
    return _svc(type_, cluster_ips=_DUAL, node_ports=(30000,), hcnp=31234, **kw)


def _two_ports(nodes: tuple[int, int]) -> list[Obj]:
    return [
        {"name": "", "port": 93, "targetPort": 76, "protocol": "TCP", "nodePort": nodes[0]},
        {"name": "", "port": 94, "targetPort": 76, "protocol": "TCP", "nodePort": nodes[1]},
    ]


_LOCAL = {"etp": "Local"}
# (name, before, update, same IPs, same node ports, same HCNP)
_PATCH: list[tuple[str, Obj, Obj, bool, bool, bool]] = [
    ("all_patched", _unique("LoadBalancer", **_LOCAL), _svc("LoadBalancer", **_LOCAL), True, True, True),
    ("IPs_patched", _unique("ClusterIP"), _svc("ClusterIP"), True, False, False),
    ("NPs_patched", _unique("NodePort"), _svc("NodePort", cluster_ips=_DUAL), True, True, False),
    (
        "HCNP_patched",
        _unique("LoadBalancer", **_LOCAL),
        _svc("LoadBalancer", cluster_ips=_DUAL, node_ports=(30000,), **_LOCAL),
        True, True, True,
    ),
    ("nothing_patched", _unique("ExternalName", **_LOCAL), _svc("ExternalName", **_LOCAL), False, False, False),
    (
        "reset_NodePort",
        _unique("LoadBalancer", alloc_lb_node_ports=False),
        _svc("LoadBalancer", alloc_lb_node_ports=False, cluster_ips=_DUAL, node_ports=(0,)),
        True, False, False,
    ),
    (
        "reset_partial_NodePorts",
        _svc("LoadBalancer", alloc_lb_node_ports=False, cluster_ips=_DUAL, hcnp=31234, ports=_two_ports((30000, 30001))),
        _svc("LoadBalancer", alloc_lb_node_ports=False, cluster_ips=_DUAL, ports=_two_ports((30000, 0))),
        True, False, False,
    ),
    (
        "keep_NodePort",
        _unique("LoadBalancer", alloc_lb_node_ports=True),
        _svc("LoadBalancer", alloc_lb_node_ports=True, cluster_ips=_DUAL, node_ports=(0,)),
        True, True, False,
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("before", "update", "same_ips", "same_ports", "same_hcnp"),
    [r[1:] for r in _PATCH],
    ids=[r[0] for r in _PATCH],
)
def test_patch_allocated_values(
    before: Obj, update: Obj, same_ips: bool, same_ports: bool, same_hcnp: bool
) -> None:
    spec = copy.deepcopy(update)
    patch_allocated_cluster_ips(spec, before)
    patch_allocated_ports(spec, before)
    assert (spec.get("clusterIP") == before.get("clusterIP")) == same_ips
    assert (spec.get("clusterIPs") == before.get("clusterIPs")) == same_ips
    nodes = [p.get("nodePort") or 0 for p in spec["ports"]]
    assert (nodes == [p.get("nodePort") or 0 for p in before["ports"]]) == same_ports
    assert (spec.get("healthCheckNodePort") == before.get("healthCheckNodePort")) == same_hcnp
