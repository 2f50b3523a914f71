"""Builders for storage.k8s.io/v1 and PersistentVolumeClaim manifests used by the suites."""

from __future__ import annotations

from typing import Any

__all__ = ["make_csi_driver", "make_csi_storage_capacity", "make_pvc", "make_storage_class"]

Obj = dict[str, Any]


def make_storage_class(
    name: str, provisioner: str, binding_mode: str = "WaitForFirstConsumer"
) -> Obj:
    """A StorageClass with ``volumeBindingMode`` (default WaitForFirstConsumer)."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
        "volumeBindingMode": binding_mode,
    }


def make_csi_driver(name: str, storage_capacity: bool = True) -> Obj:
    """A CSIDriver that publishes CSIStorageCapacity (``storageCapacity``)."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIDriver",
        "metadata": {"name": name},
        "spec": {"storageCapacity": storage_capacity, "attachRequired": False},
    }


def make_csi_storage_capacity(
    name: str,
    namespace: str,
    storage_class: str,
    capacity: str | None,
    node_labels: dict[str, str] | None = None,
    maximum_volume_size: str | None = None,
) -> Obj:
    """A CSIStorageCapacity for nodes matching ``node_labels`` (None: every node)."""
    obj: Obj = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIStorageCapacity",
        "metadata": {"name": name, "namespace": namespace},
        "storageClassName": storage_class,
        "nodeTopology": {"matchLabels": dict(node_labels or {})},
    }
    if capacity is not None:
        obj["capacity"] = capacity
    if maximum_volume_size is not None:
        obj["maximumVolumeSize"] = maximum_volume_size
    return obj


def make_pvc(name: str, namespace: str, storage_class: str, size: str) -> Obj:
    """A ReadWriteOnce PersistentVolumeClaim of ``size`` in ``storage_class``."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": storage_class,
            "resources": {"requests": {"storage": size}},
        },
    }
