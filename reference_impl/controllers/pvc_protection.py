"""Models pkg/controller/volume/pvcprotection.

The StorageObjectInUseProtection admission plugin stamps ``kubernetes.io/pvc-protection``
on every new claim. Once a claim is being deleted, this controller removes the finalizer
when no scheduled pod (``spec.nodeName`` set) of its namespace uses it
(``podUsesPVCForDeletion``): a ``persistentVolumeClaim`` volume naming it, whatever the
pod's phase, or a generic ephemeral volume whose claim it is (``<pod>-<volume>``) while
the pod is not shut down (being deleted with a zero grace period: ``podIsShutDown``) and
the claim's controller ownerReference is that pod (``ephemeral.VolumeIsForPod``).
A live claim that lost the finalizer gets it back. With PersistentVolumeClaimUnusedSinceTime
(on by default) a live Bound claim also carries the ``Unused`` condition
(``controllers/pvc_unused.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.owners import is_controlled_by
from reference_impl.apiserver.admission.storage_object_in_use_protection import PVC_PROTECTION
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.clock import rfc3339
from reference_impl.controllers.pvc_unused import (
    UNUSED_GATE,
    has_unused_condition,
    pod_uses_pvc_for_unused_since,
    unused_status,
)
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
    """``podIsShutDown``: the kubelet is done with it or it was force-deleted (being deleted
    with a zero grace period). A terminal phase alone is not enough."""
    meta = pod["metadata"]
    return bool(meta.get("deletionTimestamp")) and meta.get("deletionGracePeriodSeconds") == 0


def pod_uses_pvc(pod: Obj, pvc: Obj) -> bool:
    """``podUsesPVCForDeletion``: a scheduled pod of the claim's namespace names it in a
    ``persistentVolumeClaim`` volume, or (while not shut down) owns it as the claim of
    one of its generic ephemeral volumes (``<pod>-<volume>``)."""
    spec = pod.get("spec") or {}
    if not spec.get("nodeName"):
        return False
    claim = pvc["metadata"]["name"]
    for vol in spec.get("volumes") or ():
        if (vol.get("persistentVolumeClaim") or {}).get("claimName") == claim:
            return True
        if vol.get("ephemeral") is not None and not _shut_down(pod):
            if f"{pod['metadata']['name']}-{vol.get('name')}" == claim and is_controlled_by(pvc, pod):
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
        self._queue = WorkQueue(ctx.clock, self._sync, name="pvcprotection",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._claims: SharedInformer | None = None
        self._pods: SharedInformer | None = None

    def start(self) -> None:
        """Subscribe to claims and pods; queue claims already being deleted (and, with
        the Unused condition, those without it)."""
        self._claims = self._ctx.informers.informer("v1", "PersistentVolumeClaim")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._claims.add_handler(self._on_claim)
        self._pods.add_handler(self._on_pod)
        for pvc in self._claims.items():
            if self._wants(pvc):
                self._queue.add(object_key(pvc))

    def _wants(self, pvc: Obj) -> bool:
        """``pvcAddedUpdated``: a claim to add the finalizer to or to release, or (gate
        on) one without the Unused condition yet."""
        if self._ctx.gates.enabled(UNUSED_GATE) and not has_unused_condition(pvc):
            return True
        return needs_sync(pvc, PVC_PROTECTION)

    def _on_claim(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED" and self._wants(ev.obj):
            self._queue.add(object_key(ev.obj))

    def _on_pod(self, ev: ObjectEvent) -> None:
        # A pod that comes, goes, moves or shuts down may change its claims' use.
        for pod in (ev.obj, ev.old):
            for key in _claims_of(pod) if pod is not None else ():
                self._queue.add(key)

    def _in_use(self, pvc: Obj, uses: Callable[[Obj, Obj], bool]) -> bool:
        assert self._pods is not None
        ns = pvc["metadata"].get("namespace", "default")
        return any(
            p["metadata"].get("namespace", "default") == ns and uses(p, pvc)
            for p in self._pods.items()
        )

    def _sync(self, key: str) -> None:
        """``processPVC``: the Unused condition of a live Bound claim first, then release
        a deleted claim no pod uses, or give a live one its finalizer back."""
        assert self._claims is not None
        pvc = self._claims.get(key)
        if pvc is None:
            return
        deleting = bool(pvc["metadata"].get("deletionTimestamp"))
        bound = (pvc.get("status") or {}).get("phase") == "Bound"
        if self._ctx.gates.enabled(UNUSED_GATE) and not deleting and bound:
            # Only Bound claims: the PV controller is done binding them.
            used = self._in_use(pvc, pod_uses_pvc_for_unused_since)
            status = unused_status(pvc, used, rfc3339(self._ctx.clock.now()))
            if status is not None:
                self._ctx.server.update_status({**pvc, "status": status})  # errors: retried
                self._ctx.trace.record(self.name, "unused", key, "False" if used else "True")
        if not needs_sync(pvc, PVC_PROTECTION):
            return
        if not deleting:
            add_finalizer(self._ctx, "v1", "PersistentVolumeClaim", pvc, PVC_PROTECTION)
            return
        if self._in_use(pvc, pod_uses_pvc):
            return  # in use; a pod event requeues it
        if release_finalizer(self._ctx, "v1", "PersistentVolumeClaim", pvc, PVC_PROTECTION):
            self._ctx.trace.record(self.name, "remove-finalizer", key, "")
