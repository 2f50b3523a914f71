"""Rows of the scale subresource's upstream tests (v1.37.2) on the reference's
``reference_impl/apiserver/scale.py``:

* ``pkg/registry/apps/{deployment,replicaset,statefulset}/storage/storage_test.go`` and
  ``pkg/registry/core/replicationcontroller/storage/storage_test.go``: TestScaleGet,
  TestScaleUpdate, TestScalePatchErrors, TestScalePatchConflicts (its two writers run
  interleaved, not concurrently: the reference is single-threaded);
* ``pkg/apis/autoscaling/validation/validation_test.go`` TestValidateScale;
* apiextensions-apiserver ``pkg/registry/customresource/etcd_test.go``: TestScaleGet,
  TestScaleGetWithoutSpecReplicas, TestScaleUpdate, TestScaleUpdateWithoutSpecReplicas,
  TestScaleUpdateWithoutResourceVersion, TestScaleUpdateWithoutResourceVersionWithConflicts,
  TestScaleUpdateWithResourceVersionWithConflicts.

Upstream writes its fixtures straight into storage; here they go through the apiserver
(status through /status), so each parent is a valid object of its kind.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.apiserver import scale as scale_subresource
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import ApiError, BadRequest, Conflict, Invalid, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"
CR_AV = "mygroup.example.com/v1beta1"
TEMPLATE: Obj = {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
    {"name": "c", "image": "img", "imagePullPolicy": "IfNotPresent",
     "terminationMessagePolicy": "File"}],
    "restartPolicy": "Always", "dnsPolicy": "ClusterFirst"}}  # fmt: skip


def _server() -> APIServer:
    srv = APIServer(MVCCStore(), SimClock(), Rng(1).child("apiserver"), FeatureGates())
    srv.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    return srv


def _parent(kind: str, name: str = "foo") -> Obj:
    """``validNew<Kind>``: 7 replicas selecting a=b."""
    api_version = "v1" if kind == "ReplicationController" else "apps/v1"
    selector: Obj = {"a": "b"} if kind == "ReplicationController" else {"matchLabels": {"a": "b"}}
    spec: Obj = {"replicas": 7, "selector": selector, "template": copy.deepcopy(TEMPLATE)}
    if kind == "StatefulSet":
        spec["serviceName"] = "svc"
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": NS},
            "spec": spec}  # fmt: skip


KINDS = ["Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"]


def _created(srv: APIServer, kind: str, status_replicas: int = 5) -> Obj:
    obj = srv.create(_parent(kind))
    return srv.update_status({**obj, "status": {"replicas": status_replicas}})


def _scale_body(name: str, replicas: int, **meta: Any) -> Obj:
    return {"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": name, "namespace": NS, **meta},
            "spec": {"replicas": replicas}}  # fmt: skip


# -- apps and core registries -------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_scale_get(kind: str) -> None:
    """TestScaleGet: the parent's identity, spec and status replicas, selector string."""
    srv = _server()
    parent = _created(srv, kind)
    meta = parent["metadata"]
    got = srv.get_scale(parent["apiVersion"], kind, "foo", NS)
    assert got == {
        "apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": "foo", "namespace": NS, "uid": meta["uid"],
                     "resourceVersion": meta["resourceVersion"],
                     "creationTimestamp": meta["creationTimestamp"]},
        "spec": {"replicas": 7}, "status": {"replicas": 5, "selector": "a=b"},
    }  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_scale_update(kind: str) -> None:
    """TestScaleUpdate: replicas move into the parent's spec (its generation goes up);
    a stale resourceVersion is a conflict."""
    srv = _server()
    parent = _created(srv, kind)
    av = parent["apiVersion"]
    out = srv.update_scale(av, kind, _scale_body("foo", 12))
    assert out["spec"] == {"replicas": 12}
    assert srv.get_scale(av, kind, "foo", NS)["spec"]["replicas"] == 12
    stored = srv.get(av, kind, "foo", NS)
    assert stored["spec"]["replicas"] == 12
    assert stored["metadata"]["generation"] == parent["metadata"]["generation"] + 1
    assert stored["status"]["replicas"] == 5
    stale = parent["metadata"]["resourceVersion"]
    with pytest.raises(Conflict, match="the object has been modified"):
        srv.update_scale(av, kind, _scale_body("foo", 15, resourceVersion=stale))
    assert srv.get(av, kind, "foo", NS)["spec"]["replicas"] == 12


@pytest.mark.parametrize("kind", KINDS)
def test_scale_patch_errors(kind: str) -> None:
    """TestScalePatchErrors: a missing parent is NotFound (the scale resource named); a UID
    or resourceVersion that is not the parent's is a conflict."""
    srv = _server()
    av = _parent(kind)["apiVersion"]
    group = "" if kind == "ReplicationController" else ".apps"
    resource = f"{kind.lower()}s/scale{group}"
    with pytest.raises(NotFound, match=f'^{resource} "bad-name" not found$'):
        srv.patch_scale(av, kind, "bad-name", NS, {"spec": {"replicas": 3}})
    parent = _created(srv, kind)
    with pytest.raises(
        Conflict, match="Precondition failed: UID in precondition: 123, UID in object meta: "
    ):
        srv.patch_scale(av, kind, "foo", NS, {"metadata": {"uid": "123"}})
    with pytest.raises(Conflict, match="the object has been modified"):
        srv.patch_scale(av, kind, "foo", NS, {"metadata": {"resourceVersion": "123"}})
    assert (
        srv.get(av, kind, "foo", NS)["metadata"]["resourceVersion"]
        == parent["metadata"]["resourceVersion"]
    )


@pytest.mark.parametrize("kind", KINDS)
def test_scale_patch_conflicts(kind: str) -> None:
    """TestScalePatchConflicts: label patches of the parent and replica patches of its
    scale, interleaved; each sees its own write."""
    srv = _server()
    av = _created(srv, kind)["apiVersion"]
    for i in range(20):
        cur = srv.get(av, kind, "foo", NS)
        cur["metadata"]["labels"] = {"timestamp": str(i)}
        assert srv.update(cur)["metadata"]["labels"]["timestamp"] == str(i)
        out = srv.patch_scale(av, kind, "foo", NS, {"spec": {"replicas": i}})
        assert out["spec"].get("replicas", 0) == i


VALIDATE_SCALE = [
    ("success replicas 1", {"spec": {"replicas": 1}}, ""),
    ("success replicas 10", {"spec": {"replicas": 10}}, ""),
    ("success replicas 0", {"spec": {"replicas": 0}}, ""),
    ("replicas -1", {"spec": {"replicas": -1}}, "must be greater than or equal to 0"),
    ("managedFields operation",
     {"metadata": {"managedFields": [{"operation": "InvalidOperation", "fieldsType": "FieldsV1",
                                      "apiVersion": "v1"}]}, "spec": {"replicas": 1}},
     "metadata.managedFields[0].operation: Unsupported value"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "scale", "msg"), VALIDATE_SCALE, ids=[r[0] for r in VALIDATE_SCALE]
)
def test_validate_scale(case: str, scale: Obj, msg: str) -> None:
    """TestValidateScale: the first error's text."""
    scale = {"metadata": {"name": "frontend", "namespace": NS}, **scale}
    causes = scale_subresource.validate_scale(scale)
    if not msg:
        assert causes == []
    else:
        assert causes and msg in f"{causes[0].field}: {causes[0].message}"  # errs[0].Error()


def test_negative_replicas_invalid_on_scale() -> None:
    """``ValidateScaleUpdate`` through the handler: Scale.autoscaling, spec.replicas."""
    srv = _server()
    _created(srv, "Deployment")
    with pytest.raises(Invalid) as e:
        srv.update_scale("apps/v1", "Deployment", _scale_body("foo", -1))
    assert str(e.value).startswith('Scale.autoscaling "foo" is invalid: spec.replicas:')
    assert [(c.field, c.message) for c in e.value.causes] == [
        ("spec.replicas", "Invalid value: -1: must be greater than or equal to 0")
    ]


def test_selector_string_sorted_by_key() -> None:
    """``LabelSelectorAsSelector(...).String()``: requirements sorted by key."""
    sel = {"matchLabels": {"z": "1", "a": "2"}, "matchExpressions": [
        {"key": "m", "operator": "In", "values": ["y", "x"]},
        {"key": "b", "operator": "DoesNotExist"}, {"key": "n", "operator": "Exists"},
        {"key": "c", "operator": "NotIn", "values": ["q"]}]}  # fmt: skip
    assert scale_subresource.selector_string(sel) == "a=2,!b,c notin (q),m in (x,y),n,z=1"


def test_kind_without_scale_subresource() -> None:
    srv = _server()
    with pytest.raises(NotFound):
        srv.get_scale("apps/v1", "DaemonSet", "foo", NS)


# -- custom resources (apiextensions-apiserver etcd_test.go) -----------------------------


def _crd_server(label_selector_path: str | None = ".status.labelSelector") -> APIServer:
    """``newStorage``: Noxu (mygroup.example.com/v1beta1) with the status and scale
    subresources."""
    srv = _server()
    scale: Obj = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
    if label_selector_path:
        scale["labelSelectorPath"] = label_selector_path
    free: Obj = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    crd = srv.create({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "noxus.mygroup.example.com"},
        "spec": {"group": "mygroup.example.com", "scope": "Namespaced",
                 "names": {"plural": "noxus", "singular": "noxu", "kind": "Noxu",
                           "listKind": "NoxuItemList"},
                 "versions": [{"name": "v1beta1", "served": True, "storage": True,
                               "subresources": {"status": {}, "scale": scale},
                               "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                   "spec": free, "status": free}}}}]},
    })  # fmt: skip
    crd["status"] = {"acceptedNames": crd["spec"]["names"], "conditions": [
        {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
         "message": "the initial names have been accepted",
         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}  # fmt: skip
    srv.update_status(crd)
    return srv


def _noxu(replicas: int | None = 7) -> Obj:
    """``validNewCustomResource``."""
    spec: Obj = {"string": "string", "float64": 3.1415926, "bool": True,
                 "stringList": ["foo", "bar"], "mixedList": ["foo", 42],
                 "nonPrimitiveList": ["foo", [1, 2]]}  # fmt: skip
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": CR_AV, "kind": "Noxu", "metadata": {"namespace": NS, "name": "foo"},
            "spec": spec}  # fmt: skip


def test_cr_scale_get() -> None:
    """TestScaleGet: spec replicas 7; no status, so status replicas 0 and no selector."""
    srv = _crd_server()
    cr = srv.create(_noxu())
    meta = cr["metadata"]
    assert srv.get_scale(CR_AV, "Noxu", "foo", NS) == {
        "apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": "foo", "namespace": NS, "uid": meta["uid"],
                     "resourceVersion": meta["resourceVersion"],
                     "creationTimestamp": meta["creationTimestamp"]},
        "spec": {"replicas": 7}, "status": {"replicas": 0},
    }  # fmt: skip


def test_cr_scale_get_without_spec_replicas() -> None:
    """TestScaleGetWithoutSpecReplicas: an internal error naming the path."""
    srv = _crd_server()
    srv.create(_noxu(None))
    with pytest.raises(
        ApiError, match='the spec replicas field ".spec.replicas" does not exist'
    ) as e:
        srv.get_scale(CR_AV, "Noxu", "foo", NS)
    assert e.value.code == 500


def test_cr_scale_update() -> None:
    """TestScaleUpdate: 12 through the scale; the old resourceVersion then conflicts."""
    srv = _crd_server()
    srv.create(_noxu())
    scale = srv.get_scale(CR_AV, "Noxu", "foo", NS)
    update = {"metadata": copy.deepcopy(scale["metadata"]), "spec": {"replicas": 12}}
    srv.update_scale(CR_AV, "Noxu", update)
    scale2 = srv.get_scale(CR_AV, "Noxu", "foo", NS)
    assert scale2["spec"]["replicas"] == 12
    assert srv.get(CR_AV, "Noxu", "foo", NS)["metadata"]["generation"] == 2
    update["spec"]["replicas"] = 15  # update still carries the first resourceVersion
    with pytest.raises(Conflict):
        srv.update_scale(CR_AV, "Noxu", update)
    update["metadata"]["resourceVersion"] = scale2["metadata"]["resourceVersion"]
    assert srv.update_scale(CR_AV, "Noxu", update)["spec"]["replicas"] == 15


def test_cr_scale_update_without_spec_replicas() -> None:
    """TestScaleUpdateWithoutSpecReplicas: a PUT sets the missing spec replicas."""
    srv = _crd_server()
    cr = srv.create(_noxu(None))
    rv = cr["metadata"]["resourceVersion"]
    srv.update_scale(CR_AV, "Noxu", {"metadata": {"name": "foo", "namespace": NS,
                                                  "resourceVersion": rv},
                                     "spec": {"replicas": 12}})  # fmt: skip
    assert srv.get_scale(CR_AV, "Noxu", "foo", NS)["spec"]["replicas"] == 12


def test_cr_scale_patch_without_spec_replicas_cannot_be_empty() -> None:
    """``UpdatedObject``: a patch that leaves the unset spec replicas unset is refused."""
    srv = _crd_server()
    srv.create(_noxu(None))
    with pytest.raises(
        BadRequest, match='^the spec replicas field ".spec.replicas" cannot be empty$'
    ):
        srv.patch_scale(CR_AV, "Noxu", "foo", NS, {"metadata": {"labels": {"x": "y"}}})


def test_cr_scale_update_without_resource_version() -> None:
    """TestScaleUpdateWithoutResourceVersion: unconditional."""
    srv = _crd_server()
    srv.create(_noxu())
    srv.update_scale(
        CR_AV, "Noxu", {"metadata": {"name": "foo", "namespace": NS}, "spec": {"replicas": 8}}
    )
    assert srv.get_scale(CR_AV, "Noxu", "foo", NS)["spec"]["replicas"] == 8


def test_cr_scale_update_without_resource_version_with_conflicts() -> None:
    """TestScaleUpdateWithoutResourceVersionWithConflicts: label updates interleaved with
    unconditional scale updates; both take."""
    srv = _crd_server()
    srv.create(_noxu())
    for i in range(20):
        cur = srv.get(CR_AV, "Noxu", "foo", NS)
        cur["metadata"]["labels"] = {"timestamp": str(i)}
        srv.update(cur)
        assert srv.get(CR_AV, "Noxu", "foo", NS)["metadata"]["labels"]["timestamp"] == str(i)
        body = {"metadata": {"name": "foo", "namespace": NS}, "spec": {"replicas": i + 1}}
        srv.update_scale(CR_AV, "Noxu", body)
        assert srv.get_scale(CR_AV, "Noxu", "foo", NS)["spec"]["replicas"] == i + 1


def test_cr_scale_update_with_resource_version_with_conflicts() -> None:
    """TestScaleUpdateWithResourceVersionWithConflicts: resourceVersion "1" conflicts."""
    srv = _crd_server()
    srv.create(_noxu())
    scale = srv.get_scale(CR_AV, "Noxu", "foo", NS)
    update = {"metadata": {**scale["metadata"], "resourceVersion": "1"}, "spec": {"replicas": 12}}
    with pytest.raises(Conflict):
        srv.update_scale(CR_AV, "Noxu", update)


def test_cr_scale_selector_and_status_replicas() -> None:
    """``scaleFromCustomResource``: status replicas and the label selector string."""
    srv = _crd_server()
    cr = srv.create(_noxu())
    srv.update_status({**cr, "status": {"replicas": 3, "labelSelector": "a=b"}})
    assert srv.get_scale(CR_AV, "Noxu", "foo", NS)["status"] == {"replicas": 3, "selector": "a=b"}


def test_cr_scale_non_integer_replicas() -> None:
    """``NestedInt64``'s accessor error for a spec replicas that is not an integer. The
    strategy's ``ValidateScaleSpec`` rejects such a write, so the object is stored first and
    the CRD then points specReplicasPath at its string field."""
    srv = _crd_server()
    srv.create(_noxu() | {"spec": {"replicas": 7, "other": "many"}})
    crd = srv.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "noxus.mygroup.example.com")
    crd["spec"]["versions"][0]["subresources"]["scale"]["specReplicasPath"] = ".spec.other"
    srv.update(crd)
    with pytest.raises(
        ApiError,
        match=r"\.spec\.other accessor error: many is of the type string, expected int64",
    ):
        srv.get_scale(CR_AV, "Noxu", "foo", NS)


def test_cr_scale_negative_replicas() -> None:
    """The custom resource strategy's ``ValidateScaleSpec`` at specReplicasPath."""
    srv = _crd_server()
    srv.create(_noxu())
    with pytest.raises(Invalid) as e:
        srv.update_scale(
            CR_AV, "Noxu", {"metadata": {"name": "foo", "namespace": NS}, "spec": {"replicas": -1}}
        )
    assert e.value.fields == (".spec.replicas",)
    assert "should be a non-negative integer" in str(e.value)


def test_cr_missing_is_not_found() -> None:
    srv = _crd_server()
    with pytest.raises(NotFound, match='noxus.mygroup.example.com "foo" not found'):
        srv.update_scale(
            CR_AV, "Noxu", {"metadata": {"name": "foo", "namespace": NS}, "spec": {"replicas": 1}}
        )


def test_non_integer_scale_body_does_not_decode() -> None:
    srv = _server()
    _created(srv, "Deployment")
    with pytest.raises(
        BadRequest,
        match="cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32",
    ):
        srv.update_scale("apps/v1", "Deployment", {"metadata": {"name": "foo", "namespace": NS},
                                                   "spec": {"replicas": "3"}})  # fmt: skip


# -- apiextensions-apiserver test/integration/subresources_test.go -----------------------


def test_integration_scale_subresource() -> None:
    """TestScaleSubresource: the Scale reads the selector at labelSelectorPath; an update
    writes spec replicas only (a changed status selector is ignored); a main-resource
    write of replicas beyond int32 is refused."""
    srv = _crd_server()
    cr = srv.create(_noxu(3))
    srv.update_status({**cr, "status": {"labelSelector": "bar"}})
    scale = srv.get_scale(CR_AV, "Noxu", "foo", NS)
    assert (scale["spec"]["replicas"], scale["status"].get("selector")) == (3, "bar")
    scale["spec"]["replicas"] = 5
    scale["status"]["selector"] = "baz"
    out = srv.update_scale(CR_AV, "Noxu", scale)
    assert (out["spec"]["replicas"], out["status"]["selector"]) == (5, "bar")
    got = srv.get(CR_AV, "Noxu", "foo", NS)
    assert (got["spec"]["replicas"], got["status"]["labelSelector"]) == (5, "bar")
    got["spec"]["replicas"] = 2**63 - 1
    with pytest.raises(Invalid, match="should be less than or equal to 2147483647"):
        srv.update(got)


def test_integration_subresource_patch_scale() -> None:
    """TestSubresourcePatch (its scale part): a merge patch of spec and status replicas
    sets only spec; the same patch again, and an empty one, change nothing (same
    resourceVersion)."""
    srv = _crd_server()
    srv.create(_noxu(3))
    patch: Obj = {"spec": {"replicas": 7}, "status": {"replicas": 7}}
    out = srv.patch_scale(CR_AV, "Noxu", "foo", NS, patch)
    assert (out["spec"]["replicas"], out["status"]["replicas"]) == (7, 0)
    rv = out["metadata"]["resourceVersion"]
    got = srv.get_scale(CR_AV, "Noxu", "foo", NS)
    assert (got["spec"]["replicas"], got["status"]["replicas"]) == (7, 0)
    for p in (patch, {}):
        again = srv.patch_scale(CR_AV, "Noxu", "foo", NS, p)
        assert (again["spec"]["replicas"], again["metadata"]["resourceVersion"]) == (7, rv)
