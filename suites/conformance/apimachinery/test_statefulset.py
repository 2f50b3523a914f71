"""StatefulSet conformance: the controller gives each replica its ordinal identity and
its volumeClaimTemplate claims (``pkg/controller/statefulset``).

The pods are kept unschedulable (a node selector no node has), so nothing here depends
on a kubelet: with Parallel pod management the controller creates every replica without
waiting for readiness, as upstream does on a cluster where no pod becomes ready.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pod
from reference_impl.api.builders import ManifestBuilder

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
POD_NAME = "statefulset.kubernetes.io/pod-name"
POD_INDEX = "apps.kubernetes.io/pod-index"
REVISION = "controller-revision-hash"


def _statefulset(name: str, namespace: str, replicas: int) -> Obj:
    pod = make_pod("x").image("busybox").node_selector(**{"garhwal.dev/none": "x"}).build()
    template = {"metadata": {"labels": {"app": name}}, "spec": pod["spec"]}
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    spec = {
        "replicas": replicas,
        "serviceName": name,
        "podManagementPolicy": "Parallel",
        "selector": {"matchLabels": {"app": name}},
        "template": template,
        "volumeClaimTemplates": [claim],
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaled": "Retain"},
    }
    return ManifestBuilder("apps/v1", "StatefulSet", name, namespace).set("spec", spec).build()


def _pods(target: Target, namespace: str, app: str) -> dict[str, Obj]:
    pods = target.list("v1", "Pod", namespace, label_selector=f"app={app}")
    return {p["metadata"]["name"]: p for p in pods if not p["metadata"].get("deletionTimestamp")}


def _claims(target: Target, namespace: str) -> dict[str, Obj]:
    return {c["metadata"]["name"]: c for c in target.list("v1", "PersistentVolumeClaim", namespace)}


def test_a_parallel_statefulset_creates_ordinal_pods_and_their_claims(
    target: Target, namespace: str
) -> None:
    """StatefulSet identity and storage.

    A Parallel StatefulSet "web" of 3 replicas MUST create pods web-0, web-1 and web-2
    (none need be ready), each controlled by the set, labelled with its pod name, its
    ordinal (apps.kubernetes.io/pod-index) and the set's update revision, with hostname
    its name, subdomain the serviceName, and volume "data" using claim data-web-<i>.
    Claims data-web-0..2 MUST exist, labelled with the selector's labels and, under
    whenDeleted=Delete, controlled by the set. The status MUST count 3 replicas, none
    ready, with currentRevision = updateRevision naming a ControllerRevision the set
    controls. Scaling to 1 MUST remove web-2 and web-1 and, under whenScaled=Retain,
    keep all three claims.
    """
    target.apply(_statefulset("web", namespace, 3))
    names = ["web-0", "web-1", "web-2"]
    target.wait_until(
        lambda: sorted(_pods(target, namespace, "web")) == names, timeout=60, what="3 pods"
    )
    target.wait_until(
        lambda: sorted(_claims(target, namespace)) == [f"data-{n}" for n in names],
        timeout=60,
        what="3 claims",
    )

    def counted() -> bool:
        status = target.get("apps/v1", "StatefulSet", "web", namespace).get("status") or {}
        return status.get("replicas") == 3 and status.get("updatedReplicas") == 3

    target.wait_until(counted, timeout=60, what="status counts 3 replicas")
    ss = target.get("apps/v1", "StatefulSet", "web", namespace)
    uid, status = ss["metadata"]["uid"], ss["status"]
    assert status.get("readyReplicas", 0) == 0
    assert status.get("availableReplicas", 0) == 0
    assert status["observedGeneration"] == ss["metadata"]["generation"]
    assert status["currentRevision"] == status["updateRevision"]
    revision = target.get("apps/v1", "ControllerRevision", status["updateRevision"], namespace)
    assert revision["revision"] == 1
    owner = [r for r in revision["metadata"]["ownerReferences"] if r.get("controller")]
    assert [(r["kind"], r["uid"]) for r in owner] == [("StatefulSet", uid)]
    for i, (name, pod) in enumerate(sorted(_pods(target, namespace, "web").items())):
        meta = pod["metadata"]
        refs = [r for r in meta["ownerReferences"] if r.get("controller")]
        assert [(r["apiVersion"], r["kind"], r["name"], r["uid"]) for r in refs] == [
            ("apps/v1", "StatefulSet", "web", uid)
        ]
        assert meta["labels"][POD_NAME] == name
        assert meta["labels"][POD_INDEX] == str(i)
        assert meta["labels"][REVISION] == status["updateRevision"]
        assert pod["spec"]["hostname"] == name
        assert pod["spec"]["subdomain"] == "web"
        volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
        assert volumes["data"]["persistentVolumeClaim"]["claimName"] == f"data-{name}"
    for claim in _claims(target, namespace).values():
        assert claim["metadata"]["labels"] == {"app": "web"}
        refs = claim["metadata"].get("ownerReferences") or []
        assert [(r["kind"], r["uid"], r.get("controller")) for r in refs] == [
            ("StatefulSet", uid, True)
        ]

    target.apply(_statefulset("web", namespace, 1))
    target.wait_until(
        lambda: sorted(_pods(target, namespace, "web")) == ["web-0"],
        timeout=60,
        what="scaled down to web-0",
    )
    assert sorted(_claims(target, namespace)) == [f"data-{n}" for n in names]
