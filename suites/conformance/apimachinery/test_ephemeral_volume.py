"""The ephemeral volume controller: a pod's generic ephemeral volume gets its claim
``<pod>-<volume>``, owned by the pod, and the garbage collector removes it with the pod.

The pod asks for a node label no node has, so it stays Pending and needs no kubelet;
its claim names a StorageClass that does not exist, so no volume binds or is provisioned.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance
Obj = dict[str, Any]
IMAGE = "registry.k8s.io/pause:3.10"
CLASS = "garhwal-no-such-class"


def _claim(target: Target, name: str, namespace: str) -> Obj | None:
    try:
        return target.get("v1", "PersistentVolumeClaim", name, namespace)
    except NotFound:
        return None


def test_generic_ephemeral_volume_claim_follows_its_pod(target: Target, namespace: str) -> None:
    """Generic ephemeral volumes.

    For a pod with a generic ephemeral volume, a PersistentVolumeClaim named
    ``<pod>-<volume>`` MUST appear in the pod's namespace with the template's labels,
    annotations and spec, owned by the pod as controller with ``blockOwnerDeletion``;
    once the pod is deleted, the claim MUST be deleted too.
    """
    template: Obj = {
        "metadata": {"labels": {"app": "scratch"}, "annotations": {"example.com/note": "kept"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": CLASS,
                 "resources": {"requests": {"storage": "1Gi"}}},
    }  # fmt: skip
    pod = target.apply({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "eph", "namespace": namespace},
        "spec": {
            "nodeSelector": {"example.com/no-such-node": "true"},
            "containers": [{"name": "app", "image": IMAGE,
                            "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]}],
            "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}}],
        },
    })  # fmt: skip
    target.wait_until(lambda: _claim(target, "eph-scratch", namespace) is not None,
                      timeout=60, what="ephemeral volume claim created")  # fmt: skip
    claim = _claim(target, "eph-scratch", namespace)
    assert claim is not None
    meta = claim["metadata"]
    assert meta["ownerReferences"] == [{
        "apiVersion": "v1", "kind": "Pod", "name": "eph", "uid": pod["metadata"]["uid"],
        "controller": True, "blockOwnerDeletion": True,
    }]  # fmt: skip
    assert meta.get("labels") == {"app": "scratch"}
    assert (meta.get("annotations") or {}).get("example.com/note") == "kept"
    # The pod's template as stored (defaults applied) is what the claim copies.
    stored_spec = pod["spec"]["volumes"][0]["ephemeral"]["volumeClaimTemplate"]["spec"]
    for field in ("accessModes", "resources", "storageClassName", "volumeMode"):
        assert claim["spec"].get(field) == stored_spec.get(field), field
    assert claim["spec"]["storageClassName"] == CLASS
    target.delete("v1", "Pod", "eph", namespace)
    target.wait_until(lambda: _claim(target, "eph-scratch", namespace) is None,
                      timeout=90, what="ephemeral volume claim deleted with its pod")  # fmt: skip
