"""Models pkg/controller/volume/pvprotection.

The StorageObjectInUseProtection admission plugin stamps ``kubernetes.io/pv-protection``
on every new PersistentVolume. Once a volume is being deleted, this controller removes
the finalizer unless the volume is Bound (``status.phase``, which the PV controller sets).
A live volume that lost the finalizer gets it back.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.admission.storage_object_in_use_protection import PV_PROTECTION
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.controllers.pvc_protection import add_finalizer, needs_sync, release_finalizer

__all__ = ["PVProtectionController"]

Obj = dict[str, Any]


class PVProtectionController:
    """Releases a deleted volume once it is not Bound."""

    name: Final = "persistentvolume-protection-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="pvprotection",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._volumes: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to volumes; queue those already being deleted."""
        self._volumes = self._ctx.informers.informer("v1", "PersistentVolume")
        self._volumes.add_handler(self._on_volume)
        for pv in self._volumes.items():
            if needs_sync(pv, PV_PROTECTION):
                self._queue.add(object_key(pv))

    def _on_volume(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED" and needs_sync(ev.obj, PV_PROTECTION):
            self._queue.add(object_key(ev.obj))

    def _sync(self, key: str) -> None:
        assert self._volumes is not None
        pv = self._volumes.get(key)
        if pv is None or not needs_sync(pv, PV_PROTECTION):
            return
        if not pv["metadata"].get("deletionTimestamp"):
            add_finalizer(self._ctx, "v1", "PersistentVolume", pv, PV_PROTECTION)
            return
        if (pv.get("status") or {}).get("phase") == "Bound":
            return  # in use; the PV controller's status update requeues it
        if release_finalizer(self._ctx, "v1", "PersistentVolume", pv, PV_PROTECTION):
            self._ctx.trace.record(self.name, "remove-finalizer", key, "")
