"""StorageObjectInUseProtection (default-on admission) with the pvc-protection and
pv-protection controllers: new claims and volumes carry a protection finalizer, and an
unused one still goes away when deleted."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance
Obj = dict[str, Any]


def _gone(target: Target, kind: str, name: str, namespace: str | None) -> bool:
    try:
        target.get("v1", kind, name, namespace)
    except NotFound:
        return True
    return False


def test_claims_and_volumes_are_protected_and_unused_ones_are_deleted(
    target: Target, namespace: str
) -> None:
    """The protection finalizers.

    A PersistentVolumeClaim created with a finalizer of its own MUST be stored with it
    followed by ``kubernetes.io/pvc-protection``; a PersistentVolume MUST be stored with
    ``kubernetes.io/pv-protection``; an unused claim and an unbound volume MUST disappear
    soon after they are deleted.
    """
    claim: Obj = {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "protected", "namespace": namespace, "finalizers": ["example.com/keep"]},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                 "resources": {"requests": {"storage": "1Gi"}}},
    }  # fmt: skip
    stored = target.apply(claim)
    assert stored["metadata"]["finalizers"] == ["example.com/keep", "kubernetes.io/pvc-protection"]
    pv_name = f"protected-{namespace}"[:63]
    pv = target.apply({
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv_name},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                 "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                 "hostPath": {"path": f"/tmp/{pv_name}"}},
    })  # fmt: skip
    assert pv["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    target.delete("v1", "PersistentVolume", pv_name)
    stored["metadata"]["finalizers"] = ["kubernetes.io/pvc-protection"]
    target.apply(stored)  # drop our own finalizer; the protection one stays ours to test
    target.delete("v1", "PersistentVolumeClaim", "protected", namespace)
    target.wait_until(lambda: _gone(target, "PersistentVolumeClaim", "protected", namespace),
                      timeout=60, what="unused claim gone")  # fmt: skip
    target.wait_until(lambda: _gone(target, "PersistentVolume", pv_name, None),
                      timeout=60, what="unbound volume gone")  # fmt: skip
