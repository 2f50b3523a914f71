"""VolumeBinding's queueing hints (volumebinding/volume_binding.go ``isSchedulableAfter*``).

Each says whether a storage object's change may let a pod the plugin rejected bind its
volumes: a claim it names, a class's allowed topologies, a CSINode's migrated plugins, a
capacity that grew, a driver that stopped tracking capacity.
"""

from __future__ import annotations

import math
from typing import Any

from reference_impl.api.quantity import quantity_value
from reference_impl.apiserver.volumes import pod_uses_claim
from reference_impl.scheduler.framework.interface import QueueingHint

__all__ = [
    "after_csi_driver_change",
    "after_csi_node_change",
    "after_csi_storage_capacity_change",
    "after_pvc_change",
    "after_storage_class_change",
]

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
_MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"  # v1.MigratedPluginsAnnotationKey


def after_csi_node_change(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterCSINodeChange``: a new CSINode, or its migrated plugins changed."""
    if old is None or new is None:
        return Q

    def migrated(o: Obj) -> Any:
        return (o["metadata"].get("annotations") or {}).get(_MIGRATED, "")

    return Q if migrated(old) != migrated(new) else SKIP


def after_pvc_change(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeClaimChange``: a claim the pod uses, directly or
    as a generic ephemeral volume."""
    if new is None:
        return Q
    return Q if pod_uses_claim(pod, new) else SKIP


def after_storage_class_change(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterStorageClassChange``: a new class, or its allowed topologies changed."""
    if old is None or new is None:
        return Q
    # Semantic.DeepEqual: an absent list equals an empty one only when both are nil here.
    return Q if old.get("allowedTopologies") != new.get("allowedTopologies") else SKIP


def _limit(cap: Obj) -> int | None:
    """``volumeLimit``: maximumVolumeSize if set, else capacity (``Value()`` rounds up)."""
    raw = cap.get("maximumVolumeSize")
    if raw is None:
        raw = cap.get("capacity")
    return None if raw is None else math.ceil(quantity_value(raw))


def after_csi_storage_capacity_change(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterCSIStorageCapacityChange``: a new capacity, or its limit grew."""
    if old is None or new is None:
        return Q
    before, after = _limit(old), _limit(new)
    return Q if after is not None and (before is None or after > before) else SKIP


def after_csi_driver_change(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterCSIDriverChange``: an inline CSI volume's driver stopped
    tracking storage capacity."""
    if old is None or new is None:
        return Q
    name = new["metadata"].get("name")
    was = bool((old.get("spec") or {}).get("storageCapacity"))
    now = bool((new.get("spec") or {}).get("storageCapacity"))
    for v in pod["spec"].get("volumes") or ():
        if (v.get("csi") or {}).get("driver") == name and v.get("csi") is not None and was and not now:
            return Q
    return SKIP
