"""``pkg/api/persistentvolume/util.go``: ``GetWarningsForPersistentVolume`` (the PV
strategy's WarningsOnCreate/Update; its status strategy has none)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.node import node_selector_term_warnings

__all__ = ["pv_warnings"]

Obj = dict[str, Any]

_DEPRECATED_ANNOTATIONS: Final = (
    ("volume.beta.kubernetes.io/storage-class",
     'deprecated since v1.8; use "storageClassName" attribute instead'),
    ("volume.beta.kubernetes.io/mount-options",
     'deprecated since v1.31; use "mountOptions" attribute instead'),
)  # fmt: skip
# (v1 field, message name, message), in upstream's order.
_PLUGINS: Final = (
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)


@warner("PersistentVolume")
def pv_warnings(pv: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``warningsForPersistentVolumeSpecAndMeta`` with a nil path."""
    out = []
    ann = pv["metadata"].get("annotations") or {}
    for key, msg in _DEPRECATED_ANNOTATIONS:
        if key in ann:
            out.append(f"metadata.annotations[{key}]: {msg}")
    spec = pv.get("spec") or {}
    if spec.get("persistentVolumeReclaimPolicy") == "Recycle":
        out.append("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. "
                   "Instead, the recommended approach is to use dynamic provisioning.")  # fmt: skip
    required = (spec.get("nodeAffinity") or {}).get("required")
    if required is not None:
        base = "spec.nodeAffinity.required.nodeSelectorTerms"
        for i, term in enumerate(required.get("nodeSelectorTerms") or ()):
            out += node_selector_term_warnings(term, False, f"{base}[{i}]")
    for field, name, msg in _PLUGINS:
        if spec.get(field) is not None:
            out.append(f"spec.{name}: {msg}")
    return out
