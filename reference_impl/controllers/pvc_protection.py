"""Models pkg/controller/volume/pvcprotection.

The StorageObjectInUseProtection admission plugin stamps ``kubernetes.io/pvc-protection``
on every new claim. Once a claim is being deleted, this controller removes the finalizer
when no scheduled pod (``spec.nodeName`` set) of its namespace uses it
(``podUsesPVCForDeletion``): a ``persistentVolumeClaim`` volume naming it, whatever the
pod's phase, or a generic ephemeral volume whose claim it is (``<pod>-<volume>``) while
the pod is not shut down (terminal phase, or being deleted with a zero grace period).
A live claim that lost the finalizer gets it back. The gated Unused condition is not
modelled.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.admission.storage_object_in_use_protection import PVC_PROTECTION
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.errors import NotFound

__all__ = [
    "PVCProtectionController",
    "add_finalizer",
    "needs_sync",
    "pod_uses_pvc",
    "release_finalizer",
]

Obj = dict[str, Any]


def _shut_down(pod: Obj) -> bool:
    meta = pod["metadata"]
    if meta.get("deletionTimestamp") and meta.get("deletionGracePeriodSeconds") == 0:
        return True
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def pod_uses_pvc(pod: Obj, claim: str) -> bool:
    """``podUsesPVCForDeletion`` for claim ``claim`` of the pod's namespace."""
    spec = pod.get("spec") or {}
    if not spec.get("nodeName"):
        return False
    for vol in spec.get("volumes") or ():
        if (vol.get("persistentVolumeClaim") or {}).get("claimName") == claim:
            return True
        if vol.get("ephemeral") is not None and not _shut_down(pod):
            if f"{pod['metadata']['name']}-{vol.get('name')}" == claim:
                return True
    return False


def _claims_of(pod: Obj) -> list[str]:
    ns, name = pod["metadata"].get("namespace", "default"), pod["metadata"]["name"]
    out = []
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        if vol.get("persistentVolumeClaim"):
            out.append(f"{ns}/{vol['persistentVolumeClaim'].get('claimName')}")
        elif vol.get("ephemeral") is not None:
            out.append(f"{ns}/{name}-{vol.get('name')}")
    return out


def needs_sync(obj: Obj, finalizer: str) -> bool:
    """Being deleted with the finalizer, or alive without it (the controller adds it)."""
    meta = obj["metadata"]
    return bool(meta.get("deletionTimestamp")) == (finalizer in (meta.get("finalizers") or ()))


def add_finalizer(
    ctx: ComponentContext, api_version: str, kind: str, obj: Obj, finalizer: str
) -> None:
    """Append ``finalizer`` to the latest ``obj`` (a live object that lost it)."""
    meta = obj["metadata"]
    latest = ctx.server.try_get(api_version, kind, meta["name"], meta.get("namespace"))
    if latest is None or finalizer in (latest["metadata"].get("finalizers") or ()):
        return
    fins = [*(latest["metadata"].get("finalizers") or ()), finalizer]
    try:
        ctx.server.update({**latest, "metadata": {**latest["metadata"], "finalizers": fins}})
    except NotFound:
        return


def release_finalizer(
    ctx: ComponentContext, api_version: str, kind: str, obj: Obj, finalizer: str
) -> bool:
    """Remove ``finalizer`` from the latest ``obj``; False if it is gone."""
    meta = obj["metadata"]
    latest = ctx.server.try_get(api_version, kind, meta["name"], meta.get("namespace"))
    if latest is None:
        return False
    fins = [f for f in latest["metadata"].get("finalizers") or () if f != finalizer]
    try:
        ctx.server.update({**latest, "metadata": {**latest["metadata"], "finalizers": fins}})
    except NotFound:
        return False
    return True


class PVCProtectionController:
    """Releases a deleted claim once no scheduled pod uses it."""

    name: Final = "persistentvolumeclaim-protection-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name="pvcprotection")
        self._claims: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to claims and pods; queue claims already being deleted."""
        self._claims = self._ctx.informers.informer("v1", "PersistentVolumeClaim")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._claims.add_handler(self._on_claim)
        self._pods.add_handler(self._on_pod)
        for pvc in self._claims.items():
            if needs_sync(pvc, PVC_PROTECTION):
                self._queue.add(object_key(pvc))

    def _on_claim(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED" and needs_sync(ev.obj, PVC_PROTECTION):
            self._queue.add(object_key(ev.obj))

    def _on_pod(self, ev: ObjectEvent) -> None:
        # A pod that goes, moves or shuts down may let its claims go.
        for pod in (ev.obj, ev.old):
            for key in _claims_of(pod) if pod is not None else ():
                self._queue.add(key)

    def _sync(self, key: str) -> None:
        assert self._claims is not None and self._pods is not None
        pvc = self._claims.get(key)
        if pvc is None or not needs_sync(pvc, PVC_PROTECTION):
            return
        if not pvc["metadata"].get("deletionTimestamp"):
            add_finalizer(self._ctx, "v1", "PersistentVolumeClaim", pvc, PVC_PROTECTION)
            return
        ns, name = pvc["metadata"].get("namespace", "default"), pvc["metadata"]["name"]
        if any(
            p["metadata"].get("namespace", "default") == ns and pod_uses_pvc(p, name)
            for p in self._pods.items()
        ):
            return  # in use; a pod event requeues it
        if release_finalizer(self._ctx, "v1", "PersistentVolumeClaim", pvc, PVC_PROTECTION):
            self._ctx.trace.record(self.name, "remove-finalizer", key, "")
