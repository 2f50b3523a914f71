"""Models ``policy/check_restrictedVolumes.go``: restricted, v1.0+ (replacing the
hostPath volumes check). Only configMap, csi, downwardAPI, emptyDir, ephemeral, image,
persistentVolumeClaim, projected and secret volumes are allowed."""

from __future__ import annotations

from typing import Final

from reference_impl.apiserver.admission.pod_security import check_host_path_volumes
from reference_impl.apiserver.admission.pod_security.checks import (
    ALLOWED,
    Check,
    CheckResult,
    Obj,
    VersionedCheck,
    join_quote,
    pluralize,
)
from reference_impl.apiserver.admission.pod_security.levels import Level, major_minor

__all__ = ["ALLOWED_SOURCES", "CHECK", "RESTRICTED_SOURCES", "restricted_volumes_1_0"]

ALLOWED_SOURCES: Final = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
                          "persistentVolumeClaim", "projected", "secret")  # fmt: skip
# The restricted sources, in the order upstream names the first one a volume has.
RESTRICTED_SOURCES: Final = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
    "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
    "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
    "scaleIO", "storageos",
)  # fmt: skip


def restricted_volumes_1_0(meta: Obj, spec: Obj) -> CheckResult:
    """``restrictedVolumes_1_0``: the volumes and their (sorted) restricted types."""
    bad: list[str] = []
    types: set[str] = set()
    for v in spec.get("volumes") or ():
        if not isinstance(v, dict) or any(v.get(s) is not None for s in ALLOWED_SOURCES):
            continue
        bad.append(str(v.get("name", "")))
        types.add(next((s for s in RESTRICTED_SOURCES if v.get(s) is not None), "unknown"))
    if not bad:
        return ALLOWED
    return CheckResult(
        False,
        "restricted volume types",
        f"{pluralize('volume', 'volumes', len(bad))} {join_quote(bad)} "
        f"{pluralize('uses', 'use', len(bad))} "
        f"{pluralize('restricted volume type', 'restricted volume types', len(types))} "
        f"{join_quote(sorted(types))}",
    )


CHECK: Final = Check(
    "restrictedVolumes",
    Level.RESTRICTED,
    (VersionedCheck(major_minor(1, 0), restricted_volumes_1_0, (check_host_path_volumes.ID,)),),
)
