"""Registry strategies' warning tests: ``pkg/registry/discovery/endpointslice``
(``TestWarningsOnEndpointSliceAddressType``, ``Test_warnOnBadIPs``: prefixes),
``resource/resourceslice`` (``TestWarningsOnCreate``/``OnUpdate``), ``core/node``
(``TestWarningOnUpdateAndCreate``), ``core/resourcequota`` (``Test_WarningsOnCreate``),
``core/serviceaccount`` (``TestWarningsOnCreate``/``OnUpdate``) and ``storage/csidriver``
(``TestWarningsOnCreate``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.apiserver.warnings.endpoints import endpoint_slice_warnings
from reference_impl.apiserver.warnings.node import node_warnings
from reference_impl.apiserver.warnings.resource import csi_driver_warnings, resource_slice_warnings
from reference_impl.apiserver.warnings.resourcequota import resource_quota_warnings
from reference_impl.apiserver.warnings.serviceaccount import service_account_warnings

Obj = dict[str, Any]
NONE: Any = None  # upstream's tests pass a bare context: default gates


@pytest.mark.parametrize(("address_type", "warn"),
                         [pytest.param("FQDN", True, id="AddressType = FQDN"),
                          pytest.param("IPv4", False, id="AddressType = IPV4"),
                          pytest.param("IPv6", False, id="AddressType = IPV6")])  # fmt: skip
def test_warnings_on_endpoint_slice_address_type(address_type: str, warn: bool) -> None:
    assert bool(endpoint_slice_warnings({"metadata": {}, "addressType": address_type}, None, NONE)) == warn


BAD_IP_ROWS = [
    ("empty EndpointSlice", {"metadata": {}}, []),
    ("valid EndpointSlice", {"metadata": {}, "endpoints": [{"addresses": ["1.2.3.4", "fd00::1234"]}]}, []),
    ("bad EndpointSlice", {"metadata": {}, "endpoints": [{"addresses": ["fd00::1234", "01.02.03.04"]},
                                                         {"addresses": ["::ffff:1.2.3.4"]}]},
     ["endpoints[0].addresses[1]", "endpoints[1].addresses[0]"]),
    ("bad EndpointSlice ignored because of label",
     {"metadata": {"labels": {"endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
      "endpoints": [{"addresses": ["fd00::1234", "01.02.03.04"]}]}, []),
]  # fmt: skip


@pytest.mark.parametrize(("eps", "prefixes"), [pytest.param(s, w, id=n) for n, s, w in BAD_IP_ROWS])
def test_warn_on_bad_ips(eps: Obj, prefixes: list[str]) -> None:
    got = endpoint_slice_warnings(eps, eps, NONE)  # an update: no address-type warning
    assert len(got) == len(prefixes)
    assert all(g.startswith(p) for g, p in zip(got, prefixes, strict=True))


UPPER = 'spec.driver: driver names should be lowercase; "Foo.COM" contains uppercase characters'


@pytest.mark.parametrize(("driver", "old", "want"),
                         [pytest.param("driver.example.com", None, [], id="create_valid driver"),
                          pytest.param("Foo.COM", None, [UPPER], id="create_uppercase driver warning"),
                          pytest.param("driver.example.com", "driver.example.com", [],
                                       id="update_valid driver update"),
                          pytest.param("Foo.COM", "driver.example.com", [UPPER],
                                       id="update_uppercase driver warning on update")])  # fmt: skip
def test_resource_slice(driver: str, old: str | None, want: list[str]) -> None:
    old_obj = None if old is None else {"spec": {"driver": old}}
    assert resource_slice_warnings({"spec": {"driver": driver}}, old_obj, NONE) == want


def _node(**spec: Any) -> Obj:
    return {"metadata": {}, "spec": spec}


NODE_ROWS = [
    (_node(), _node(), ""),
    (_node(), _node(configSource={}), "spec.configSource"),
    (_node(configSource={}), _node(configSource={}), "spec.configSource"),
    (_node(configSource={}), _node(), ""),
    (_node(), _node(externalID="externalID"), "spec.externalID"),
    (_node(externalID="externalID"), _node(externalID="externalID"), "spec.externalID"),
    (_node(externalID="externalID"), _node(), ""),
    (_node(), _node(podCIDRs=["10.0.1.0/24", "fd00::/64"]), ""),
    (_node(), _node(podCIDRs=["010.000.001.000/24", "fd00::/64"]), "spec.podCIDRs[0]"),
    (_node(), _node(podCIDRs=["10.0.1.0/24", "fd00::1234/64"]), "spec.podCIDRs[1]"),
    (_node(podCIDRs=["010.000.001.000/24", "fd00::1234/64"]), _node(podCIDRs=["10.0.1.0/24", "fd00::/64"]), ""),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "text"), [pytest.param(o, n, t, id=str(i)) for i, (o, n, t) in enumerate(NODE_ROWS)])
def test_warning_on_update_and_create(old: Obj, new: Obj, text: str) -> None:
    for got in (node_warnings(new, old, NONE), node_warnings(new, None, NONE)):
        assert len(got) == (1 if text else 0)
        assert not text or text in got[0]


def _rq(**hard: str) -> Obj:
    return {"metadata": {}, "spec": {"hard": hard}}


RQ_ROWS = [
    ("Empty Hard Spec", {"metadata": {}, "spec": {}}, []),
    ("Request less than limit", _rq(**{"requests.cpu": "500m", "limits.cpu": "1", "requests.memory": "1Gi",
                                       "limits.memory": "2Gi", "requests.storage": "1Gi", "limits.storage": "2Gi",
                                       "requests.ephemeral-storage": "1Gi", "limits.ephemeral-storage": "2Gi"}), []),
    ("Request greater than limit",
     _rq(**{"requests.cpu": "2", "limits.cpu": "1", "requests.memory": "3Gi", "limits.memory": "2Gi",
            "requests.storage": "3Gi", "limits.storage": "2Gi", "requests.ephemeral-storage": "3Gi",
            "limits.ephemeral-storage": "2Gi"}),
     ["ResourceQuota requests.cpu (2) should be less than limits.cpu (1)",
      "ResourceQuota requests.memory (3Gi) should be less than limits.memory (2Gi)",
      "ResourceQuota requests.storage (3Gi) should be less than limits.storage (2Gi)",
      "ResourceQuota requests.ephemeral-storage (3Gi) should be less than limits.ephemeral-storage (2Gi)"]),
    ("Request greater than limit, bare names",
     _rq(**{"cpu": "2", "limits.cpu": "1", "memory": "3Gi", "limits.memory": "2Gi"}),
     ["ResourceQuota cpu (2) should be less than limits.cpu (1)",
      "ResourceQuota memory (3Gi) should be less than limits.memory (2Gi)"]),
]  # fmt: skip


@pytest.mark.parametrize(("rq", "want"), [pytest.param(r, w, id=n) for n, r, w in RQ_ROWS])
def test_resource_quota_warnings_on_create(rq: Obj, want: list[str]) -> None:
    assert resource_quota_warnings(rq, None, NONE) == want


ENFORCE = "kubernetes.io/enforce-mountable-secrets"
SA_MSG = (f"metadata.annotations[{ENFORCE}]: deprecated in v1.32+; prefer separate namespaces to "
          "isolate access to mounted secrets")  # fmt: skip


def test_service_account_warnings_on_create() -> None:
    assert service_account_warnings({"metadata": {}}, None, NONE) == []
    assert service_account_warnings({"metadata": {"annotations": {ENFORCE: "true"}}}, None, NONE) == [SA_MSG]


def test_service_account_warnings_on_update() -> None:
    plain: Obj = {"metadata": {}}
    marked: Obj = {"metadata": {"annotations": {ENFORCE: "true"}}}
    assert service_account_warnings(plain, plain, NONE) == []
    assert service_account_warnings(marked, plain, NONE) == [SA_MSG]
    assert service_account_warnings(marked, marked, NONE) == []  # not newly set


@dataclass
class _Gates:
    on: bool

    def __contains__(self, name: str) -> bool:
        return True

    def enabled(self, name: str) -> bool:
        return self.on


@dataclass
class _Ctx:
    gates: _Gates


TOKENS_MSG = ("spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to "
              "true to prevent possible logging of tokens in volume attributes")  # fmt: skip
TOKENS = [{"audience": "aud"}]
CSI_ROWS = [
    ("no warnings, serviceAccountTokenInSecrets=true, feature enabled",
     {"tokenRequests": TOKENS, "serviceAccountTokenInSecrets": True}, True, []),
    ("no warning for serviceAccountTokenInSecrets=false, feature enabled",
     {"tokenRequests": TOKENS, "serviceAccountTokenInSecrets": False}, True, []),
    ("warning for missing serviceAccountTokenInSecrets, feature enabled", {"tokenRequests": TOKENS}, True,
     [TOKENS_MSG]),
    ("no warning when no TokenRequests, feature enabled", {}, True, []),
    ("no warning when feature disabled, even with tokenRequests and no serviceAccountTokenInSecrets",
     {"tokenRequests": TOKENS}, False, []),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "gate", "want"), [pytest.param(s, g, w, id=n) for n, s, g, w in CSI_ROWS])
def test_csi_driver_warnings_on_create(spec: Obj, gate: bool, want: list[str]) -> None:
    ctx: Any = _Ctx(_Gates(gate))
    assert csi_driver_warnings({"spec": spec}, None, ctx) == want
