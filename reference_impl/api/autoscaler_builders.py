"""Builders for the cluster autoscaler's configuration and the CSI objects its suites use:
ConfigMap ``kube-system/garhwal-cluster-autoscaler``, node groups, CSINodes, and CSI
PersistentVolumes with claims bound to them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import yaml

from reference_impl.api.storage_builders import make_pvc

__all__ = [
    "AUTOSCALER_CONFIGMAP",
    "AUTOSCALER_GROUP_LABEL",
    "make_autoscaler_config",
    "make_bound_pvc",
    "make_csi_pv",
    "make_csinode",
    "make_node_group",
]

Obj = dict[str, Any]
# (namespace, name) of the ConfigMap the reference cluster autoscaler reads.
AUTOSCALER_CONFIGMAP: Final = ("kube-system", "garhwal-cluster-autoscaler")
# The label on every node the autoscaler creates, naming its node group.
AUTOSCALER_GROUP_LABEL: Final = "autoscaler.garhwal.dev/node-group"


def make_node_group(
    name: str,
    *,
    min_size: int = 0,
    max_size: int = 10,
    capacity: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[Mapping[str, str]] = (),
    csi_drivers: Mapping[str, int | None] | None = None,
    priority: int = 0,
    price: float = 1.0,
    resource_slices: Mapping[str, Sequence[Obj]] | None = None,
) -> Obj:
    """One ``nodeGroups[]`` entry: size bounds and the template of the group's nodes
    (``resource_slices``: DRA driver -> the v1 devices its ResourceSlice publishes)."""
    template: Obj = {
        "capacity": dict(capacity or {"cpu": "8", "memory": "32Gi", "pods": "110"}),
        "labels": dict(labels or {}),
        "taints": [dict(t) for t in taints],
        "csiDrivers": [
            {"name": d, "allocatable": c} for d, c in sorted((csi_drivers or {}).items())
        ],
    }
    if resource_slices:
        template["resourceSlices"] = [
            {"driver": d, "devices": [dict(x) for x in devs]}
            for d, devs in sorted(resource_slices.items())
        ]
    return {
        "name": name,
        "minSize": min_size,
        "maxSize": max_size,
        "priority": priority,
        "price": price,
        "template": template,
    }


def make_autoscaler_config(
    groups: Sequence[Obj],
    *,
    expander: str = "least-waste",
    scan_interval_seconds: float = 10,
    scale_down_unneeded_seconds: float = 600,
) -> Obj:
    """The autoscaler's ConfigMap with ``config.yaml`` holding ``groups``."""
    ns, name = AUTOSCALER_CONFIGMAP
    config = {
        "expander": expander,
        "scanIntervalSeconds": scan_interval_seconds,
        "scaleDownUnneededSeconds": scale_down_unneeded_seconds,
        "nodeGroups": list(groups),
    }
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": ns},
        "data": {"config.yaml": yaml.safe_dump(config, sort_keys=True)},
    }


def make_csinode(node: str, drivers: Mapping[str, int | None]) -> Obj:
    """A CSINode for ``node`` with each driver's ``allocatable.count`` (None: unset)."""
    out = []
    for driver, count in sorted(drivers.items()):
        d: Obj = {"name": driver, "nodeID": node, "topologyKeys": []}
        if count is not None:
            d["allocatable"] = {"count": count}
        out.append(d)
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": node},
        "spec": {"drivers": out},
    }


def make_csi_pv(name: str, driver: str, size: str = "1Gi", storage_class: str = "") -> Obj:
    """A pre-provisioned CSI PersistentVolume (no node affinity: attachable anywhere)."""
    spec: Obj = {
        "capacity": {"storage": size},
        "accessModes": ["ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Retain",
        "csi": {"driver": driver, "volumeHandle": name},
    }
    if storage_class:
        spec["storageClassName"] = storage_class
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": spec,
    }


def make_bound_pvc(
    name: str, namespace: str, volume_name: str, size: str = "1Gi", storage_class: str = ""
) -> Obj:
    """A claim pre-bound to ``volume_name`` (``spec.volumeName``)."""
    pvc = make_pvc(name, namespace, storage_class, size)
    pvc["spec"]["volumeName"] = volume_name
    return pvc
