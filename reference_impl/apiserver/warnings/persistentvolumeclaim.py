"""``pkg/api/persistentvolumeclaim/util.go``: ``GetWarningsForPersistentVolumeClaim`` (the
PVC strategy's WarningsOnCreate/Update) and ``GetWarningsForPersistentVolumeClaimSpec``."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.util import fractional_bytes

__all__ = ["pvc_spec_warnings", "pvc_warnings"]

Obj = dict[str, Any]

_BETA_CLASS: Final = "volume.beta.kubernetes.io/storage-class"


def pvc_spec_warnings(path: str, spec: Obj) -> list[str]:
    """Fractional storage requests and limits."""
    resources = spec.get("resources") or {}
    out: list[str] = []
    for part in ("requests", "limits"):
        value = (resources.get(part) or {}).get("storage")
        if value is not None:
            out += fractional_bytes(f"{path}.resources.{part}[storage]", value)
    return out


@warner("PersistentVolumeClaim")
def pvc_warnings(pvc: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """The deprecated beta storage-class annotation, then the spec's warnings."""
    out = []
    if _BETA_CLASS in (pvc["metadata"].get("annotations") or {}):
        out.append(f"metadata.annotations[{_BETA_CLASS}]: deprecated since v1.8; use "
                   '"storageClassName" attribute instead')  # fmt: skip
    return out + pvc_spec_warnings("spec", pvc.get("spec") or {})
