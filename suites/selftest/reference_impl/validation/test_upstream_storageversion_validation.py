"""StorageVersion validation and strategy, ported from upstream v1.37.2: one case per row
of ``TestValidateServerStorageVersion``, ``TestValidateStorageVersionStatus``,
``TestValidateCommonVersion``, ``TestValidateStorageVersionCondition`` and
``TestValidateStorageVersionName`` (``pkg/apis/apiserverinternal/validation``) and
``TestStorageVersionStrategy`` (``pkg/registry/apiserverinternal/storageversion``).

Each row is written through a reference APIServer: names as creates, statuses as /status
writes over a stored object. Every cause's path and reason is asserted, plus upstream's
expected substring of the aggregated error (its ``[]`` root path is the status' place).
For ``TestValidateCommonVersion`` each server lists its encoding version as decodable, so
that only the common-version rule (the row's subject) can fail.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import reference_impl.apiserver.strategies  # noqa: F401 - registers the strategies
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies.storage_version import storage_version_name_errors
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
Want = list[tuple[str, str]]
API = "internal.apiserver.k8s.io/v1alpha1"
REQ, INV, DUP = "FieldValueRequired", "FieldValueInvalid", "FieldValueDuplicate"
P = "status.storageVersions[0]"
_SUB = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
_API_VERSION = (
    "an apiVersion is a DNS-1035 label, which must consist of lower case alphanumeric "
    "characters or '-', start with an alphabetic character, and end with an alphanumeric "
    "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?') with an optional DNS subdomain prefix and '/' (e.g. "
    "'example.com/MyVersion')"
)


@pytest.fixture
def srv() -> APIServer:
    return APIServer(MVCCStore(), SimClock(), Rng(0), FeatureGates({}))


def _sv(name: str = "core.pods", status: Obj | None = None) -> Obj:
    obj: Obj = {"apiVersion": API, "kind": "StorageVersion", "metadata": {"name": name}, "spec": {}}
    if status is not None:
        obj["status"] = status
    return obj


def _status_write(srv: APIServer, status: Obj) -> tuple[Want, str]:
    """The causes of a /status write of ``status`` and the Go-style aggregated text."""
    stored = srv.create(_sv())
    try:
        srv.update_status({**copy.deepcopy(stored), "status": status})
    except Invalid as e:
        return [(c.field, c.reason) for c in e.causes], ", ".join(f"{c.field}: {c.message}" for c in e.causes)
    return [], ""


def _ssv(server_id: str, encoding: str, decodable: list[str], served: list[str] | None = None) -> Obj:
    out: Obj = {"apiServerID": server_id, "encodingVersion": encoding, "decodableVersions": decodable}
    if served is not None:
        out["servedVersions"] = served
    return out


# -- TestValidateServerStorageVersion ---------------------------------------------------------

_SERVER_ROWS = [
    (_ssv("-fea", "v1alpha1", ["v1alpha1", "v1"], ["v1alpha1", "v1"]), [(f"{P}.apiServerID", INV)],
     "apiServerID: Invalid value"),
    (_ssv("fea", "v1alpha1", ["v1beta1", "v1"], ["v1beta1", "v1"]), [(f"{P}.decodableVersions", INV)],
     "decodableVersions must include encodingVersion"),
    (_ssv("fea", "v1alpha1", ["v1alpha1", "v1", "-fea"], ["v1alpha1", "v1", "-fea"]),
     [(f"{P}.decodableVersions[2]", INV), (f"{P}.servedVersions[2]", INV)], "decodableVersions[2]: Invalid value"),
    (_ssv("fea", "v1alpha1", ["v1alpha1", "v1"], ["v1alpha1", "v1"]), [], ""),
    (_ssv("fea", "v1alpha1", ["v1alpha1", "v1"], ["v1alpha1", "v1"]), [], ""),
    (_ssv("fea", "mygroup.com/v2", ["v1alpha1", "v1", "mygroup.com/v2"], ["v1alpha1", "v1", "mygroup.com/v2"]),
     [], ""),
    (_ssv("fea", "v1alpha1", ["v1alpha1", "v1"], ["/v3"]),
     [(f"{P}.servedVersions[0]", INV), (f"{P}.servedVersions[0]", INV)],
     '[].servedVersions[0]: Invalid value: "/v3": group part: must be non-empty'),
    (_ssv("fea", "mygroup.com/v2", ["mygroup.com/v2", "/v3"], ["mygroup.com/v2", "/v3"]),
     [(f"{P}.decodableVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     '[].decodableVersions[1]: Invalid value: "/v3": group part: must be non-empty'),
    (_ssv("fea", "mygroup.com/v2", ["mygroup.com/v2", "/v3"], ["mygroup.com/"]),
     [(f"{P}.decodableVersions[1]", INV), (f"{P}.servedVersions[0]", INV), (f"{P}.servedVersions[0]", INV)],
     '[].servedVersions[0]: Invalid value: "mygroup.com/": version part: must be non-empty'),
    (_ssv("fea", "mygroup.com/v2", ["mygroup.com/v2", "mygroup.com/"], ["mygroup.com/v2", "mygroup.com/"]),
     [(f"{P}.decodableVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     '[].decodableVersions[1]: Invalid value: "mygroup.com/": version part: must be non-empty'),
    (_ssv("fea", "/v3", ["mygroup.com/v2", "/v3"], ["mygroup.com/v2", "/v3"]),
     [(f"{P}.encodingVersion", INV), (f"{P}.decodableVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     '[].encodingVersion: Invalid value: "/v3": group part: must be non-empty'),
    (_ssv("fea", "v1", ["v1", "mygroup_com/v2"], ["v1", "mygroup_com/v2"]),
     [(f"{P}.decodableVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     f'[].decodableVersions[1]: Invalid value: "mygroup_com/v2": group part: {_SUB}'),
    (_ssv("fea", "v1", ["v1", "mygroup.com/v2"], ["v1", "mygroup_com/v2"]),
     [(f"{P}.servedVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     f'[].servedVersions[1]: Invalid value: "mygroup_com/v2": group part: {_SUB}'),
    (_ssv("fea", "v1", ["v1", "mygroup.com/v2_"], ["v1", "mygroup.com/v2_"]),
     [(f"{P}.decodableVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     f'[].decodableVersions[1]: Invalid value: "mygroup.com/v2_": version part: {_DNS1035}'),
    (_ssv("fea", "v1", ["v1", "mygroup.com/v2"], ["v1", "mygroup.com/v2_"]),
     [(f"{P}.servedVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     f'[].servedVersions[1]: Invalid value: "mygroup.com/v2_": version part: {_DNS1035}'),
    (_ssv("fea", "v1", ["v1", "mygroup.com/v2/myresource"], ["v1", "mygroup.com/v2/myresource"]),
     [(f"{P}.decodableVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     f'[].decodableVersions[1]: Invalid value: "mygroup.com/v2/myresource": {_API_VERSION}'),
    (_ssv("fea", "v1", ["v1", "mygroup.com/v2"], ["v1", "mygroup.com/v2/myresource"]),
     [(f"{P}.servedVersions[1]", INV), (f"{P}.servedVersions[1]", INV)],
     f'[].servedVersions[1]: Invalid value: "mygroup.com/v2/myresource": {_API_VERSION}'),
    (_ssv("fea", "v1alpha1", ["v1alpha1", "v1"], ["v2"]), [(f"{P}.servedVersions[0]", INV)],
     '[].servedVersions[0]: Invalid value: "v2": individual served version : v2 must be included in '
     "decodableVersions : [v1alpha1 v1]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("ssv", "want", "expected_err"),
    [pytest.param(*row, id=f"row{i}") for i, row in enumerate(_SERVER_ROWS)],
)
def test_validate_server_storage_version(srv: APIServer, ssv: Obj, want: Want, expected_err: str) -> None:
    status = {"storageVersions": [ssv], "commonEncodingVersion": ssv["encodingVersion"]}
    got, text = _status_write(srv, status)
    assert got == want
    assert expected_err.replace("[].", f"{P}.") in text


# -- TestValidateStorageVersionStatus ---------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "want", "expected_err"),
    [
        pytest.param({"storageVersions": [_ssv("1", "v1alpha1", ["v1alpha1", "v1"]),
                                          _ssv("2", "v1alpha1", ["v1alpha1", "v1"])],
                      "commonEncodingVersion": "v1alpha1"}, [], "", id="row0"),
        pytest.param({"storageVersions": [_ssv("1", "v1alpha1", ["v1alpha1", "v1"]),
                                          _ssv("1", "v1beta1", ["v1alpha1", "v1"])],
                      "commonEncodingVersion": "v1alpha1"},
                     [("status.storageVersions[1].apiServerID", DUP),
                      ("status.storageVersions[1].decodableVersions", INV),
                      ("status.commonEncodingVersion", INV)],
                     'storageVersions[1].apiServerID: Duplicate value: "1"', id="row1"),
    ],
)  # fmt: skip
def test_validate_storage_version_status(srv: APIServer, status: Obj, want: Want, expected_err: str) -> None:
    got, text = _status_write(srv, status)
    assert got == want
    assert expected_err in text


# -- TestValidateCommonVersion ----------------------------------------------------------------

_NOT_AGREED = ("should be nil if servers do not agree on the same encoding version, or if there is "
               "no server reporting the supported versions yet")  # fmt: skip


def _servers(*encodings: str) -> list[Obj]:
    return [_ssv(str(i + 1), e, [e]) for i, e in enumerate(encodings)]


@pytest.mark.parametrize(
    ("servers", "common", "expected_err"),
    [
        pytest.param([], "v1alpha1", _NOT_AGREED, id="row0"),
        pytest.param(_servers("v1alpha1", "v1"), "v1alpha1", _NOT_AGREED, id="row1"),
        pytest.param(_servers("v1alpha1", "v1alpha1"), None,
                     "Invalid value: null: the common encoding version is v1alpha1", id="row2"),
        pytest.param(_servers("v1alpha1", "v1alpha1"), "v1",
                     'Invalid value: "v1": the actual common encoding version is v1alpha1', id="row3"),
        pytest.param(_servers("v1alpha1", "v1alpha1"), "v1alpha1", "", id="row4"),
        pytest.param(_servers("v1alpha1"), "v1alpha1", "", id="row5"),
    ],
)  # fmt: skip
def test_validate_common_version(srv: APIServer, servers: list[Obj], common: str | None, expected_err: str) -> None:
    status: Obj = {"storageVersions": servers}
    if common is not None:
        status["commonEncodingVersion"] = common
    got, text = _status_write(srv, status)
    assert got == ([("status.commonEncodingVersion", INV)] if expected_err else [])
    assert expected_err in text


# -- TestValidateStorageVersionCondition ------------------------------------------------------

_OK_COND = {"type": "fea", "status": "True", "reason": "unknown", "message": "unknown"}


@pytest.mark.parametrize(
    ("conditions", "want", "expected_err"),
    [
        pytest.param([{**_OK_COND, "type": "-fea"}], [("status[0].type", INV)], "type: Invalid value", id="row0"),
        pytest.param([{**_OK_COND, "status": "-True"}], [("status[0].status", INV)], "status: Invalid value",
                     id="row1"),
        pytest.param([{k: v for k, v in _OK_COND.items() if k != "reason"}], [("status[0].reason", REQ)],
                     "Required value", id="row2"),
        pytest.param([{k: v for k, v in _OK_COND.items() if k != "message"}], [("status[0].message", REQ)],
                     "Required value", id="row3"),
        pytest.param([_OK_COND, _OK_COND], [("status[1].type", INV)],
                     '"fea": the type of the condition is not unique, it also appears in conditions[0]', id="row4"),
        pytest.param([_OK_COND], [], "", id="row5"),
    ],
)  # fmt: skip
def test_validate_storage_version_condition(
    srv: APIServer, conditions: list[Obj], want: Want, expected_err: str
) -> None:
    got, text = _status_write(srv, {"conditions": conditions})
    assert got == want
    assert expected_err in text


# -- TestValidateStorageVersionName -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected_err"),
    [
        pytest.param("", "name must be in the form of <group>.<resource>", id="empty"),
        pytest.param("pods", "name must be in the form of <group>.<resource>", id="pods"),
        pytest.param("core.pods", "", id="core.pods"),
        pytest.param("authentication.k8s.io.tokenreviews", "", id="authentication.k8s.io.tokenreviews"),
        pytest.param("x" * 253 + ".tokenreviews", "", id="group-253"),
        pytest.param("x" * 254 + ".tokenreviews", "the group segment must be no more than 253 characters",
                     id="group-254"),
        pytest.param("authentication.k8s.io." + "x" * 63, "", id="resource-63"),
        pytest.param("authentication.k8s.io." + "x" * 64, "the resource segment must be no more than 63 characters",
                     id="resource-64"),
    ],
)  # fmt: skip
def test_validate_storage_version_name(srv: APIServer, name: str, expected_err: str) -> None:
    """The name function's messages, and the create's verdict (an empty name is
    ValidateObjectMeta's Required before the name function runs)."""
    errs = storage_version_name_errors(name)
    assert (expected_err in errs) if expected_err else errs == []
    try:
        srv.create(_sv(name))
        got: Want = []
    except Invalid as e:
        got = [(c.field, c.reason) for c in e.causes]
    assert got == ([] if not expected_err else [("metadata.name", REQ if not name else INV)])


# -- TestStorageVersionStrategy ---------------------------------------------------------------


def test_storage_version_strategy(srv: APIServer) -> None:
    """PrepareForCreate empties the status (the valid object's three servers disagree and
    list no common version), so the create is valid; an update is validated by nothing."""
    status = {"storageVersions": [_ssv("1", "v1", ["v1", "v2"]), _ssv("2", "v1", ["v1", "v2"]),
                                  _ssv("3", "v2", ["v1", "v2"])]}  # fmt: skip
    stored = srv.create(_sv(status=status))
    assert stored["status"] == {}
    assert srv.update(copy.deepcopy(stored))["metadata"]["name"] == "core.pods"
    kept = srv.update_status({**copy.deepcopy(stored), "status": status, "spec": {"x": 1}})
    assert kept["status"] == status and kept["spec"] == {}
