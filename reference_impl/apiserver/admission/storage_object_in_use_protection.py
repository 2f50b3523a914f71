"""Models plugin/pkg/admission/storage/storageobjectinuseprotection (default-on).

On create (never on updates or subresources) every PersistentVolumeClaim gets the
finalizer ``kubernetes.io/pvc-protection`` and every PersistentVolume
``kubernetes.io/pv-protection``, appended after the user's own. Deleting one then only
marks it until the pvc-protection / pv-protection controller
(``controllers/pvc_protection.py``, ``controllers/pv_protection.py``) finds it unused.
VolumeAttributesClass protection (``kubernetes.io/vac-protection``) is not modelled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "PROTECTION_FINALIZERS",
    "PV_PROTECTION",
    "PVC_PROTECTION",
    "StorageObjectInUseProtection",
    "install",
]

Obj = dict[str, Any]
PVC_PROTECTION: Final = "kubernetes.io/pvc-protection"
PV_PROTECTION: Final = "kubernetes.io/pv-protection"
PROTECTION_FINALIZERS: Final = {
    "PersistentVolumeClaim": PVC_PROTECTION,
    "PersistentVolume": PV_PROTECTION,
}


class StorageObjectInUseProtection:
    """Stamp the protection finalizer on new claims and volumes."""

    name = "StorageObjectInUseProtection"

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Append the kind's finalizer unless it is there already."""
        finalizer = PROTECTION_FINALIZERS.get(info.kind)
        if op is not Operation.CREATE or finalizer is None or ctx.subresource:
            return
        meta = obj.setdefault("metadata", {})
        finalizers = list(meta.get("finalizers") or [])
        if finalizer not in finalizers:
            meta["finalizers"] = [*finalizers, finalizer]

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Enable the plugin (it is on by default in kube-apiserver)."""
    server.admission.append(StorageObjectInUseProtection())
