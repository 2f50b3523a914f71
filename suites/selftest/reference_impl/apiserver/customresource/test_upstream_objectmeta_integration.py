"""Custom resource writes with malformed or embedded ObjectMeta: apiextensions-apiserver
v0.37.2 ``test/integration/objectmeta_test.go`` (``TestPostInvalidObjectMeta``,
``TestEmbeddedResources``) against the reference's apiserver. The reference writes with
fieldValidation=Strict, so the fixtures' fields that upstream's lenient client saw pruned
(``metadata.unknown``, ``invalidDefaults``) are left out here."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from reference_impl.cluster import Cluster
from reference_impl.errors import BadRequest, Invalid

Obj = dict[str, Any]
CRD = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
AV = "tests.example.com/v1beta1"

SCHEMA = yaml.safe_load("""
type: object
properties:
  embedded:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
  noEmbeddedObject:
    type: object
    x-kubernetes-preserve-unknown-fields: true
  embeddedNested:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
    properties:
      embedded:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
  defaults:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
    default:
      apiVersion: v1
      kind: Pod
      labels:
        foo: bar
""")
INSTANCE = yaml.safe_load("""
kind: Foo
apiVersion: tests.example.com/v1beta1
embedded:
  apiVersion: foo/v1
  kind: Foo
  metadata:
    name: foo
    unspecified: bar
noEmbeddedObject:
  apiVersion: foo/v1
  kind: Foo
  metadata:
    name: foo
    unspecified: bar
embeddedNested:
  apiVersion: foo/v1
  kind: Foo
  metadata:
    name: foo
    unspecified: bar
  embedded:
    apiVersion: foo/v1
    kind: Foo
    metadata:
      name: foo
      unspecified: bar
""")
EXPECTED = yaml.safe_load("""
kind: Foo
apiVersion: tests.example.com/v1beta1
embedded:
  apiVersion: foo/v1
  kind: Foo
  metadata:
    name: foo
noEmbeddedObject:
  apiVersion: foo/v1
  kind: Foo
  metadata:
    name: foo
    unspecified: bar
embeddedNested:
  apiVersion: foo/v1
  kind: Foo
  metadata:
    name: foo
  embedded:
    apiVersion: foo/v1
    kind: Foo
    metadata:
      name: foo
defaults:
  apiVersion: v1
  kind: Pod
  labels:
    foo: bar
""")
WRONGLY_TYPED = yaml.safe_load("""
kind: Foo
apiVersion: tests.example.com/v1beta1
embedded:
  apiVersion: foo/v1
  kind: Foo
  metadata:
    name: instance
    namespace: 42
""")
INVALID = yaml.safe_load("""
kind: Foo
apiVersion: tests.example.com/v1beta1
embedded:
  apiVersion: foo/v1
  kind: "%"
  metadata:
    name: ..
embeddedNested:
  apiVersion: foo/v1
  kind: "%"
  metadata:
    name: ..
  embedded:
    apiVersion: foo/v1
    kind: "%"
    metadata:
      name: ..
""")
# Upstream matches substrings of the aggregate message; here the causes' field and body.
INVALID_ERRORS = [
    ("metadata.labels", 'Invalid value: "x y"'),
    ("embedded.kind", 'Invalid value: "%"'),
    ("embedded.metadata.name", 'Invalid value: ".."'),
    ("embeddedNested.kind", 'Invalid value: "%"'),
    ("embeddedNested.metadata.name", 'Invalid value: ".."'),
    ("embeddedNested.embedded.kind", 'Invalid value: "%"'),
    ("embeddedNested.embedded.metadata.name", 'Invalid value: ".."'),
]


def _has_all(e: Invalid) -> None:
    for path, body in INVALID_ERRORS:
        assert any(c.field == path and c.message.startswith(body) for c in e.causes), path


def _crd(schema: Obj, group: str = "tests.example.com", version: str = "v1beta1") -> Obj:
    return {"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": f"foos.{group}"},
            "spec": {"group": group, "scope": "Cluster",
                     "names": {"plural": "foos", "singular": "foo", "kind": "Foo",
                               "listKind": "FooList"},
                     "versions": [{"name": version, "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}  # fmt: skip


@pytest.fixture(scope="module")
def cluster() -> Cluster:
    c = Cluster()
    c.apply(_crd(SCHEMA))
    c.settle()
    return c


def _named(body: Obj, name: str) -> Obj:
    out = copy.deepcopy(body)
    out["metadata"] = {"name": name}
    return out


def _known(body: Obj) -> Obj:
    """``INSTANCE`` without the embedded metadata's unknown fields (Strict refuses them)."""
    out = copy.deepcopy(body)
    for m in (out["embedded"], out["embeddedNested"], out["embeddedNested"]["embedded"]):
        m["metadata"].pop("unspecified")
    return out


def test_embedded_resources_pruned_and_defaulted(cluster: Cluster) -> None:
    """Upstream's lenient write prunes the embedded metadata's unknown fields; the strict
    one names them (the paths upstream's Warn would warn about), in order."""
    with pytest.raises(BadRequest) as e:
        cluster.api.create(_named(INSTANCE, "foo"))
    assert e.value.message.endswith(
        'strict decoding error: unknown field "embedded.metadata.unspecified", unknown field '
        '"embeddedNested.embedded.metadata.unspecified", unknown field '
        '"embeddedNested.metadata.unspecified"'
    )
    foo = cluster.api.create(_named(_known(INSTANCE), "foo"))
    assert {k: v for k, v in foo.items() if k != "metadata"} == EXPECTED


def test_embedded_resources_wrongly_typed(cluster: Cluster) -> None:
    with pytest.raises(BadRequest) as e:
        cluster.api.create(_named(WRONGLY_TYPED, "wrong"))
    assert "embedded.metadata: Invalid value" in e.value.message
    assert e.value.message == (
        'Foo in version "v1beta1" cannot be handled as a Foo: embedded.metadata: Invalid value: '
        '{"name":"instance","namespace":42}: json: cannot unmarshal number into Go struct field '
        "ObjectMeta.namespace of type string"
    )


def _invalid(name: str) -> Obj:
    body = _named(INVALID, name)
    body["metadata"]["labels"] = {"foo": "x y"}
    return body


def test_embedded_resources_invalid_create(cluster: Cluster) -> None:
    with pytest.raises(Invalid) as e:
        cluster.api.create(_invalid("invalid"))
    _has_all(e.value)


def test_embedded_resources_invalid_update(cluster: Cluster) -> None:
    valid = cluster.api.create(_named(_known(INSTANCE), "valid"))
    for k, v in _invalid("valid").items():
        if k != "metadata":
            valid[k] = v
    valid["metadata"]["labels"] = {"foo": "x y"}
    with pytest.raises(Invalid) as e:
        cluster.api.update(valid)
    _has_all(e.value)


def test_post_invalid_object_meta() -> None:
    """``TestPostInvalidObjectMeta``: a wrongly typed label is a 400 naming the decode;
    a null generation is read as unset, then set to 1."""
    c = Cluster()
    c.apply(_crd({"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                 "mygroup.example.com", "v1beta1"))  # fmt: skip
    body: Obj = {"apiVersion": "mygroup.example.com/v1beta1", "kind": "Foo",
                 "metadata": {"name": "foo", "generation": None,
                              "labels": {"foo": 42, "bar": "abc"}}}  # fmt: skip
    c.settle()
    with pytest.raises(BadRequest) as e:
        c.api.create(copy.deepcopy(body))
    assert "cannot be handled" in e.value.message
    body["metadata"]["labels"] = {"bar": "abc"}
    out = c.api.create(body)
    assert out["metadata"]["generation"] == 1
    assert out["metadata"]["labels"] == {"bar": "abc"}


@pytest.mark.parametrize("meta", ["x", 5, ["a"], True])
def test_root_metadata_of_wrong_type(cluster: Cluster, meta: Any) -> None:
    """The root metadata decodes into ObjectMeta first: anything but an object is a 400."""
    kind = {str: "string", int: "number", list: "array", bool: "bool"}[type(meta)]
    with pytest.raises(BadRequest) as e:
        cluster.api.create({"apiVersion": AV, "kind": "Foo", "metadata": meta})
    assert e.value.message == (
        f'Foo in version "v1beta1" cannot be handled as a Foo: json: cannot unmarshal {kind} '
        "into Go value of type v1.ObjectMeta"
    )


def test_root_metadata_written_back_as_object_meta(cluster: Cluster) -> None:
    """``SetObjectMeta``: empty labels, an empty generateName and nulls are not kept."""
    out = cluster.api.create(
        {
            "apiVersion": AV,
            "kind": "Foo",
            "metadata": {
                "name": "meta-zero",
                "labels": {},
                "generateName": "",
                "annotations": None,
            },
        }
    )
    assert "labels" not in out["metadata"]
    assert "generateName" not in out["metadata"]
    assert "annotations" not in out["metadata"]


def test_embedded_unknown_metadata_strict(cluster: Cluster) -> None:
    """Strict decoding names the embedded metadata's unknown fields (coerce's paths)."""
    body = {
        "apiVersion": AV,
        "kind": "Foo",
        "metadata": {"name": "strict", "bogus": 1},
        "embedded": {"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "x", "zz": 1}},
    }
    with pytest.raises(BadRequest) as e:
        cluster.api.create(body)
    assert e.value.message == (
        'Foo in version "v1beta1" cannot be handled as a Foo: strict decoding error: '
        'unknown field "metadata.bogus", unknown field "embedded.metadata.zz"'
    )
