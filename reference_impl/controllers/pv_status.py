"""The PV controller's shared writes and lookups (models pkg/controller/volume/persistentvolume
pv_controller.go: updateClaimStatus, updateClaimStatusWithEvent, updateVolumePhase,
updateVolumePhaseWithEvent, and the event recorder). Events are trace records whose
detail is ``"<type> <message>"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.workqueue_rate import (
    MaxOfRateLimiter,
    default_controller_rate_limiter,
)
from reference_impl.clock import Duration, Instant
from reference_impl.errors import ApiError

__all__ = [
    "NORMAL",
    "PRE_RESIZE_CAPACITY",
    "WARNING",
    "ClaimAndVolumeQueuesLimiter",
    "PVControllerBase",
    "PVSyncError",
]

Obj = dict[str, Any]
NORMAL: Final = "Normal"
WARNING: Final = "Warning"
PRE_RESIZE_CAPACITY: Final = "volume.alpha.kubernetes.io/pre-resize-capacity"


def _not_running(statuses: list[Obj] | None) -> bool:
    return all("terminated" in (s.get("state") or {}) or "waiting" in (s.get("state") or {}) for s in statuses or ())


def _terminated(pod: Obj) -> bool:
    """``IsPodTerminated``."""
    status = pod.get("status") or {}
    if status.get("phase") in ("Failed", "Succeeded"):
        return True
    return bool(pod["metadata"].get("deletionTimestamp")) and all(
        _not_running(status.get(k)) for k in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"))


class ClaimAndVolumeQueuesLimiter:
    """The rate limiters of upstream's two queues, ``claimQueue`` and ``volumeQueue``,
    each a ``DefaultTypedControllerRateLimiter`` (a failed sync is ``AddRateLimited``, a
    successful one ``Forget``s its key): here one queue holds both kinds of key, told apart
    by the claim keys' ``c:`` prefix, so each kind keeps its own 10 qps bucket."""

    def __init__(self, now: Callable[[], Instant]) -> None:
        self.claims: MaxOfRateLimiter = default_controller_rate_limiter(now)
        self.volumes: MaxOfRateLimiter = default_controller_rate_limiter(now)

    def _of(self, item: str) -> MaxOfRateLimiter:
        return self.claims if item.startswith("c:") else self.volumes

    def when(self, item: str) -> Duration:
        return self._of(item).when(item)

    def forget(self, item: str) -> None:
        self._of(item).forget(item)

    def num_requeues(self, item: str) -> int:
        return self._of(item).num_requeues(item)


class PVSyncError(ApiError):
    """A sync that upstream ends with an error (retried with backoff by the queue)."""


class PVControllerBase:
    """The informers, queue and status writers every part of the PV controller uses."""

    name: Final = "persistentvolume-binder"

    def __init__(self, ctx: ComponentContext, sync: Any) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, sync, name="persistentvolume-binder",
                                rate_limiter=ClaimAndVolumeQueuesLimiter(ctx.clock.now))
        self._claims_inf: SharedInformer | None = None
        self._volumes_inf: SharedInformer | None = None

    @property
    def _claims(self) -> SharedInformer:
        assert self._claims_inf is not None
        return self._claims_inf

    @property
    def _volumes(self) -> SharedInformer:
        assert self._volumes_inf is not None
        return self._volumes_inf

    def _pods_using_claim(self, key: str) -> list[Obj]:
        """``findPodsByPVCKey`` less terminated pods (``IsPodTerminated``), by name: pods
        naming the claim in a volume, or whose ephemeral volume is that claim."""
        ns, _, claim = key.partition("/")
        out: list[Obj] = []
        for pod in self._ctx.informers.informer("v1", "Pod").items():
            if pod["metadata"].get("namespace") != ns or _terminated(pod):
                continue
            for vol in pod["spec"].get("volumes") or ():
                src = vol.get("persistentVolumeClaim")
                name = src.get("claimName") if src else (
                    f"{pod['metadata']['name']}-{vol.get('name')}" if vol.get("ephemeral") is not None else "")
                if name == claim:
                    out.append(pod)
                    break
        return sorted(out, key=lambda p: str(p["metadata"]["name"]))

    def _event(self, obj: Obj, eventtype: str, reason: str, message: str) -> None:
        """``eventRecorder.Event``."""
        self._ctx.trace.record(self.name, reason, object_key(obj), f"{eventtype} {message}")

    def _update_volume_phase(self, pv: Obj, phase: str, message: str) -> Obj:
        """``updateVolumePhase``: write phase and message unless the phase is already set."""
        status = pv.get("status") or {}
        if status.get("phase") == phase:
            return pv
        new = {k: v for k, v in status.items() if k != "message"}
        new["phase"] = phase
        if message:
            new["message"] = message
        return self._ctx.server.update_status({**pv, "status": new})

    def _update_volume_phase_with_event(self, pv: Obj, phase: str, eventtype: str, reason: str, message: str) -> Obj:
        """``updateVolumePhaseWithEvent``: the event only when the phase changes."""
        if (pv.get("status") or {}).get("phase") == phase:
            return pv
        new = self._update_volume_phase(pv, phase, message)
        self._event(new, eventtype, reason, message)
        return new

    def _update_claim_status(self, pvc: Obj, phase: str, pv: Obj | None) -> Obj:
        """``updateClaimStatus``: phase; without a volume, no access modes, capacity or
        current attributes class; with one, the volume's access modes, its capacity (or
        the pre-resize capacity) when the phase changes, and on Pending to Bound its
        attributes class."""
        status = dict(pvc.get("status") or {})
        old_phase = status.get("phase")
        dirty = False
        if old_phase != phase:
            status["phase"] = phase
            dirty = True
        if pv is None:
            for k in ("accessModes", "capacity", "currentVolumeAttributesClassName"):
                if status.get(k) is not None:
                    del status[k]
                    dirty = True
        else:
            modes = pv["spec"].get("accessModes")
            if status.get("accessModes") != modes:
                if modes is None:
                    status.pop("accessModes", None)
                else:
                    status["accessModes"] = list(modes)
                dirty = True
            if old_phase != phase:
                dirty = self._claim_capacity(status, pv) or dirty
            vac = pv["spec"].get("volumeAttributesClassName")
            if old_phase == "Pending" and phase == "Bound" and status.get("currentVolumeAttributesClassName") != vac:
                if vac is None:
                    status.pop("currentVolumeAttributesClassName", None)
                else:
                    status["currentVolumeAttributesClassName"] = vac
                dirty = True
        if not dirty:
            return pvc
        return self._ctx.server.update_status({**pvc, "status": status})

    @staticmethod
    def _claim_capacity(status: Obj, pv: Obj) -> bool:
        capacity = pv["spec"].get("capacity") or {}
        if "storage" not in capacity:
            raise PVSyncError(f'PersistentVolume "{pv["metadata"]["name"]}" is without a storage capacity')
        anns = pv["metadata"].get("annotations") or {}
        if PRE_RESIZE_CAPACITY in anns:
            try:
                pre = str(anns[PRE_RESIZE_CAPACITY])
                parse_quantity(pre)
            except (ValueError, ArithmeticError):
                pre = str(capacity["storage"])  # unparsable: the volume's own capacity
            status["capacity"] = {**(status.get("capacity") or {}), "storage": pre}
            return True
        have = (status.get("capacity") or {}).get("storage")
        if have is None or parse_quantity(str(have)) != parse_quantity(str(capacity["storage"])):
            status["capacity"] = dict(capacity)
            return True
        return False

    def _update_claim_status_with_event(
        self, pvc: Obj, phase: str, pv: Obj | None, eventtype: str, reason: str, message: str,
    ) -> Obj:
        """``updateClaimStatusWithEvent``: nothing when the phase is already set."""
        if (pvc.get("status") or {}).get("phase") == phase:
            return pvc
        new = self._update_claim_status(pvc, phase, pv)
        self._event(new, eventtype, reason, message)
        return new
