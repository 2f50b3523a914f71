"""The ephemeral volume controller (``pkg/controller/volume/ephemeral/controller.go``).

For each generic ephemeral volume of a pod (``spec.volumes[].ephemeral``) it creates the
PersistentVolumeClaim ``<pod>-<volume>`` (``ephemeral.VolumeClaimName``) from the
volume's ``volumeClaimTemplate``, owned by the pod as controller with
``blockOwnerDeletion``, so the garbage collector removes it with the pod. A claim of that
name the pod does not control (``ephemeral.VolumeIsForPod``) is left alone: the sync
fails with a ``FailedBinding`` warning on the pod and is retried. Pod updates and
deletions are ignored as upstream (the spec is immutable; the owner reference handles
deletion); a deleted claim re-queues the pods that name it (``onPVCDelete``). A failed
sync is requeued without limit on ``DefaultTypedControllerRateLimiter`` (5 ms doubling
to 1000 s, and a 10 qps bucket: ``workqueue_rate``), as ``processNextWorkItem`` does. The
create-attempt and create-failure metrics are not modelled.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.owners import is_controlled_by
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.controllers.resourceclaim_index import KeyIndex
from reference_impl.errors import ApiError

__all__ = [
    "EphemeralSyncError",
    "EphemeralVolumeController",
    "pod_pvc_keys",
    "volume_claim_name",
    "volume_is_for_pod",
]

Obj = dict[str, Any]
WARNING: Final = "Warning"
FAILED_BINDING: Final = "FailedBinding"  # events.FailedBinding


class EphemeralSyncError(ApiError):
    """A failed sync; the work queue retries it with backoff (upstream's rate limiter)."""


def _ns(obj: Obj) -> str:
    return str(obj["metadata"].get("namespace") or "")


def volume_claim_name(pod: Obj, vol: Obj) -> str:
    """``ephemeral.VolumeClaimName``: the pod's name, "-", the volume's name."""
    return f"{pod['metadata'].get('name', '')}-{vol.get('name', '')}"


def volume_is_for_pod(pod: Obj, pvc: Obj) -> str | None:
    """``ephemeral.VolumeIsForPod``: None when the claim is in the pod's namespace and the
    pod is its controller, else upstream's error text."""
    if _ns(pvc) != _ns(pod) or not is_controlled_by(pvc, pod):
        return (f"PVC {_ns(pvc)}/{pvc['metadata'].get('name', '')} was not created for pod "
                f"{_ns(pod)}/{pod['metadata'].get('name', '')} (pod is not owner)")
    return None


def pod_pvc_keys(pod: Obj) -> list[str]:
    """``common.PodPVCIndexFunc``: ``namespace/claim`` of each claim-backed volume, the
    generated claims of generic ephemeral volumes included."""
    keys: list[str] = []
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        name = ""
        if vol.get("persistentVolumeClaim") is not None:
            name = str(vol["persistentVolumeClaim"].get("claimName") or "")
        elif vol.get("ephemeral") is not None:
            name = volume_claim_name(pod, vol)
        if name:
            keys.append(f"{_ns(pod)}/{name}")
    return keys


def _has_ephemeral(pod: Obj) -> bool:
    return any(v.get("ephemeral") is not None for v in (pod.get("spec") or {}).get("volumes") or ())


class EphemeralVolumeController:
    """Creates the claims of generic ephemeral volumes."""

    name: Final = "ephemeral-volume-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self.queue = WorkQueue(ctx.clock, self.sync_handler, name="ephemeral_volume",
                               rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._pods: SharedInformer | None = None
        self._pvcs: SharedInformer | None = None
        self.pods_by_pvc = KeyIndex(pod_pvc_keys)  # common.PodPVCIndex

    def start(self) -> None:
        """Watch pods (adds) and claims (deletes); queue the pods already stored."""
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._pvcs = self._ctx.informers.informer("v1", "PersistentVolumeClaim")
        self.pods_by_pvc.seed(self._pods.items())
        self._pods.add_handler(self.pods_by_pvc.on_event)
        self._pods.add_handler(self._on_pod)
        self._pvcs.add_handler(self._on_pvc)
        for pod in sorted(self._pods.items(), key=object_key):
            self.enqueue_pod(pod)

    def _on_pod(self, ev: ObjectEvent) -> None:
        # Only adds: the pod spec is immutable and deletion is the garbage collector's.
        if ev.type == "ADDED":
            self.enqueue_pod(ev.obj)

    def _on_pvc(self, ev: ObjectEvent) -> None:
        """``onPVCDelete``: a deleted claim may be one a pod still needs; re-create it."""
        if ev.type != "DELETED" or self._pods is None:
            return
        for key in self.pods_by_pvc.keys(object_key(ev.obj)):
            pod = self._pods.get(key)
            if pod is not None:
                self.enqueue_pod(pod)

    def enqueue_pod(self, pod: Obj) -> None:
        """``enqueuePod``: pods not being deleted with at least one ephemeral volume."""
        if pod["metadata"].get("deletionTimestamp"):
            return
        if _has_ephemeral(pod):
            self.queue.add(object_key(pod))

    def sync_handler(self, key: str) -> None:
        """``syncHandler``: handle each volume of a live pod; the first failure records a
        warning event on the pod and fails the sync."""
        assert self._pods is not None
        pod = self._pods.get(key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        for vol in (pod.get("spec") or {}).get("volumes") or ():
            try:
                self._handle_volume(pod, vol)
            except ApiError as e:
                msg = e.message
                self._ctx.trace.record(self.name, FAILED_BINDING, key,
                                       f"{WARNING} ephemeral volume {vol.get('name')}: {msg}")
                raise EphemeralSyncError(f"pod {key}, ephemeral volume {vol.get('name')}: {msg}") from e

    def _handle_volume(self, pod: Obj, vol: Obj) -> None:
        """``handleVolume``: create the volume's claim unless it exists; an existing claim
        must be the pod's."""
        eph = vol.get("ephemeral")
        if eph is None:
            return
        assert self._pvcs is not None
        ns = _ns(pod)
        name = volume_claim_name(pod, vol)
        existing = self._pvcs.get(f"{ns}/{name}")
        if existing is not None:
            err = volume_is_for_pod(pod, existing)
            if err is not None:
                raise EphemeralSyncError(err)
            return  # already created
        tmpl = eph.get("volumeClaimTemplate") or {}
        tmeta = tmpl.get("metadata") or {}
        meta: Obj = {
            "name": name,
            "namespace": ns,
            "ownerReferences": [{
                "apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
                "uid": pod["metadata"].get("uid"), "controller": True, "blockOwnerDeletion": True,
            }],
        }  # fmt: skip
        # Copies: the cached pod must not change.
        if tmeta.get("annotations"):
            meta["annotations"] = dict(tmeta["annotations"])
        if tmeta.get("labels"):
            meta["labels"] = dict(tmeta["labels"])
        manifest: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
                         "spec": copy.deepcopy(tmpl.get("spec") or {})}
        try:
            self._ctx.server.create(manifest)
        except ApiError as e:
            raise EphemeralSyncError(f"create PVC {name}: {e.message}") from e
        self._ctx.trace.record(self.name, "create-pvc", f"{ns}/{name}", object_key(pod))
