"""CRD deletion (apiextensions-apiserver ``pkg/registry/customresourcedefinition/etcd.go``
``REST.Delete`` and ``pkg/controller/finalizer/crd_finalizer.go`` ``CRDFinalizer``): the
first delete marks the CRD Terminating with the cleanup finalizer; the finalizer deletes
the instances, waits for them to be gone, then removes itself; creates are refused while
the CRD is terminating. Upstream has no unit test for the finalizer; these follow
``test/integration/finalization_test.go`` and ``basic_test.go``'s deletion checks."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.cluster import Cluster
from reference_impl.errors import Forbidden, NotFound

Obj = dict[str, Any]
CRD = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
NAME = "gadgets.example.com"
AV = "example.com/v1"
FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def _crd(name: str = NAME, plural: str = "gadgets", kind: str = "Gadget") -> Obj:
    return {"apiVersion": CRD[0], "kind": CRD[1], "metadata": {"name": name},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": plural, "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                         "openAPIV3Schema": {"type": "object",
                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}  # fmt: skip


def _gadget(name: str, ns: str = "default", finalizers: list[str] | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": ns}
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": AV, "kind": "Gadget", "metadata": meta}


def _cluster() -> Cluster:
    c = Cluster()
    c.apply(_crd())
    c.settle()
    return c


def _terminating(crd: Obj) -> Obj:
    conds = [x for x in crd["status"]["conditions"] if x["type"] == "Terminating"]
    assert len(conds) == 1
    return {k: conds[0][k] for k in ("status", "reason", "message")}


def test_first_delete_marks_terminating_then_finalizer_removes_instances() -> None:
    c = _cluster()
    c.apply(_gadget("a"))
    c.apply(_gadget("b", "kube-system"))
    out = c.api.delete(*CRD, NAME)  # the reply is the marked CRD, before any reaction
    assert out is not None
    assert out["metadata"]["deletionTimestamp"]
    assert out["metadata"]["finalizers"] == [FINALIZER]
    assert _terminating(out) == {
        "status": "True", "reason": "InstanceDeletionPending",
        "message": "CustomResourceDefinition marked for deletion; CustomResource deletion "
        "will begin soon",
    }  # fmt: skip
    c.settle()
    assert c.api.try_get(*CRD, NAME) is None
    assert not c.api.store.range("/registry/gadgets.example.com/").kvs
    with pytest.raises(NotFound):
        c.list(AV, "Gadget")


def test_create_refused_while_terminating_reads_and_deletes_served() -> None:
    c = _cluster()
    c.apply(_gadget("held", finalizers=["example.com/hold"]))
    c.api.delete(*CRD, NAME)
    c.settle()
    crd = c.api.get(*CRD, NAME)
    assert _terminating(crd) == {
        "status": "True", "reason": "InstanceDeletionInProgress",
        "message": "CustomResource deletion is in progress",
    }  # fmt: skip
    held = c.get(AV, "Gadget", "held", "default")
    assert held["metadata"]["deletionTimestamp"]  # deleted, waiting on its finalizer
    with pytest.raises(Forbidden) as e:
        c.api.create(_gadget("new"))
    assert e.value.message == (
        'gadgets.example.com "new" is forbidden: create not allowed while custom resource '
        "definition is terminating"
    )
    held["metadata"]["finalizers"] = []
    c.api.update(held)
    c.advance(5)  # deleteInstances' next poll
    assert c.api.try_get(*CRD, NAME) is None


def _spy(c: Cluster) -> list[Obj]:
    """The CRD status writes' bodies (the last one, dropping the finalizer, is never
    stored: the CRD goes with it)."""
    seen: list[Obj] = []
    write = c.api.update_status

    def spy(manifest: Obj) -> Obj:
        if manifest.get("kind") == "CustomResourceDefinition":
            seen.append(manifest)
        return write(manifest)

    c.api.update_status = spy  # type: ignore[method-assign]
    return seen


def test_instances_not_gone_within_a_minute() -> None:
    """``deleteInstances`` polls for a minute, then reports InstanceDeletionCheck and the
    rate-limited retry starts over with InstanceDeletionInProgress."""
    c = _cluster()
    c.apply(_gadget("held", finalizers=["example.com/hold"]))
    seen = _spy(c)
    c.api.delete(*CRD, NAME)
    c.settle()
    c.advance(55)
    assert [_terminating(x)["reason"] for x in seen] == ["InstanceDeletionInProgress"]
    c.advance(10)
    assert [_terminating(x) for x in seen[1:]] == [
        {"status": "True", "reason": "InstanceDeletionCheck",
         "message": "could not confirm zero CustomResources remaining: context deadline exceeded"},
        {"status": "True", "reason": "InstanceDeletionInProgress",
         "message": "CustomResource deletion is in progress"},
    ]  # fmt: skip
    crd = c.api.get(*CRD, NAME)
    assert crd["metadata"]["finalizers"] == [FINALIZER]


def test_never_established() -> None:
    c = _cluster()
    # The same kind in the same group: its names are never accepted, so never Established.
    c.apply(_crd("others.example.com", "others", "Gadget"))
    c.settle()
    other = c.api.get(*CRD, "others.example.com")
    assert not any(x["type"] == "Established" and x["status"] == "True"
                   for x in other["status"]["conditions"])  # fmt: skip
    seen = _spy(c)
    c.api.delete(*CRD, "others.example.com")
    c.settle()
    assert c.api.try_get(*CRD, "others.example.com") is None
    assert _terminating(seen[-1]) == {
        "status": "False",
        "reason": "NeverEstablished",
        "message": "resource was never established",
    }
    assert c.api.try_get(*CRD, NAME) is not None


def test_second_delete_is_the_generic_stores() -> None:
    c = _cluster()
    c.apply(_gadget("held", finalizers=["example.com/hold"]))
    first = c.api.delete(*CRD, NAME)
    assert first is not None
    second = c.api.delete(*CRD, NAME, propagation_policy="Background")
    assert second is not None
    assert second["metadata"]["finalizers"] == [FINALIZER]
    assert second["metadata"]["deletionTimestamp"] == first["metadata"]["deletionTimestamp"]
