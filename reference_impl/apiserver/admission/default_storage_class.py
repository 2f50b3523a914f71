"""Models plugin/pkg/admission/storage/storageclass/setdefault: DefaultStorageClass.

On PersistentVolumeClaim create (never on updates or subresources), a claim that asks
for no class (no ``spec.storageClassName`` and no beta class annotation; ``""`` is a
request for no class and is kept) gets the default StorageClass: one annotated
``storageclass.kubernetes.io/is-default-class: "true"`` (or the beta annotation), the
newest by creationTimestamp, ties going to the smaller name
(``pkg/volume/util.GetDefaultClass``). No default class: the claim is left alone.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["DEFAULT_CLASS_ANNOTATIONS", "DefaultStorageClass", "default_class", "install"]

Obj = dict[str, Any]
DEFAULT_CLASS_ANNOTATIONS: Final = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
_BETA_CLAIM_CLASS: Final = "volume.beta.kubernetes.io/storage-class"


def _created(sc: Obj) -> float:
    ts = (sc.get("metadata") or {}).get("creationTimestamp")
    return datetime.fromisoformat(ts).timestamp() if isinstance(ts, str) and ts else 0.0


def default_class(classes: list[Obj]) -> Obj | None:
    """``GetDefaultClass``: the newest default-annotated class, then by name."""
    defaults = [
        sc
        for sc in classes
        if any(((sc.get("metadata") or {}).get("annotations") or {}).get(a) == "true" for a in DEFAULT_CLASS_ANNOTATIONS)
    ]  # fmt: skip
    if not defaults:
        return None
    return min(defaults, key=lambda sc: (-_created(sc), str(sc["metadata"].get("name", ""))))


def _has_class(pvc: Obj) -> bool:
    """``helper.PersistentVolumeClaimHasClass``."""
    if _BETA_CLAIM_CLASS in ((pvc.get("metadata") or {}).get("annotations") or {}):
        return True
    return (pvc.get("spec") or {}).get("storageClassName") is not None


class DefaultStorageClass:
    """Give a classless new claim the default StorageClass."""

    name = "DefaultStorageClass"

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Only PVC creation, as upstream's ``NewHandler(admission.Create)``."""
        if op is not Operation.CREATE or info.kind != "PersistentVolumeClaim" or ctx.subresource:
            return
        if _has_class(obj):
            return
        chosen = default_class(ctx.list("storage.k8s.io/v1", "StorageClass", None))
        if chosen is not None:
            obj.setdefault("spec", {})["storageClassName"] = chosen["metadata"]["name"]

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mutating only."""
        return []


def install(server: APIServer) -> None:
    """Enable the plugin (it is on by default in kube-apiserver)."""
    server.admission.append(DefaultStorageClass())
