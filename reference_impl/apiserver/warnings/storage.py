"""``pkg/api/storage/util.go``: the StorageClass and CSIStorageCapacity strategies'
WarningsOnCreate/Update (deprecated node labels in their topologies)."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.node import DEPRECATED_NODE_LABELS, node_selector_warnings

__all__ = ["csi_storage_capacity_warnings", "storage_class_warnings"]

Obj = dict[str, Any]


@warner("StorageClass")
def storage_class_warnings(sc: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``GetWarningsForStorageClass``: allowedTopologies' matchLabelExpressions keys."""
    out = []
    for i, topo in enumerate(sc.get("allowedTopologies") or ()):
        for j, expr in enumerate(topo.get("matchLabelExpressions") or ()):
            msg = DEPRECATED_NODE_LABELS.get(expr.get("key", ""))
            if msg is not None:
                out.append(f"allowedTopologies[{i}].matchLabelExpressions[{j}].key: {msg}")
    return out


@warner("CSIStorageCapacity")
def csi_storage_capacity_warnings(csc: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``GetWarningsForCSIStorageCapacity``: the nodeTopology selector."""
    return node_selector_warnings(csc.get("nodeTopology"), "nodeTopology")
