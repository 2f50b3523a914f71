"""Single deletes after upstream's own tests: apiserver
``pkg/registry/generic/registry/store_test.go`` (TestStoreDelete,
TestStoreGracefulDeleteWithResourceVersion, TestGracefulStoreCanDeleteIfExistingGracePeriodZero,
TestGracefulStoreHandleFinalizers, TestNonGracefulStoreHandleFinalizers,
TestStoreDeleteWithOrphanDependents, TestStoreDeletionPropagation,
TestDeletionFinalizersForGarbageCollection), ``pkg/registry/rest/delete_test.go``
(TestBeforeDelete) and ``DeleteOptions`` validation and preconditions.

Upstream's example.Pod under the graceful test strategy becomes a bound v1 Pod; under the
plain (non-graceful, GC default DeleteDependents) strategy an apps/v1 Deployment, and under
``testOrphanDeleteStrategy`` a v1 ReplicationController (its strategy orphans by default).
The deprecated ``orphanDependents: true/false`` option decides exactly as propagation
policy Orphan/Background does (``shouldOrphanDependents``), so rows carry that policy.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api.builders import make_deployment, make_namespace
from reference_impl.apiserver import deletion
from reference_impl.apiserver.delete_options import deletion_finalizers
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock, parse_rfc3339, rfc3339
from reference_impl.errors import Cause, Conflict, Invalid, NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "test"
_NS = 1_000_000_000
ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(3), FeatureGates())
    s.create(make_namespace(NS).build())
    return s


def _pod(name: str = "foo", finalizers: list[str] | None = None, node: str = "machine") -> Obj:
    meta: Obj = {"name": name, "namespace": NS}
    if finalizers:
        meta["finalizers"] = list(finalizers)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox"}]}}  # fmt: skip


def _plain(name: str, finalizers: list[str] | None = None) -> Obj:
    """The plain test strategy's object: a Deployment (non-graceful, DeleteDependents)."""
    d = make_deployment(name, NS).build()
    if finalizers:
        d["metadata"]["finalizers"] = list(finalizers)
    return d


def _orphaning(name: str, finalizers: list[str] | None = None) -> Obj:
    """``testOrphanDeleteStrategy``'s object: a v1 ReplicationController."""
    labels = {"app": name}
    meta: Obj = {"name": name, "namespace": NS}
    if finalizers:
        meta["finalizers"] = list(finalizers)
    template = {"metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}  # fmt: skip
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": meta,
            "spec": {"replicas": 1, "selector": labels, "template": template}}  # fmt: skip


def _gone(s: APIServer, obj: Obj) -> bool:
    try:
        s.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], NS)
    except NotFound:
        return True
    return False


def _drop_finalizers(s: APIServer, obj: Obj) -> None:
    got = s.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], NS)
    got["metadata"].pop("finalizers", None)
    s.update(got)


# -- TestStoreDelete, TestStoreGracefulDeleteWithResourceVersion ------------------------


def test_TestStoreDelete() -> None:
    s = _server()
    with pytest.raises(NotFound):
        s.delete("v1", "Pod", "foo", NS)
    s.create(_pod())
    assert s.delete("v1", "Pod", "foo", NS, grace_period_seconds=0) is None
    with pytest.raises(NotFound):
        s.get("v1", "Pod", "foo", NS)


def test_TestStoreGracefulDeleteWithResourceVersion() -> None:
    s = _server()
    with pytest.raises(NotFound):
        s.delete("v1", "Pod", "foo", NS)
    rv = s.create(_pod())["metadata"]["resourceVersion"]
    assert s.delete("v1", "Pod", "foo", NS, grace_period_seconds=0, resource_version=rv) is None
    with pytest.raises(NotFound):
        s.get("v1", "Pod", "foo", NS)


# -- preconditions: rest.BeforeDelete's Conflicts ---------------------------------------


@pytest.mark.parametrize(
    ("api_version", "kind", "make", "resource"),
    [("v1", "Pod", _pod, "Pod"), ("apps/v1", "Deployment", _plain, "Deployment.apps")],
    ids=["Pod", "Deployment"],
)
def test_BeforeDelete_preconditions(api_version: str, kind: str, make: Any, resource: str) -> None:
    s = _server()
    created = s.create(make("foo"))
    uid, rv = created["metadata"]["uid"], created["metadata"]["resourceVersion"]
    with pytest.raises(Conflict) as e:
        s.delete(api_version, kind, "foo", NS, uid="wrong")
    assert str(e.value) == (
        f'Operation cannot be fulfilled on {resource} "foo": the UID in the precondition (wrong) '
        f"does not match the UID in record ({uid}). The object might have been deleted and then "
        "recreated"
    )
    with pytest.raises(Conflict) as e:
        s.delete(api_version, kind, "foo", NS, resource_version="1")
    assert str(e.value) == (
        f'Operation cannot be fulfilled on {resource} "foo": the ResourceVersion in the '
        f"precondition (1) does not match the ResourceVersion in record ({rv}). The object might "
        "have been modified"
    )
    assert s.get(api_version, kind, "foo", NS) == created
    assert s.delete(api_version, kind, "foo", NS, uid=uid, resource_version=rv,
                    grace_period_seconds=0) is None  # fmt: skip


def test_namespace_preconditions_storage_wording() -> None:
    """The namespace REST checks its preconditions itself, in storage's wording."""
    s = _server()
    ns = s.get("v1", "Namespace", NS)
    with pytest.raises(Conflict, match=r"namespaces \"test\": Precondition failed: UID in "
                       rf"precondition: x, UID in object meta: {ns['metadata']['uid']}$"):  # fmt: skip
        s.delete("v1", "Namespace", NS, uid="x")
    with pytest.raises(Conflict, match="Precondition failed: ResourceVersion in precondition: 1,"):
        s.delete("v1", "Namespace", NS, resource_version="1")


# -- ValidateDeleteOptions on a single delete (handlers/delete.go) ----------------------


def test_ValidateDeleteOptions_propagationPolicy() -> None:
    s = _server()
    s.create(_pod())
    for name in ("foo", "absent"):  # the handler validates before the store looks
        with pytest.raises(Invalid) as e:
            s.delete("v1", "Pod", name, NS, propagation_policy="Sideways")
        assert e.value.kind == "DeleteOptions.meta.k8s.io"
        assert e.value.causes == (
            Cause("propagationPolicy", "FieldValueNotSupported",
                  'Unsupported value: "Sideways": supported values: "Foreground", "Background", '
                  '"Orphan", "nil"'),
        )  # fmt: skip
    assert not _gone(s, _pod())


# -- TestGracefulStoreHandleFinalizers, TestNonGracefulStoreHandleFinalizers ------------


def test_TestGracefulStoreHandleFinalizers() -> None:
    s = _server()
    s.create(_pod(finalizers=["foo.com/x"]))
    out = s.delete("v1", "Pod", "foo", NS, grace_period_seconds=0)
    assert out is not None and out["metadata"]["deletionTimestamp"]
    assert out["metadata"]["deletionGracePeriodSeconds"] == 0
    got = s.get("v1", "Pod", "foo", NS)
    s.update(got)  # an update keeping the finalizer keeps the pod
    assert not _gone(s, got)
    _drop_finalizers(s, got)
    assert _gone(s, got)


def test_TestNonGracefulStoreHandleFinalizers() -> None:
    s = _server()
    created = s.create(_plain("foo", ["foo.com/x"]))
    assert s.delete("apps/v1", "Deployment", "foo", NS) is not None
    got = s.get("apps/v1", "Deployment", "foo", NS)
    meta = got["metadata"]
    assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 0
    assert meta["generation"] > created["metadata"]["generation"]
    s.update(got)
    assert not _gone(s, got)
    _drop_finalizers(s, got)
    assert _gone(s, got)


# -- TestStoreDeleteWithOrphanDependents ------------------------------------------------

_WITH_ORPHAN = ["foo.com/x", ORPHAN, "bar.com/y"]
_OTHERS = ["foo.com/x", "bar.com/y"]
_ONLY_ORPHAN = [ORPHAN]
# (name, existing finalizers, policy (orphanDependents true: Orphan, false: Background),
#  orphaning strategy, expect not found, finalizers after)
_ORPHAN_ROWS: list[tuple[str, list[str], str | None, bool, bool, list[str]]] = [
    ("pod1", _WITH_ORPHAN, "Orphan", False, False, _WITH_ORPHAN),
    ("pod2", _OTHERS, "Orphan", False, False, [*_OTHERS, ORPHAN]),
    ("pod3", [], "Orphan", False, False, [ORPHAN]),
    ("pod4", _ONLY_ORPHAN, "Orphan", False, False, [ORPHAN]),
    ("pod5", _WITH_ORPHAN, "Background", True, False, _OTHERS),
    ("pod6", _OTHERS, "Background", True, False, _OTHERS),
    ("pod7", [], "Background", True, True, []),
    ("pod8", _ONLY_ORPHAN, "Background", True, True, []),
    ("pod9", _WITH_ORPHAN, None, False, False, _WITH_ORPHAN),
    ("pod10", _WITH_ORPHAN, None, True, False, _WITH_ORPHAN),
    ("pod11", _OTHERS, None, False, False, _OTHERS),
    ("pod12", _OTHERS, None, True, False, [*_OTHERS, ORPHAN]),
    ("pod13", [], None, False, True, []),
    ("pod14", [], None, True, False, [ORPHAN]),
    ("pod15", _ONLY_ORPHAN, None, False, False, [ORPHAN]),
    ("pod16", _ONLY_ORPHAN, None, True, False, [ORPHAN]),
    # nil options: as empty ones
    ("pod17", _WITH_ORPHAN, None, False, False, _WITH_ORPHAN),
    ("pod18", _WITH_ORPHAN, None, True, False, _WITH_ORPHAN),
    ("pod19", _OTHERS, None, False, False, _OTHERS),
    ("pod20", _OTHERS, None, True, False, [*_OTHERS, ORPHAN]),
    ("pod21", [], None, False, True, []),
    ("pod22", [], None, True, False, [ORPHAN]),
    ("pod23", _ONLY_ORPHAN, None, False, False, [ORPHAN]),
    ("pod24", _ONLY_ORPHAN, None, True, False, [ORPHAN]),
]


def _delete_and_check(
    existing: list[str], policy: str | None, orphaning: bool, not_found: bool, want: list[str]
) -> None:
    s = _server()
    obj = (_orphaning if orphaning else _plain)("foo", existing)
    created = s.create(obj)
    s.delete(obj["apiVersion"], obj["kind"], "foo", NS, propagation_policy=policy)
    if not_found:
        assert _gone(s, obj)
        return
    meta = s.get(obj["apiVersion"], obj["kind"], "foo", NS)["metadata"]
    assert meta.get("finalizers", []) == want
    assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 0
    assert meta["generation"] > created["metadata"]["generation"]


@pytest.mark.parametrize(
    ("existing", "policy", "orphaning", "not_found", "want"),
    [r[1:] for r in _ORPHAN_ROWS],
    ids=[r[0] for r in _ORPHAN_ROWS],
)
def test_TestStoreDeleteWithOrphanDependents(
    existing: list[str], policy: str | None, orphaning: bool, not_found: bool, want: list[str]
) -> None:
    _delete_and_check(existing, policy, orphaning, not_found, want)


# -- TestStoreDeletionPropagation -------------------------------------------------------

_POLICY_NAMES = {"Foreground": "Foreground", "Background": "Background",
                 "Orphan": "OrphanDependents", None: "Default"}  # fmt: skip
# (existing, policy) -> (not found, finalizers after), for the plain and orphaning strategy
_PROPAGATION: dict[tuple[str, str | None], tuple[tuple[bool, list[str]], tuple[bool, list[str]]]] = {
    ("no existing finalizers", "Foreground"): ((False, [FOREGROUND]), (False, [FOREGROUND])),
    ("no existing finalizers", "Background"): ((True, []), (True, [])),
    ("no existing finalizers", "Orphan"): ((False, [ORPHAN]), (False, [ORPHAN])),
    ("no existing finalizers", None): ((True, []), (False, [ORPHAN])),
    ("existing orphan finalizer", "Foreground"): ((False, [FOREGROUND]), (False, [FOREGROUND])),
    ("existing orphan finalizer", "Background"): ((True, []), (True, [])),
    ("existing orphan finalizer", "Orphan"): ((False, [ORPHAN]), (False, [ORPHAN])),
    ("existing orphan finalizer", None): ((False, [ORPHAN]), (False, [ORPHAN])),
    ("existing deleteDependents finalizer", "Foreground"): (
        (False, [FOREGROUND]), (False, [FOREGROUND])),
    ("existing deleteDependents finalizer", "Background"): ((True, []), (True, [])),
    ("existing deleteDependents finalizer", "Orphan"): ((False, [ORPHAN]), (False, [ORPHAN])),
    ("existing deleteDependents finalizer", None): (
        (False, [FOREGROUND]), (False, [FOREGROUND])),
}  # fmt: skip
_EXISTING = {"no existing finalizers": [], "existing orphan finalizer": [ORPHAN],
             "existing deleteDependents finalizer": [FOREGROUND]}  # fmt: skip
_PROPAGATION_ROWS = [
    (f"{ex}, PropagationPolicy={_POLICY_NAMES[pol]}, {strategy}", _EXISTING[ex], pol,
     strategy == "orphanDeleteStrategy", *want[strategy == "orphanDeleteStrategy"])
    for (ex, pol), want in _PROPAGATION.items()
    for strategy in ("defaultDeleteStrategy", "orphanDeleteStrategy")
]  # fmt: skip


@pytest.mark.parametrize(
    ("existing", "policy", "orphaning", "not_found", "want"),
    [r[1:] for r in _PROPAGATION_ROWS],
    ids=[r[0] for r in _PROPAGATION_ROWS],
)
def test_TestStoreDeletionPropagation(
    existing: list[str], policy: str | None, orphaning: bool, not_found: bool, want: list[str]
) -> None:
    _delete_and_check(existing, policy, orphaning, not_found, want)


# -- TestDeletionFinalizersForGarbageCollection -----------------------------------------


@pytest.mark.parametrize(
    ("api_version", "changed", "want"),
    [("extensions/v1beta1", True, [ORPHAN]), ("apps/v1beta1", True, [ORPHAN]),
     ("apps/v1beta2", True, [ORPHAN]), ("apps/v1", False, [])],
    ids=["extensions/v1beta1", "apps/v1beta1", "apps/v1beta2", "apps/v1"],
)  # fmt: skip
def test_TestDeletionFinalizersForGarbageCollection(
    api_version: str, changed: bool, want: list[str]
) -> None:
    """fakeStrategy orphans for the old ReplicaSet versions only (as the apps strategies
    once did); the finalizers follow the default it names."""
    default = "Background" if api_version == "apps/v1" else "Orphan"
    assert deletion_finalizers(default, [], None) == (changed, want)


# -- a deleting object: what a second delete still changes -----------------------------


def test_second_delete_updates_finalizers_of_non_graceful() -> None:
    """Non-graceful strategies re-run the GC finalizers on every delete; the timestamp
    stays."""
    s = _server()
    s.create(_plain("foo", ["foo.com/x"]))
    first = s.delete("apps/v1", "Deployment", "foo", NS, propagation_policy="Orphan")
    assert first is not None and first["metadata"]["finalizers"] == ["foo.com/x", ORPHAN]
    s.clock.run_until(s.clock.now() + 5 * _NS)
    second = s.delete("apps/v1", "Deployment", "foo", NS, propagation_policy="Foreground")
    assert second is not None and second["metadata"]["finalizers"] == ["foo.com/x", FOREGROUND]
    assert second["metadata"]["deletionTimestamp"] == first["metadata"]["deletionTimestamp"]
    assert second["metadata"]["generation"] == first["metadata"]["generation"]
    third = s.delete("apps/v1", "Deployment", "foo", NS)  # no policy: nothing to change
    assert third == second


def test_second_delete_of_pending_graceful_pod_changes_nothing() -> None:
    """A pod whose graceful deletion is pending: finalizers cannot change, and only a
    shorter grace period moves deletionTimestamp."""
    s = _server()
    s.create(_pod(finalizers=["foo.com/x"]))
    first = s.delete("v1", "Pod", "foo", NS, grace_period_seconds=30)
    assert first is not None and first["metadata"]["deletionGracePeriodSeconds"] == 30
    stamp = parse_rfc3339(first["metadata"]["deletionTimestamp"])
    assert stamp == s.clock.now() + 30 * _NS
    again = s.delete("v1", "Pod", "foo", NS, propagation_policy="Orphan")
    assert again == first
    shorter = s.delete("v1", "Pod", "foo", NS, grace_period_seconds=10)
    assert shorter is not None and shorter["metadata"]["deletionGracePeriodSeconds"] == 10
    assert shorter["metadata"]["deletionTimestamp"] == rfc3339(stamp - 20 * _NS)
    assert shorter["metadata"]["finalizers"] == ["foo.com/x"]


# -- rest/delete_test.go TestBeforeDelete ----------------------------------------------

# (name, existing deletionGracePeriodSeconds, requested, graceful, pending,
#  options' grace after, deletionGracePeriodSeconds after)
_BEFORE_ROWS: list[tuple[str, int, int, bool, bool, int, int]] = [
    (f"when DeletionGracePeriodSeconds={dgps}, GracePeriodSeconds={gps}", dgps, gps, *want)
    for dgps, gps, want in [
        (-1, -1, (False, True, 1, 1)), (-1, 0, (True, False, 0, 0)),
        (-1, 1, (False, True, 1, 1)), (-1, 2, (False, True, 2, 1)),
        (0, -1, (False, False, 1, 0)), (0, 0, (False, False, 0, 0)),
        (0, 1, (False, False, 1, 0)), (0, 2, (False, False, 2, 0)),
        (1, -1, (False, True, 1, 1)), (1, 0, (True, False, 0, 0)),
        (1, 1, (False, True, 1, 1)), (1, 2, (False, True, 2, 1)),
        (2, -1, (True, False, 1, 1)), (2, 0, (True, False, 0, 0)),
        (2, 1, (True, False, 1, 1)), (2, 2, (False, True, 2, 2)),
    ]
]  # fmt: skip


def _marked_pod(s: APIServer, stamp: int, dgps: int) -> Obj:
    pod = _pod()
    pod["metadata"].update(deletionTimestamp=rfc3339(stamp), deletionGracePeriodSeconds=dgps)
    return pod


@pytest.mark.parametrize(
    ("dgps", "requested", "graceful", "pending", "grace", "want_dgps"),
    [r[1:] for r in _BEFORE_ROWS],
    ids=[r[0] for r in _BEFORE_ROWS],
)
def test_TestBeforeDelete(
    dgps: int, requested: int, graceful: bool, pending: bool, grace: int, want_dgps: int
) -> None:
    s = _server()
    now = s.clock.now()
    pod = _marked_pod(s, now + dgps * _NS, dgps)
    info = s.resource("v1", "Pod")
    got = deletion.before_delete(s, info, pod, requested)
    assert got == (graceful, pending, grace)
    assert pod["metadata"]["deletionGracePeriodSeconds"] == want_dgps


@pytest.mark.parametrize(
    ("requested", "want_dgps"),
    [(50, 1), (0, 0)],
    ids=["when a shorter non-zero grace period would move into the past",
         "when a zero grace period would move into the past"],
)  # fmt: skip
def test_TestBeforeDelete_into_the_past(requested: int, want_dgps: int) -> None:
    s = _server()
    s.clock.run_until(s.clock.now() + 3600 * _NS)
    now = s.clock.now()
    pod = _marked_pod(s, now - 60 * _NS, 60)
    before = copy.deepcopy(pod)
    got = deletion.before_delete(s, s.resource("v1", "Pod"), pod, requested)
    assert got == (True, False, requested)
    assert (
        pod["metadata"]["deletionTimestamp"]
        == rfc3339(now)
        != before["metadata"]["deletionTimestamp"]
    )
    assert pod["metadata"]["deletionGracePeriodSeconds"] == want_dgps


def test_TestGracefulStoreCanDeleteIfExistingGracePeriodZero() -> None:
    s = _server()
    pod = _marked_pod(s, s.clock.now(), 0)
    pod["metadata"]["generation"] = 1
    assert deletion.before_delete(s, s.resource("v1", "Pod"), pod, 0) == (False, False, 0)
    assert pod["metadata"]["generation"] == 1


def test_crd_preconditions_own_wording() -> None:
    """customresourcedefinition/etcd.go ``REST.Delete`` checks them itself, lower-case."""
    s = _server()
    crd = s.create(
        {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
         "metadata": {"name": "gadgets.example.com"},
         "spec": {"group": "example.com", "scope": "Namespaced",
                  "names": {"plural": "gadgets", "kind": "Gadget"},
                  "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                      "openAPIV3Schema": {"type": "object",
                                          "x-kubernetes-preserve-unknown-fields": True}}}]}}
    )  # fmt: skip
    av, kind, name = "apiextensions.k8s.io/v1", "CustomResourceDefinition", "gadgets.example.com"
    head = (
        f'Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io "{name}"'
    )
    with pytest.raises(Conflict) as e:
        s.delete(av, kind, name, uid="x")
    assert str(e.value) == (
        f"{head}: precondition failed: UID in precondition: x, UID in object meta: "
        f"{crd['metadata']['uid']}"
    )
    with pytest.raises(Conflict, match="precondition failed: ResourceVersion in precondition: 1,"):
        s.delete(av, kind, name, resource_version="1")
