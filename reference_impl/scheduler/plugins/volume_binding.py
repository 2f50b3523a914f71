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
BIND_CONFLICT: Final = "node(s) didn't find available persistent volumes to bind"
PV_NOT_EXIST: Final = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
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
    unprovisionable: bool = False  # a delayed claim's class names no provisioner
    missing_pv: bool = False  # a bound claim's PersistentVolume does not exist

    def clone(self) -> Self:
        return self


_KEY: Final = StateKey[_State]("PreFilter" + NAME)


def _shape_score(utilization: int) -> int:
    """``helper.BuildBrokenLinearFunction`` over SHAPE with scores already scaled to 0..100
    (as ``New`` scales them), in Go's truncating integer division."""
    scale = MAX_NODE_SCORE // _MAX_CUSTOM_SCORE
    (x0, y0), (x1, y1) = ((x, y * scale) for x, y in SHAPE)
    if utilization <= x0:
        return y0
    if utilization > x1:
        return y1
    num, den = (y1 - y0) * (utilization - x0), x1 - x0
    return y0 + (abs(num) // den) * (1 if num >= 0 else -1)


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
        unprovisionable = missing_pv = False
        for name in claims:
            pvc = self._informer("v1", "PersistentVolumeClaim").get(f"{ns}/{name}")
            if pvc is None:
                msg = f'persistentvolumeclaim "{name}" not found'
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), NAME)
            if pv_name := pvc["spec"].get("volumeName"):
                if (pvc.get("status") or {}).get("phase") == "Lost":  # GetPodVolumeClaims
                    msg = f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume "{pv_name}"'
                    return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,), NAME)
                # checkBoundClaims: Filter reports a missing PV on every node.
                missing_pv = missing_pv or self._informer("v1", "PersistentVolume").get(pv_name) is None
                continue
            cls_name = pvc["spec"].get("storageClassName") or ""
            sc = self._informer("storage.k8s.io/v1", "StorageClass").get(cls_name)
            if sc is None or sc.get("volumeBindingMode") != "WaitForFirstConsumer":
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (UNBOUND_IMMEDIATE,), NAME)
            if not sc.get("provisioner"):
                # checkVolumeProvisions: no provisioner, no dynamic provisioning (static
                # PV matching is not modelled, so nothing else can satisfy the claim).
                unprovisionable = True
                continue
            size = ((pvc["spec"].get("resources") or {}).get("requests") or {}).get("storage", 0)
            provisions.append(
                _Provision(
                    f"{ns}/{name}", cls_name, str(sc["provisioner"]), to_int("storage", size)
                )
            )
        state.write(_KEY, _State(tuple(provisions), unprovisionable, missing_pv))
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
        s = state.try_read(_KEY)
        if s is None and self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # upstream's Filter also passes a deferred resize (no state then)
        s = s if s is not None else state.read(_KEY)
        reasons: list[str] = []
        if s.unprovisionable:
            reasons.append(BIND_CONFLICT)
        elif any(self._tracks_capacity(p.driver) and self._capacity_for(p, node_info) is None
                 for p in s.provisions):
            reasons.append(NOT_ENOUGH_SPACE)
        if s.missing_pv:
            reasons.append(PV_NOT_EXIST)  # FindPodVolumes' reason order
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons), NAME) if reasons else OK

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
            # buildScorerFunction: no capacity, or more requested than it, is full.
            full = capacity == 0 or requested > capacity
            total += _shape_score(100 if full else requested * 100 // capacity)
        # math.Round of the mean: half away from zero (the scores are never negative).
        return (2 * total + len(per_class)) // (2 * len(per_class)), OK

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
