"""The dual-stack service ranges (``service_ip_ranges``) and their errors through
``APIServer``: ``ipallocator.Allocator``'s IPv6 bounds (the network address is out, the
last address in), ``allocIPs``' error naming ``clusterIPs`` with the "" marker of a family
still to pick, an upgrade's secondary refused when held, and
``validateUpgradeDowngradeIPFamilies``."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.strategies.service_ip_ranges import ranges_by_family
from reference_impl.apiserver.strategies.service_ips import ip_families_update_causes
from reference_impl.errors import Invalid
from suites.selftest.reference_impl.apiserver.service_storage.svctest import (
    make_service,
    new_server,
)

Obj = dict[str, Any]


def _causes(err: Invalid) -> list[tuple[str, str]]:
    return [(c.field, c.message) for c in err.causes]


def test_ipv6_range_bounds() -> None:
    """2000::/108: the network address is in no ServiceCIDR (``PrefixContainsIP``), so
    ErrMismatchedNetwork; the all-ones address is a host
    (IPv6 has no broadcast address); the first dynamic address is past the 256 reserved."""
    s = new_server(("IPv6",))
    with pytest.raises(Invalid) as err:
        s.create(make_service("a", cluster_ips=("2000::",)))
    assert _causes(err.value) == [
        (
            "spec.clusterIPs",
            'Invalid value: ["2000::"]: failed to allocate IP 2000::: '
            "the provided network does not match the current range",
        )
    ]
    assert s.create(make_service("b", cluster_ips=("2000::f:ffff",)))["spec"]["clusterIP"]
    assert s.create(make_service("c"))["spec"]["clusterIPs"] == ["2000::101"]


def test_dual_stack_allocation_error_names_marker() -> None:
    """A RequireDualStack create naming a held IPv4 address: the error's value is
    ``clusterIPs`` with the secondary's "" marker."""
    s = new_server(("IPv4", "IPv6"))
    s.create(make_service("a", cluster_ips=("10.0.0.5",)))
    with pytest.raises(Invalid) as err:
        s.create(make_service("b", cluster_ips=("10.0.0.5",), policy="RequireDualStack"))
    assert _causes(err.value) == [
        (
            "spec.clusterIPs",
            'Invalid value: ["10.0.0.5",""]: failed to allocate IP 10.0.0.5: '
            "provided IP is already allocated",
        )
    ]


def test_upgrade_secondary_held() -> None:
    """An upgrade asking for a held secondary is refused, naming it; the Service keeps its
    single family."""
    s = new_server(("IPv4", "IPv6"))
    s.create(make_service("holder", cluster_ips=("2000::1",)))
    created = s.create(make_service("foo", cluster_ips=("10.0.0.1",)))
    svc = make_service("foo", cluster_ips=("10.0.0.1", "2000::1"), policy="RequireDualStack")
    svc["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    with pytest.raises(Invalid) as err:
        s.update(svc)
    assert _causes(err.value) == [
        (
            "spec.clusterIPs",
            'Invalid value: ["10.0.0.1","2000::1"]: failed to allocate IP 2000::1: '
            "provided IP is already allocated",
        )
    ]
    assert s.get("v1", "Service", "foo", "default")["spec"]["ipFamilies"] == ["IPv4"]


def test_ranges_refuse_same_family() -> None:
    with pytest.raises(ValueError, match="dual-stack"):
        ranges_by_family(("10.0.0.0/24", "10.1.0.0/24"))


def _spec(ips: list[str], fams: list[str], policy: str | None = None) -> Obj:
    spec: Obj = {"type": "ClusterIP", "clusterIPs": ips, "ipFamilies": fams}
    if policy is not None:
        spec["ipFamilyPolicy"] = policy
    return spec


_V4V6 = _spec(["10.0.0.1", "2000::1"], ["IPv4", "IPv6"], "RequireDualStack")
# (name after validation_test.go TestValidateServiceUpdate, new spec, old spec, causes)
_FAMILY_ROWS: list[tuple[str, Obj, Obj, list[tuple[str, str]]]] = [
    ("same ServiceIPFamily", _spec(["10.0.0.1"], ["IPv4"]), _spec(["10.0.0.1"], ["IPv4"]), []),
    (
        "invalid flip families",
        _spec(["2000::1", "10.0.0.1"], ["IPv6", "IPv4"], "RequireDualStack"),
        _V4V6,
        [("spec.ipFamilies[0]", 'Invalid value: ["IPv6","IPv4"]: may not change once set')] * 2,
    ),
    (
        "invalid, downgrade without changing to singleStack",
        _spec(["10.0.0.1"], ["IPv4"], "RequireDualStack"),
        _V4V6,
        [
            (
                "spec.ipFamilyPolicy",
                "Invalid value: \"RequireDualStack\": must be set to 'SingleStack' when "
                "releasing the secondary ipFamily",
            )
        ],
    ),
    (
        "valid: downgrade a headless service",
        _spec(["None"], ["IPv6"], "SingleStack"),
        _spec(["None"], ["IPv4", "IPv6"], "RequireDualStack"),
        [],
    ),
    (
        "invalid: upgrade to dual stack and change primary",
        _spec(["10.0.0.1"], ["IPv6", "IPv4"], "RequireDualStack"),
        _spec(["10.0.0.1"], ["IPv4"], "SingleStack"),
        [("spec.ipFamilies[0]", 'Invalid value: ["10.0.0.1"]: may not change once set')],
    ),
]


@pytest.mark.parametrize(
    ("new", "old", "want"), [r[1:] for r in _FAMILY_ROWS], ids=[r[0] for r in _FAMILY_ROWS]
)
def test_ip_families_update_causes(new: Obj, old: Obj, want: list[tuple[str, str]]) -> None:
    assert [(c.field, c.message) for c in ip_families_update_causes(new, old)] == want
