"""The PV controller's volume side (models pkg/controller/volume/persistentvolume
pv_controller.go: syncVolume, unbindVolume, reclaimVolume, deleteVolumeOperation,
recycleVolumeOperation, isVolumeReleased, findDeletablePlugin).

The model has no volume plugins but kube-controller-manager's in-tree ``host-path``
deleter (a released ``hostPath`` volume under ``/tmp/`` is deleted; any other path fails
as upstream's does). Volumes left to an external deleter (CSI, a non ``kubernetes.io/``
provisioner, or migrated) stay Released. Recycling a ``hostPath`` or ``nfs`` volume (a
recycler pod) is not modelled: the volume stays Released; other sources fail as upstream.
Operations run inside the sync instead of upstream's goroutines.
"""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.pv_helpers import BOUND_BY_CONTROLLER, check_volume_mode_mismatches
from reference_impl.apiserver.informers import object_key
from reference_impl.controllers.pv_status import NORMAL, WARNING, PVControllerBase
from reference_impl.errors import NotFound

__all__ = ["DYNAMICALLY_PROVISIONED", "IN_TREE_PROTECTION_FINALIZER", "MIGRATED_TO", "PVReclaimer"]

Obj = dict[str, Any]
DYNAMICALLY_PROVISIONED: Final = "pv.kubernetes.io/provisioned-by"
MIGRATED_TO: Final = "pv.kubernetes.io/migrated-to"
IN_TREE_PROTECTION_FINALIZER: Final = "kubernetes.io/pv-controller"
_HOST_PATH_PLUGIN: Final = "kubernetes.io/host-path"
_TMP: Final = re.compile("/tmp/.+")  # hostPathDeleter.Delete: unanchored, as upstream's MatchString


class _NoPlugin(Exception):
    """``findDeletablePlugin``'s error."""


def _claim_key(ref: Obj) -> str:
    return f"{ref.get('namespace', '')}/{ref.get('name', '')}"


class PVReclaimer(PVControllerBase):
    """``syncVolume`` and the reclaim operations it starts."""

    def _sync_volume(self, pv: Obj) -> None:
        """``syncVolume``."""
        ref = pv["spec"].get("claimRef")
        if ref is None or not ref.get("uid"):
            self._update_volume_phase(pv, "Available", "")  # free, or pre-bound by the user
            return
        phase = (pv.get("status") or {}).get("phase")
        claim = self._claims.get(_claim_key(ref))
        if claim is None and phase not in ("Released", "Failed"):
            # Not cached (yet): the lister is the same cache here, so ask the server.
            claim = self._ctx.server.try_get("v1", "PersistentVolumeClaim", ref.get("name", ""), ref.get("namespace"))
        if claim is not None and claim["metadata"].get("uid") != ref["uid"]:
            # The cache may hold an older claim of the same name: the server decides.
            claim = self._ctx.server.try_get("v1", "PersistentVolumeClaim", ref.get("name", ""), ref.get("namespace"))
            if claim is not None and claim["metadata"].get("uid") != ref["uid"]:
                claim = None
        if claim is None:
            if phase not in ("Released", "Failed"):
                pv = self._update_volume_phase(pv, "Released", "")
            self._reclaim_volume(pv)
            return
        volume_name = claim["spec"].get("volumeName") or ""
        name = pv["metadata"]["name"]
        if not volume_name:
            if check_volume_mode_mismatches(claim, pv):
                self._event(pv, WARNING, "VolumeMismatch", "Cannot bind PersistentVolume to requested "
                            f'PersistentVolumeClaim "{claim["metadata"]["name"]}" due to incompatible volumeMode.')
                self._event(claim, WARNING, "VolumeMismatch", f'Cannot bind PersistentVolume "{name}" to requested '
                            "PersistentVolumeClaim due to incompatible volumeMode.")
                return
            self._queue.add("c:" + object_key(claim))  # the claim's sync finishes the binding
            return
        if volume_name == name:
            self._update_volume_phase(pv, "Bound", "")
            return
        # The claim is bound to another volume.
        anns = pv["metadata"].get("annotations") or {}
        if DYNAMICALLY_PROVISIONED in anns and pv["spec"].get("persistentVolumeReclaimPolicy") == "Delete":
            if phase not in ("Released", "Failed"):
                pv = self._update_volume_phase(pv, "Released", "")
            self._reclaim_volume(pv)
            return
        self._unbind_volume(pv)

    def _unbind_volume(self, pv: Obj) -> None:
        """``unbindVolume``: a controller binding is removed, a user's keeps the name only."""
        spec = dict(pv["spec"])
        meta = dict(pv["metadata"])
        anns = dict(meta.get("annotations") or {})
        if BOUND_BY_CONTROLLER in anns:
            spec.pop("claimRef", None)
            del anns[BOUND_BY_CONTROLLER]
            if anns:
                meta["annotations"] = anns
            else:
                meta.pop("annotations", None)
        else:
            spec["claimRef"] = {k: v for k, v in spec["claimRef"].items() if k != "uid"}
        new = self._ctx.server.update({**pv, "metadata": meta, "spec": spec})
        self._update_volume_phase(new, "Available", "")

    def _reclaim_volume(self, pv: Obj) -> None:
        """``reclaimVolume``: by the reclaim policy; migrated volumes are the CSI driver's."""
        if (pv["metadata"].get("annotations") or {}).get(MIGRATED_TO):
            return
        policy = pv["spec"].get("persistentVolumeReclaimPolicy")
        if policy == "Retain":
            return
        if policy == "Recycle":
            self._recycle_volume_operation(pv)
        elif policy == "Delete":
            self._delete_volume_operation(pv)
        else:
            self._update_volume_phase_with_event(pv, "Failed", WARNING, "VolumeUnknownReclaimPolicy",
                                                 "Volume has unrecognized PersistentVolumeReclaimPolicy")

    def _is_volume_released(self, pv: Obj) -> bool:
        """``isVolumeReleased``: its claim is gone, replaced, or bound elsewhere."""
        ref = pv["spec"].get("claimRef")
        if ref is None or not ref.get("uid"):
            return False
        claim = self._claims.get(_claim_key(ref))
        if claim is not None and claim["metadata"].get("uid") == ref["uid"]:
            volume_name = claim["spec"].get("volumeName") or ""
            return bool(volume_name) and volume_name != pv["metadata"]["name"]
        return True

    def _find_deletable_plugin(self, pv: Obj) -> str | None:
        """``findDeletablePlugin``: the plugin's name, None for an external deleter."""
        anns = pv["metadata"].get("annotations") or {}
        provisioner = str(anns.get(DYNAMICALLY_PROVISIONED) or "")
        if provisioner:
            if provisioner == _HOST_PATH_PLUGIN:
                return provisioner
            if not provisioner.startswith("kubernetes.io/"):
                return None
            raise _NoPlugin(f"no volume plugin matched name: {provisioner}")
        if MIGRATED_TO in anns or pv["spec"].get("csi") is not None:
            return None
        if pv["spec"].get("hostPath") is not None:
            return _HOST_PATH_PLUGIN
        raise _NoPlugin(f'error getting deleter volume plugin for volume "{pv["metadata"]["name"]}": '
                        "no volume plugin matched")

    def _delete_volume_operation(self, pv: Obj) -> None:
        """``deleteVolumeOperation``: delete a released volume through its plugin."""
        try:
            plugin = self._find_deletable_plugin(pv)
        except _NoPlugin as no_plugin:
            self._update_volume_phase_with_event(pv, "Failed", WARNING, "VolumeFailedDelete", str(no_plugin))
            return
        if plugin is None:
            return
        name = pv["metadata"]["name"]
        current = self._ctx.server.try_get("v1", "PersistentVolume", name)
        if current is None or not self._is_volume_released(current):
            return
        host_path = pv["spec"].get("hostPath")
        if host_path is None:
            err = f'failed to create deleter for volume "{name}": spec.PersistentVolumeSource.HostPath is nil'
        elif not _TMP.search(str(host_path.get("path") or "")):
            err = f"host_path deleter only supports /tmp/.+ but received provided {host_path.get('path') or ''}"
        else:
            self._remove_deletion_protection_finalizer(name)
            try:
                self._ctx.server.delete("v1", "PersistentVolume", name)
            except NotFound:
                pass  # gone with its last finalizer: upstream logs the error and carries on
            return
        self._update_volume_phase_with_event(pv, "Failed", WARNING, "VolumeFailedDelete", err)

    def _remove_deletion_protection_finalizer(self, name: str) -> None:
        """``removeDeletionProtectionFinalizer``: drop the in-tree protection finalizer."""
        pv = self._ctx.server.get("v1", "PersistentVolume", name)
        finalizers = list(pv["metadata"].get("finalizers") or ())
        if IN_TREE_PROTECTION_FINALIZER in finalizers:
            kept = [f for f in finalizers if f != IN_TREE_PROTECTION_FINALIZER]
            self._ctx.server.update({**pv, "metadata": {**pv["metadata"], "finalizers": kept}})

    def _recycle_volume_operation(self, pv: Obj) -> None:
        """``recycleVolumeOperation`` up to the plugin: only ``hostPath`` and ``nfs`` have a
        recycler, whose pod is not modelled; any other volume fails."""
        current = self._ctx.server.try_get("v1", "PersistentVolume", pv["metadata"]["name"])
        if current is None or not self._is_volume_released(current):
            return
        ref = pv["spec"].get("claimRef") or {}
        pods = self._pods_using_claim(_claim_key(ref))
        if pods and self._claims.get(_claim_key(ref)) is None:
            self._event(pv, NORMAL, "VolumeFailedRecycle", "Volume is used by pods: "
                        + ",".join(sorted(f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in pods)))
            return
        if current["spec"].get("hostPath") is not None or current["spec"].get("nfs") is not None:
            return
        self._update_volume_phase_with_event(current, "Failed", WARNING, "VolumeFailedRecycle",
                                             "No recycler plugin found for the volume!")

