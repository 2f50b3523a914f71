"""Node group templates: the simulation's view of a new node and the manifests created for it
(models cluster-autoscaler's ``TemplateNodeInfo`` and expander/waste)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from reference_impl.api.builders import make_node
from reference_impl.api.meta import parse_quantity
from reference_impl.autoscaler.config import GROUP_LABEL, NodeGroup
from reference_impl.autoscaler.simulator import PodDemand, SimNode

__all__ = ["csinode_manifest", "node_manifest", "slice_manifests", "template_node", "waste"]

Obj = dict[str, Any]


def waste(group: NodeGroup, demand: PodDemand) -> Decimal:
    """least-waste: the unused share of cpu and memory on a new node holding the pod."""
    total = Decimal(0)
    for res in ("cpu", "memory"):
        cap = parse_quantity(group.capacity.get(res, "0"))
        if cap > 0:
            total += (cap - demand.requests.get(res, Decimal(0))) / cap
    return total


def template_node(group: NodeGroup, name: str) -> SimNode:
    """The simulation's view of a new node of ``group``."""
    return SimNode(
        name=name,
        labels={**group.labels, GROUP_LABEL: group.name},
        taints=tuple(dict(t) for t in group.taints),
        allocatable={k: parse_quantity(v) for k, v in group.capacity.items()},
        attach_limits=dict(group.csi_drivers),
        group=group.name,
    )


def node_manifest(group: NodeGroup, name: str) -> Obj:
    """A Ready Node of ``group`` (labels, taints and capacity from its template)."""
    b = make_node(name)
    for res, q in sorted(group.capacity.items()):
        b.resource(res, q)
    for t in group.taints:
        b.taint(t["key"], t.get("effect", "NoSchedule"), t.get("value"))
    node = b.build()
    node["metadata"]["labels"].update({**group.labels, GROUP_LABEL: group.name})
    node["metadata"]["labels"].pop("type", None)
    return node


def csinode_manifest(group: NodeGroup, name: str) -> Obj:
    """The CSINode a new node's kubelet would register for the template's drivers."""
    drivers = []
    for driver, count in sorted(group.csi_drivers.items()):
        d: Obj = {"name": driver, "nodeID": name, "topologyKeys": []}
        if count is not None:
            d["allocatable"] = {"count": count}
        drivers.append(d)
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": name},
        "spec": {"drivers": drivers},
    }


def slice_manifests(group: NodeGroup, node: str, node_uid: str | None = None) -> list[Obj]:
    """The ResourceSlices a node of ``group`` publishes: one pool per driver, named after
    the node (as a DRA kubelet plugin does), owned by the Node so they go with it."""
    out = []
    for driver, devices in group.resource_slices:
        meta: Obj = {"name": f"{node}-{driver}"}
        if node_uid:
            meta["ownerReferences"] = [
                {"apiVersion": "v1", "kind": "Node", "name": node, "uid": node_uid}
            ]
        out.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": meta,
                "spec": {
                    "driver": driver,
                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                    "nodeName": node,
                    "devices": [dict(d) for d in devices],
                },
            }
        )
    return out
