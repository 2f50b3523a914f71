"""API machinery conformance: a single DELETE's ``DeleteOptions``.

Upstream's handler (k8s.io/apiserver ``pkg/endpoints/handlers/delete.go``) validates the
options (apimachinery ``ValidateDeleteOptions``) before the store looks; the store
(``pkg/registry/generic/registry/store.go`` ``Delete``, ``rest.BeforeDelete``) checks the
``preconditions`` and sets the garbage-collection finalizers the propagation policy asks
for (``deletionFinalizersForGarbageCollection``); the garbage collector then orphans or
deletes the dependents.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.finalizers import release_finalizers
from fixtures.targets.extensions import DeleteWithOptions, delete_with_options_of
from reference_impl.errors import Conflict, Invalid, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
FINALIZER = "garhwal.dev/delete-options-test"


@pytest.fixture
def deleter(target: Target) -> DeleteWithOptions:
    """The target's single delete with DeleteOptions."""
    client = delete_with_options_of(target)
    if client is None:
        pytest.skip(f"target {target.name!r} does not send a delete's DeleteOptions")
    return client


def _config_map(name: str, namespace: str, finalizers: list[str] | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": namespace}
    if finalizers:
        meta["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "1"}}


def _gone(target: Target, api_version: str, kind: str, name: str, namespace: str) -> bool:
    try:
        target.get(api_version, kind, name, namespace)
    except NotFound:
        return True
    return False


def test_delete_rejects_unknown_propagation_policy(
    target: Target, namespace: str, deleter: DeleteWithOptions
) -> None:
    """An unknown propagationPolicy is invalid.

    A DELETE whose propagationPolicy is not Foreground, Background or Orphan MUST fail
    as 422 Invalid with a cause at ``propagationPolicy``, and MUST leave the object.
    """
    target.apply(_config_map("do-policy", namespace))
    with pytest.raises(Invalid) as e:
        deleter.delete_with_options("v1", "ConfigMap", "do-policy", namespace,
                                    propagation_policy="Sideways")  # fmt: skip
    assert [c.field for c in e.value.causes] == ["propagationPolicy"], e.value.causes
    assert not _gone(target, "v1", "ConfigMap", "do-policy", namespace)


def test_delete_preconditions_must_match(
    target: Target, namespace: str, deleter: DeleteWithOptions
) -> None:
    """Preconditions guard a delete.

    A DELETE whose UID precondition or resourceVersion precondition does not match the
    stored object MUST fail as 409 Conflict and MUST leave the object; with matching
    preconditions the delete MUST succeed.
    """
    created = target.apply(_config_map("do-pre", namespace))
    meta = target.get("v1", "ConfigMap", "do-pre", namespace)["metadata"]
    assert meta["uid"] == created["metadata"]["uid"]
    with pytest.raises(Conflict):
        deleter.delete_with_options("v1", "ConfigMap", "do-pre", namespace,
                                    uid="00000000-0000-0000-0000-000000000000")  # fmt: skip
    assert not _gone(target, "v1", "ConfigMap", "do-pre", namespace)
    stale = str(int(meta["resourceVersion"]) - 1)
    with pytest.raises(Conflict):
        deleter.delete_with_options("v1", "ConfigMap", "do-pre", namespace,
                                    resource_version=stale)  # fmt: skip
    assert not _gone(target, "v1", "ConfigMap", "do-pre", namespace)
    out = deleter.delete_with_options("v1", "ConfigMap", "do-pre", namespace, uid=meta["uid"],
                                      resource_version=meta["resourceVersion"])  # fmt: skip
    assert out is None
    target.wait_until(lambda: _gone(target, "v1", "ConfigMap", "do-pre", namespace),
                      timeout=30, what="the config map to go")  # fmt: skip


def test_foreground_delete_adds_foreground_finalizer(
    target: Target, namespace: str, deleter: DeleteWithOptions
) -> None:
    """Foreground propagation marks the owner.

    A Foreground DELETE of an object that carries a finalizer of its own MUST leave it
    marked with a deletionTimestamp, its own finalizer kept and ``foregroundDeletion``
    added; once its finalizers are removed it MUST be gone.
    """
    target.apply(_config_map("do-fg", namespace, [FINALIZER]))
    try:
        out = deleter.delete_with_options("v1", "ConfigMap", "do-fg", namespace,
                                          propagation_policy="Foreground")  # fmt: skip
        assert out is not None
        assert out["metadata"].get("deletionTimestamp"), out["metadata"]
        assert out["metadata"].get("finalizers") == [FINALIZER, "foregroundDeletion"], out
    finally:
        release_finalizers(target, "v1", "ConfigMap", "do-fg", namespace)
    target.wait_until(lambda: _gone(target, "v1", "ConfigMap", "do-fg", namespace),
                      timeout=60, what="the released config map to go")  # fmt: skip


def _deployment(name: str, namespace: str) -> Obj:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [
                         {"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}}  # fmt: skip


def _replica_sets(target: Target, namespace: str, app: str) -> list[Obj]:
    return list(target.list("apps/v1", "ReplicaSet", namespace, f"app={app}"))


def test_orphan_delete_keeps_dependents(
    target: Target, namespace: str, deleter: DeleteWithOptions
) -> None:
    """Orphan propagation keeps the dependents.

    An Orphan DELETE of a Deployment MUST delete the Deployment and MUST keep its
    ReplicaSet, with the garbage collector removing the ReplicaSet's ownerReference to it.
    """
    target.apply(_deployment("do-orphan", namespace))
    target.wait_until(lambda: len(_replica_sets(target, namespace, "do-orphan")) == 1,
                      timeout=60, what="the deployment's replica set")  # fmt: skip
    uid = target.get("apps/v1", "Deployment", "do-orphan", namespace)["metadata"]["uid"]
    deleter.delete_with_options("apps/v1", "Deployment", "do-orphan", namespace,
                                propagation_policy="Orphan")  # fmt: skip

    def orphaned() -> bool:
        if not _gone(target, "apps/v1", "Deployment", "do-orphan", namespace):
            return False
        sets = _replica_sets(target, namespace, "do-orphan")
        owners = [o.get("uid") for s in sets for o in s["metadata"].get("ownerReferences") or []]
        return len(sets) == 1 and uid not in owners

    target.wait_until(orphaned, timeout=60, what="the deployment gone, its replica set orphaned")
    assert len(_replica_sets(target, namespace, "do-orphan")) == 1


def _events_of(target: Target, kind: str, name: str, namespace: str, since: str) -> list[Any]:
    """Every watch event for ``name`` after ``since``, until the watch goes quiet."""
    api = "v1"
    return [ev for ev in target.watch(api, kind, since, namespace=namespace, timeout=3)
            if ev.object["metadata"]["name"] == name]  # fmt: skip


def test_a_grace_zero_pod_delete_stores_the_mark_before_removing_it(
    target: Target, namespace: str, deleter: DeleteWithOptions
) -> None:
    """A graceless delete of a pod is two writes; of a ConfigMap, one.

    A DELETE of a pod with gracePeriodSeconds 0 MUST first store the pod marked
    (deletionTimestamp set, deletionGracePeriodSeconds 0), which watchers see as MODIFIED,
    and then remove it (DELETED, carrying the mark). A kind without graceful deletion
    (a ConfigMap) MUST be removed in one write: DELETED only, unmarked.
    """
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "do-grace0", "namespace": namespace},
           "spec": {"nodeSelector": {"garhwal.dev/none": "x"},  # stays unbound everywhere
                    "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}  # fmt: skip
    rv = target.apply(pod)["metadata"]["resourceVersion"]
    assert deleter.delete_with_options("v1", "Pod", "do-grace0", namespace,
                                       grace_period_seconds=0) is None  # fmt: skip
    events = _events_of(target, "Pod", "do-grace0", namespace, rv)
    # A scheduler may write PodScheduled=False first; the deletion is the last two events.
    assert [ev.type for ev in events[-2:]] == ["MODIFIED", "DELETED"], [ev.type for ev in events]
    for ev in events[-2:]:
        meta = ev.object["metadata"]
        assert meta.get("deletionTimestamp") and meta.get("deletionGracePeriodSeconds") == 0, meta
    assert not any(ev.object["metadata"].get("deletionTimestamp") for ev in events[:-2])
    rv = target.apply(_config_map("do-grace0-cm", namespace))["metadata"]["resourceVersion"]
    deleter.delete_with_options("v1", "ConfigMap", "do-grace0-cm", namespace, grace_period_seconds=0)
    events = _events_of(target, "ConfigMap", "do-grace0-cm", namespace, rv)
    assert [ev.type for ev in events] == ["DELETED"], [ev.type for ev in events]
    assert not events[0].object["metadata"].get("deletionTimestamp")
