"""Upstream's dry-run storage tests, on the reference apiserver's ``dry_run=True`` writes.

Ports k8s.io/apiserver@v0.37.2 ``pkg/registry/generic/registry/dryrun_test.go`` (the
``DryRunnableStorage`` rows) one level up, through the apiserver's create, update and
delete as ``store.go`` calls them with ``dryRun=All``; upstream's unstructured Pod is a
ConfigMap, ``"field": "value"`` its data. A storage precondition is the request's uid:
the update body's ``metadata.uid`` and the delete's ``uid``. Beyond the table: the
``store.go`` paths a dry run takes above storage (generated names, finalizers and
graceful deletion, an update that would delete, /status, custom resources).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.api.builders import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.watch import ObjectEvent
from reference_impl.clock import SimClock
from reference_impl.errors import AlreadyExists, ApiError, Conflict, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "test-ns"


class Server:
    """An apiserver with namespace ``NS``, counting the committed writes' events."""

    def __init__(self) -> None:
        self.s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
        self.s.create(make_namespace(NS).build())
        self.events: list[ObjectEvent] = []
        self.s.add_event_handler(self.events.append)

    def unchanged(self, body: Callable[[], object]) -> object:
        """``body()``, proving it stored nothing: no revision, no event."""
        rev, seen = self.s.store.revision, len(self.events)
        out = body()
        assert (self.s.store.revision, len(self.events)) == (rev, seen)
        return out

    def get(self) -> Obj:
        return self.s.get("v1", "ConfigMap", "key", NS)


def pod(**meta: Any) -> Obj:
    """``{"kind": "Pod"}``: the object the rows store at ``/pods/key``."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "key", "namespace": NS, **meta},
    }


def with_field(obj: Obj) -> Obj:
    """The rows' updateFunc: ``SetNestedField(u, "value", "field")``."""
    out = copy.deepcopy(obj)
    out["data"] = {"field": "value"}
    return out


def test_TestDryRunCreateDoesntCreate() -> None:
    t = Server()
    t.unchanged(lambda: t.s.create(pod(), dry_run=True))
    with pytest.raises(NotFound):
        t.get()


def test_TestDryRunCreateReturnsObject() -> None:
    t = Server()
    out = t.s.create(pod(labels={"a": "b"}), dry_run=True)
    real = Server().s.create(pod(labels={"a": "b"}))
    meta = out["metadata"]
    assert meta.get("uid") and meta.get("creationTimestamp")
    assert "resourceVersion" not in meta  # Create copies the object it would store
    strip = ("uid", "resourceVersion")
    assert {k: v for k, v in meta.items() if k not in strip} == {
        k: v for k, v in real["metadata"].items() if k not in strip
    }
    assert {k: v for k, v in out.items() if k != "metadata"} == {
        k: v for k, v in real.items() if k != "metadata"
    }


def test_TestDryRunCreateExistingObjectFails() -> None:
    t = Server()
    t.s.create(pod())
    with pytest.raises(AlreadyExists):
        t.unchanged(lambda: t.s.create(pod(), dry_run=True))


def test_TestDryRunUpdateMissingObjectFails() -> None:
    t = Server()
    with pytest.raises(NotFound):
        t.unchanged(lambda: t.s.update(pod(), dry_run=True))


def test_TestDryRunUpdatePreconditions() -> None:
    t = Server()
    created = t.s.create(pod())
    wrong = with_field(created)
    wrong["metadata"]["uid"] = "wrong-uid"
    # ErrCodeInvalidObj, which InterpretUpdateError answers as a Conflict (real or dry)
    with pytest.raises(Conflict, match="UID in precondition: wrong-uid, UID in object meta"):
        t.unchanged(lambda: t.s.update(wrong, dry_run=True))
    with pytest.raises(Conflict, match="Precondition failed"):
        t.unchanged(lambda: t.s.update(wrong))
    out = t.unchanged(lambda: t.s.update(with_field(created), dry_run=True))
    assert isinstance(out, dict) and out["data"] == {"field": "value"}


def test_TestDryRunUpdateDoesntUpdate() -> None:
    t = Server()
    created = t.s.create(pod())
    t.unchanged(lambda: t.s.update(with_field(created), dry_run=True))
    assert t.get() == created


def test_TestDryRunUpdateReturnsObject() -> None:
    t = Server()
    created = t.s.create(pod())
    out = t.s.update(with_field(created), dry_run=True)
    assert out["data"] == {"field": "value"}
    # GuaranteedUpdate copies the updated object: the stored resourceVersion stays.
    assert out["metadata"] == created["metadata"]


def test_TestDryRunDeleteDoesntDelete() -> None:
    t = Server()
    created = t.s.create(pod())
    t.unchanged(lambda: t.s.delete("v1", "ConfigMap", "key", NS, dry_run=True))
    assert t.get() == created


def test_TestDryRunDeleteMissingObjectFails() -> None:
    t = Server()
    with pytest.raises(NotFound):
        t.unchanged(lambda: t.s.delete("v1", "ConfigMap", "key", NS, dry_run=True))


def test_TestDryRunDeleteReturnsObject() -> None:
    t = Server()
    created = t.s.create(pod())
    assert t.s.delete("v1", "ConfigMap", "key", NS, dry_run=True) == created


def test_TestDryRunDeletePreconditions() -> None:
    t = Server()
    created = t.s.create(pod(uid="my-uid"))
    with pytest.raises(Conflict):
        t.unchanged(lambda: t.s.delete("v1", "ConfigMap", "key", NS, uid="wrong-uid", dry_run=True))
    uid = created["metadata"]["uid"]
    t.unchanged(lambda: t.s.delete("v1", "ConfigMap", "key", NS, uid=uid, dry_run=True))
    assert t.get() == created


# -- store.go above the storage -------------------------------------------------------


def test_dry_run_create_generate_name() -> None:
    """``createWithGenerateNameRetry``: a dry run names the object; from its own stream,
    so the next real object's name and uid are the ones it would have had anyway."""
    t, other = Server(), Server()
    body = pod()
    body["metadata"] = {"generateName": "gen-", "namespace": NS}
    out = t.unchanged(lambda: t.s.create(copy.deepcopy(body), dry_run=True))
    assert isinstance(out, dict) and out["metadata"]["name"].startswith("gen-")
    assert len(out["metadata"]["name"]) == len("gen-") + 5
    real, same = t.s.create(copy.deepcopy(body)), other.s.create(copy.deepcopy(body))
    assert (real["metadata"]["name"], real["metadata"]["uid"]) == (
        same["metadata"]["name"], same["metadata"]["uid"],
    )  # fmt: skip


def test_dry_run_create_validates() -> None:
    """Validation runs: an invalid object is refused as for a real create."""
    t = Server()
    bad = pod()
    bad["metadata"]["name"] = "Not_Valid"
    with pytest.raises(ApiError) as real:
        Server().s.create(copy.deepcopy(bad))
    with pytest.raises(type(real.value)) as dry:
        t.unchanged(lambda: t.s.create(copy.deepcopy(bad), dry_run=True))
    assert str(dry.value) == str(real.value)


def test_dry_run_delete_with_finalizers() -> None:
    """``updateForGracefulDeletionAndFinalizers`` dry: the object comes back marked, at
    the stored resourceVersion, and stays as it was."""
    t = Server()
    created = t.s.create(pod(finalizers=["example.com/f"]))
    out = t.unchanged(lambda: t.s.delete("v1", "ConfigMap", "key", NS, dry_run=True))
    assert isinstance(out, dict)
    meta = out["metadata"]
    assert (
        meta["deletionTimestamp"]
        and meta["resourceVersion"] == created["metadata"]["resourceVersion"]
    )
    assert t.get() == created


def test_dry_run_delete_orphan_adds_finalizer() -> None:
    """``deletionFinalizersForGarbageCollection``: the answer holds the orphan finalizer."""
    t = Server()
    created = t.s.create(pod())
    out = t.unchanged(
        lambda: t.s.delete("v1", "ConfigMap", "key", NS, propagation_policy="Orphan", dry_run=True)
    )
    assert isinstance(out, dict) and out["metadata"]["finalizers"] == ["orphan"]
    assert out["metadata"]["deletionTimestamp"]
    assert t.get() == created


def test_dry_run_update_removing_last_finalizer() -> None:
    """``deleteWithoutFinalizers`` dry: the marked object stays, finalizer and all."""
    t = Server()
    t.s.create(pod(finalizers=["example.com/f"]))
    marked = t.s.delete("v1", "ConfigMap", "key", NS)
    assert marked is not None
    cleared = copy.deepcopy(marked)
    cleared["metadata"]["finalizers"] = []
    out = t.unchanged(lambda: t.s.update(cleared, dry_run=True))
    assert out == marked == t.get()


def test_dry_run_update_status() -> None:
    """The /status subresource: the answer has the new status; storage the old one."""
    t = Server()
    rq = t.s.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": NS},
                     "spec": {"hard": {"pods": "1"}}})  # fmt: skip
    sent = copy.deepcopy(rq)
    sent["status"] = {"hard": {"pods": "1"}, "used": {"pods": "0"}}
    out = t.unchanged(lambda: t.s.update_status(sent, dry_run=True))
    assert isinstance(out, dict) and out["status"] == sent["status"]
    assert out["metadata"]["resourceVersion"] == rq["metadata"]["resourceVersion"]
    assert t.s.get("v1", "ResourceQuota", "q", NS) == rq


def test_dry_run_custom_resource() -> None:
    """A custom resource's writes (``pkg/registry/customresource`` behind the same
    store): defaults and validation apply to a dry run; nothing is stored."""
    from reference_impl.cluster import Cluster

    c = Cluster()
    version: Obj = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "integer", "minimum": 0}, "mode": {"type": "string", "default": "a"}}}}}}}  # fmt: skip
    c.apply({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "widgets.example.com"},
             "spec": {"group": "example.com", "scope": "Namespaced",
                      "names": {"plural": "widgets", "kind": "Widget"}, "versions": [version]}})  # fmt: skip
    c.settle()
    s = c.api
    body = {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"}, "spec": {"size": 1}}  # fmt: skip
    rev = s.store.revision
    out = s.create(copy.deepcopy(body), dry_run=True)
    assert out["spec"] == {"size": 1, "mode": "a"} and out["metadata"]["uid"]
    assert "resourceVersion" not in out["metadata"] and s.store.revision == rev
    assert s.try_get("example.com/v1", "Widget", "w", "default") is None
    bad = copy.deepcopy(body)
    bad["spec"]["size"] = -1
    with pytest.raises(ApiError, match="spec.size"):
        s.create(bad, dry_run=True)
    stored = s.create(
        {**copy.deepcopy(body), "metadata": {**body["metadata"], "finalizers": ["x.io/f"]}}
    )
    rev = s.store.revision
    changed = copy.deepcopy(stored)
    changed["spec"]["size"] = 2
    out = s.update(changed, dry_run=True)
    assert (
        out["spec"]["size"] == 2
        and out["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    )
    marked = s.delete("example.com/v1", "Widget", "w", "default", dry_run=True)
    assert marked is not None and marked["metadata"]["deletionTimestamp"]
    assert s.store.revision == rev
    assert s.get("example.com/v1", "Widget", "w", "default") == stored


def test_dry_run_reaches_admission_policies() -> None:
    """Admission sees the dry run (``Attributes.IsDryRun``): a ValidatingAdmissionPolicy
    reads it as ``request.dryRun``."""
    from reference_impl.cluster import Cluster

    c = Cluster()
    v1 = "admissionregistration.k8s.io/v1"
    rules = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                "resources": ["configmaps"]}]}  # fmt: skip
    c.apply({"apiVersion": v1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"},
             "spec": {"failurePolicy": "Fail", "matchConstraints": rules,
                      "validations": [{"expression": "!request.dryRun", "message": "no dry runs"}]}})  # fmt: skip
    c.apply({"apiVersion": v1, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "b"},
             "spec": {"policyName": "p", "validationActions": ["Deny"]}})  # fmt: skip
    c.settle()
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "default"},
    }
    with pytest.raises(ApiError, match="no dry runs"):
        c.api.create(copy.deepcopy(cm), dry_run=True)
    assert c.api.create(copy.deepcopy(cm))["metadata"]["name"] == "c"
