"""LeaseCandidate validation, ported from upstream v1.37.2
``pkg/apis/coordination/validation/validation_test.go``: one case per row of
``TestValidateLeaseCandidate``, ``TestValidateLeaseCandidateSpec``,
``TestValidateLeaseCandidateUpdate`` and ``TestValidateCoordinatedLeaseStrategy``, each
written through a reference APIServer (coordination.k8s.io/v1beta1; LeaseCandidate is
gated on no feature). Upstream's rows assert only "some error" or "none"; the cases
assert every cause's path and reason as ``ValidateLeaseCandidateSpec`` builds them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import reference_impl.apiserver.strategies  # noqa: F401 - registers the strategies
from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies.coordination_candidates import parse_semver
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
Want = list[tuple[str, str]]
API = "coordination.k8s.io/v1beta1"
REQ, INV, NS = "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported"


@pytest.fixture
def srv() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(0), FeatureGates({}))
    s.create(make_namespace("default").build())
    return s


def _candidate(spec: Obj, name: str = "c") -> Obj:
    meta = {"name": name, "namespace": "default"}
    return {"apiVersion": API, "kind": "LeaseCandidate", "metadata": meta, "spec": copy.deepcopy(spec)}


def _causes(fn: Any, obj: Obj) -> Want:
    try:
        fn(obj)
    except Invalid as e:
        return [(c.field, c.reason) for c in e.causes]
    return []


# -- TestValidateLeaseCandidate ---------------------------------------------------------------

_VALID: Obj = {"binaryVersion": "1.30.0", "emulationVersion": "1.30.0", "leaseName": "test",
               "strategy": "OldestEmulationVersion"}  # fmt: skip


def test_validate_lease_candidate(srv: APIServer) -> None:
    """The row's object (empty spec, name "invalidName++"): the name is not a config-map
    key and the spec lacks leaseName, binaryVersion and strategy. Its namespace
    "==invalid_Namespace==" cannot be sent (the namespace is the URL's and must exist),
    so the create is made in "default"."""
    assert _causes(srv.create, {**_candidate({}), "metadata": {"name": "invalidName++",
                                                              "namespace": "default"}}) == [
        ("metadata.name", INV),
        ("spec.leaseName", REQ),
        ("spec.binaryVersion", REQ),
        ("spec.strategy", REQ),
    ]  # fmt: skip


def test_candidate_name_is_a_config_map_key(srv: APIServer) -> None:
    """``ValidLeaseCandidateName`` is ``IsConfigMapKey``: upper case and "_" are fine."""
    assert _causes(srv.create, _candidate(_VALID, name="Kube_Controller.Manager-1")) == []


# -- TestValidateLeaseCandidateSpec -----------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        pytest.param(_VALID, [], id="valid"),
        pytest.param({"leaseName": "test", "binaryVersion": "1.30.0", "strategy": "custom.com/foo"}, [],
                     id="valid custom strategy should not require emulationVersion"),
        pytest.param({"leaseName": "test", "strategy": "custom.com/foo"}, [("spec.binaryVersion", REQ)],
                     id="binaryVersion is required"),
        pytest.param({"binaryVersion": "1.30.0", "emulationVersion": "1.30.0"},
                     [("spec.leaseName", REQ), ("spec.strategy", REQ)], id="no lease name"),
        pytest.param({"binaryVersion": "1.30.1.6", "leaseName": "test"},
                     [("spec.binaryVersion", INV), ("spec.strategy", REQ)], id="bad binaryVersion"),
        pytest.param({"emulationVersion": "1.30.0", "binaryVersion": "1.29.0", "leaseName": "test"},
                     [("spec.binaryVersion", INV), ("spec.strategy", REQ)],
                     id="emulation should be greater than or equal to binary version"),
        pytest.param({**_VALID, "binaryVersion": "1.30.1", "emulationVersion": "1.30.1", "strategy": "foo"},
                     [("spec.strategy.strategy", NS)], id="strategy bad"),
        pytest.param({"binaryVersion": "1.30.1", "emulationVersion": "1.30.1", "leaseName": "test"},
                     [("spec.strategy", REQ)], id="strategy missing"),
        pytest.param({"binaryVersion": "1.30.1", "leaseName": "test", "strategy": "OldestEmulationVersion"},
                     [("spec.emulationVersion", REQ)], id="strategy good but emulationVersion missing"),
    ],
)  # fmt: skip
def test_validate_lease_candidate_spec(srv: APIServer, spec: Obj, want: Want) -> None:
    assert _causes(srv.create, _candidate(spec)) == want


def test_spec_messages(srv: APIServer) -> None:
    spec = {"emulationVersion": "1.30.0", "binaryVersion": "1.29.0", "leaseName": "test",
            "strategy": "OldestEmulationVersion"}  # fmt: skip
    with pytest.raises(Invalid) as err:
        srv.create(_candidate(spec))
    assert [str(c) for c in err.value.causes] == [
        'spec.binaryVersion: FieldValueInvalid: Invalid value: "1.29.0": must be greater than or '
        "equal to `emulationVersion`"
    ]
    with pytest.raises(Invalid) as err:
        srv.create(_candidate({"binaryVersion": "1.30.1", "leaseName": "t", "strategy": "OldestEmulationVersion"}))
    assert [str(c) for c in err.value.causes] == [
        "spec.emulationVersion: FieldValueRequired: Required value: must be specified when "
        "`strategy` is 'OldestEmulationVersion'"
    ]


@pytest.mark.parametrize(
    ("text", "ok"),
    [("1.30.0", True), ("1.30.1.6", False), ("v1.30.0", False), ("01.2.3", False),
     ("1.2.3-alpha.1+build.5", True), ("1.2", False), ("1.2.3-01", False)],
)  # fmt: skip
def test_semver_parse(text: str, ok: bool) -> None:
    """blang/semver ``Parse`` (strict) as the spec rules use it."""
    assert (parse_semver(text) is not None) is ok


# -- TestValidateLeaseCandidateUpdate ---------------------------------------------------------


@pytest.mark.parametrize(
    ("lease_name", "want"),
    [
        pytest.param("test", [], id="valid update"),
        pytest.param("test-update", [("spec.leaseName", INV)], id="update LeaseName should fail"),
    ],
)
def test_validate_lease_candidate_update(srv: APIServer, lease_name: str, want: Want) -> None:
    stored = srv.create(_candidate(_VALID))
    stored["spec"]["leaseName"] = lease_name
    assert _causes(srv.update, stored) == want


# -- TestValidateCoordinatedLeaseStrategy -----------------------------------------------------


@pytest.mark.parametrize(
    ("strategy", "want"),
    [
        pytest.param("foobar", [("spec.strategy.strategy", NS)], id="foobar"),
        pytest.param("example.com/foobar/toomanyslashes", [("spec.strategy.strategy", INV)],
                     id="example.com/foobar/toomanyslashes"),
        pytest.param("OldestEmulationVersion", [], id="OldestEmulationVersion"),
        pytest.param("example.com/foobar", [], id="example.com/foobar"),
    ],
)  # fmt: skip
def test_validate_coordinated_lease_strategy(srv: APIServer, strategy: str, want: Want) -> None:
    assert _causes(srv.create, _candidate({**_VALID, "strategy": strategy})) == want
