"""ResourcePoolStatusRequest validation and strategy, ported from upstream v1.37.2.

One case per row of ``TestValidateResourcePoolStatusRequest``,
``TestValidateResourcePoolStatusRequestUpdate`` and
``TestValidateResourcePoolStatusRequestStatusUpdate``
(``pkg/apis/resource/validation/validation_resourcepoolstatusrequest_test.go``) and of
``TestPrepareForCreatePartitionTypeAttribute`` /
``TestPrepareForUpdateKeepsExistingPartitionTypeAttribute``
(``pkg/registry/resource/resourcepoolstatusrequest/strategy_test.go``), each written
through a reference APIServer with DRAResourcePoolStatus on, asserting every cause's
path and reason. The ``declarative`` cases are neighbours for the enforced
``+k8s:`` rules of ``pkg/apis/resource/v1alpha3/zz_generated.validations.go`` (no Go
table row covers them), with the verdicts the generated code gives.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import reference_impl.apiserver.strategies  # noqa: F401 - registers the strategies
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
API = "resource.k8s.io/v1alpha3"
KIND = "ResourcePoolStatusRequest"
DNS1123 = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
VALID_SPEC: Obj = {"driver": "test.example.com", "poolName": "pool-1", "limit": 100}
NOW = "2026-09-01T00:00:00Z"
Want = list[tuple[str, str]]


def _server(store: MVCCStore | None = None, /, **gates: bool) -> APIServer:
    g = FeatureGates({"DRAResourcePoolStatus": True, **gates})
    return APIServer(store or MVCCStore(), SimClock(), Rng(0), g)


def _request(name: str, spec: Obj) -> Obj:
    return {"apiVersion": API, "kind": KIND, "metadata": {"name": name}, "spec": copy.deepcopy(spec)}


def _causes(fn: Any, obj: Obj) -> Want:
    try:
        fn(obj)
    except Invalid as e:
        return [(c.field, c.reason) for c in e.causes]
    return []


# -- TestValidateResourcePoolStatusRequest ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "spec", "want"),
    [
        pytest.param("my-request", VALID_SPEC, [], id="valid-request"),
        pytest.param("my-request", {"driver": "test.example.com"}, [], id="valid-driver-only"),
        pytest.param("my-request", {"driver": "test.example.com", "poolName": "node-1"}, [],
                     id="valid-with-pool-name"),
        pytest.param("my-request", {"driver": "test.example.com", "limit": 50}, [], id="valid-with-limit"),
        pytest.param("my-request", {"driver": "test.example.com", "limit": 1}, [], id="valid-limit-min"),
        pytest.param("my-request", {"driver": "test.example.com", "limit": 1000}, [], id="valid-limit-max"),
        pytest.param("", VALID_SPEC, [("metadata.name", "FieldValueRequired")], id="missing-name"),
        pytest.param("!@#$%^", VALID_SPEC, [("metadata.name", "FieldValueInvalid")], id="bad-name"),
    ],
)  # fmt: skip
def test_validate_resource_pool_status_request(name: str, spec: Obj, want: Want) -> None:
    srv = _server()
    assert _causes(srv.create, _request(name, spec)) == want


def test_bad_name_message() -> None:
    """bad-name: upstream's field.Invalid(metadata.name, badName, dns1123SubdomainErrorMsg)."""
    with pytest.raises(Invalid) as err:
        _server().create(_request("!@#$%^", VALID_SPEC))
    assert [c.message for c in err.value.causes] == [f'Invalid value: "!@#$%^": {DNS1123}']


def test_missing_name_message() -> None:
    with pytest.raises(Invalid) as err:
        _server().create(_request("", VALID_SPEC))
    assert [c.message for c in err.value.causes] == ["name or generateName is required"]


# -- TestValidateResourcePoolStatusRequestUpdate -------------------------------------------


def test_validate_update_no_change() -> None:
    """no-change."""
    srv = _server()
    stored = srv.create(_request("my-request", VALID_SPEC))
    assert _causes(srv.update, copy.deepcopy(stored)) == []


# -- TestValidateResourcePoolStatusRequestStatusUpdate -------------------------------------

_COMPLETE = {"type": "Complete", "status": "True", "lastTransitionTime": NOW, "reason": "Calculated",
             "message": ""}  # fmt: skip
_FULL_POOL = {
    "driver": "test.example.com", "poolName": "pool-1", "nodeName": "node-1", "totalDevices": 4,
    "allocatedDevices": 2, "availableDevices": 2, "unavailableDevices": 0,
    "resourceSliceCount": 1, "generation": 1,
}  # fmt: skip
_ERROR_POOL = {"driver": "test.example.com", "poolName": "pool-1", "generation": 1,
               "validationError": "pool data is inconsistent"}  # fmt: skip


@pytest.mark.parametrize(
    ("old_status", "new_status", "want"),
    [
        pytest.param(None, {"poolCount": 2, "pools": [_FULL_POOL], "conditions": [_COMPLETE]}, [],
                     id="valid-initial-status-update"),
        pytest.param(None, {"poolCount": 1, "pools": [_ERROR_POOL], "conditions": [_COMPLETE]}, [],
                     id="valid-pool-with-validation-error"),
        pytest.param({"poolCount": 2}, {"poolCount": 5}, [("status", "FieldValueInvalid")],
                     id="status-immutable-after-status-set"),
    ],
)  # fmt: skip
def test_validate_status_update(old_status: Obj | None, new_status: Obj, want: Want) -> None:
    srv = _server()
    stored = srv.create(_request("my-request", VALID_SPEC))
    if old_status is not None:
        stored = srv.update_status({**stored, "status": old_status})
    got = _causes(srv.update_status, {**copy.deepcopy(stored), "status": new_status})
    assert got == want
    if want:
        with pytest.raises(Invalid) as err:
            srv.update_status({**copy.deepcopy(stored), "status": new_status})
        assert err.value.causes[0].message.endswith(": field is immutable")


# -- TestPrepareForCreatePartitionTypeAttribute / ...UpdateKeeps... ---------------------------

_ATTR = "gpu.example.com/profile"


@pytest.mark.parametrize(
    ("type_gate", "dropped"),
    [
        pytest.param(True, False, id="gate-enabled-keeps"),
        pytest.param(False, True, id="gate-disabled-drops"),
    ],
)
def test_prepare_for_create_partition_type_attribute(type_gate: bool, dropped: bool) -> None:
    srv = _server(DRAPartitionableDevicesType=type_gate)
    spec = {"driver": "gpu.example.com", "defaultPartitionTypeAttribute": _ATTR}
    got = srv.create(_request("test-request", spec))["spec"].get("defaultPartitionTypeAttribute")
    assert got == (None if dropped else _ATTR)


def test_prepare_for_update_keeps_existing_partition_type_attribute() -> None:
    """A default already stored survives a disabled gate (the stored object was written
    while the gate was on; the same storage is then served with it off)."""
    store = MVCCStore()
    spec = {"driver": "gpu.example.com", "defaultPartitionTypeAttribute": _ATTR}
    stored = _server(store, DRAPartitionableDevicesType=True).create(_request("test-request", spec))
    off = _server(store, DRAPartitionableDevicesType=False)
    stored["metadata"]["labels"] = {"touched": "yes"}
    after = off.update(stored)
    assert after["spec"]["defaultPartitionTypeAttribute"] == _ATTR


# -- the declarative rules (neighbours, not Go table rows) -----------------------------------


@pytest.mark.parametrize(
    ("spec", "gates", "want"),
    [
        pytest.param({"driver": "BAD_"}, {}, [("spec.driver", "FieldValueInvalid")], id="driver-format"),
        pytest.param({"driver": "Test.Example.com"}, {}, [], id="driver-caseless"),
        pytest.param({}, {}, [("spec.driver", "FieldValueRequired")], id="driver-required"),
        pytest.param({"driver": "a.b", "limit": 0}, {}, [("spec.limit", "FieldValueInvalid")], id="limit-0"),
        pytest.param({"driver": "a.b", "limit": 1001}, {}, [("spec.limit", "FieldValueInvalid")],
                     id="limit-1001"),
        pytest.param({"driver": "a.b", "poolName": ""}, {}, [("spec.poolName", "FieldValueInvalid")],
                     id="pool-name-empty-pointer"),
        pytest.param({"driver": "a.b", "poolName": "a//B"}, {},
                     [("spec.poolName", "FieldValueInvalid"), ("spec.poolName", "FieldValueInvalid")],
                     id="pool-name-segments"),
        pytest.param({"driver": "a.b", "defaultPartitionTypeAttribute": "profile"},
                     {"DRAPartitionableDevicesType": True},
                     [("spec.defaultPartitionTypeAttribute", "FieldValueInvalid")],
                     id="partition-type-attribute-needs-domain"),
        pytest.param({"driver": "a.b", "defaultPartitionTypeAttribute": "bad domain/x"},
                     {"DRAPartitionableDevicesType": True},
                     [("spec.defaultPartitionTypeAttribute", "FieldValueInvalid")],
                     id="partition-type-attribute-prefix"),
    ],
)  # fmt: skip
def test_declarative_spec_rules(spec: Obj, gates: dict[str, bool], want: Want) -> None:
    assert _causes(_server(**gates).create, _request("r", spec)) == want


def test_declarative_messages() -> None:
    with pytest.raises(Invalid) as err:
        _server().create(_request("r", {"driver": "a.b", "limit": 0, "poolName": "a//b"}))
    assert [str(c) for c in err.value.causes] == [
        'spec.poolName: FieldValueInvalid: Invalid value: "a//b": segment 1: must not be empty',
        "spec.limit: FieldValueInvalid: Invalid value: 0: must be greater than or equal to 1",
    ]


def test_spec_is_immutable_and_status_kept_on_spec_writes() -> None:
    srv = _server()
    stored = srv.create({**_request("r", VALID_SPEC), "status": {"poolCount": 3}})
    assert "status" not in stored  # PrepareForCreate: status = nil
    changed = copy.deepcopy(stored)
    changed["spec"]["limit"] = 5
    with pytest.raises(Invalid) as err:
        srv.update(changed)
    assert [str(c) for c in err.value.causes] == [
        "spec: FieldValueInvalid: Invalid value: null: field is immutable"
    ]
    answered = srv.update_status({**copy.deepcopy(stored), "status": {"poolCount": 0}})
    relabelled = copy.deepcopy(answered)
    relabelled["metadata"]["labels"] = {"a": "b"}
    relabelled["status"] = {"poolCount": 9}
    assert srv.update(relabelled)["status"] == {"poolCount": 0}


def test_declarative_status_rules() -> None:
    srv = _server()
    stored = srv.create(_request("r", VALID_SPEC))
    pool = {"driver": "X_", "poolName": "p", "generation": 0, "resourceSliceCount": 0,
            "nodeName": "Node", "validationError": "x" * 257,
            "partitionSummary": [{"attribute": "a/b", "type": "t", "total": 1, "allocatable": -1},
                                 {"attribute": "a/b", "type": "t"}]}  # fmt: skip
    conditions = [{**_COMPLETE, "type": f"C{i}"} for i in range(11)]  # valid, one too many
    status = {"pools": [pool], "conditions": conditions}
    got = _causes(srv.update_status, {**stored, "status": status})
    assert got == [
        ("status.poolCount", "FieldValueRequired"),
        ("status.pools[0].driver", "FieldValueInvalid"),
        ("status.pools[0].generation", "FieldValueRequired"),
        ("status.pools[0].resourceSliceCount", "FieldValueInvalid"),
        ("status.pools[0].nodeName", "FieldValueInvalid"),
        ("status.pools[0].validationError", "FieldValueTooLong"),
        ("status.pools[0].partitionSummary[1]", "FieldValueDuplicate"),
        ("status.pools[0].partitionSummary[0].allocatable", "FieldValueInvalid"),
        ("status.pools[0].partitionSummary[1].total", "FieldValueRequired"),
        ("status.pools[0].partitionSummary[1].allocatable", "FieldValueRequired"),
        ("status.conditions", "FieldValueTooMany"),
    ]


def test_handwritten_conditions_come_first() -> None:
    """ValidateConditions (handwritten) before the declarative errors, as upstream appends."""
    srv = _server()
    stored = srv.create(_request("r", VALID_SPEC))
    status = {"conditions": [{"type": "Complete", "status": "Maybe", "lastTransitionTime": NOW,
                              "reason": "Calculated", "message": ""}]}  # fmt: skip
    got = _causes(srv.update_status, {**stored, "status": status})
    assert got == [("status.conditions[0].status", "FieldValueNotSupported"),
                   ("status.poolCount", "FieldValueRequired")]  # fmt: skip


def test_limit_defaults_to_100() -> None:
    assert _server().create(_request("r", {"driver": "a.b"}))["spec"]["limit"] == 100
