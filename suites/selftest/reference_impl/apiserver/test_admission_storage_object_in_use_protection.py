"""StorageObjectInUseProtection admission and the pvc/pv-protection controllers, after
upstream's ``storageobjectinuseprotection/admission_test.go`` and
``pvc_protection_controller_test.go`` / ``pv_protection_controller_test.go`` cases."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl import Cluster
from reference_impl.errors import NotFound

Obj = dict[str, Any]
PVC_FIN = "kubernetes.io/pvc-protection"
PV_FIN = "kubernetes.io/pv-protection"
NS = "default"


def _claim(name: str = "claim", finalizers: list[str] | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": NS}
    if finalizers is not None:
        meta["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                     "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip


def _volume(name: str = "pv", finalizers: list[str] | None = None) -> Obj:
    meta: Obj = {"name": name}
    if finalizers is not None:
        meta["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta,
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "hostPath": {"path": "/tmp/pv"}, "storageClassName": ""}}  # fmt: skip


def _pod(name: str, claim: str, node: str = "", phase: str = "") -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
                 "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}},
                             {"name": "scratch", "emptyDir": {}}]}  # fmt: skip
    if node:
        spec["nodeName"] = node
    pod: Obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS},
        "spec": spec,
    }
    if phase:
        pod["status"] = {"phase": phase}
    return pod


def _gone(c: Cluster, kind: str, name: str, ns: str | None) -> bool:
    try:
        c.get("v1", kind, name, ns)
    except NotFound:
        return True
    return False


@pytest.fixture
def cluster() -> Cluster:
    return Cluster(seed=1)


@pytest.mark.parametrize(
    ("make", "kind", "fin", "ns"),
    [(_claim, "PersistentVolumeClaim", PVC_FIN, NS), (_volume, "PersistentVolume", PV_FIN, None)],
)
def test_create_adds_the_finalizer_once_after_the_users(
    cluster: Cluster, make: Any, kind: str, fin: str, ns: str | None
) -> None:
    """ "create -> add finalizer" and "finalizer already exists -> no new finalizer"."""
    assert cluster.create(make("a"))["metadata"]["finalizers"] == [fin]
    assert cluster.create(make("b", ["example.com/x", fin]))["metadata"]["finalizers"] == [
        "example.com/x",
        fin,
    ]
    assert cluster.create(make("c", ["example.com/x"]))["metadata"]["finalizers"] == [
        "example.com/x",
        fin,
    ]


def test_an_unused_deleted_claim_is_removed(cluster: Cluster) -> None:
    """ "deleted PVC with finalizer + pod with unrelated PVC and EmptyDir exists"."""
    cluster.create(_claim("used-elsewhere"))
    cluster.create(_claim())
    cluster.create(_pod("p", "used-elsewhere", node="node-0"))
    cluster.delete("v1", "PersistentVolumeClaim", "claim", NS)
    cluster.settle()
    assert _gone(cluster, "PersistentVolumeClaim", "claim", NS)


@pytest.mark.parametrize("phase", ["", "Succeeded"])
def test_a_claim_a_scheduled_pod_uses_stays_until_the_pod_goes(
    cluster: Cluster, phase: str
) -> None:
    """ "pod with the PVC exists", "pod with the PVC finished but is not deleted -> finalizer
    is not removed", then "deleted running Pod -> finalizer is removed"."""
    cluster.create(_claim())
    cluster.create(_pod("p", "claim", node="node-0", phase=phase))
    cluster.delete("v1", "PersistentVolumeClaim", "claim", NS)
    cluster.settle()
    stored = cluster.get("v1", "PersistentVolumeClaim", "claim", NS)
    assert stored["metadata"].get("deletionTimestamp") and stored["metadata"]["finalizers"] == [
        PVC_FIN
    ]
    cluster.delete("v1", "Pod", "p", NS, grace_period_seconds=0)
    cluster.settle()
    assert _gone(cluster, "PersistentVolumeClaim", "claim", NS)


def test_an_unscheduled_pod_does_not_hold_the_claim(cluster: Cluster) -> None:
    """ "updated unscheduled Pod -> finalizer is removed": only scheduled pods count."""
    cluster.create(_claim())
    cluster.create(
        {
            **_pod("p", "claim"),
            "spec": {**_pod("p", "claim")["spec"], "nodeSelector": {"none": "x"}},
        }
    )
    cluster.delete("v1", "PersistentVolumeClaim", "claim", NS)
    cluster.settle()
    assert _gone(cluster, "PersistentVolumeClaim", "claim", NS)


def test_a_live_claim_that_lost_the_finalizer_gets_it_back(cluster: Cluster) -> None:
    """ "PVC without finalizer -> finalizer is added"."""
    stored = cluster.create(_claim())
    stored["metadata"]["finalizers"] = []
    cluster.update(stored)
    cluster.settle()
    assert cluster.get("v1", "PersistentVolumeClaim", "claim", NS)["metadata"]["finalizers"] == [
        PVC_FIN
    ]


def test_a_bound_volume_stays_until_it_is_released(cluster: Cluster) -> None:
    """pv-protection: a Bound PV keeps its finalizer; once its claim is gone the PV
    controller releases it (Retain) and the finalizer is removed."""
    cluster.create(_volume())
    cluster.create(_claim())
    cluster.settle()
    assert cluster.get("v1", "PersistentVolume", "pv")["status"]["phase"] == "Bound"
    cluster.delete("v1", "PersistentVolume", "pv")
    cluster.settle()
    pv = cluster.get("v1", "PersistentVolume", "pv")
    assert pv["metadata"]["finalizers"] == [PV_FIN] and pv["status"]["phase"] == "Bound"
    cluster.delete("v1", "PersistentVolumeClaim", "claim", NS)
    cluster.settle()
    assert _gone(cluster, "PersistentVolumeClaim", "claim", NS)
    assert _gone(cluster, "PersistentVolume", "pv", None)
