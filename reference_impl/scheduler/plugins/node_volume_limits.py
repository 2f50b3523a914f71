"""Models pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (NodeVolumeLimits).

Filter: for every CSI driver the pod's volumes use, the unique volumes of that driver on
the node (those of the pods already there plus the pod's new ones) must not exceed
``CSINode.spec.drivers[].allocatable.count``. A node without a CSINode, or a driver
without ``allocatable``, has no limit. A claim bound to a CSI PersistentVolume counts by
PV name; an unbound claim counts once, with its StorageClass's provisioner as the driver.
Volumes of a CSIDriver with ``attachRequired: false`` do not count.
Deviations: inline CSI volumes and in-tree volume migration are not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.apiserver.volumes import pod_csi_volumes
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    OK,
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

    def clone(self) -> Self:
        return self


_KEY: Final = StateKey[_State]("PreFilter" + NAME)


@final
class NodeVolumeLimits:
    """Rejects nodes where the pod's CSI volumes would pass the driver's attach limit."""

    def __init__(self, handle: Handle, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._h = handle

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def _informer(self, api_version: str, kind: str) -> Any:
        return self._h.ctx.informers.informer(api_version, kind)

    def _pod_volumes(self, pod: Obj) -> dict[str, set[str]]:
        return pod_csi_volumes(self._h.ctx.informers, pod)

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Resolve the pod's CSI volumes once; SKIP when it has none."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, Status(Code.SKIP)  # KEP-5836: a deferred resize skips this
        vols = self._pod_volumes(pod)
        if not vols:
            return None, Status(Code.SKIP)
        state.write(_KEY, _State({d: frozenset(v) for d, v in vols.items()}))
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE when some driver's unique volumes would exceed allocatable.count."""
        csinode = self._informer("storage.k8s.io/v1", "CSINode").get(node_info.name)
        if csinode is None:
            return OK
        limits = {
            str(d["name"]): (d.get("allocatable") or {}).get("count")
            for d in (csinode.get("spec") or {}).get("drivers") or ()
        }
        wanted = state.read(_KEY).volumes
        if all(limits.get(d) is None for d in wanted):
            return OK
        attached: dict[str, set[str]] = {}
        for info in node_info.pods.values():
            for d, v in self._pod_volumes(info.pod).items():
                attached.setdefault(d, set()).update(v)
        for driver in sorted(wanted):
            limit = limits.get(driver)
            if limit is not None and len(attached.get(driver, set()) | wanted[driver]) > limit:
                return Status(Code.UNSCHEDULABLE, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,), NAME)
        return OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """CSINodes and claims are not typed events here: any event requeues."""
        return (ClusterEventWithHint(ClusterEvent(EventResource.WILDCARD, ActionType.ALL)),)


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return NodeVolumeLimits(handle, resize_preemption=gate)


_: type[FilterPlugin] = NodeVolumeLimits
_f: type[PreFilterPlugin] = NodeVolumeLimits
_e: type[EnqueueExtensions] = NodeVolumeLimits
