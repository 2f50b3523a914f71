"""apiextensions-apiserver v0.37.2 ``pkg/registry/customresource/validator.go``
``ValidateScaleSpec`` / ``ValidateScaleStatus`` on the reference's
``customresource/scale_validation.py``.

Upstream's ``validator_test.go`` has no scale rows: the cases below follow the two
functions branch by branch (``unstructured.NestedInt64`` / ``NestedString`` errors are
``field.Invalid`` at the path with the zero value), and ``test/integration/
subresources_test.go`` TestScaleSubresource's "validate maximum value" step
(``.spec.replicas`` = MaxInt64 is rejected) runs through the apiserver.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.customresource import strategy
from reference_impl.apiserver.customresource.scale_validation import (
    validate_scale_spec,
    validate_scale_status,
)
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Cause, Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
SCALE: Obj = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
              "labelSelectorPath": ".status.labelSelector"}  # fmt: skip
MAX_INT64 = 2**63 - 1


def _msgs(causes: list[Cause]) -> list[str]:
    return [str(c) for c in causes]


SPEC_ROWS = [
    pytest.param({"spec": {"replicas": 3}}, [], id="valid"),
    pytest.param({"spec": {}}, [], id="missing: zero, no error"),
    pytest.param({}, [], id="no spec"),
    pytest.param({"spec": None}, [], id="null on the way: not found"),
    pytest.param(
        {"spec": {"replicas": -1}},
        [".spec.replicas: FieldValueInvalid: Invalid value: -1: should be a non-negative integer"],
        id="negative",
    ),
    pytest.param(
        {"spec": {"replicas": 2**31}},
        [
            ".spec.replicas: FieldValueInvalid: Invalid value: 2147483648: should be less than or "
            "equal to 2147483647"
        ],
        id="above MaxInt32",
    ),
    pytest.param(
        {"spec": {"replicas": 3.5}},
        [
            ".spec.replicas: FieldValueInvalid: Invalid value: 0: .spec.replicas accessor error: 3.5 "
            "is of the type float64, expected int64"
        ],
        id="float",
    ),
    pytest.param(
        {"spec": {"replicas": "3"}},
        [
            ".spec.replicas: FieldValueInvalid: Invalid value: 0: .spec.replicas accessor error: 3 "
            "is of the type string, expected int64"
        ],
        id="string",
    ),
    pytest.param(
        {"spec": {"replicas": True}},
        [
            ".spec.replicas: FieldValueInvalid: Invalid value: 0: .spec.replicas accessor error: "
            "true is of the type bool, expected int64"
        ],
        id="bool",
    ),
    pytest.param(
        {"spec": {"replicas": None}},
        [
            ".spec.replicas: FieldValueInvalid: Invalid value: 0: .spec.replicas accessor error: "
            "<nil> is of the type <nil>, expected int64"
        ],
        id="null at the end",
    ),
    pytest.param(
        {"spec": "x"},
        [
            ".spec.replicas: FieldValueInvalid: Invalid value: 0: .spec.replicas accessor error: x is of "
            "the type string, expected map[string]interface{}"
        ],
        id="non-map on the way",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), SPEC_ROWS)
def test_validate_scale_spec(obj: Obj, expected: list[str]) -> None:
    """``ValidateScaleSpec``."""
    assert _msgs(validate_scale_spec(obj, SCALE)) == expected


STATUS_ROWS = [
    pytest.param({"status": {"replicas": 1, "labelSelector": "a=b"}}, [], id="valid"),
    pytest.param({}, [], id="missing"),
    pytest.param(
        {"status": {"replicas": 1.5}},
        [
            ".status.replicas: FieldValueInvalid: Invalid value: 0: .status.replicas accessor "
            "error: 1.5 is of the type float64, expected int64"
        ],
        id="float replicas",
    ),
    pytest.param(
        {"status": {"replicas": -2}},
        [
            ".status.replicas: FieldValueInvalid: Invalid value: -2: should be a non-negative "
            "integer"
        ],
        id="negative replicas",
    ),
    pytest.param(
        {"status": {"labelSelector": 7}},
        [
            '.status.labelSelector: FieldValueInvalid: Invalid value: "": .status.labelSelector '
            "accessor error: 7 is of the type int64, expected string"
        ],
        id="selector not a string",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), STATUS_ROWS)
def test_validate_scale_status(obj: Obj, expected: list[str]) -> None:
    """``ValidateScaleStatus``."""
    assert _msgs(validate_scale_status(obj, SCALE)) == expected


def test_no_scale_no_errors() -> None:
    """A nil scale validates nothing."""
    assert validate_scale_spec({"spec": {"replicas": -1}}, None) == []
    assert validate_scale_status({"status": {"replicas": -1}}, None) == []


def test_strategy_uses_both() -> None:
    """``customResourceValidator.Validate`` runs both; ``ValidateStatusUpdate`` only the
    status half."""
    obj = {"spec": {"replicas": 1.5}, "status": {"replicas": -1}}
    assert [c.field for c in strategy.scale_causes(obj, SCALE)] == [
        ".spec.replicas",
        ".status.replicas",
    ]
    assert [c.field for c in strategy.scale_causes(obj, SCALE, spec=False)] == [".status.replicas"]


def _crd_server() -> APIServer:
    """``NewNoxuSubresourcesCRDs``' v1beta1 (schema: anything)."""
    srv = APIServer(MVCCStore(), SimClock(), Rng(1).child("apiserver"), FeatureGates())
    srv.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "not-the-default"}})
    free: Obj = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    crd = srv.create({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "noxus.mygroup.example.com"},
        "spec": {"group": "mygroup.example.com", "scope": "Namespaced",
                 "names": {"plural": "noxus", "singular": "nonenglishnoxu",
                           "kind": "WishIHadChosenNoxu", "listKind": "NoxuItemList"},
                 "versions": [{"name": "v1beta1", "served": True, "storage": True,
                               "subresources": {"status": {}, "scale": SCALE},
                               "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                   "spec": free, "status": free}}}}]},
    })  # fmt: skip
    crd["status"] = {"acceptedNames": crd["spec"]["names"], "conditions": [
        {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
         "message": "the initial names have been accepted",
         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}  # fmt: skip
    srv.update_status(crd)
    return srv


def _noxu(replicas: Any) -> Obj:
    return {"apiVersion": "mygroup.example.com/v1beta1", "kind": "WishIHadChosenNoxu",
            "metadata": {"namespace": "not-the-default", "name": "foo"},
            "spec": {"num": 10, "replicas": replicas}}  # fmt: skip


def test_scale_subresource_max_value() -> None:
    """TestScaleSubresource "validate maximum value": an update setting .spec.replicas to
    MaxInt64 is rejected at the path."""
    srv = _crd_server()
    cr = srv.create(_noxu(3))
    cr["spec"]["replicas"] = MAX_INT64
    with pytest.raises(Invalid) as err:
        srv.update(cr)
    assert _msgs(list(err.value.causes)) == [
        f".spec.replicas: FieldValueInvalid: Invalid value: {MAX_INT64}: should be less than or "
        "equal to 2147483647"
    ]


def test_create_with_float_replicas() -> None:
    """A non-integer spec replicas fails ``ValidateScaleSpec`` on create (the schema allows
    anything)."""
    srv = _crd_server()
    with pytest.raises(Invalid) as err:
        srv.create(_noxu(2.5))
    assert [c.field for c in err.value.causes] == [".spec.replicas"]
    assert "accessor error: 2.5 is of the type float64, expected int64" in str(err.value)
