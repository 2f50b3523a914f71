"""Which CSI volumes a pod attaches, as NodeVolumeLimits and the cluster autoscaler count them.

Models the volume lookup of ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go``:
a claim bound to a CSI PV counts under the PV's driver, an unbound claim under its
StorageClass's provisioner, and volumes of a CSIDriver with ``attachRequired: false`` do
not count. It sits below the scheduler and the autoscaler so both share one rule.
"""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.informers import InformerFactory

__all__ = [
    "csi_volume",
    "ephemeral_claim",
    "ephemeral_claim_name",
    "owns_claim",
    "pod_csi_volumes",
    "pod_uses_claim",
]

Obj = dict[str, Any]


def csi_volume(informers: InformerFactory, ns: str, claim: str) -> tuple[str, str] | None:
    """(driver, volume id) of a claim that needs attaching, or None."""
    pvc = informers.informer("v1", "PersistentVolumeClaim").get(f"{ns}/{claim}")
    if pvc is None:
        return None
    pv_name = pvc["spec"].get("volumeName")
    pv = informers.informer("v1", "PersistentVolume").get(pv_name) if pv_name else None
    if pv is not None:
        csi = (pv.get("spec") or {}).get("csi")
        found = (str(csi["driver"]), pv_name) if csi else None
    else:  # unbound, or bound to a missing PV: getCSIDriverInfo falls back to the class
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
        if vol.get("ephemeral") is not None:
            claim = ephemeral_claim(informers, pod, vol)
        found = csi_volume(informers, ns, claim) if claim else None
        if found is not None:
            out.setdefault(found[0], set()).add(found[1])
    return out


def ephemeral_claim_name(pod: Obj, vol: Obj) -> str:
    """``ephemeral.VolumeClaimName``: the pod's name, "-", the volume's name."""
    return f"{pod['metadata'].get('name', '')}-{vol.get('name', '')}"


def pod_uses_claim(pod: Obj, pvc: Obj) -> bool:
    """Whether ``pvc`` (same namespace) is a claim one of the pod's volumes names, directly
    or as its generic ephemeral volume's claim (the volume plugins' PVC queueing hints)."""
    if pvc["metadata"].get("namespace") != pod["metadata"].get("namespace"):
        return False
    name = pvc["metadata"].get("name")
    for v in pod["spec"].get("volumes") or ():
        if v.get("persistentVolumeClaim") is not None:
            if v["persistentVolumeClaim"].get("claimName") == name:
                return True
        elif v.get("ephemeral") is not None and ephemeral_claim_name(pod, v) == name:
            return True
    return False


def owns_claim(pod: Obj, pvc: Obj) -> bool:
    """``ephemeral.VolumeIsForPod``: the claim's controller is the pod (by UID)."""
    uid = pod["metadata"].get("uid")
    return any(r.get("controller") and r.get("uid") == uid for r in pvc["metadata"].get("ownerReferences") or ())


def ephemeral_claim(informers: InformerFactory, pod: Obj, vol: Obj) -> str:
    """The generic ephemeral volume's claim when it exists and the pod owns it, else ""."""
    ns = pod["metadata"].get("namespace", "default")
    name = ephemeral_claim_name(pod, vol)
    pvc = informers.informer("v1", "PersistentVolumeClaim").get(f"{ns}/{name}")
    return name if pvc is not None and owns_claim(pod, pvc) else ""
