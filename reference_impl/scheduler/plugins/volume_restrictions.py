"""Models pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go.

Two rules: in-tree disks that cannot be shared (GCE PD unless both read-only, AWS EBS,
iSCSI and RBD unless both read-only) conflict with the same disk on the node; and a
ReadWriteOncePod claim already used by a scheduled pod makes every node infeasible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    OK,
    SKIP,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Plugin,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names

__all__ = ["ERR_REASON_DISK_CONFLICT", "ERR_REASON_RWOP_CONFLICT", "NAME", "VolumeRestrictions", "new"]

Obj = dict[str, Any]
NAME: Final = names.VOLUME_RESTRICTIONS
ERR_REASON_DISK_CONFLICT: Final = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT: Final = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)
_DISKS: Final = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


@dataclass(frozen=True, slots=True)
class _State:
    rwop_claims: frozenset[str]
    conflicting: int  # RWOP claims of this pod already used by scheduled pods

    def clone(self) -> Self:
        return self


_PRE_FILTER: Final = StateKey[_State]("PreFilter" + NAME)


def _needs_check(v: Obj) -> bool:
    return any(v.get(k) for k in _DISKS)


def _ro(v: Obj) -> bool:
    return bool(v.get("readOnly"))


def _volume_conflict(volume: Obj, existing_pod: Obj) -> bool:
    """``isVolumeConflict``: ``volume`` cannot share a node with ``existing_pod``'s disks."""
    for ev in existing_pod["spec"].get("volumes") or ():
        gce, egce = volume.get("gcePersistentDisk"), ev.get("gcePersistentDisk")
        if gce and egce and gce.get("pdName") == egce.get("pdName") and not (_ro(gce) and _ro(egce)):
            return True
        ebs, eebs = volume.get("awsElasticBlockStore"), ev.get("awsElasticBlockStore")
        if ebs and eebs and ebs.get("volumeID") == eebs.get("volumeID"):
            return True
        isc, eisc = volume.get("iscsi"), ev.get("iscsi")
        if isc and eisc and isc.get("iqn") == eisc.get("iqn") and not (_ro(isc) and _ro(eisc)):
            return True
        rbd, erbd = volume.get("rbd"), ev.get("rbd")
        if rbd and erbd and set(rbd.get("monitors") or ()) & set(erbd.get("monitors") or ()) \
                and rbd.get("pool", "rbd") == erbd.get("pool", "rbd") \
                and rbd.get("image") == erbd.get("image") and not (_ro(rbd) and _ro(erbd)):
            return True
    return False


def _claims(pod: Obj) -> list[str]:
    return [
        str(v["persistentVolumeClaim"].get("claimName") or "")
        for v in pod["spec"].get("volumes") or ()
        if v.get("persistentVolumeClaim")
    ]


@final
class VolumeRestrictions:
    """Disk conflicts per node and ReadWriteOncePod exclusivity."""

    def __init__(self, handle: Handle, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._h = handle

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the pod's volumes but configMaps and secrets."""
        return sign.signed((sign.VOLUMES_SIGNER, sign.volumes_signer(pod)))

    def _state(self, pod: Obj, rwop: frozenset[str]) -> _State:
        ns = pod["metadata"].get("namespace") or "default"
        used = 0
        if rwop:
            keys = {f"{ns}/{c}" for c in rwop}
            in_use = {
                f"{info.pod['metadata'].get('namespace') or 'default'}/{c}"
                for ni in self._h.snapshot_shared_lister().node_infos()
                for info in ni.pods.values()
                for c in _claims(info.pod)
            }
            used = len(keys & in_use)
        return _State(rwop, used)

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP when the pod has no restricted disk and no RWOP claim in use."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        volumes = pod["spec"].get("volumes") or ()
        if not volumes:
            return None, SKIP
        needs = any(_needs_check(v) for v in volumes)
        ns = pod["metadata"].get("namespace") or "default"
        pvcs = self._h.ctx.informers.informer("v1", "PersistentVolumeClaim")
        rwop: set[str] = set()
        for name in _claims(pod):
            pvc = pvcs.get(f"{ns}/{name}")
            if pvc is None:
                msg = f'persistentvolumeclaim "{name}" not found'
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), NAME)
            if "ReadWriteOncePod" in ((pvc.get("spec") or {}).get("accessModes") or ()):
                rwop.add(name)
        s = self._state(pod, frozenset(rwop))
        if not needs and s.conflicting == 0:
            return None, SKIP
        state.write(_PRE_FILTER, s)
        return None, OK

    def refresh_pre_filter(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> None:
        """Recount RWOP use after the snapshot changed (upstream's AddPod/RemovePod)."""
        old = state.try_read(_PRE_FILTER)
        if old is not None:
            state.write(_PRE_FILTER, self._state(pod, old.rwop_claims))

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Disk conflicts on the node first, then the cluster-wide RWOP verdict."""
        s = state.try_read(_PRE_FILTER)
        if s is None and self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # upstream's Filter also passes a deferred resize (no state then)
        for v in pod["spec"].get("volumes") or ():
            if _needs_check(v) and any(_volume_conflict(v, e.pod) for e in node_info.pods.values()):
                return Status(Code.UNSCHEDULABLE, (ERR_REASON_DISK_CONFLICT,), NAME)
        if (s if s is not None else state.read(_PRE_FILTER)).conflicting > 0:
            return Status(Code.UNSCHEDULABLE, (ERR_REASON_RWOP_CONFLICT,), NAME)
        return OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """An assigned pod deleted, a node added, a claim the pod uses created."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE), _pod_deleted
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD), None),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD), _claim_added
            ),
        )


def _pod_deleted(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if old is None:
        return QueueingHint.QUEUE
    if old["metadata"].get("namespace") != pod["metadata"].get("namespace"):
        return QueueingHint.QUEUE_SKIP
    for v in pod["spec"].get("volumes") or ():
        if _needs_check(v) and _volume_conflict(v, old):
            return QueueingHint.QUEUE
    mine = set(_claims(pod))
    return QueueingHint.QUEUE if mine & set(_claims(old)) else QueueingHint.QUEUE_SKIP


def _claim_added(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeClaimAdded``: only a claim the pod names."""
    if new is None:
        return QueueingHint.QUEUE  # upstream: an unexpected object queues (with an error)
    meta = new["metadata"]
    if meta.get("namespace") != pod["metadata"].get("namespace"):
        return QueueingHint.QUEUE_SKIP
    for v in pod["spec"].get("volumes") or ():
        if (v.get("persistentVolumeClaim") or {}).get("claimName") == meta.get("name"):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return VolumeRestrictions(handle, resize_preemption=gate)


_: type[FilterPlugin] = VolumeRestrictions
_f: type[PreFilterPlugin] = VolumeRestrictions
_e: type[EnqueueExtensions] = VolumeRestrictions
