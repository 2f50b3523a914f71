"""API machinery conformance: create, read, update, list, delete and optimistic concurrency."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import make_configmap, make_pod, make_replicaset
from reference_impl.errors import Conflict, NotFound

pytestmark = pytest.mark.conformance


def test_created_object_gets_server_set_metadata(target: Target, namespace: str) -> None:
    """API machinery, server-set metadata.

    Applying a new ConfigMap MUST return it with a uid, a resourceVersion, a
    creationTimestamp and generation 1, and a get MUST return the same object.
    """
    cm = target.apply(make_configmap("cfg", namespace, color="blue").build())
    meta = cm["metadata"]
    assert meta["uid"] and meta["resourceVersion"] and meta["creationTimestamp"]
    assert meta["namespace"] == namespace
    got = target.get("v1", "ConfigMap", "cfg", namespace)
    assert got["data"] == {"color": "blue"}
    assert got["metadata"]["uid"] == meta["uid"]
    assert got["metadata"]["resourceVersion"] == meta["resourceVersion"]


def test_update_changes_resource_version_and_keeps_uid(target: Target, namespace: str) -> None:
    """API machinery, update.

    Re-applying a changed ConfigMap MUST keep its uid and creationTimestamp and MUST
    return a new resourceVersion with the new data.
    """
    first = target.apply(make_configmap("cfg", namespace, color="blue").build())
    second = target.apply(make_configmap("cfg", namespace, color="green").build())
    assert second["metadata"]["uid"] == first["metadata"]["uid"]
    assert second["metadata"]["creationTimestamp"] == first["metadata"]["creationTimestamp"]
    assert second["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]
    assert target.get("v1", "ConfigMap", "cfg", namespace)["data"] == {"color": "green"}


def test_stale_resource_version_is_a_conflict(target: Target, namespace: str) -> None:
    """API machinery, optimistic concurrency.

    An update carrying a resourceVersion older than the stored one MUST fail with
    Conflict and MUST NOT change the stored object.
    """
    first = target.apply(make_configmap("cfg", namespace, v="1").build())
    target.apply(make_configmap("cfg", namespace, v="2").build())
    stale = make_configmap("cfg", namespace, v="3").build()
    stale["metadata"]["resourceVersion"] = first["metadata"]["resourceVersion"]
    with pytest.raises(Conflict):
        target.apply(stale)
    assert target.get("v1", "ConfigMap", "cfg", namespace)["data"] == {"v": "2"}


def test_generation_moves_only_with_the_spec(target: Target, namespace: str) -> None:
    """API machinery, metadata.generation.

    A ReplicaSet starts at generation 1. A label change MUST NOT bump the generation; a
    spec change MUST bump it by one.
    """
    rs = target.apply(make_replicaset("web", namespace, replicas=0).build())
    assert rs["metadata"]["generation"] == 1
    labelled = make_replicaset("web", namespace, replicas=0).label("tier", "front").build()
    assert target.apply(labelled)["metadata"]["generation"] == 1
    scaled = make_replicaset("web", namespace, replicas=2).label("tier", "front").build()
    assert target.apply(scaled)["metadata"]["generation"] == 2


def test_list_filters_by_label_selector(target: Target, namespace: str) -> None:
    """API machinery, list with label selectors.

    Listing with equality, set-based and existence selectors MUST return exactly the
    matching objects.
    """
    for name, tier in (("a", "web"), ("b", "db"), ("c", "web")):
        target.apply(make_configmap(name, namespace).label("tier", tier).build())
    target.apply(make_configmap("d", namespace).build())

    def names(selector: str) -> list[str]:
        items = target.list("v1", "ConfigMap", namespace, label_selector=selector)
        return sorted(o["metadata"]["name"] for o in items if o["metadata"]["name"] in "abcd")

    assert names("tier=web") == ["a", "c"]
    assert names("tier in (db)") == ["b"]
    assert names("tier") == ["a", "b", "c"]
    assert names("!tier") == ["d"]
    assert names("tier!=web") == ["b", "d"]


def test_deleted_object_is_not_found(target: Target, namespace: str) -> None:
    """API machinery, delete.

    After a ConfigMap is deleted a get MUST raise NotFound, and deleting it again
    MUST raise NotFound.
    """
    target.apply(make_configmap("gone", namespace).build())
    target.delete("v1", "ConfigMap", "gone", namespace)
    with pytest.raises(NotFound):
        target.get("v1", "ConfigMap", "gone", namespace)
    with pytest.raises(NotFound):
        target.delete("v1", "ConfigMap", "gone", namespace)


def test_a_pod_create_drops_the_clients_status(target: Target, namespace: str) -> None:
    """API machinery, status on create (``podStrategy.PrepareForCreate``).

    A pod created with a status (Running, a pod IP, a Ready condition, a QoS class) MUST be
    stored as Pending with only its computed QoS class; a pod with scheduling gates MUST
    carry just the PodScheduled=False/SchedulingGated condition.
    """
    for name, gates in (("plain", []), ("gated", [{"name": "example.com/hold"}])):
        pod = make_pod(name, namespace).node_selector(**{"garhwal.dev/none": "x"}).build()
        pod["spec"]["schedulingGates"] = gates
        pod["status"] = {
            "phase": "Running", "podIP": "10.1.2.3", "qosClass": "Guaranteed",
            "conditions": [{"type": "Ready", "status": "True"}],
        }  # fmt: skip
        status = target.apply(pod)["status"]
        conditions = [(c["type"], c["status"], c.get("reason")) for c in status.get("conditions", [])]
        assert (status["phase"], status.get("podIP"), status["qosClass"]) == ("Pending", None, "BestEffort")
        assert conditions == ([("PodScheduled", "False", "SchedulingGated")] if gates else []), name
