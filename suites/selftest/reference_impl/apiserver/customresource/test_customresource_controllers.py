"""Controllers that walk every served resource see custom resources too (discovery lists
each Established CRD's resource, ``customresource_discovery_controller.go``): the garbage
collector follows ownerReferences to and from custom resources, and the namespace
controller deletes a terminating namespace's custom resources (``ServerPreferredNamespacedResources``)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.customresource.discovery import (
    kube_aware_key,
    served_custom_resources,
)
from reference_impl.cluster import Cluster

Obj = dict[str, Any]
CRD = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
AV = "example.com/v1"


def _crd(versions: list[str] | None = None, scope: str = "Namespaced") -> Obj:
    names = versions or ["v1"]
    return {"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "scope": scope,
                     "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": v, "served": True, "storage": i == 0, "schema": {
                         "openAPIV3Schema": {"type": "object",
                                             "x-kubernetes-preserve-unknown-fields": True}}}
                                  for i, v in enumerate(names)]}}  # fmt: skip


def _cluster() -> Cluster:
    c = Cluster()
    c.apply(_crd())
    c.settle()
    return c


def _gadget(name: str, ns: str = "default", owners: list[Obj] | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": ns}
    if owners:
        meta["ownerReferences"] = owners
    return {"apiVersion": AV, "kind": "Gadget", "metadata": meta}


def _ref(obj: Obj, block: bool = False) -> Obj:
    out = {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
           "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"]}  # fmt: skip
    return {**out, "blockOwnerDeletion": True} if block else out


def test_custom_resource_dependent_of_built_in_owner() -> None:
    c = _cluster()
    cm = c.apply(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "owner", "namespace": "default"},
        }
    )
    c.apply(_gadget("dep", owners=[_ref(cm)]))
    c.settle()
    c.delete("v1", "ConfigMap", "owner", "default")
    c.advance(1)
    assert c.api.try_get(AV, "Gadget", "dep", "default") is None


def test_built_in_dependent_of_custom_resource_foreground() -> None:
    c = _cluster()
    owner = c.apply(_gadget("own"))
    c.apply(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "dep",
                "namespace": "default",
                "ownerReferences": [_ref(owner, block=True)],
            },
        }
    )
    c.settle()
    marked = c.api.delete(AV, "Gadget", "own", "default", propagation_policy="Foreground")
    assert marked is not None and marked["metadata"]["finalizers"] == ["foregroundDeletion"]
    c.advance(1)
    assert c.api.try_get("v1", "ConfigMap", "dep", "default") is None
    assert c.api.try_get(AV, "Gadget", "own", "default") is None


def test_orphaned_custom_resource_keeps_living() -> None:
    c = _cluster()
    owner = c.apply(_gadget("own"))
    c.apply(_gadget("dep", owners=[_ref(owner)]))
    c.settle()
    c.api.delete(AV, "Gadget", "own", "default", propagation_policy="Orphan")
    c.advance(1)
    dep = c.api.get(AV, "Gadget", "dep", "default")
    assert "ownerReferences" not in dep["metadata"]
    assert c.api.try_get(AV, "Gadget", "own", "default") is None


def test_namespace_deletion_deletes_custom_resources() -> None:
    c = _cluster()
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "nsx"}})
    c.apply(_gadget("inns", "nsx"))
    c.settle()
    c.delete("v1", "Namespace", "nsx")
    c.advance(30)
    assert c.api.try_get(AV, "Gadget", "inns", "nsx") is None
    assert c.api.try_get("v1", "Namespace", "nsx") is None


@pytest.mark.parametrize(
    ("versions", "want"),
    [(["v1"], "v1"), (["v1beta1", "v1"], "v1"), (["v1alpha1", "v1beta2", "v1beta1"], "v1beta2"),
     (["v2", "v10", "v1"], "v10"), (["foo10", "foo1", "v1alpha1"], "v1alpha1")],
)  # fmt: skip
def test_discovery_prefers_kube_aware_version(versions: list[str], want: str) -> None:
    c = Cluster()
    c.apply(_crd(versions, scope="Cluster"))
    c.settle()
    assert [i.api_version for i in served_custom_resources(c.api.store)] == [f"example.com/{want}"]
    assert served_custom_resources(c.api.store, namespaced=True) == []


def test_kube_aware_order() -> None:
    """``CompareKubeAwareVersionStrings``' documented order."""
    order = ["v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2",
             "foo1", "foo10"]  # fmt: skip
    assert sorted(reversed(order), key=kube_aware_key) == order
