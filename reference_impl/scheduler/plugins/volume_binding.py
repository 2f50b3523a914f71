"""Models pkg/scheduler/framework/plugins/volumebinding (volume_binding.go, binder.go,
scorer.go) for dynamically provisioned claims, with KEP-4049 storage capacity scoring.

* PreFilter: the pod's PersistentVolumeClaims. A missing claim is unresolvable; a bound
  claim needs nothing here; an unbound claim of a ``WaitForFirstConsumer`` class is to be
  provisioned; an unbound ``Immediate`` claim waits for the PV controller. No claims: SKIP.
* Filter: when the class's CSIDriver has ``storageCapacity: true``, some CSIStorageCapacity
  of the class whose ``nodeTopology`` selects the node must have ``maximumVolumeSize`` (else
  ``capacity``) at least the claim's size ("node(s) did not have enough free storage").
* Score (gate StorageCapacityScoring): upstream's default shape ``{0: 10, 100: 0}`` over
  each class's utilisation requested/capacity, scaled to 0..100 and averaged over classes,
  so nodes with more free capacity score higher.
* PreBind: annotate each claim ``volume.kubernetes.io/selected-node``. Deviation: upstream
  then waits in PreBind until the claim is bound; here binding continues at once and the
  (fake) provisioner binds the claim afterwards.

Deviation: PV node affinity of already-bound claims is not checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    OK,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Plugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred, to_int
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names

__all__ = ["NAME", "SELECTED_NODE", "VolumeBinding", "new"]

Obj = dict[str, Any]
NAME: Final = names.VOLUME_BINDING
SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
NOT_ENOUGH_SPACE: Final = "node(s) did not have enough free storage"
UNBOUND_IMMEDIATE: Final = "pod has unbound immediate PersistentVolumeClaims"
# Upstream's default shape with StorageCapacityScoring: utilisation 0% -> 10, 100% -> 0.
SHAPE: Final = ((0, 10), (100, 0))
_MAX_CUSTOM_SCORE: Final = 10


@dataclass(frozen=True, slots=True)
class _Provision:
    """One claim to provision: its key, class, driver and size in bytes."""

    claim: str
    storage_class: str
    driver: str
    size: int


@dataclass(frozen=True, slots=True)
class _State:
    provisions: tuple[_Provision, ...]

    def clone(self) -> Self:
        return self


_KEY: Final = StateKey[_State]("PreFilter" + NAME)


def _shape_score(utilization: int) -> int:
    """``helper.BuildBrokenLinearFunction`` over SHAPE, for utilisation in 0..100."""
    (x0, y0), (x1, y1) = SHAPE
    u = min(max(utilization, x0), x1)
    return y0 + (y1 - y0) * (u - x0) // (x1 - x0)


@final
class VolumeBinding:
    """PreFilter/Filter/Score/PreBind for WaitForFirstConsumer dynamic provisioning."""

    def __init__(self, handle: Handle, scoring: bool, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._h = handle
        self._scoring = scoring

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def _informer(self, api_version: str, kind: str) -> Any:
        return self._h.ctx.informers.informer(api_version, kind)

    # -- PreFilter / Filter -------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Classify the pod's claims; SKIP when it has none."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, Status(Code.SKIP)  # KEP-5836: a deferred resize skips this
        ns = pod["metadata"].get("namespace", "default")
        claims = [
            str(v["persistentVolumeClaim"]["claimName"])
            for v in pod["spec"].get("volumes") or ()
            if v.get("persistentVolumeClaim")
        ]
        if not claims:
            return None, Status(Code.SKIP)
        provisions: list[_Provision] = []
        for name in claims:
            pvc = self._informer("v1", "PersistentVolumeClaim").get(f"{ns}/{name}")
            if pvc is None:
                msg = f'persistentvolumeclaim "{name}" not found'
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), NAME)
            if pvc["spec"].get("volumeName"):
                continue
            cls_name = pvc["spec"].get("storageClassName") or ""
            sc = self._informer("storage.k8s.io/v1", "StorageClass").get(cls_name)
            if sc is None or sc.get("volumeBindingMode") != "WaitForFirstConsumer":
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (UNBOUND_IMMEDIATE,), NAME)
            size = ((pvc["spec"].get("resources") or {}).get("requests") or {}).get("storage", 0)
            provisions.append(
                _Provision(
                    f"{ns}/{name}", cls_name, str(sc["provisioner"]), to_int("storage", size)
                )
            )
        state.write(_KEY, _State(tuple(provisions)))
        return None, OK

    def _tracks_capacity(self, driver: str) -> bool:
        d = self._informer("storage.k8s.io/v1", "CSIDriver").get(driver)
        return d is not None and bool((d.get("spec") or {}).get("storageCapacity"))

    def _capacity_for(self, p: _Provision, node: NodeInfo) -> Obj | None:
        """``hasEnoughCapacity``: the first (by namespace/name) sufficient CSIStorageCapacity."""
        caps = self._informer("storage.k8s.io/v1", "CSIStorageCapacity").items()
        for cap in sorted(caps, key=lambda c: (c["metadata"]["namespace"], c["metadata"]["name"])):
            if cap.get("storageClassName") != p.storage_class:
                continue
            if not selector_from_label_selector(cap.get("nodeTopology")).matches(node.labels):
                continue
            limit = cap.get("maximumVolumeSize", cap.get("capacity"))
            if limit is not None and to_int("storage", limit) >= p.size:
                found: Obj = cap
                return found
        return None

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE_AND_UNRESOLVABLE (as for every FindPodVolumes reason: preemption
        frees no storage) when a claim to provision has no capacity reachable from the node."""
        for p in state.read(_KEY).provisions:
            if self._tracks_capacity(p.driver) and self._capacity_for(p, node_info) is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_ENOUGH_SPACE,), NAME)
        return OK

    # -- Score --------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """SKIP unless scoring is on and something is provisioned."""
        st = state.try_read(_KEY)
        if not self._scoring or st is None or not st.provisions:
            return Status(Code.SKIP)
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The average over classes of the shape at requested*100/capacity."""
        per_class: dict[str, tuple[int, int]] = {}
        for p in state.read(_KEY).provisions:
            cap = self._capacity_for(p, node_info) if self._tracks_capacity(p.driver) else None
            if cap is None or cap.get("capacity") is None:
                continue
            requested, _ = per_class.get(p.storage_class, (0, 0))
            per_class[p.storage_class] = (requested + p.size, to_int("storage", cap["capacity"]))
        if not per_class:
            return 0, OK
        total = 0
        for requested, capacity in per_class.values():
            utilization = requested * 100 // capacity if capacity > 0 else 100
            total += _shape_score(utilization) * (MAX_NODE_SCORE // _MAX_CUSTOM_SCORE)
        return total // len(per_class), OK

    def score_extensions(self) -> ScoreExtensions | None:
        """Scores are already in [0, 100]."""
        return None

    # -- PreBind ------------------------------------------------------------------------

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Annotate every claim to provision with the chosen node."""
        st = state.try_read(_KEY)
        for p in st.provisions if st is not None else ():
            ns, name = p.claim.split("/", 1)
            pvc = self._h.ctx.server.try_get("v1", "PersistentVolumeClaim", name, ns)
            if pvc is None:
                return Status(Code.ERROR, (f'persistentvolumeclaim "{name}" not found',), NAME)
            anns = pvc["metadata"].setdefault("annotations", {})
            if anns.get(SELECTED_NODE) == node_name:
                continue
            anns[SELECTED_NODE] = node_name
            try:
                self._h.ctx.server.update(pvc)
            except ApiError as e:
                return Status(Code.ERROR, (str(e),), NAME)
        return OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Claims, classes and capacities are not typed events here: any event requeues."""
        return (ClusterEventWithHint(ClusterEvent(EventResource.WILDCARD, ActionType.ALL)),)


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; scoring follows the StorageCapacityScoring gate."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return VolumeBinding(handle, handle.ctx.gates.get("StorageCapacityScoring", True), resize_preemption=gate)


_: type[FilterPlugin] = VolumeBinding
_f: type[PreFilterPlugin] = VolumeBinding
_s: type[ScorePlugin] = VolumeBinding
_p: type[PreScorePlugin] = VolumeBinding
_b: type[PreBindPlugin] = VolumeBinding
_e: type[EnqueueExtensions] = VolumeBinding
