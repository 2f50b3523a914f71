"""Models pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (NodeVolumeLimits).

Filter: for every CSI driver the pod's volumes use, the unique volumes of that driver on
the node (those of the pods already there plus the pod's new ones) must not exceed
``CSINode.spec.drivers[].allocatable.count``. A node without a CSINode, or a driver
without ``allocatable``, has no limit. A claim bound to a CSI PersistentVolume counts by
PV name; an unbound claim counts once, with its StorageClass's provisioner as the driver.
Volumes of a CSIDriver with ``attachRequired: false`` do not count; generic ephemeral
volumes count through their claims; VolumeAttachments to the node count by PV name.
Deviations: inline CSI volumes and in-tree volume migration are not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.apiserver.volumes import (
    csi_volume,
    ephemeral_claim_name,
    owns_claim,
    pod_csi_volumes,
    pod_uses_claim,
)
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

__all__ = ["ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "NAME", "NodeVolumeLimits", "new"]

Obj = dict[str, Any]
NAME: Final = names.NODE_VOLUME_LIMITS
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: Final = "node(s) exceed max volume count"


@dataclass(frozen=True, slots=True)
class _State:
    # driver -> the pod's volume ids of that driver
    volumes: dict[str, frozenset[str]]
    error: Status | None = None  # a claim lookup failed: Filter reports it on every node
    # node -> driver -> PV names VolumeAttachments attach there (built once per pod)
    attachments: dict[str, dict[str, set[str]]] | None = None
    # VolumeLimitScaling: drivers of the pod's volumes whose CSIDriver sets
    # preventPodSchedulingIfMissing, so a node must list them in its CSINode
    required: frozenset[str] = frozenset()

    def clone(self) -> Self:
        return self


_KEY: Final = StateKey[_State]("PreFilter" + NAME)


@final
class NodeVolumeLimits:
    """Rejects nodes where the pod's CSI volumes would pass the driver's attach limit."""

    def __init__(self, handle: Handle, resize_preemption: bool = False, limit_scaling: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._limit_scaling = limit_scaling  # VolumeLimitScaling: the driver-presence check
        self._h = handle

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the pod's volumes but configMaps and secrets."""
        return sign.signed((sign.VOLUMES_SIGNER, sign.volumes_signer(pod)))

    def _informer(self, api_version: str, kind: str) -> Any:
        return self._h.ctx.informers.informer(api_version, kind)

    def _pod_volumes(self, pod: Obj) -> dict[str, set[str]]:
        return pod_csi_volumes(self._h.ctx.informers, pod)

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Resolve the pod's CSI volumes once; SKIP when it has none."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        volumes = pod["spec"].get("volumes") or ()
        # PreFilter skips only pods without claims (inline migratable volumes unmodelled).
        if not any(v.get("persistentVolumeClaim") or v.get("ephemeral") is not None for v in volumes):
            return None, SKIP
        vols, error = self._new_pod_volumes(pod)
        state.write(_KEY, _State({d: frozenset(v) for d, v in vols.items()}, error,
                                 self._attachments() if vols else None, self._required(vols)))
        return None, OK

    def _required(self, vols: dict[str, set[str]]) -> frozenset[str]:
        """``checkCSIDriverOnNode``'s opt-in: a CSIDriver with preventPodSchedulingIfMissing
        (a missing CSIDriver may not be CSI at all, so it never blocks)."""
        if not self._limit_scaling:
            return frozenset()
        drivers = self._informer("storage.k8s.io/v1", "CSIDriver")
        return frozenset(d for d in vols
                         if ((drivers.get(d) or {}).get("spec") or {}).get("preventPodSchedulingIfMissing"))

    def _new_pod_volumes(self, pod: Obj) -> tuple[dict[str, set[str]], Status | None]:
        """``filterAttachableVolumes`` for the new pod: a missing claim is unresolvable and
        an ephemeral claim the pod does not own an error."""
        meta = pod["metadata"]
        ns = meta.get("namespace", "default")
        pvcs = self._informer("v1", "PersistentVolumeClaim")
        out: dict[str, set[str]] = {}
        for vol in pod["spec"].get("volumes") or ():
            if vol.get("persistentVolumeClaim"):
                name, ephemeral = str(vol["persistentVolumeClaim"].get("claimName") or ""), False
            elif vol.get("ephemeral") is not None:
                name, ephemeral = ephemeral_claim_name(pod, vol), True
            else:
                continue
            if not name:
                return {}, Status(Code.ERROR, ("PersistentVolumeClaim had no name",), NAME)
            pvc = pvcs.get(f"{ns}/{name}")
            if pvc is None:
                msg = f'looking up PVC {ns}/{name}: persistentvolumeclaim "{name}" not found'
                return {}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), NAME)
            if ephemeral and not owns_claim(pod, pvc):
                msg = f"PVC {ns}/{name} was not created for pod {ns}/{meta.get('name', '')} (pod is not owner)"
                return {}, Status(Code.ERROR, (msg,), NAME)
            found = csi_volume(self._h.ctx.informers, ns, name)
            if found is not None:
                out.setdefault(found[0], set()).add(found[1])
        return out, None

    def _attachments(self) -> dict[str, dict[str, set[str]]]:
        """``getNodeVolumeAttachmentInfo`` for every node at once: CSI PVs by attacher."""
        pvs = self._informer("v1", "PersistentVolume")
        out: dict[str, dict[str, set[str]]] = {}
        for va in self._informer("storage.k8s.io/v1", "VolumeAttachment").items():
            spec = va.get("spec") or {}
            pv_name = (spec.get("source") or {}).get("persistentVolumeName")
            attacher, node = spec.get("attacher"), spec.get("nodeName")
            if not attacher or not pv_name or not node:
                continue
            pv = pvs.get(pv_name)
            if pv is None or not (pv.get("spec") or {}).get("csi"):
                continue
            out.setdefault(node, {}).setdefault(attacher, set()).add(pv_name)
        return out

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE when some driver's unique volumes would exceed allocatable.count."""
        s = state.try_read(_KEY)
        if s is None and self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # upstream's Filter also passes a deferred resize (no state then)
        s = s if s is not None else state.read(_KEY)
        if s.error is not None:
            return s.error
        if not s.volumes:
            return OK
        csinode = self._informer("storage.k8s.io/v1", "CSINode").get(node_info.name)
        if s.required:
            installed = {d.get("name") for d in ((csinode or {}).get("spec") or {}).get("drivers") or ()}
            for driver in sorted(s.required - installed):
                msg = f"{driver} CSI driver is not installed on the node"
                return Status(Code.UNSCHEDULABLE, (msg,), NAME)
        if csinode is None:
            return OK
        limits = {
            str(d["name"]): (d.get("allocatable") or {}).get("count")
            for d in (csinode.get("spec") or {}).get("drivers") or ()
        }
        wanted = s.volumes
        if all(limits.get(d) is None for d in wanted):
            return OK
        attached: dict[str, set[str]] = {}
        for info in node_info.pods.values():
            for d, v in self._pod_volumes(info.pod).items():
                attached.setdefault(d, set()).update(v)
        # VolumeAttachments count too (a PV also used by a pod once); the pod's new volumes
        # are matched only against the pods' ones, as upstream's Filter does.
        va = (s.attachments or {}).get(node_info.name, {})
        for driver in sorted(wanted):
            limit = limits.get(driver)
            if limit is None:
                continue
            used = attached.get(driver, set())
            count = len(used | va.get(driver, set())) + len(wanted[driver] - used)
            if count > limit:
                return Status(Code.UNSCHEDULABLE, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,), NAME)
        return OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """``CSILimits.EventsToRegister`` (inline migratable volumes are not modelled, so
        the hints never see one)."""
        return tuple(ClusterEventWithHint(ClusterEvent(res, act), hint) for res, act, hint in (
            (EventResource.CSI_NODE, ActionType.ADD, None),
            (EventResource.CSI_NODE, ActionType.UPDATE, _csi_node_updated),
            (EventResource.ASSIGNED_POD, ActionType.DELETE, _assigned_pod_deleted),
            (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, _pvc_added),
            (EventResource.VOLUME_ATTACHMENT, ActionType.DELETE, _attachment_deleted),
        ))


def _assigned_pod_deleted(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterAssignedPodDeleted``: a placed pod with a claim-backed volume."""
    if old is None:
        return QueueingHint.QUEUE
    volumes = old["spec"].get("volumes") or ()
    placed = old["spec"].get("nodeName") or (old.get("status") or {}).get("nominatedNodeName")
    if volumes and placed and any(
        v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None for v in volumes
    ):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _pvc_added(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterPVCAdded``: a claim the pod names, directly or as ephemeral."""
    if new is None:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE if pod_uses_claim(pod, new) else QueueingHint.QUEUE_SKIP


def _attachment_deleted(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterVolumeAttachmentDeleted``: any pod using a claim."""
    uses = any(v.get("persistentVolumeClaim") is not None for v in pod["spec"].get("volumes") or ())
    return QueueingHint.QUEUE if uses else QueueingHint.QUEUE_SKIP


def _driver_limits(csinode: Obj | None) -> dict[str, int]:
    drivers = ((csinode or {}).get("spec") or {}).get("drivers") or ()
    return {d.get("name", ""): int((d.get("allocatable") or {}).get("count") or 0) for d in drivers}


def _csi_node_updated(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """``isSchedulableAfterCSINodeUpdated``: some driver's limit was raised."""
    before, after = _driver_limits(old), _driver_limits(new)
    raised = any(limit > before.get(name, 0) for name, limit in after.items())
    return QueueingHint.QUEUE if raised else QueueingHint.QUEUE_SKIP


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    scaling = handle.ctx.gates.get("VolumeLimitScaling", True)
    return NodeVolumeLimits(handle, resize_preemption=gate, limit_scaling=scaling)


_: type[FilterPlugin] = NodeVolumeLimits
_f: type[PreFilterPlugin] = NodeVolumeLimits
_e: type[EnqueueExtensions] = NodeVolumeLimits
