"""Custom resources served from a CRD: pruning, defaults, schema and CEL errors with
upstream's paths and messages, transition rules, ratcheting, the status subresource's
generation rules and CRD deletion (``pkg/registry/customresource``, ``schema/cel``)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.cluster import Cluster
from reference_impl.errors import BadRequest, Invalid, MethodNotAllowed, NotFound

Obj = dict[str, Any]
CRD = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
AV = "example.com/v1"
SPEC: Obj = {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.replicas <= self.max", "message": "replicas must not exceed max"},
        {"rule": "self.mode == oldSelf.mode", "message": "mode is immutable"},
        {"rule": "self.replicas != 8", "fieldPath": ".replicas", "reason": "FieldValueRequired"},
    ],
    "properties": {
        "replicas": {"type": "integer", "minimum": 0, "x-kubernetes-validations": [
            {"rule": "self != 7", "messageExpression": "'seven is ' + (self > 5 ? 'big' : 'small')",
             "reason": "FieldValueForbidden"}]},
        "max": {"type": "integer", "default": 5},
        "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
        "name": {"type": "string", "maxLength": 3},
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    },
}  # fmt: skip


def _cluster(status: bool = True) -> Cluster:
    c = Cluster()
    version: Obj = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": SPEC, "status": {"type": "object", "properties": {
            "ready": {"type": "integer", "minimum": 0}}}}}}}  # fmt: skip
    if status:
        version["subresources"] = {"status": {}}
    c.apply({"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": "widgets.example.com"},
             "spec": {"group": "example.com", "scope": "Namespaced",
                      "names": {"plural": "widgets", "kind": "Widget"}, "versions": [version]}})  # fmt: skip
    c.settle()
    return c


def _widget(spec: Obj, name: str = "w") -> Obj:
    return {
        "apiVersion": AV,
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


@pytest.fixture(scope="module")
def cluster() -> Cluster:
    return _cluster()


def test_unknown_kind_before_crd() -> None:
    with pytest.raises(NotFound, match='no matches for kind "Gizmo"'):
        Cluster().apply({"apiVersion": AV, "kind": "Gizmo", "metadata": {"name": "g"}})


def test_create_prunes_and_defaults(cluster: Cluster) -> None:
    w = cluster.apply(_widget({"replicas": 1, "free": {"x": {"y": 1}}}, "pd"))
    assert w["spec"] == {"replicas": 1, "max": 5, "mode": "a", "free": {"x": {"y": 1}}}
    assert w["metadata"]["generation"] == 1
    assert cluster.get(AV, "Widget", "pd", "default")["spec"] == w["spec"]


def test_strict_write_refuses_pruned_fields(cluster: Cluster) -> None:
    body = _widget({"replicas": 1, "junk": 1}, "strict")
    body["junk"] = 2
    body["metadata"]["bogus"] = 3
    with pytest.raises(BadRequest) as e:
        cluster.apply(body)
    assert e.value.message == (
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
        'unknown field "metadata.bogus", unknown field "junk", unknown field "spec.junk"'
    )
    with pytest.raises(NotFound):
        cluster.get(AV, "Widget", "strict", "default")


NOT_CHECKED = (
    "<nil>: Invalid value: null: some validation rules were not checked because the object was "
    "invalid; correct the existing errors to complete validation"
)
CREATE_ERRORS = [
    ("minimum", {"replicas": -1}, ["spec.replicas: Invalid value: -1: should be greater than or equal to 0"]),
    ("enum", {"replicas": 1, "mode": "c"},
     ['spec.mode: Unsupported value: "c": supported values: "a", "b"', NOT_CHECKED]),
    ("maxLength", {"replicas": 1, "name": "abcd"},
     ["spec.name: Too long: may not be more than 3 characters", NOT_CHECKED]),
    ("type", {"replicas": "x"},
     ["spec.replicas: Invalid value: \"x\": spec.replicas in body must be of type integer: \"string\"", NOT_CHECKED]),
    ("set duplicate", {"replicas": 1, "tags": ["a", "a"]}, ['spec.tags[1]: Duplicate value: "a"']),
    ("cel message", {"replicas": 6}, ["spec: Invalid value: replicas must not exceed max"]),
    ("cel messageExpression reason", {"replicas": 7, "max": 9},
     ["spec.replicas: Forbidden: seven is big"]),
    ("cel fieldPath reason", {"replicas": 8, "max": 9},
     ["spec.replicas: Required value: failed rule: self.replicas != 8"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "want"), [r[1:] for r in CREATE_ERRORS], ids=[r[0] for r in CREATE_ERRORS]
)
def test_create_refusals(cluster: Cluster, spec: Obj, want: list[str]) -> None:
    with pytest.raises(Invalid) as e:
        cluster.apply(_widget(spec, "bad"))
    assert [f"{c.field}: {c.message}" for c in e.value.causes] == want


def test_transition_rule_and_ratcheting(cluster: Cluster) -> None:
    cluster.apply(_widget({"replicas": 1, "mode": "a"}, "tr"))
    w = cluster.get(AV, "Widget", "tr", "default")
    w["spec"]["mode"] = "b"
    with pytest.raises(Invalid, match="mode is immutable"):
        cluster.apply(w)
    w = cluster.get(AV, "Widget", "tr", "default")
    w["metadata"]["labels"] = {"x": "y"}
    assert cluster.apply(w)["metadata"]["generation"] == 1  # metadata only: no bump


def test_status_subresource(cluster: Cluster) -> None:
    w = cluster.apply(_widget({"replicas": 1}, "st"))
    w["status"] = {"ready": 1}
    w = cluster.apply(w)
    assert "status" not in w and w["metadata"]["generation"] == 1  # status ignored on update
    w["status"] = {"ready": 2}
    out = cluster.api.update_status(w)
    assert out["status"] == {"ready": 2} and out["metadata"]["generation"] == 1
    out["status"] = {"ready": -1}
    with pytest.raises(Invalid, match=r"status.ready: FieldValueInvalid: Invalid value: -1"):
        cluster.api.update_status(out)
    out["status"] = {"ready": 1}
    out["spec"]["replicas"] = 2
    assert cluster.apply(out)["metadata"]["generation"] == 2


def test_without_status_subresource_any_change_bumps() -> None:
    c = _cluster(status=False)
    w = c.apply(_widget({"replicas": 1}))
    w["status"] = {"ready": 1}
    w = c.apply(w)
    assert w["status"] == {"ready": 1} and w["metadata"]["generation"] == 2
    with pytest.raises(MethodNotAllowed):
        c.api.update_status(w)


def test_list_selectors_delete_and_crd_deletion() -> None:
    c = _cluster()
    a = _widget({"replicas": 1}, "a")
    a["metadata"]["labels"] = {"app": "x"}
    c.apply(a)
    c.apply(_widget({"replicas": 1}, "b"))
    assert [w["metadata"]["name"] for w in c.list(AV, "Widget", "default", "app=x")] == ["a"]
    c.delete(AV, "Widget", "b", "default")
    assert [w["metadata"]["name"] for w in c.list(AV, "Widget", "default")] == ["a"]
    c.delete(*CRD, "widgets.example.com")
    c.settle()
    assert not c.api.store.range("/registry/widgets.example.com/").kvs
    with pytest.raises(NotFound):
        c.list(AV, "Widget", "default")


def test_update_warnings_ratcheted_rule_and_finalizer() -> None:
    """An unchanged invalid value's rule error is a warning (CRDValidationRatcheting); a new
    finalizer without a domain-qualified path warns (``generateWarningsFromObj``)."""
    c = _cluster()
    c.apply(_widget({"replicas": 1}, "rw"))
    # Tighten the stored object's rule by writing it past validation, as an older CRD allowed.
    key = "/registry/widgets.example.com/default/rw"
    kv = c.api.store.get(key)
    assert kv is not None
    stored = kv.decode()
    stored["spec"]["replicas"] = 6
    c.api._put(key, stored)
    w = c.get(AV, "Widget", "rw", "default")
    w["metadata"]["finalizers"] = ["example.com"]
    c.apply(w)
    assert c.api.warnings == [
        "spec: Invalid value: replicas must not exceed max",
        'metadata.finalizers: "example.com": prefer a domain-qualified finalizer name including '
        "a path (/) to avoid accidental conflicts with other finalizer writers",
    ]


def test_versions_conversion_none_and_unserved() -> None:
    """Conversion strategy None rewrites apiVersion only; an unserved version is not found;
    the object is stored at the storage version."""
    c = Cluster()
    s: Obj = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "n": {"type": "integer"}}}}}  # fmt: skip
    versions = [
        {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": s}},
        {"name": "v2", "served": True, "storage": False, "schema": {"openAPIV3Schema": s}},
        {"name": "v3", "served": False, "storage": False, "schema": {"openAPIV3Schema": s}},
    ]
    c.apply({"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": "gizmos.example.com"},
             "spec": {"group": "example.com", "scope": "Cluster",
                      "names": {"plural": "gizmos", "kind": "Gizmo"}, "versions": versions}})  # fmt: skip
    c.settle()
    out = c.apply({"apiVersion": "example.com/v2", "kind": "Gizmo", "metadata": {"name": "g"},
                   "spec": {"n": 1}})  # fmt: skip
    assert out["apiVersion"] == "example.com/v2" and "namespace" not in out["metadata"]
    assert c.get("example.com/v1", "Gizmo", "g")["spec"] == {"n": 1}
    stored = c.api.store.get("/registry/gizmos.example.com/g")
    assert stored is not None and stored.decode()["apiVersion"] == "example.com/v1"
    with pytest.raises(NotFound):
        c.get("example.com/v3", "Gizmo", "g")


def test_defaults_apply_on_read_of_stored_objects() -> None:
    """A default the stored object lacks (added to the schema later) shows on every read."""
    c = _cluster()
    c.apply(_widget({"replicas": 1}, "rd"))
    key = "/registry/widgets.example.com/default/rd"
    kv = c.api.store.get(key)
    assert kv is not None
    stored = kv.decode()
    del stored["spec"]["max"]
    c.api._put(key, stored)
    assert c.get(AV, "Widget", "rd", "default")["spec"]["max"] == 5
    assert [w["spec"]["max"] for w in c.list(AV, "Widget", "default")] == [5]
