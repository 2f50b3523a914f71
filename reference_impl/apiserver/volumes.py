"""Which CSI volumes a pod attaches, as NodeVolumeLimits and the cluster autoscaler count them.

Models the volume lookup of ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go``:
a claim bound to a CSI PV counts under the PV's driver, an unbound claim under its
StorageClass's provisioner, and volumes of a CSIDriver with ``attachRequired: false`` do
not count. It sits below the scheduler and the autoscaler so both share one rule.
"""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.informers import InformerFactory

__all__ = ["csi_volume", "pod_csi_volumes"]

Obj = dict[str, Any]


def csi_volume(informers: InformerFactory, ns: str, claim: str) -> tuple[str, str] | None:
    """(driver, volume id) of a claim that needs attaching, or None."""
    pvc = informers.informer("v1", "PersistentVolumeClaim").get(f"{ns}/{claim}")
    if pvc is None:
        return None
    pv_name = pvc["spec"].get("volumeName")
    if pv_name:
        pv = informers.informer("v1", "PersistentVolume").get(pv_name)
        csi = ((pv or {}).get("spec") or {}).get("csi")
        found = (str(csi["driver"]), pv_name) if csi else None
    else:
        sc = informers.informer("storage.k8s.io/v1", "StorageClass").get(
            pvc["spec"].get("storageClassName") or ""
        )
        found = (str(sc["provisioner"]), f"pvc:{ns}/{claim}") if sc else None
    if found is None:
        return None
    driver = informers.informer("storage.k8s.io/v1", "CSIDriver").get(found[0])
    attachable = (
        driver is None or (driver.get("spec") or {}).get("attachRequired", True) is not False
    )
    return found if attachable else None


def pod_csi_volumes(informers: InformerFactory, pod: Obj) -> dict[str, set[str]]:
    """The pod's attachable CSI volume ids, by driver."""
    ns = pod["metadata"].get("namespace", "default")
    out: dict[str, set[str]] = {}
    for vol in pod["spec"].get("volumes") or ():
        claim = (vol.get("persistentVolumeClaim") or {}).get("claimName")
        found = csi_volume(informers, ns, claim) if claim else None
        if found is not None:
            out.setdefault(found[0], set()).add(found[1])
    return out
