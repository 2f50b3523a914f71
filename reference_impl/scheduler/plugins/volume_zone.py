"""Models pkg/scheduler/framework/plugins/volumezone/volume_zone.go.

A bound PersistentVolume labelled with a zone or region (GA or the deprecated beta
failure-domain keys, values joined by "__") admits only nodes in one of those domains.
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

__all__ = ["ERR_REASON_CONFLICT", "NAME", "TOPOLOGY_LABELS", "VolumeZone", "new"]

Obj = dict[str, Any]
NAME: Final = names.VOLUME_ZONE
ERR_REASON_CONFLICT: Final = "node(s) had no available volume zone"
BETA_ZONE: Final = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION: Final = "failure-domain.beta.kubernetes.io/region"
ZONE: Final = "topology.kubernetes.io/zone"
REGION: Final = "topology.kubernetes.io/region"
TOPOLOGY_LABELS: Final = (BETA_ZONE, BETA_REGION, ZONE, REGION)
_GA: Final = {BETA_ZONE: ZONE, BETA_REGION: REGION}
_REJECT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,), NAME)


@dataclass(frozen=True, slots=True)
class _PVTopology:
    pv: str
    key: str
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class _State:
    topologies: tuple[_PVTopology, ...]

    def clone(self) -> Self:
        return self


_PRE_FILTER: Final = StateKey[_State]("PreFilter" + NAME)


def _unresolvable(msg: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), NAME)


def pv_topologies(pv: Obj) -> tuple[_PVTopology, ...]:
    """``getPVTopologies``: the PV's zone/region labels, each split on "__"."""
    labels = pv["metadata"].get("labels") or {}
    out = []
    for key in TOPOLOGY_LABELS:
        value = labels.get(key)
        if value is None:
            continue
        zones = frozenset(z.strip() for z in value.split("__") if z.strip())
        if not zones:
            continue  # LabelZonesToSet fails on an empty value: the label is ignored
        out.append(_PVTopology(pv["metadata"]["name"], key, zones))
    return tuple(out)


@final
class VolumeZone:
    """Keeps pods on nodes in the zones/regions of their bound volumes."""

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

    def _get(self, api: str, kind: str, key: str) -> Obj | None:
        got: Obj | None = self._h.ctx.informers.informer(api, kind).get(key)
        return got

    def _topologies(self, pod: Obj) -> tuple[tuple[_PVTopology, ...], Status]:
        """``getPVbyPod``: the topologies of every bound PV the pod's claims use."""
        ns = pod["metadata"].get("namespace") or "default"
        out: list[_PVTopology] = []
        for v in pod["spec"].get("volumes") or ():
            src = v.get("persistentVolumeClaim")
            if not src:
                continue
            name = src.get("claimName") or ""
            if not name:
                return (), _unresolvable("PersistentVolumeClaim had no name")
            pvc = self._get("v1", "PersistentVolumeClaim", f"{ns}/{name}")
            if pvc is None:
                return (), _unresolvable(f'persistentvolumeclaim "{name}" not found')
            spec = pvc.get("spec") or {}
            pv_name = spec.get("volumeName") or ""
            if not pv_name:
                sc_name = spec.get("storageClassName") or (pvc["metadata"].get("annotations") or {}).get(
                    "volume.beta.kubernetes.io/storage-class", "")
                if not sc_name:
                    return (), _unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
                sc = self._get("storage.k8s.io/v1", "StorageClass", sc_name)
                if sc is None:
                    return (), _unresolvable(f'storageclass.storage.k8s.io "{sc_name}" not found')
                mode = sc.get("volumeBindingMode")
                if mode is None:
                    return (), _unresolvable(f'VolumeBindingMode not set for StorageClass "{sc_name}"')
                if mode == "WaitForFirstConsumer":
                    continue
                return (), _unresolvable("PersistentVolume had no name")
            pv = self._get("v1", "PersistentVolume", pv_name)
            if pv is None:
                return (), _unresolvable(f'persistentvolume "{pv_name}" not found')
            out.extend(pv_topologies(pv))
        return tuple(out), OK

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP when no bound volume of the pod carries a topology label."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        if not pod["spec"].get("volumes"):
            return None, SKIP
        topologies, status = self._topologies(pod)
        if not status.is_success():
            return None, status
        if not topologies:
            return None, SKIP
        state.write(_PRE_FILTER, _State(topologies))
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """A node with any zone/region label must carry a value of every PV topology."""
        if not pod["spec"].get("volumes"):
            return OK
        s = state.try_read(_PRE_FILTER)
        if s is None and self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # upstream's Filter also passes a deferred resize
        if s is None:
            # Upstream Filter falls back to getPVbyPod when PreFilter left no state.
            topologies, status = self._topologies(pod)
            if not status.is_success():
                return status
        else:
            topologies = s.topologies
        labels = node_info.labels
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return OK
        for t in topologies:
            value = labels.get(t.key)
            if value is None:
                value = labels.get(_GA.get(t.key, t.key))
            if value is None or value not in t.values:
                return _REJECT
        return OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """``VolumeZone.EventsToRegister``."""
        add_update = ActionType.ADD | ActionType.UPDATE
        return tuple(ClusterEventWithHint(ClusterEvent(res, act), hint) for res, act, hint in (
            (EventResource.STORAGE_CLASS, ActionType.ADD, _class_added),
            (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, None),
            (EventResource.PERSISTENT_VOLUME_CLAIM, add_update, _claim_changed),
            (EventResource.PERSISTENT_VOLUME, add_update, _volume_changed),
        ))


def _claim_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeClaimChange``: a claim the pod names."""
    if new is None:
        return QueueingHint.QUEUE
    if new["metadata"].get("namespace") != pod["metadata"].get("namespace"):
        return QueueingHint.QUEUE_SKIP
    name = new["metadata"].get("name")
    for v in pod["spec"].get("volumes") or ():
        if v.get("persistentVolumeClaim") is not None and v["persistentVolumeClaim"].get("claimName") == name:
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _class_added(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterStorageClassAdded``: only a WaitForFirstConsumer class."""
    if new is None:
        return QueueingHint.QUEUE
    wffc = new.get("volumeBindingMode") == "WaitForFirstConsumer"
    return QueueingHint.QUEUE if wffc else QueueingHint.QUEUE_SKIP


def _volume_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeChange``: a new PV, or its topology changed."""
    if old is None or new is None:
        return QueueingHint.QUEUE
    same = pv_topologies(old) == pv_topologies(new)
    return QueueingHint.QUEUE_SKIP if same else QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return VolumeZone(handle, resize_preemption=gate)


_: type[FilterPlugin] = VolumeZone
_f: type[PreFilterPlugin] = VolumeZone
_e: type[EnqueueExtensions] = VolumeZone
