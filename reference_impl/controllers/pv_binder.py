"""kube-controller-manager's PersistentVolume controller (models
pkg/controller/volume/persistentvolume/pv_controller.go; the claim side here, the volume
side and reclaiming in ``pv_reclaim``, status writes in ``pv_status``, the volume index in
``pv_index``):

* ``syncClaim``: an unbound claim is bound to the volume pre-bound to it or, unless its
  class binds WaitForFirstConsumer, to the best matching Available volume
  (``findBestMatchForClaim``); a claim naming a volume is bound to it when it satisfies
  the claim (``checkVolumeSatisfyClaim``); a bound claim whose volume is gone or bound
  elsewhere is Lost. Without a volume: a classless claim gets the default class
  (``assignDefaultStorageClass``), a delayed claim an event, a claim with a class is
  handed to its provisioner (``provisionClaim``: external provisioners get the claim's
  ``volume.kubernetes.io/storage-provisioner`` annotation; there are no in-tree ones).
* ``syncVolume``: free volumes are Available, bound ones Bound, a volume whose claim is
  gone is Released and reclaimed by its policy; one whose claim went elsewhere is
  unbound.

Not modelled: CSI migration annotations and finalizers, in-tree provisioning, recycler
pods, metrics. Events are trace records (``pv_status``).
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.api.pv_helpers import (
    BETA_CLASS,
    BIND_COMPLETED,
    BOUND_BY_CONTROLLER,
    SELECTED_NODE,
    bind_volume_to_claim,
    check_access_modes,
    check_volume_mode_mismatches,
    claim_class,
    claim_size,
    is_delay_binding_mode,
    volume_bound_to_claim,
    volume_class,
)
from reference_impl.apiserver.admission.default_storage_class import default_class
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.controllers.pv_index import find_best_match_for_claim
from reference_impl.controllers.pv_reclaim import PVReclaimer
from reference_impl.controllers.pv_status import NORMAL, WARNING, PVSyncError

__all__ = ["STORAGE_PROVISIONER", "BETA_STORAGE_PROVISIONER", "PVBinderController", "check_volume_satisfy_claim"]

Obj = dict[str, Any]
_VOLUME: Final = "v:"
_CLAIM: Final = "c:"
STORAGE_PROVISIONER: Final = "volume.kubernetes.io/storage-provisioner"
BETA_STORAGE_PROVISIONER: Final = "volume.beta.kubernetes.io/storage-provisioner"


def check_volume_satisfy_claim(pv: Obj, pvc: Obj) -> str:
    """``checkVolumeSatisfyClaim`` (VolumeAttributesClass on): why the volume a claim
    names cannot serve it, or "" when it can."""
    if pv["metadata"].get("deletionTimestamp"):
        return f'the volume is marked for deletion "{pv["metadata"]["name"]}"'
    size = parse_quantity(str((pv["spec"].get("capacity") or {}).get("storage", "0")))
    if size < claim_size(pvc):
        return "requested PV is too small"
    if volume_class(pv) != claim_class(pvc):
        return "storageClassName does not match"
    if (pvc["spec"].get("volumeAttributesClassName") or "") != (pv["spec"].get("volumeAttributesClassName") or ""):
        return "volumeAttributesClassName does not match"
    if check_volume_mode_mismatches(pvc, pv):
        return "incompatible volumeMode"
    if not check_access_modes(pvc, pv):
        return "incompatible accessMode"
    return ""


class PVBinderController(PVReclaimer):
    """Binds claims and volumes and reclaims released volumes (see the module docstring)."""

    def __init__(self, ctx: ComponentContext) -> None:
        super().__init__(ctx, self._sync)

    def start(self) -> None:
        """Watch claims and volumes; queue every existing one."""
        self._claims_inf = self._ctx.informers.informer("v1", "PersistentVolumeClaim")
        self._volumes_inf = self._ctx.informers.informer("v1", "PersistentVolume")
        self._claims.add_handler(self._on_claim)
        self._volumes.add_handler(self._on_volume)
        for pvc in self._claims.items():
            self._queue.add(_CLAIM + object_key(pvc))
        for pv in self._volumes.items():
            self._queue.add(_VOLUME + object_key(pv))

    def _on_claim(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._queue.add(_CLAIM + object_key(ev.obj))
        if name := ev.obj["spec"].get("volumeName"):
            self._queue.add(_VOLUME + str(name))  # deleteClaim: the volume may be released

    def _on_volume(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._queue.add(_VOLUME + object_key(ev.obj))
        ref = ev.obj["spec"].get("claimRef") or {}
        if ref.get("name"):
            self._queue.add(f"{_CLAIM}{ref.get('namespace', '')}/{ref['name']}")

    def _sync(self, key: str) -> None:
        if key.startswith(_VOLUME):
            pv = self._volumes.get(key[len(_VOLUME):])
            if pv is not None:
                self._sync_volume(pv)
        else:
            pvc = self._claims.get(key[len(_CLAIM):])
            if pvc is not None:
                self._sync_claim(pvc)

    def _sync_claim(self, pvc: Obj) -> None:
        """``syncClaim``: by the bind-completed annotation."""
        if BIND_COMPLETED in (pvc["metadata"].get("annotations") or {}):
            self._sync_bound_claim(pvc)
        else:
            self._sync_unbound_claim(pvc)

    def _sync_unbound_claim(self, pvc: Obj) -> None:
        """``syncUnboundClaim``."""
        name = pvc["spec"].get("volumeName") or ""
        if not name:
            delay = self._is_delay_binding_mode(pvc)
            pv = find_best_match_for_claim(pvc, self._volumes.items(), delay)
            if pv is not None:
                self._bind(pv, pvc)
                return
            if self._assign_default_storage_class(pvc):
                return  # the update brings the claim back
            anns = pvc["metadata"].get("annotations") or {}
            if delay and SELECTED_NODE not in anns:
                self._event_for_unbound_delay_binding_claim(pvc)
            elif claim_class(pvc):
                self._provision_claim(pvc)
                return
            else:
                self._event(pvc, NORMAL, "FailedBinding",
                            "no persistent volumes available for this claim and no storage class is set")
            self._update_claim_status(pvc, "Pending", None)
            return
        pv = self._volumes.get(name)
        if pv is None:
            self._update_claim_status(pvc, "Pending", None)  # the user's volume does not exist (yet)
            return
        if pv["spec"].get("claimRef") is None:
            if why := check_volume_satisfy_claim(pv, pvc):
                self._event(pvc, WARNING, "VolumeMismatch", f'Cannot bind to requested volume "{name}": {why}')
                self._update_claim_status(pvc, "Pending", None)
            else:
                self._bind(pv, pvc)
            return
        if volume_bound_to_claim(pv, pvc):
            self._bind(pv, pvc)
            return
        self._event(pvc, WARNING, "FailedBinding", f'volume "{name}" already bound to a different claim.')
        if BOUND_BY_CONTROLLER not in (pvc["metadata"].get("annotations") or {}):
            self._update_claim_status(pvc, "Pending", None)
            return
        ref = pv["spec"]["claimRef"]
        raise PVSyncError(f'invalid binding of claim "{object_key(pvc)}" to volume "{name}": volume already '
                          f'claimed by "{ref.get("namespace", "")}/{ref.get("name", "")}"')

    def _sync_bound_claim(self, pvc: Obj) -> None:
        """``syncBoundClaim``: Lost when the volume is gone or bound to another claim."""
        name = pvc["spec"].get("volumeName") or ""
        if not name:
            self._update_claim_status_with_event(pvc, "Lost", None, WARNING, "ClaimLost",
                                                 "Bound claim has lost reference to PersistentVolume. "
                                                 "Data on the volume is lost!")
            return
        pv = self._volumes.get(name)
        if pv is None:
            self._update_claim_status_with_event(pvc, "Lost", None, WARNING, "ClaimLost",
                                                 "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
            return
        ref = pv["spec"].get("claimRef")
        if ref is None or ref.get("uid", "") == pvc["metadata"].get("uid", ""):
            self._bind(pv, pvc)  # finish a binding, or keep the status up to date
            return
        self._update_claim_status_with_event(pvc, "Lost", None, WARNING, "ClaimMisbound",
                                             "Two claims are bound to the same volume, this one is bound incorrectly")

    def _is_delay_binding_mode(self, pvc: Obj) -> bool:
        """``IsDelayBindingMode``: the claim's class binds WaitForFirstConsumer."""
        classes = self._ctx.informers.informer("storage.k8s.io/v1", "StorageClass")
        try:
            return is_delay_binding_mode(pvc, classes.get)
        except ValueError as e:
            raise PVSyncError(str(e)) from None

    def _assign_default_storage_class(self, pvc: Obj) -> bool:
        """``assignDefaultStorageClass``: a claim with no class at all gets the default."""
        if BETA_CLASS in (pvc["metadata"].get("annotations") or {}) or pvc["spec"].get("storageClassName") is not None:
            return False
        sc = default_class(list(self._ctx.informers.informer("storage.k8s.io/v1", "StorageClass").items()))
        if sc is None:
            return False
        self._ctx.server.update({**pvc, "spec": {**pvc["spec"], "storageClassName": sc["metadata"]["name"]}})
        return True

    def _event_for_unbound_delay_binding_claim(self, pvc: Obj) -> None:
        """``emitEventForUnboundDelayBindingClaim``."""
        names = [str(p["metadata"]["name"]) for p in self._pods_using_claim(object_key(pvc))
                 if not p["spec"].get("nodeName")]
        if not names:
            self._event(pvc, NORMAL, "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
        elif len(names) == 1:
            self._event(pvc, NORMAL, "WaitForPodScheduled", f"waiting for pod {names[0]} to be scheduled")
        else:
            self._event(pvc, NORMAL, "WaitForPodScheduled", f"waiting for pods {','.join(names)} to be scheduled")

    def _provision_claim(self, pvc: Obj) -> None:
        """``provisionClaim`` with ``findProvisionablePlugin``: there are no in-tree
        provisioners, so a ``kubernetes.io/`` provisioner fails and any other is external
        (``provisionClaimOperationExternal``)."""
        cls = claim_class(pvc)
        sc = self._ctx.informers.informer("storage.k8s.io/v1", "StorageClass").get(cls)
        if sc is None:
            self._event(pvc, WARNING, "ProvisioningFailed", f'storageclass.storage.k8s.io "{cls}" not found')
            return
        provisioner = str(sc.get("provisioner") or "")
        if provisioner.startswith("kubernetes.io/"):
            self._event(pvc, WARNING, "ProvisioningFailed", f"no volume plugin matched name: {provisioner}")
            return
        anns = dict(pvc["metadata"].get("annotations") or {})
        if anns.get(STORAGE_PROVISIONER) != provisioner:  # setClaimProvisioner
            anns[BETA_STORAGE_PROVISIONER] = anns[STORAGE_PROVISIONER] = provisioner
            pvc = self._ctx.server.update({**pvc, "metadata": {**pvc["metadata"], "annotations": anns}})
        self._event(pvc, NORMAL, "ExternalProvisioning",
                    f"Waiting for a volume to be created either by the external provisioner '{provisioner}' or "
                    "manually by the system administrator. If volume creation is delayed, please verify that the "
                    "provisioner is running and correctly registered.")

    def _bind(self, pv: Obj, pvc: Obj) -> None:
        """``bind``: the volume's claimRef, its phase, the claim's volume and annotations,
        then the claim's status (``bindVolumeToClaim``, ``bindClaimToVolume``)."""
        server = self._ctx.server
        new_pv, dirty = bind_volume_to_claim(pv, pvc)
        pv = server.update(new_pv) if dirty else pv
        pv = self._update_volume_phase(pv, "Bound", "")
        anns = dict(pvc["metadata"].get("annotations") or {})
        spec = pvc["spec"]
        dirty = False
        if pv["metadata"]["name"] != spec.get("volumeName"):
            spec = {**spec, "volumeName": pv["metadata"]["name"]}
            anns.setdefault(BOUND_BY_CONTROLLER, "yes")
            dirty = True
        if BIND_COMPLETED not in anns:
            anns[BIND_COMPLETED] = "yes"
            dirty = True
        if dirty:
            pvc = server.update({**pvc, "metadata": {**pvc["metadata"], "annotations": anns}, "spec": spec})
        self._update_claim_status(pvc, "Bound", pv)
