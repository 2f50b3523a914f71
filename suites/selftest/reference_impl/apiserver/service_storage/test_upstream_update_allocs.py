"""pkg/registry/core/service/storage/storage_test.go (v1.37.2) TestUpdatePatchAllocatedValues
and TestUpdateIPsFromSingleStack's ``singlestack:v4`` table, through ``APIServer`` with
``helpTestCreateUpdateDelete``'s checks: an update that leaves allocated values out keeps
them (``patchAllocatedValues``), one that moves a node port onto a held port is refused.

TestUpdatePatchAllocatedValues runs, as upstream's, on a dual-stack v4v6 cluster
(``newStorage``'s 10.0.0.0/16 and 2000::/108). TestUpdateIPsFromSingleStack's dual-stack
and headless tables and TestUpdateIPsFromDualStack are
``test_upstream_update_ips_dualstack``'s."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.apiserver.server import APIServer
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    Case,
    create_update_delete,
    make_service,
)

Obj = dict[str, Any]
Proof = Callable[[APIServer, Obj | None, Obj], None]
M = functools.partial(make_service, "foo", type_="LoadBalancer", etp="Local")
_PQ = [
    {"name": "p", "port": 867, "targetPort": 867, "protocol": "TCP"},
    {"name": "q", "port": 5309, "targetPort": 5309, "protocol": "TCP"},
]
_QP = _PQ[::-1]


def _ip(i: int, ip: str) -> Proof:
    def proof(s: APIServer, before: Obj | None, after: Obj) -> None:
        assert after["spec"]["clusterIPs"][i] == ip

    return proof


def _node_port(i: int, port: int) -> Proof:
    """proveNodePort: this port, or (negative) anything but it."""

    def proof(s: APIServer, before: Obj | None, after: Obj) -> None:
        got = after["spec"]["ports"][i].get("nodePort")
        assert got == port if port > 0 else got != -port

    return proof


def _hcnp(port: int) -> Proof:
    def proof(s: APIServer, before: Obj | None, after: Obj) -> None:
        assert after["spec"].get("healthCheckNodePort") == port

    return proof


def _all(svc: Obj, *proofs: Proof) -> Case:
    return Case(svc, cluster_ips=True, node_ports=True, hcnp=True, prove=list(proofs))


_CREATED = M(ports=_PQ, node_ports=(30093, 30076), hcnp=30118)
_DUAL = M(
    policy="PreferDualStack",
    cluster_ips=("10.0.0.1", "2000::1"),
    ports=_PQ,
    node_ports=(30093, 30076),
    hcnp=30118,
)
_PATCH: list[tuple[str, Case, Case]] = [
    (
        "single-ip_single-port",
        _all(M(cluster_ips=("10.0.0.1",), node_ports=(30093,), hcnp=30118)),
        _all(M(), _ip(0, "10.0.0.1"), _node_port(0, 30093), _hcnp(30118)),
    ),
    (
        "multi-ip_multi-port",
        _all(_DUAL),
        _all(
            M(ports=_PQ),
            _ip(0, "10.0.0.1"),
            _ip(1, "2000::1"),
            _node_port(0, 30093),
            _node_port(1, 30076),
            _hcnp(30118),
        ),
    ),
    ("multi-ip_partial", _all(_DUAL), Case(M(cluster_ips=("10.0.0.1",)), error=True)),
    (
        "multi-port_partial",
        _all(_CREATED),
        _all(
            M(ports=_PQ, node_ports=(30093, 0)),
            _node_port(0, 30093),
            _node_port(1, 30076),
            _hcnp(30118),
        ),
    ),
    (
        "swap-ports",
        _all(_CREATED),
        _all(M(ports=_QP), _node_port(0, 30076), _node_port(1, 30093), _hcnp(30118)),
    ),
    (
        "partial-swap-ports",
        _all(_CREATED),
        _all(
            M(ports=_PQ, node_ports=(30076, 0), hcnp=30118),
            _node_port(0, 30076),
            _node_port(1, -30076),
            _hcnp(30118),
        ),
    ),
    (
        "swap-port-with-hcnp",
        _all(_CREATED),
        Case(M(ports=_PQ, node_ports=(30076, 30118)), error=True),
    ),
    (
        "partial-swap-port-with-hcnp",
        _all(_CREATED),
        Case(M(ports=_PQ, node_ports=(30118, 0)), error=True),
    ),
    (
        "update-hcnp",
        _all(_CREATED),
        Case(M(ports=_PQ, node_ports=(30093, 30076), hcnp=30111), error=True),
    ),
]


@pytest.mark.parametrize(("create", "update"), [r[1:] for r in _PATCH], ids=[r[0] for r in _PATCH])
def test_update_patch_allocated_values(create: Case, update: Case) -> None:
    create_update_delete(create, update, ("IPv4", "IPv6"))


def _families(n: int) -> Proof:
    """proveNumFamilies."""

    def proof(s: APIServer, before: Obj | None, after: Obj) -> None:
        assert len(after["spec"].get("ipFamilies") or []) == n

    return proof


C = functools.partial(make_service, "foo")
_SINGLE = Case(C(policy="SingleStack"), cluster_ips=True, prove=[_families(1)])
_FROM_SINGLE: list[tuple[str, Case, Case]] = [
    (
        "single-single",
        _SINGLE,
        Case(
            C(policy="SingleStack", selector={"k2": "v2"}), cluster_ips=True, prove=[_families(1)]
        ),
    ),
    (
        "single-dual",
        _SINGLE,
        Case(C(policy="RequireDualStack", families=("IPv4", "IPv6")), error=True),
    ),
    ("single-dual_policy", _SINGLE, Case(C(policy="RequireDualStack"), error=True)),
    ("single-dual_families", _SINGLE, Case(C(families=("IPv4", "IPv6")), error=True)),
]


@pytest.mark.parametrize(
    ("create", "update"), [r[1:] for r in _FROM_SINGLE], ids=[r[0] for r in _FROM_SINGLE]
)
def test_update_ips_from_single_stack_v4(create: Case, update: Case) -> None:
    create_update_delete(create, update)
