"""Models pkg/scheduler/framework/plugins/volumebinding (volume_binding.go, scorer.go); the
binder itself is ``volume_binder`` (binder.go) with ``reference_impl.api.pv_helpers`` (PV matching).

* PreFilter (``podHasPVCs``, ``GetPodVolumeClaims``): a missing, lost or deleting claim is
  unresolvable; an unbound ``Immediate`` (or pre-bound, not yet fully bound) claim waits for
  the PV controller. No claims: SKIP.
* Filter (``FindPodVolumes``): bound claims' PV node affinity, delayed claims matched to
  available static PVs, the rest provisioned when the class has a real provisioner whose
  allowedTopologies and CSIStorageCapacity admit the node.
* Score (gate StorageCapacityScoring): upstream's default shape ``{0: 10, 100: 0}`` over
  each class's utilisation requested/capacity (static bindings: the chosen PVs' sizes;
  otherwise the provisions' capacities), scaled to 0..100 and averaged over classes.
* Reserve/Unreserve: ``AssumePodVolumes`` / ``RevertAssumedPodVolumes`` in the binder's
  assume caches. PreBind (``BindPodVolumes``): write the pre-bound PVs and the claims'
  ``volume.kubernetes.io/selected-node``, then wait (checking every second, at most
  ``bindTimeoutSeconds``) until every claim is fully bound.

Deviation: for a pod without claims PreScore answers SKIP (upstream: success and a zero
score on every node), which sums to the same scores without per-node work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Self, final

from reference_impl.api.pv_helpers import SELECTED_NODE
from reference_impl.clock import Instant, seconds
from reference_impl.errors import ApiError
from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
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
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred, to_int
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins import volume_binding_hints as hints
from reference_impl.scheduler.plugins.volume_binder import (
    BIND_CONFLICT,
    NODE_CONFLICT,
    NOT_ENOUGH_SPACE,
    PV_NOT_EXIST,
    BinderError,
    PodVolumeClaims,
    PodVolumes,
    VolumeBinder,
    controlled_by,
    pod_claim_names,
)

__all__ = [
    "BIND_CONFLICT", "NAME", "NODE_CONFLICT", "NOT_ENOUGH_SPACE", "PV_NOT_EXIST", "SELECTED_NODE",
    "UNBOUND_IMMEDIATE", "VolumeBinding", "new",
]

Obj = dict[str, Any]
NAME: Final = names.VOLUME_BINDING
UNBOUND_IMMEDIATE: Final = "pod has unbound immediate PersistentVolumeClaims"
# Upstream's default shape with StorageCapacityScoring: utilisation 0% -> 10, 100% -> 0.
SHAPE: Final = ((0, 10), (100, 0))
_MAX_CUSTOM_SCORE: Final = 10
BIND_TIMEOUT: Final = seconds(600)  # VolumeBindingArgs.bindTimeoutSeconds default
POLL_INTERVAL: Final = seconds(1)


@dataclass(slots=True)
class _State:
    """``stateData``: shared by clones, as upstream's (Clone returns itself)."""

    claims: PodVolumeClaims | None  # None: the pod has no claims
    by_node: dict[str, PodVolumes] = field(default_factory=dict)
    has_static: bool = False
    all_bound: bool = False

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


def _error(msg: str) -> Status:
    return Status(Code.ERROR, (msg,), NAME)


@final
class VolumeBinding:
    """PreFilter/Filter/Score/Reserve/PreBind over the volume binder."""

    def __init__(self, handle: Handle, scoring: bool, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._h = handle
        self._scoring = scoring
        self.binder = VolumeBinder(lambda gv, kind: handle.ctx.informers.informer(gv, kind))

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the pod's volumes but configMaps and secrets."""
        return sign.signed((sign.VOLUMES_SIGNER, sign.volumes_signer(pod)))

    # -- PreFilter / Filter -------------------------------------------------------------

    def _claims_problem(self, pod: Obj) -> str | None:
        """``podHasPVCs``: why a claim of the pod cannot be used at all."""
        ns = pod["metadata"].get("namespace", "default")
        pvcs = self._h.ctx.informers.informer("v1", "PersistentVolumeClaim")
        for name, ephemeral in pod_claim_names(pod):
            pvc = pvcs.get(f"{ns}/{name}")
            if pvc is None:
                if ephemeral:
                    return f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
                return f'persistentvolumeclaim "{name}" not found'
            if (pvc.get("status") or {}).get("phase") == "Lost":
                pv_name = pvc["spec"].get("volumeName") or ""
                return f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume "{pv_name}"'
            if pvc["metadata"].get("deletionTimestamp"):
                return f'persistentvolumeclaim "{name}" is being deleted'
            if ephemeral and not controlled_by(pvc, pod):
                return f"PVC {ns}/{name} was not created for pod {ns}/{pod['metadata'].get('name', '')} (pod is not owner)"
        return None

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Classify the pod's claims; SKIP when it has none."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        if not pod_claim_names(pod):
            state.write(_KEY, _State(None))
            return None, SKIP
        if (problem := self._claims_problem(pod)) is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (problem,), NAME)
        try:
            claims = self.binder.pod_volume_claims(pod)
        except BinderError as e:
            return None, _error(str(e))
        if claims.unbound_immediate:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (UNBOUND_IMMEDIATE,), NAME)
        state.write(_KEY, _State(claims))
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE_AND_UNRESOLVABLE with FindPodVolumes' reasons (preemption frees no
        storage); the volumes found are kept per node for Score and Reserve."""
        s = state.try_read(_KEY)
        if s is None and self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # upstream's Filter also passes a deferred resize (no state then)
        s = s if s is not None else state.read(_KEY)
        if s.claims is None:
            return OK
        try:
            found, reasons = self.binder.find_pod_volumes(pod, s.claims, node_info.name, node_info.labels)
        except BinderError as e:
            return _error(str(e))
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons), NAME)
        s.by_node[node_info.name] = found
        s.has_static = s.has_static or bool(found.static_bindings)
        return OK

    # -- Score --------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """SKIP unless scoring is on (and, here, the pod has claims)."""
        st = state.try_read(_KEY)
        if not self._scoring or st is None or st.claims is None:
            return SKIP
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The average over classes of the shape at requested*100/capacity."""
        found = state.read(_KEY).by_node.get(node_info.name)
        if found is None:
            return 0, OK
        per_class: dict[str, tuple[int, int]] = {}
        if found.static_bindings:
            for b in found.static_bindings:
                cls, requested, capacity = b.storage()
                r0, c0 = per_class.get(cls, (0, 0))
                per_class[cls] = (r0 + requested, c0 + capacity)
        else:
            for p in found.dynamic_provisions:
                if p.capacity is None:
                    continue
                cls = str(p.pvc["spec"].get("storageClassName") or "")
                r0, _ = per_class.get(cls, (0, 0))
                cap = p.capacity.get("capacity")
                requested = _requested(p.pvc)
                per_class[cls] = (r0 + requested, _quantity(cap) if cap is not None else 0)
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

    # -- Reserve / PreBind --------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """``AssumePodVolumes`` for the chosen node's volumes."""
        s = state.try_read(_KEY)
        if s is None:
            return _error(f'reading "PreFilter{NAME}" from cycleState: not found')
        found = s.by_node.get(node_name)
        if found is None:
            s.all_bound = True
            return OK
        try:
            s.all_bound = self.binder.assume_pod_volumes(pod, node_name, found)
        except BinderError as e:
            return _error(str(e))
        return OK

    def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """``RevertAssumedPodVolumes``."""
        s = state.try_read(_KEY)
        found = s.by_node.get(node_name) if s is not None else None
        if found is not None:
            self.binder.revert_assumed_pod_volumes(found)

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """``BindPodVolumes``: write the volumes and claims, then WAIT unless all bound."""
        s = state.try_read(_KEY)
        if s is None:
            return _error(f'reading "PreFilter{NAME}" from cycleState: not found')
        if s.all_bound or s.claims is None:
            return OK
        found = s.by_node.get(node_name)
        if found is None:
            return _error(f'no pod volume found for node "{node_name}"')
        server = self._h.ctx.server
        try:
            self.binder.bind_api_update(pod, lambda o: _update(server, o), found.static_bindings,
                                        found.dynamic_provisions)
        except (ApiError, BinderError) as e:
            return _error(str(e))
        return Status(Code.WAIT)

    def wait_pre_bind(self, state: CycleState, pod: Obj, node_name: str, resume: Callable[[Status], None]) -> None:
        """Poll ``checkBindings`` every second until bound, an error, or the timeout."""
        found = state.read(_KEY).by_node[node_name]
        clock = self._h.ctx.clock
        deadline = Instant(clock.now() + BIND_TIMEOUT)
        bound_pod = {**pod, "spec": {**pod["spec"], "nodeName": node_name}}

        def check() -> None:
            try:
                done = self.binder.check_bindings(bound_pod, found.static_bindings, found.dynamic_provisions)
            except BinderError as e:
                resume(_error(f"binding volumes: {e}"))
                return
            if done:
                resume(OK)
            elif clock.now() >= deadline:
                resume(_error("binding volumes: context deadline exceeded"))
            else:
                clock.call_later(POLL_INTERVAL, check)

        clock.call_later(POLL_INTERVAL, check)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """``VolumeBinding.EventsToRegister`` (hints: volume_binding_hints)."""
        add_update = ActionType.ADD | ActionType.UPDATE
        return tuple(ClusterEventWithHint(ClusterEvent(res, act), hint) for res, act, hint in (
            (EventResource.STORAGE_CLASS, add_update, hints.after_storage_class_change),
            (EventResource.PERSISTENT_VOLUME_CLAIM, add_update, hints.after_pvc_change),
            (EventResource.PERSISTENT_VOLUME, add_update, None),
            (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, None),
            (EventResource.CSI_NODE, add_update, hints.after_csi_node_change),
            (EventResource.CSI_DRIVER, ActionType.UPDATE, hints.after_csi_driver_change),
            (EventResource.CSI_STORAGE_CAPACITY, add_update, hints.after_csi_storage_capacity_change),
        ))


def _quantity(raw: Any) -> int:
    return to_int("storage", raw)


def _requested(pvc: Obj) -> int:
    raw = ((pvc["spec"].get("resources") or {}).get("requests") or {}).get("storage")
    return 0 if raw is None else _quantity(raw)


def _update(server: Any, obj: Obj) -> Obj:
    written: Obj = server.update(obj)
    return written


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; scoring follows the StorageCapacityScoring gate."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return VolumeBinding(handle, handle.ctx.gates.get("StorageCapacityScoring", True), resize_preemption=gate)


_: type[FilterPlugin] = VolumeBinding
_f: type[PreFilterPlugin] = VolumeBinding
_s: type[ScorePlugin] = VolumeBinding
_p: type[PreScorePlugin] = VolumeBinding
_b: type[PreBindPlugin] = VolumeBinding
_r: type[ReservePlugin] = VolumeBinding
_e: type[EnqueueExtensions] = VolumeBinding
