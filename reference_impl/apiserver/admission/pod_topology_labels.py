"""Models plugin/pkg/admission/podtopologylabels: the PodTopologyLabels plugin.

With PodTopologyLabelsAdmission (beta, on in 1.37), a pod created already bound
(``spec.nodeName``) and a pods/binding both carry the node's
``topology.kubernetes.io/{zone,region}`` labels onto the pod, overwriting the pod's own
values, so a workload can read its topology through the downward API. A node that does
not exist contributes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["GATE", "TOPOLOGY_LABELS", "PodTopologyLabels", "install", "topology_labels"]

Obj = dict[str, Any]
GATE: Final = "PodTopologyLabelsAdmission"
TOPOLOGY_LABELS: Final = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")


def topology_labels(ctx: Context, node_name: str) -> dict[str, str]:
    """The node's topology labels ({} with the gate off or no such node)."""
    if not ctx.gates.enabled(GATE):
        return {}
    node = ctx.get("v1", "Node", node_name, None)
    labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    return {k: str(labels[k]) for k in TOPOLOGY_LABELS if k in labels}


class PodTopologyLabels:
    """Copy the node's topology labels onto a pod created bound to it."""

    name = "PodTopologyLabels"

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Pod creation only (``NewHandler(admission.Create)``); bindings go through
        ``topology_labels`` in the binding subresource."""
        if op is not Operation.CREATE or info.kind != "Pod" or ctx.subresource:
            return
        node_name = (obj.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        labels = topology_labels(ctx, str(node_name))
        if labels:
            obj["metadata"].setdefault("labels", {}).update(labels)

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Enable the plugin (on by default in kube-apiserver; it acts only with its gate)."""
    server.admission.append(PodTopologyLabels())
