"""API machinery conformance: DELETE on a collection (``deletecollection``).

Upstream's handler (k8s.io/apiserver ``pkg/endpoints/handlers/delete.go``
``DeleteCollection``) lists the collection with the request's selectors and the store
(``pkg/registry/generic/registry/store.go`` ``DeleteCollection``) deletes each listed
object with the request's DeleteOptions, as a single DELETE of it would: finalizers and
propagation are honoured, a pod's grace period applies. The answer is the list of the
objects listed. With ``dryRun=All`` nothing is deleted.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.finalizers import release_finalizers
from fixtures.targets.extensions import DeleteCollection, delete_collection_of

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
LABEL = "garhwal.dev/delete-collection"
FINALIZER = "garhwal.dev/delete-collection-test"


@pytest.fixture
def deleter(target: Target) -> DeleteCollection:
    """The target's deletecollection."""
    client = delete_collection_of(target)
    if client is None:
        pytest.skip(f"target {target.name!r} does not send deletecollection")
    return client


def _config_map(name: str, namespace: str, labels: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "data": {"k": "1"}}  # fmt: skip


def _config_maps(target: Target, namespace: str) -> list[str]:
    return sorted(c["metadata"]["name"] for c in target.list("v1", "ConfigMap", namespace))


def _names(listed: Obj) -> list[str]:
    return sorted(i["metadata"]["name"] for i in listed.get("items") or [])


def test_delete_collection_takes_only_the_selected(
    target: Target, namespace: str, deleter: DeleteCollection
) -> None:
    """Deletecollection by label.

    A deletecollection with a label selector MUST delete exactly the objects of the
    namespace that the selector matches and MUST answer them as a list; the namespace's
    other objects MUST stay. A dry run of it MUST delete nothing and MUST answer the same.
    """
    for name, value in (("dc-a", "yes"), ("dc-b", "yes"), ("dc-c", "no")):
        target.apply(_config_map(name, namespace, {LABEL: value}))
    before = _config_maps(target, namespace)
    dry = deleter.delete_collection("v1", "ConfigMap", namespace,
                                    label_selector=f"{LABEL}=yes", dry_run=True)  # fmt: skip
    assert _names(dry) == ["dc-a", "dc-b"], dry
    assert _config_maps(target, namespace) == before
    out = deleter.delete_collection("v1", "ConfigMap", namespace, label_selector=f"{LABEL}=yes")
    assert _names(out) == ["dc-a", "dc-b"], out
    left = _config_maps(target, namespace)
    assert "dc-a" not in left and "dc-b" not in left, left
    assert left == [n for n in before if n not in ("dc-a", "dc-b")], left


def _held_pod(name: str, namespace: str, labels: dict[str, str]) -> Obj:
    # No node carries the label, so the pod stays unbound on every target.
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels,
                         "finalizers": [FINALIZER]},
            "spec": {"nodeSelector": {"garhwal.dev/none": "x"},
                     "terminationGracePeriodSeconds": 30,
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}  # fmt: skip


def test_delete_collection_deletes_as_single_deletes(
    target: Target, namespace: str, deleter: DeleteCollection
) -> None:
    """Deletecollection honours finalizers and grace periods.

    Each object a deletecollection deletes MUST be deleted as a single DELETE with the
    same options deletes it: a pod with a finalizer MUST stay, marked with a
    deletionTimestamp and the same deletionGracePeriodSeconds and finalizers as a pod
    deleted singly; once its finalizer is removed it MUST be gone.
    """
    target.apply(_held_pod("dc-single", namespace, {LABEL: "single"}))
    target.apply(_held_pod("dc-coll", namespace, {LABEL: "coll"}))
    try:
        target.delete("v1", "Pod", "dc-single", namespace)
        out = deleter.delete_collection("v1", "Pod", namespace, label_selector=f"{LABEL}=coll",
                                        grace_period_seconds=30)  # fmt: skip
        assert _names(out) == ["dc-coll"], out
        single = target.get("v1", "Pod", "dc-single", namespace)["metadata"]
        coll = target.get("v1", "Pod", "dc-coll", namespace)["metadata"]
        assert coll.get("deletionTimestamp"), coll
        assert coll.get("finalizers") == single.get("finalizers"), (coll, single)
        assert coll.get("deletionGracePeriodSeconds") == single.get("deletionGracePeriodSeconds")
    finally:
        release_finalizers(target, "v1", "Pod", "dc-single", namespace)
        release_finalizers(target, "v1", "Pod", "dc-coll", namespace)
    target.wait_until(lambda: not target.list("v1", "Pod", namespace, f"{LABEL}"),
                      timeout=60, what="the released pods to go")  # fmt: skip
