"""A deprecated CRD version's warning: apimachinery ``pkg/version/helpers_test.go``
TestCompareKubeAwareVersionStrings and apiextensions-apiserver
``customresource_handler_test.go`` Test_defaultDeprecationWarning, row for row, then the
warning on every verb through the reference cluster (``customresource_handler.go``
ServeHTTP adds it ahead of the handler's own)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.customresource.deprecation import (
    compare_kube_aware,
    default_deprecation_warning,
)
from reference_impl.cluster import Cluster, ClusterConfig

Obj = dict[str, Any]

COMPARE = [
    ("v1", "v2", False), ("v2", "v1", True), ("v10", "v2", True), ("v1", "v2alpha1", True),
    ("v1", "v2beta1", True), ("v1alpha2", "v1alpha1", True), ("v1beta1", "v2alpha3", True),
    ("v1alpha10", "v1alpha2", True), ("v1beta10", "v1beta2", True), ("foo", "v1beta2", False),
    ("bar", "foo", True), ("version1", "version2", True), ("version1", "version10", True),
]  # fmt: skip


@pytest.mark.parametrize(("v1", "v2", "greater"), COMPARE, ids=[f"{a}-{b}" for a, b, _ in COMPARE])
def test_compare_kube_aware_version_strings(v1: str, v2: str, greater: bool) -> None:
    assert (compare_kube_aware(v1, v2) > 0) is greater


def _spec(*versions: tuple[str, bool, bool]) -> Obj:
    return {"group": "example.com", "names": {"kind": "Widget"},
            "versions": [{"name": n, "served": s, "deprecated": d} for n, s, d in versions]}  # fmt: skip


_SORTING = [(f"v{m}{t}", m != 3, False) for m in (1, 2, 3) for t in ("", "alpha1", "alpha2", "beta1", "beta2")]
DEFAULT_WARNING = [
    pytest.param("v1", _spec(("v1", True, True), ("v2", True, True), ("v3", False, False)),
                 "example.com/v1 Widget is deprecated", id="no replacement"),
    pytest.param("v1", _spec(*_SORTING),
                 "example.com/v1 Widget is deprecated; use example.com/v2 Widget",
                 id="replacement sorting"),
    pytest.param("v2", _spec(("v1", True, False), ("v3", False, False), ("v3alpha1", True, False),
                             ("v3beta1", True, False), ("v4", True, True)),
                 "example.com/v2 Widget is deprecated",
                 id="no newer replacement of equal stability"),
]  # fmt: skip


@pytest.mark.parametrize(("version", "spec", "want"), DEFAULT_WARNING)
def test_default_deprecation_warning(version: str, spec: Obj, want: str) -> None:
    assert default_deprecation_warning(version, spec) == want


def _crd(c: Cluster, **v1: Any) -> None:
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    c.apply({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "widgets.example.com"},
             "spec": {"group": "example.com", "scope": "Namespaced",
                      "names": {"plural": "widgets", "kind": "Widget"},
                      "versions": [
                          {"name": "v1", "served": True, "storage": False, "schema": schema, **v1},
                          {"name": "v2", "served": True, "storage": True, "schema": schema}]}})  # fmt: skip
    c.settle()


def _widget(version: str, name: str) -> Obj:
    return {"apiVersion": f"example.com/{version}", "kind": "Widget",
            "metadata": {"name": name, "namespace": "default"}}  # fmt: skip


@pytest.mark.parametrize(("v1", "want"), [
    pytest.param({"deprecated": True}, "example.com/v1 Widget is deprecated; use example.com/v2 Widget",
                 id="default warning"),
    pytest.param({"deprecated": True, "deprecationWarning": "v1 goes away"}, "v1 goes away",
                 id="own warning"),
])  # fmt: skip
def test_a_deprecated_crd_version_warns_on_every_verb(v1: Obj, want: str) -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    _crd(c, **v1)
    c.create(_widget("v1", "w"))
    assert c.write_warnings == (want,)
    c.create(_widget("v2", "x"))
    assert c.write_warnings == ()
    c.get("example.com/v1", "Widget", "w", "default")
    assert c.read_warnings == (want,)
    c.list("example.com/v2", "Widget", "default")
    assert c.read_warnings == ()
    c.list("example.com/v1", "Widget", "default")
    assert c.read_warnings == (want,)
    c.update(c.get("example.com/v1", "Widget", "w", "default"))
    assert c.write_warnings == (want,)
    c.delete("example.com/v1", "Widget", "w", "default")
    assert c.write_warnings == (want,)
    c.delete("example.com/v2", "Widget", "x", "default")
    assert c.write_warnings == ()
