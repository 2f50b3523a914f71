"""DefaultStorageClass admission (on by default in kube-apiserver 1.37): a new claim that
asks for no class gets the default StorageClass; one that asks for ``""`` or a named
class keeps it.

The test makes its own default class (the newest, so it wins over any other default)
and deletes it at once: while it exists, the PV controller may also give it to other
unbound classless claims of the cluster (RetroactiveDefaultStorageClass).
"""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import make_storage_class
from reference_impl.errors import NotFound

pytestmark = pytest.mark.conformance
SC = "storage.k8s.io/v1"


def _claim(name: str, namespace: str, storage_class: str | None) -> dict[str, object]:
    spec: dict[str, object] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
    }
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def test_a_classless_claim_gets_the_default_storage_class(target: Target, namespace: str) -> None:
    """The default class.

    With a StorageClass annotated ``storageclass.kubernetes.io/is-default-class: "true"``
    (the newest default), a PVC created without ``storageClassName`` MUST be stored with
    that class; a PVC created with ``storageClassName: ""`` or a named class MUST keep it.
    """
    name = f"default-{namespace}"[:63]
    sc = make_storage_class(name, "example.com/garhwal-no-provisioner", "WaitForFirstConsumer")
    sc["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    target.apply(sc)
    try:
        none = target.apply(_claim("no-class", namespace, None))
        empty = target.apply(_claim("empty-class", namespace, ""))
        named = target.apply(_claim("named-class", namespace, "fast"))
    finally:
        try:
            target.delete(SC, "StorageClass", name)
        except NotFound:
            pass
    assert none["spec"].get("storageClassName") == name
    assert empty["spec"].get("storageClassName") == ""
    assert named["spec"].get("storageClassName") == "fast"
