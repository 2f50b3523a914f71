"""The PVC ``Unused`` condition of pkg/controller/volume/pvcprotection (the
PersistentVolumeClaimUnusedSinceTime gate, beta and on by default in 1.37).

A Bound claim that is not being deleted carries ``Unused``: True ("NoPodsUsingPVC")
while no pod of its namespace that is not terminated references it, False
("PodUsingPVC") while one does, scheduled or not (``podUsesPVCForUnusedSince``). The
condition is replaced, with a new ``lastTransitionTime``, only when it is missing or
disagrees (``updateUnusedCondition``).
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.owners import is_controlled_by

__all__ = [
    "UNUSED",
    "UNUSED_GATE",
    "has_unused_condition",
    "pod_is_terminated",
    "pod_uses_pvc_for_unused_since",
    "unused_status",
]

Obj = dict[str, Any]
UNUSED: Final = "Unused"  # v1.PersistentVolumeClaimUnused
UNUSED_GATE: Final = "PersistentVolumeClaimUnusedSinceTime"
_IN_USE: Final = ("False", "PodUsingPVC", "A pod is currently referencing this PVC")
_NOT_IN_USE: Final = ("True", "NoPodsUsingPVC", "No pods are currently referencing this PVC")


def _not_running(statuses: list[Obj] | None) -> bool:
    """``notRunning``: every container is terminated or waiting."""
    return all(
        (s.get("state") or {}).get("terminated") is not None
        or (s.get("state") or {}).get("waiting") is not None
        for s in statuses or ()
    )


def pod_is_terminated(pod: Obj) -> bool:
    """``volumeutil.IsPodTerminated``: a terminal phase, or being deleted with no
    container (init, regular or ephemeral) running."""
    status = pod.get("status") or {}
    if status.get("phase") in ("Failed", "Succeeded"):
        return True
    return bool(pod["metadata"].get("deletionTimestamp")) and all(
        _not_running(status.get(k))
        for k in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")
    )


def pod_uses_pvc_for_unused_since(pod: Obj, pvc: Obj) -> bool:
    """``podUsesPVCForUnusedSince``: a pod that is not terminated names the claim in a
    ``persistentVolumeClaim`` volume or owns it as a generic ephemeral volume's claim."""
    if pod_is_terminated(pod):
        return False
    claim = pvc["metadata"]["name"]
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        if (vol.get("persistentVolumeClaim") or {}).get("claimName") == claim:
            return True
        if vol.get("ephemeral") is not None:
            if f"{pod['metadata']['name']}-{vol.get('name')}" == claim and is_controlled_by(pvc, pod):
                return True
    return False


def _unused(pvc: Obj) -> Obj | None:
    for c in (pvc.get("status") or {}).get("conditions") or ():
        if c.get("type") == UNUSED:
            out: Obj = c
            return out
    return None


def has_unused_condition(pvc: Obj) -> bool:
    """Whether the claim carries the condition at all (``findCondition`` != nil)."""
    return _unused(pvc) is not None


def unused_status(pvc: Obj, used: bool, now: str) -> Obj | None:
    """``updateUnusedCondition``/``setUnusedCondition``: the claim's new status, or None
    when its condition already says so (an in-use claim whose condition is False, or an
    unused one whose condition is True)."""
    cur = _unused(pvc)
    if used and cur is not None and cur.get("status") != "True":
        return None
    if not used and cur is not None and cur.get("status") == "True":
        return None
    status, reason, message = _IN_USE if used else _NOT_IN_USE
    cond = {"type": UNUSED, "status": status, "lastTransitionTime": now, "reason": reason,
            "message": message}  # fmt: skip
    old = (pvc.get("status") or {}).get("conditions") or []
    conds = [cond if c.get("type") == UNUSED else c for c in old]
    if cur is None:
        conds.append(cond)
    return {**(pvc.get("status") or {}), "conditions": conds}
