"""Models plugin/pkg/admission/nodetaint: TaintNodesByCondition.

Every Node is created with the ``node.kubernetes.io/not-ready:NoSchedule`` taint (unless it
already carries one with that key and effect), so no pod lands on a node before the node
lifecycle controller has seen it Ready; that controller then lifts the taint. Updates and
subresources are left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.api.resources import ResourceInfo
from reference_impl.api.well_known_taints import TAINT_NODE_NOT_READY
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["TaintNodesByCondition", "install"]

Obj = dict[str, Any]


class TaintNodesByCondition:
    """Add the not-ready NoSchedule taint to a Node being created."""

    name = "TaintNodesByCondition"

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Node creation only; the taint has no value and no timeAdded, as upstream."""
        if op is not Operation.CREATE or info.kind != "Node" or ctx.subresource:
            return
        spec = obj.setdefault("spec", {})
        taints = spec.get("taints") or [] if isinstance(spec, dict) else None
        if not isinstance(taints, list):
            return  # malformed: validation reports it
        if any(isinstance(t, dict) and t.get("key") == TAINT_NODE_NOT_READY
               and t.get("effect") == "NoSchedule" for t in taints):  # fmt: skip
            return
        spec["taints"] = [*taints, {"key": TAINT_NODE_NOT_READY, "effect": "NoSchedule"}]

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Enable the plugin (it is on by default in kube-apiserver)."""
    server.admission.append(TaintNodesByCondition())
