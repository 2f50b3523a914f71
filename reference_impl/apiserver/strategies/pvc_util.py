"""The claim helpers of ``pkg/api/persistentvolumeclaim/util.go`` (1.37.2) that the PVC
strategy runs before validation: gated fields dropped from spec and status, the legacy
dataSource filter and the dataSource/dataSourceRef normalisation (KEP-1495)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.features import FeatureGates

__all__ = [
    "drop_disabled_fields",
    "drop_disabled_fields_from_status",
    "enforce_data_source_backwards_compatibility",
    "normalize_data_sources",
]

Obj = dict[str, Any]
_REF_KEYS: Final = ("apiGroup", "kind", "name")


def _ref_in_use(old_spec: Obj | None) -> bool:
    """``dataSourceRefInUse``."""
    return old_spec is not None and old_spec.get("dataSourceRef") is not None


def drop_disabled_fields(spec: Obj, old_spec: Obj | None, gates: FeatureGates) -> None:
    """``DropDisabledFields``: volumeAttributesClassName without VolumeAttributesClass and a
    cross-namespace dataSourceRef without CrossNamespaceVolumeDataSource, unless in use."""
    if not gates.enabled("VolumeAttributesClass") and (
        old_spec is None or old_spec.get("volumeAttributesClassName") is None
    ):
        spec.pop("volumeAttributesClassName", None)
    ref = spec.get("dataSourceRef")
    if (
        not gates.enabled("CrossNamespaceVolumeDataSource")
        and isinstance(ref, dict)
        and ref.get("namespace")
        and not _ref_in_use(old_spec)
    ):
        spec.pop("dataSourceRef")


def _pvc_or_snapshot(src: Any) -> bool:
    """``dataSourceIsPvcOrSnapshot``."""
    if not isinstance(src, dict):
        return False
    group, kind = str(src.get("apiGroup") or ""), src.get("kind")
    return (kind, group) in (
        ("PersistentVolumeClaim", ""),
        ("VolumeSnapshot", "snapshot.storage.k8s.io"),
    )


def enforce_data_source_backwards_compatibility(spec: Obj, old_spec: Obj | None) -> None:
    """``EnforceDataSourceBackwardsCompatibility``: with no dataSourceRef and no data source
    in use, a dataSource that is neither a PVC nor a VolumeSnapshot is silently dropped."""
    if old_spec is not None and (
        old_spec.get("dataSource") is not None or old_spec.get("dataSourceRef") is not None
    ):
        return
    if spec.get("dataSourceRef") is not None:
        return
    if not _pvc_or_snapshot(spec.get("dataSource")):
        spec.pop("dataSource", None)


def normalize_data_sources(spec: Obj) -> None:
    """``NormalizeDataSources``: when only one of dataSource and dataSourceRef is set, the
    other is filled from it (a cross-namespace dataSourceRef has no dataSource twin)."""
    src, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if isinstance(src, dict) and ref is None:
        spec["dataSourceRef"] = {k: src[k] for k in _REF_KEYS if src.get(k) is not None}
    elif isinstance(ref, dict) and src is None and not ref.get("namespace"):
        spec["dataSource"] = {k: ref[k] for k in _REF_KEYS if ref.get(k) is not None}


def drop_disabled_fields_from_status(pvc: Obj, old: Obj | None, gates: FeatureGates) -> None:
    """``DropDisabledFieldsFromStatus``: the status fields of VolumeAttributesClass,
    RecoverVolumeExpansionFailure and CSIVolumeHealth, unless the old claim has them."""
    status = pvc.get("status")
    if not isinstance(status, dict):
        return
    ostatus = (old or {}).get("status")
    ostatus = ostatus if isinstance(ostatus, dict) else {}
    # Each (gate, field): a nil old claim counts as not having the field.
    for gate, key in (
        ("VolumeAttributesClass", "currentVolumeAttributesClassName"),
        ("VolumeAttributesClass", "modifyVolumeStatus"),
        ("RecoverVolumeExpansionFailure", "allocatedResources"),
        ("RecoverVolumeExpansionFailure", "allocatedResourceStatuses"),
        ("CSIVolumeHealth", "healthStatus"),
    ):
        if not gates.enabled(gate) and ostatus.get(key) is None:
            status.pop(key, None)


@preparer("PersistentVolumeClaim", status=True)
def drop_disabled_pvc_status_fields(pvc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The PVC status strategy's PrepareForUpdate (``DropDisabledFieldsFromStatus``)."""
    drop_disabled_fields_from_status(pvc, old, ctx.gates)
