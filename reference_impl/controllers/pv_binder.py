"""The binding part of kube-controller-manager's PersistentVolume controller (models
pkg/controller/volume/persistentvolume/pv_controller.go: syncVolume, syncUnboundClaim,
syncBoundClaim, bind), enough for the scheduler's volume binder to see claims bound:

* a new (Pending) volume without a claimRef (or pre-bound without a uid) becomes
  ``Available``; one bound to a claim that is bound to it becomes ``Bound``;
* an unbound claim is bound to a volume that is pre-bound to it (the scheduler's PreBind
  writes the claimRef), or, for an Immediate claim, to the smallest matching Available
  volume (``findBestMatchForClaim``); a claim pre-bound by ``spec.volumeName`` to a
  volume that is free or pre-bound to it is bound to that volume.
  Binding sets the volume's claimRef, the claim's ``volumeName`` and
  ``pv.kubernetes.io/bind-completed``, and both phases ``Bound``.

Not modelled: reclaiming (Released/Failed volumes, or a Bound volume without a claim
going back to Available), Lost claims, dynamic provisioning of
Immediate claims (the fake provisioner provisions WaitForFirstConsumer claims).
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.pv_helpers import (
    BIND_COMPLETED,
    BOUND_BY_CONTROLLER,
    bind_volume_to_claim,
    claim_class,
    find_matching_volume,
    fully_bound,
    volume_bound_to_claim,
)
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.errors import ApiError

__all__ = ["PVBinderController"]

Obj = dict[str, Any]
_VOLUME: Final = "v:"
_CLAIM: Final = "c:"


class PVBinderController:
    """Binds claims to volumes and keeps the volumes' phases (see the module docstring)."""

    name: Final = "persistentvolume-binder"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="persistentvolume-binder")
        self._claims: SharedInformer | None = None
        self._volumes: SharedInformer | None = None

    def start(self) -> None:
        """Watch claims and volumes; queue every existing one."""
        self._claims = self._ctx.informers.informer("v1", "PersistentVolumeClaim")
        self._volumes = self._ctx.informers.informer("v1", "PersistentVolume")
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
            self._queue.add(_VOLUME + str(name))

    def _on_volume(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._queue.add(_VOLUME + object_key(ev.obj))
        ref = ev.obj["spec"].get("claimRef") or {}
        if ref.get("name"):
            self._queue.add(f"{_CLAIM}{ref.get('namespace', '')}/{ref['name']}")

    def _sync(self, key: str) -> None:
        try:
            if key.startswith(_VOLUME):
                self._sync_volume(key[len(_VOLUME):])
            else:
                self._sync_claim(key[len(_CLAIM):])
        except ApiError:
            self._queue.add(key)  # raced with another writer: retry with the next version

    def _sync_volume(self, name: str) -> None:
        """``syncVolume``'s phase: Available when free, Bound when its claim is bound to it."""
        assert self._volumes is not None and self._claims is not None
        pv = self._volumes.get(name)
        if pv is None or pv["metadata"].get("deletionTimestamp"):
            return
        ref = pv["spec"].get("claimRef")
        phase = (pv.get("status") or {}).get("phase")
        want = ""
        if ref is None or not ref.get("uid"):
            want = "Available" if phase in (None, "Pending") else ""  # reclaiming is not modelled
        else:
            pvc = self._claims.get(f"{ref.get('namespace', '')}/{ref.get('name', '')}")
            if pvc is not None and pvc["metadata"].get("uid") == ref["uid"] and pvc["spec"].get("volumeName") == name:
                want = "Bound"
        if want and phase != want:
            self._ctx.server.update_status({**pv, "status": {**(pv.get("status") or {}), "phase": want}})

    def _sync_claim(self, key: str) -> None:
        assert self._volumes is not None and self._claims is not None
        pvc = self._claims.get(key)
        if pvc is None or pvc["metadata"].get("deletionTimestamp"):
            return
        if fully_bound(pvc):
            pv = self._volumes.get(str(pvc["spec"]["volumeName"]))
            if pv is not None and volume_bound_to_claim(pv, pvc):
                self._claim_bound_status(pvc, pv)
            return
        if name := pvc["spec"].get("volumeName"):
            pv = self._volumes.get(str(name))  # syncUnboundClaim: pre-bound by the user
            if pv is not None and (pv["spec"].get("claimRef") is None or volume_bound_to_claim(pv, pvc)):
                self._bind(pv, pvc)
            return
        pv = self._best_match(pvc)
        if pv is not None:
            self._bind(pv, pvc)

    def _best_match(self, pvc: Obj) -> Obj | None:
        """``findBestMatchForClaim``: delayed claims only take volumes pre-bound to them;
        candidates offer every access mode the claim asks for (the access-mode index)."""
        assert self._volumes is not None
        cls = claim_class(pvc)
        sc = self._ctx.informers.informer("storage.k8s.io/v1", "StorageClass").get(cls) if cls else None
        delay = sc is not None and sc.get("volumeBindingMode") == "WaitForFirstConsumer"
        modes = set(pvc["spec"].get("accessModes") or ())
        candidates = sorted(
            (pv for pv in self._volumes.items() if modes <= set(pv["spec"].get("accessModes") or ())),
            key=lambda pv: pv["metadata"]["name"],
        )
        return find_matching_volume(pvc, candidates, None, (), delay)

    def _bind(self, pv: Obj, pvc: Obj) -> None:
        """``bind``: the volume's claimRef and phase, then the claim's volume and status."""
        server = self._ctx.server
        new_pv, dirty = bind_volume_to_claim(pv, pvc)
        if dirty:
            new_pv = server.update(new_pv)
        if (new_pv.get("status") or {}).get("phase") != "Bound":
            server.update_status({**new_pv, "status": {**(new_pv.get("status") or {}), "phase": "Bound"}})
        anns = dict(pvc["metadata"].get("annotations") or {})
        anns[BIND_COMPLETED] = "yes"
        if not pvc["spec"].get("volumeName"):
            anns[BOUND_BY_CONTROLLER] = "yes"
        written = server.update({**pvc, "metadata": {**pvc["metadata"], "annotations": anns},
                                 "spec": {**pvc["spec"], "volumeName": pv["metadata"]["name"]}})
        self._claim_bound_status(written, new_pv)

    def _claim_bound_status(self, pvc: Obj, pv: Obj) -> None:
        """``updateClaimStatus``: Bound, with the volume's access modes and capacity."""
        status = pvc.get("status") or {}
        want = {**status, "phase": "Bound", "accessModes": list(pv["spec"].get("accessModes") or ()),
                "capacity": dict(pv["spec"].get("capacity") or {})}
        if status != want:
            self._ctx.server.update_status({**pvc, "status": want})
