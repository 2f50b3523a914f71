"""pkg/registry/core/service/storage/storage_test.go (v1.37.2) TestUpdateIPsFromSingleStack
(the ``dualstack:v4v6``, ``dualstack:v6v4`` and ``headless`` tables) and
TestUpdateIPsFromDualStack (all three), through ``APIServer`` with
``helpTestCreateUpdateDeleteWithFamilies``' checks on a server configured as
``newStorage(t, families)``: policy upgrades and downgrades, the primary IP and family
kept, a secondary allocated or released. The ``singlestack:v4`` control table is
``test_upstream_update_allocs``'s.

``beforeUpdate``'s allocator reservation of an address is a Service holding it here (its
IPAddress, written once the Service is stored).
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from reference_impl.apiserver.server import APIServer
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    Case,
    create_update_delete,
    make_service,
)

Obj = dict[str, Any]
# (name, create, update[, an address held by another Service before the update])
Row = tuple[str, Case, Case] | tuple[str, Case, Case, str]
C = functools.partial(make_service, "foo")


def _families(n: int) -> Any:
    """proveNumFamilies."""

    def proof(s: APIServer, before: Obj | None, after: Obj) -> None:
        assert len(after["spec"].get("ipFamilies") or []) == n

    return proof


_S_V4V6: list[Row] = [
    (
        "policy:nil_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}), cluster_ips=True, prove=[_families(1)]),
    ),
    (
        "policy:nil_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:nil_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("10.0.0.1", "2000::1")),
            error=True,
        ),
    ),
    (
        "policy:nil_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:nil_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:nil_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4", "IPv6")), error=True),
    ),
    (
        "policy:nil_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)), cluster_ips=True
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack"),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack", families=("IPv4",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="PreferDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="RequireDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "single-dual_wrong_order_families",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", families=("IPv6", "IPv4")), error=True
        ),
    ),
    (
        "single-dual_wrong_order_ips",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            error=True,
        ),
    ),
    (
        "single-dual_ip_in_use",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
        "2000::1",
    ),
]

_S_V6V4: list[Row] = [
    (
        "policy:nil_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}), cluster_ips=True, prove=[_families(1)]),
    ),
    (
        "policy:nil_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:nil_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("2000::1", "10.0.0.1")),
            error=True,
        ),
    ),
    (
        "policy:nil_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv6",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:nil_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:nil_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv6", "IPv4")), error=True),
    ),
    (
        "policy:nil_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack"),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack", families=("IPv6",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6", "IPv4"),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:single_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="PreferDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6", "IPv4"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="RequireDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6", "IPv4"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "single-dual_wrong_order_families",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", families=("IPv4", "IPv6")), error=True
        ),
    ),
    (
        "single-dual_wrong_order_ips",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            error=True,
        ),
    ),
    (
        "single-dual_ip_in_use",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
        "10.0.0.1",
    ),
]

_S_HEADLESS: list[Row] = [
    (
        "policy:nil_families:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}), headless=True, prove=[_families(1)]),
    ),
    (
        "policy:nil_families:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4",)),
            headless=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:nil_families:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4", "IPv6")), error=True),
    ),
    (
        "policy:single_families:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack"),
            headless=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack", families=("IPv4",)),
            headless=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="PreferDualStack"),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
            ),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
            ),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="RequireDualStack"),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
            ),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual",
        Case(
            C(type_="ClusterIP", policy="SingleStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(1)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
            ),
            headless=True,
            prove=[_families(2)],
        ),
    ),
]

_D_V4V6: list[Row] = [
    (
        "policy:nil_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}), cluster_ips=True, prove=[_families(2)]),
    ),
    (
        "policy:nil_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("10.0.0.1",)), error=True),
    ),
    (
        "policy:nil_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:nil_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4",)), error=True),
    ),
    (
        "policy:nil_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4", "IPv6")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:nil_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:single_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack"),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack", families=("IPv4",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="PreferDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="RequireDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
                cluster_ips=("10.0.0.1", "2000::1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "dual-single_wrong_order_families",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", policy="SingleStack", families=("IPv6",)), error=True),
    ),
    (
        "dual-single_wrong_order_ips",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("10.0.0.1", "2000::1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", policy="SingleStack", cluster_ips=("2000::1",)), error=True),
    ),
]

_D_V6V4: list[Row] = [
    (
        "policy:nil_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}), cluster_ips=True, prove=[_families(2)]),
    ),
    (
        "policy:nil_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("2000::1",)), error=True),
    ),
    (
        "policy:nil_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:nil_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv6",)), error=True),
    ),
    (
        "policy:nil_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv6", "IPv4")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:nil_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:nil_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:single_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack"),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack", families=("IPv6",)),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6", "IPv4"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="PreferDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6", "IPv4"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="RequireDualStack"),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:nil_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:single_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:single_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6",),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:dual_ips:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6", "IPv4"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:dual_ips:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:dual_ips:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv6", "IPv4"),
                cluster_ips=("2000::1", "10.0.0.1"),
            ),
            cluster_ips=True,
            prove=[_families(2)],
        ),
    ),
    (
        "dual-single_wrong_order_families",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", policy="SingleStack", families=("IPv4",)), error=True),
    ),
    (
        "dual-single_wrong_order_ips",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("2000::1", "10.0.0.1")),
            cluster_ips=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", policy="SingleStack", cluster_ips=("10.0.0.1",)), error=True),
    ),
]

_D_HEADLESS: list[Row] = [
    (
        "policy:nil_families:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}), headless=True, prove=[_families(2)]),
    ),
    (
        "policy:nil_families:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4",)), error=True),
    ),
    (
        "policy:nil_families:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, families=("IPv4", "IPv6")),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:single_families:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack"),
            headless=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="SingleStack", families=("IPv4",)),
            headless=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:single_families:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="SingleStack",
                families=("IPv4", "IPv6"),
            ),
            headless=True,
            stack_downgrade=True,
            prove=[_families(1)],
        ),
    ),
    (
        "policy:prefer_families:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="PreferDualStack"),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:prefer_families:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4",),
            ),
            error=True,
        ),
    ),
    (
        "policy:prefer_families:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="PreferDualStack",
                families=("IPv4", "IPv6"),
            ),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:nil",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(type_="ClusterIP", selector={"k2": "v2"}, policy="RequireDualStack"),
            headless=True,
            prove=[_families(2)],
        ),
    ),
    (
        "policy:require_families:single",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4",),
            ),
            error=True,
        ),
    ),
    (
        "policy:require_families:dual",
        Case(
            C(type_="ClusterIP", policy="RequireDualStack", cluster_ips=("None",)),
            headless=True,
            prove=[_families(2)],
        ),
        Case(
            C(
                type_="ClusterIP",
                selector={"k2": "v2"},
                policy="RequireDualStack",
                families=("IPv4", "IPv6"),
            ),
            headless=True,
            prove=[_families(2)],
        ),
    ),
]


_V4V6 = ("IPv4", "IPv6")
_V6V4 = ("IPv6", "IPv4")
_TABLES: dict[str, tuple[tuple[str, ...], list[Row]]] = {
    "TestUpdateIPsFromSingleStack/dualstack:v4v6": (_V4V6, _S_V4V6),
    "TestUpdateIPsFromSingleStack/dualstack:v6v4": (_V6V4, _S_V6V4),
    "TestUpdateIPsFromSingleStack/headless": (_V4V6, _S_HEADLESS),
    "TestUpdateIPsFromDualStack/dualstack:v4v6": (_V4V6, _D_V4V6),
    "TestUpdateIPsFromDualStack/dualstack:v6v4": (_V6V4, _D_V6V4),
    "TestUpdateIPsFromDualStack/headless": (_V4V6, _D_HEADLESS),
}
_CASES = [(fams, row) for fams, rows in _TABLES.values() for row in rows]
_IDS = [f"{table}/{row[0]}" for table, (_, rows) in _TABLES.items() for row in rows]


def _hold(ip: str) -> Any:
    """``beforeUpdate``: the address is taken before the update."""

    def hold(s: APIServer) -> None:
        s.create(make_service("holder", cluster_ips=(ip,)))

    return hold


@pytest.mark.parametrize(("cluster", "row"), _CASES, ids=_IDS)
def test_update_ips_dual_stack(cluster: tuple[str, ...], row: Row) -> None:
    before = _hold(row[3]) if len(row) == 4 else None
    create_update_delete(row[1], row[2], cluster, before_update=before)
