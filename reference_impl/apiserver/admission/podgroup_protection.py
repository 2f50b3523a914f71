"""Models plugin/pkg/admission/scheduling/podgroupprotection (enabled by default in 1.37).

With GenericWorkload on, every PodGroup gets the finalizer
``scheduling.k8s.io/podgroup-protection`` when it is created, so deleting it only marks it
while pods still name it; the podgroup-protection controller
(``controllers/podgroup_protection.py``) removes the finalizer once no active pod does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["PODGROUP_PROTECTION_FINALIZER", "PodGroupProtectionAdmission", "install"]

Obj = dict[str, Any]
PODGROUP_PROTECTION_FINALIZER: Final = "scheduling.k8s.io/podgroup-protection"


class PodGroupProtectionAdmission:
    """``PodGroupProtection``: stamp the protection finalizer on PodGroup creation."""

    name = "PodGroupProtection"

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Append the finalizer to a new PodGroup (never on subresources or updates)."""
        if op is not Operation.CREATE or info.kind != "PodGroup" or ctx.subresource:
            return
        if not ctx.gates.enabled("GenericWorkload"):
            return
        meta = obj.setdefault("metadata", {})
        finalizers = list(meta.get("finalizers") or [])
        if PODGROUP_PROTECTION_FINALIZER not in finalizers:
            meta["finalizers"] = [*finalizers, PODGROUP_PROTECTION_FINALIZER]

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Enable the plugin on ``server``."""
    server.admission.append(PodGroupProtectionAdmission())
