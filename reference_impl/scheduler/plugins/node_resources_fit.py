"""Models pkg/scheduler/framework/plugins/noderesources/fit.go and least_allocated.go (its
PlacementScore: ``node_resources_fit_placement.py``)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import not_
from typing import Any, Final, Self, final

from reference_impl.api.resource_names import is_extended_resource_name
from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.batch import ScoreOutOfRange
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
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueingHint,
    ScoreExtensions,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.node_memo import NodeMemo
from reference_impl.scheduler.framework.placement import (
    PlacementScorePlugin,
    PodGroupAssignments,
    PodGroupInfo,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred, pod_requests
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import (
    NodeInfo,
    PodInfo,
    Resource,
    is_scalar_resource_name,
    pod_key,
    request_totals,
)
from reference_impl.scheduler.plugins import extended_resources as ext
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.extended_resources import (
    DEVICE_CLASS_PREFIX,
    DeviceClassMapping,
)
from reference_impl.scheduler.plugins.node_resources_fit_placement import (
    most_allocated_placement_score,
)
from reference_impl.scheduler.plugins.node_resources_strategies import (
    LEAST_ALLOCATED,
    Entry,
    make_scorer,
    validate_strategy,
)

__all__ = ["NAME", "NodeResourcesFit", "NodeResourcesFitArgs", "fits_request", "new"]

Obj = dict[str, Any]
NAME: Final = names.NODE_RESOURCES_FIT
_BASE_RESOURCES: Final = frozenset({"cpu", "memory", "ephemeral-storage"})


@dataclass(frozen=True, slots=True)
class NodeResourcesFitArgs:
    """``NodeResourcesFitArgs``; the default is LeastAllocated over cpu 1, memory 1.

    ``shape`` holds RequestedToCapacityRatio's (utilization, score 0-10) points.
    """

    strategy: str = LEAST_ALLOCATED
    resources: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))
    shape: tuple[tuple[int, int], ...] = ()
    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _State:
    # The pod's requests, and the non-zero variant scoring uses; computed once per cycle.
    requests: Resource
    non_zero: Resource

    def clone(self) -> Self:
        return self


_PRE_FILTER: Final = StateKey[_State]("PreFilter" + NAME)


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """One resource the node cannot give; unresolvable when even an empty node could not."""

    name: str
    reason: str
    unresolvable: bool


def fits_request(
    req: Resource,
    node: NodeInfo,
    dra_backed: Collection[str] = (),
    delta: Resource | None = None,
    ignored: Collection[str] = (),
    ignored_groups: Collection[str] = (),
) -> list[InsufficientResource]:
    """``fitsRequest``: every resource the pod asks for against what the node has left.

    ``dra_backed`` names extended resources a DeviceClass serves (DRA-EXT). ``delta``,
    when given, is what must still fit (``adjustDeltasToAccomodateCacheDiscrepancy``).
    ``ignored`` / ``ignored_groups`` are the args' IgnoredResources and
    IgnoredResourceGroups (the part before "/"): extended resources not checked at all.
    """
    out: list[InsufficientResource] = []
    alloc, used = node.allocatable, node.requested
    if len(node.pods) + 1 > alloc.allowed_pod_number:
        out.append(InsufficientResource("pods", "Too many pods", alloc.allowed_pod_number < 1))
    if req.is_zero():
        return out
    d = delta or req
    checks = (
        ("cpu", req.milli_cpu, d.milli_cpu, alloc.milli_cpu, used.milli_cpu),
        ("memory", req.memory, d.memory, alloc.memory, used.memory),
        ("ephemeral-storage", req.ephemeral_storage, d.ephemeral_storage,
         alloc.ephemeral_storage, used.ephemeral_storage),
    )
    for name, want, extra, have, taken in checks:
        if want > 0 and extra > have - taken:
            out.append(InsufficientResource(name, f"Insufficient {name}", want > have))
    for name in sorted(req.scalar):
        want, have = req.scalar[name], alloc.scalar.get(name, 0)
        extra = d.scalar.get(name, 0)
        if extra == 0 or (have <= 0 and name in dra_backed):
            continue
        if (ignored or ignored_groups) and is_extended_resource_name(name):
            if name in ignored or name.split("/", 1)[0] in ignored_groups:
                continue  # DRA-EXT: not advertised here, so DynamicResources allocates it
        if want > 0 and extra > have - used.scalar.get(name, 0):
            out.append(InsufficientResource(name, f"Insufficient {name}", want > have))
    return out


def cache_discrepancy_delta(req: Resource, pod: Obj, node: NodeInfo) -> Resource | None:
    """What a pod already accounted on ``node`` still needs there: its requests less the
    cached version's, never below zero (a deferred resize, KEP-5836); None elsewhere."""
    if pod["spec"].get("nodeName") != node.name:
        return None
    cached = node.pods.get(pod_key(pod))
    if cached is None:
        return None
    have = cached.requests
    return Resource(
        max(0, req.milli_cpu - have.milli_cpu),
        max(0, req.memory - have.memory),
        max(0, req.ephemeral_storage - have.ephemeral_storage),
        0,
        {k: max(0, v - have.scalar.get(k, 0)) for k, v in req.scalar.items()},
    )


@final
class NodeResourcesFit:
    """Filters nodes without room for the pod's requests; scores by LeastAllocated."""

    checks_score_range = True  # score_nodes checks each score it computes (batch.py)

    def __init__(
        self,
        args: NodeResourcesFitArgs,
        dra: DeviceClassMapping | None = None,
        resize_preemption: bool = False,
        *,
        in_place: bool = True,
    ) -> None:
        errs = validate_strategy(args.strategy, args.resources, args.shape)
        if errs:
            raise ValueError("; ".join(errs))
        self._scorer = make_scorer(args.strategy, args.shape)
        self._weights = dict(args.resources)
        self._ignored = frozenset(args.ignored_resources)
        self._ignored_groups = frozenset(args.ignored_resource_groups)
        # The inlined LeastAllocated fast path (score, score_nodes).
        self._default_weights = (
            args.strategy == LEAST_ALLOCATED and self._weights == {"cpu": 1, "memory": 1}
        )
        self._cycle: CycleState | None = None
        self._req = Resource()
        self._nz_cpu = self._nz_mem = 0
        self._dra = dra  # DRA-EXT: extended resources backed by DeviceClasses
        # Verdicts / scores, keyed by the requests they were computed for (node_memo).
        self._fits: NodeMemo[bool] = NodeMemo()
        self._scores: NodeMemo[int] = NodeMemo()
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes fit by their delta.
        self._resize_preemption = resize_preemption
        self._in_place = in_place  # InPlacePodVerticalScaling: scale-downs free room

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the requests; unsignable when DRA serves an extended resource."""
        if self._dra is not None and ext.pod_requests(pod, self._dra.get()):
            return sign.unsignable(sign.DRA_EXTENDED_UNSIGNABLE)
        return sign.signed((sign.RESOURCES_SIGNER, sign.resources_signer(pod)))

    def _requests(self, state: CycleState) -> Resource:
        # The cycle's requests, memoised on the plugin: one dict lookup per cycle, not per node.
        if self._cycle is not state:
            st = state.read(_PRE_FILTER)
            self._cycle, self._req = state, st.requests
            self._nz_cpu, self._nz_mem = st.non_zero.milli_cpu, st.non_zero.memory
        return self._req

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Compute the pod's requests (``resource.PodRequests``) once for the cycle."""
        pi = state.pod_info  # the queue derived the same totals from this very pod
        totals = (pi.requests, pi.non_zero) if pi is not None and pi.pod is pod else request_totals(pod)
        state.write(_PRE_FILTER, _State(*totals))
        self._cycle = None
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE with every insufficient resource ("Insufficient cpu", ...)."""
        if self._cycle is not state and state.try_read(_PRE_FILTER) is None:
            # getPreFilterState: Filter without PreFilter is an internal error.
            return Status(Code.ERROR, (f'error reading "{_PRE_FILTER.name}" from cycleState: not found',), NAME)
        req = self._req if self._cycle is state else self._requests(state)
        alloc, used = node_info.allocatable, node_info.requested
        delta = cache_discrepancy_delta(req, pod, node_info) if self._resize_preemption else None
        # Fast path: the common fit needs no list building.
        if (
            delta is None
            and not req.scalar
            and len(node_info.pods) < alloc.allowed_pod_number
            and req.milli_cpu <= alloc.milli_cpu - used.milli_cpu
            and req.memory <= alloc.memory - used.memory
            and req.ephemeral_storage <= alloc.ephemeral_storage - used.ephemeral_storage
        ):
            return OK
        insufficient = fits_request(
            req, node_info, self._dra.get() if self._dra else (), delta,
            self._ignored, self._ignored_groups,
        )
        if not insufficient:
            return OK
        code = Code.UNSCHEDULABLE
        if any(i.unresolvable for i in insufficient):
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return Status(code, tuple(i.reason for i in insufficient), NAME)

    def filter_suspects(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> set[int] | None:
        """Nodes failing ``filter``'s fast path (BatchFilterPlugin); None with scalar requests."""
        req = self._req if self._cycle is state else self._requests(state)
        if req.scalar:
            return None
        key = (req.milli_cpu, req.memory, req.ephemeral_storage)
        cpu, mem, eph = key

        def fits(ni: NodeInfo) -> bool:
            a, u = ni.allocatable, ni.requested
            return (
                len(ni.pods) < a.allowed_pod_number
                and cpu <= a.milli_cpu - u.milli_cpu
                and mem <= a.memory - u.memory
                and eph <= a.ephemeral_storage - u.ephemeral_storage
            )

        verdicts = self._fits.keyed(key).read(nodes, fits)
        if False not in verdicts:
            return set()
        return set(compress(range(len(verdicts)), map(not_, verdicts)))

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """Scoring reuses the PreFilter requests; recompute only if PreFilter did not run."""
        if state.try_read(_PRE_FILTER) is None:
            self.pre_filter(state, pod, nodes)
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The strategy's weighted score of the node with the pod placed on it."""
        if self._cycle is not state and state.try_read(_PRE_FILTER) is None:
            self.pre_filter(state, pod, ())  # Score without PreScore computes the requests
        alloc, used = node_info.allocatable, node_info.non_zero_requested
        if self._default_weights:
            if self._cycle is not state:
                self._requests(state)
            cap_c, cap_m = alloc.milli_cpu, alloc.memory
            want_c, want_m = used.milli_cpu + self._nz_cpu, used.memory + self._nz_mem
            # _least_requested inlined for cpu and memory: this runs once per feasible node.
            c = (cap_c - want_c) * MAX_NODE_SCORE // cap_c if 0 < cap_c and want_c <= cap_c else 0
            m = (cap_m - want_m) * MAX_NODE_SCORE // cap_m if 0 < cap_m and want_m <= cap_m else 0
            return (c + m) // 2, OK
        # resourceAllocationScorer.score: skip resources the node lacks and extended
        # resources the pod does not ask for (calculateNodeAllocatableRequest).
        if not self._weights:
            return 0, Status(Code.ERROR, ("resources not found",), NAME)
        req = state.read(_PRE_FILTER).non_zero
        entries: list[Entry] = []
        for name, weight in self._weights.items():
            want = req.amount(name)
            if want == 0 and is_scalar_resource_name(name):
                continue
            cap = alloc.amount(name)
            if cap == 0:
                continue
            entries.append((used.amount(name) + want, cap, weight))
        return self._scorer(entries), OK

    def node_scorer(
        self, state: CycleState, pod: Obj
    ) -> tuple[tuple[int, int], Callable[[NodeInfo], int]] | None:
        """``score`` of one node, keyed by the pod's non-zero requests (NodeScorer);
        default weights only."""
        if not self._default_weights:
            return None
        if self._cycle is not state:
            self._requests(state)
        nz_c, nz_m, top = self._nz_cpu, self._nz_mem, MAX_NODE_SCORE

        def least_allocated(ni: NodeInfo) -> int:
            alloc, used = ni.allocatable, ni.non_zero_requested
            cap_c, cap_m = alloc.milli_cpu, alloc.memory
            want_c, want_m = used.milli_cpu + nz_c, used.memory + nz_m
            c = (cap_c - want_c) * top // cap_c if 0 < cap_c and want_c <= cap_c else 0
            m = (cap_m - want_m) * top // cap_m if 0 < cap_m and want_m <= cap_m else 0
            score = (c + m) // 2
            if not 0 <= score <= top:  # checks_score_range: the framework does not rescan
                raise ScoreOutOfRange(score)
            return score

        return (nz_c, nz_m), least_allocated

    def score_nodes(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> list[int] | None:
        """``score`` for many nodes in one loop (BatchScorePlugin); default weights only."""
        got = self.node_scorer(state, pod)
        if got is None:
            return None
        key, fn = got
        return self._scores.keyed(key).read(nodes, fn)

    def score_extensions(self) -> ScoreExtensions | None:
        """Scores are already in [0, 100]."""
        return None

    def score_placement(self, group: PodGroupInfo, assignments: PodGroupAssignments) -> tuple[int, Status]:
        """PlacementScore: MostAllocated over the placement's nodes, whatever ``strategy``."""
        return most_allocated_placement_score(tuple(self._weights.items()), assignments), OK

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        """No normalisation: the scores are already in [0, 100]."""
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Room appearing: an assigned pod deleted or scaled down, a node added or grown;
        with resize preemption, a scale-up that may eat a deferred pod's headroom too."""
        # Upstream's order (``Fit.EventsToRegister``); the scale-downs only with in-place resize.
        regs = [
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE), self._pod_deleted
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
                ),
                self._node_changed,
            ),
        ]
        if self._dra is not None:  # DRAExtendedResource: a class may now serve the resource
            regs.append(ClusterEventWithHint(
                ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
                self._device_class_changed,
            ))
        if self._in_place:
            down = ActionType.UPDATE_POD_SCALE_DOWN
            regs += [
                ClusterEventWithHint(
                    ClusterEvent(EventResource.ASSIGNED_POD, down), self._pod_scaled_down
                ),
                # Upstream's hint always queues: none needed.
                ClusterEventWithHint(ClusterEvent(EventResource.TARGET_POD, down), None),
            ]
        if self._resize_preemption:
            up = ActionType.UPDATE_POD_SCALE_UP
            regs += [
                ClusterEventWithHint(
                    ClusterEvent(EventResource.ASSIGNED_POD, up), self._assigned_scaled_up
                ),
                ClusterEventWithHint(
                    ClusterEvent(EventResource.TARGET_POD, up), self._target_scaled_up
                ),
            ]
        return tuple(regs)

    def _deferred(self, pod: Obj) -> bool:
        return self._resize_preemption and is_pod_resize_deferred(pod)

    def _elsewhere(self, pod: Obj, node_name: str) -> bool:
        # A deferred pod is bound: nothing on another node changes whether it fits.
        return self._deferred(pod) and node_name != pod["spec"].get("nodeName")

    def _pod_deleted(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        # isSchedulableAfterAssignedPodDelete: a bound or nominated pod frees room.
        gone = old if new is None else new
        if gone is None:
            return QueueingHint.QUEUE
        node = gone["spec"].get("nodeName") or ""
        if not node and not (gone.get("status") or {}).get("nominatedNodeName"):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE_SKIP if self._elsewhere(pod, node) else QueueingHint.QUEUE

    def _device_class_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        # isSchedulableAfterDeviceClassEvent: a class now names a resource the pod asks for
        # (its extendedResourceName, or on Add its implicit deviceclass.resource... name).
        if new is None:
            return QueueingHint.QUEUE
        ern = (new.get("spec") or {}).get("extendedResourceName") or ""
        reqs = pod_requests(pod)
        if old is not None:
            if ((old.get("spec") or {}).get("extendedResourceName") or "") == ern:
                return QueueingHint.QUEUE_SKIP
        elif f"{DEVICE_CLASS_PREFIX}{new['metadata'].get('name', '')}" in reqs:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE if ern and ern in reqs else QueueingHint.QUEUE_SKIP

    def _pod_scaled_down(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        # isSchedulableAfterAssignedPodScaleDown / haveEnoughRelevantResourcesDecreased:
        # a bound pod now asks for less of something the pod needs.
        if old is None or new is None:
            return QueueingHint.QUEUE
        node = new["spec"].get("nodeName") or ""
        if not node or self._elsewhere(pod, node):
            return QueueingHint.QUEUE_SKIP
        before, after = PodInfo(old).requests, PodInfo(new).requests
        for name, want in pod_requests(pod).items():
            if want == 0 or not (name in _BASE_RESOURCES or is_scalar_resource_name(name)):
                continue
            if before.amount(name) > after.amount(name):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _node_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        if new is not None and self._elsewhere(pod, new["metadata"]["name"]):
            return QueueingHint.QUEUE_SKIP
        return _node_changed(pod, old, new, self._dra.get() if self._dra else ())

    def _assigned_scaled_up(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        # Another pod growing on the deferred pod's node may take the room it waits for.
        if not is_pod_resize_deferred(pod) or new is None:
            return QueueingHint.QUEUE_SKIP
        same = new["spec"].get("nodeName") == pod["spec"].get("nodeName")
        return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP

    def _target_scaled_up(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        # The deferred pod asking for even more may now need preemption after all.
        if not is_pod_resize_deferred(pod):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def requested_resources_increased(
    req: Resource, before: Resource, after: Resource, dra_backed: Collection[str] = ()
) -> bool:
    """``haveAnyRequestedResourcesIncreased``: more pod slots, or more of a resource the
    pod asks for (a DRA-backed one the node does not advertise counts too)."""
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    if req.is_zero():
        return False
    if (
        (req.milli_cpu > 0 and after.milli_cpu > before.milli_cpu)
        or (req.memory > 0 and after.memory > before.memory)
        or (req.ephemeral_storage > 0 and after.ephemeral_storage > before.ephemeral_storage)
    ):
        return True
    for name, want in req.scalar.items():
        if want == 0:
            continue
        have = after.scalar.get(name, 0)
        if have > before.scalar.get(name, 0) or (have <= 0 and name in dra_backed):
            return True
    return False


def _node_changed(
    pod: Obj, old: Obj | None, new: Obj | None, dra_backed: Collection[str] = ()
) -> QueueingHint:
    # isSchedulableAfterNodeChange: the pod fits the new node and, on an update, the node
    # grew in something the pod asks for.
    if new is None:
        return QueueingHint.QUEUE_SKIP
    req = PodInfo(pod).requests
    after = NodeInfo(new["metadata"]["name"], new)
    if fits_request(req, after, dra_backed):
        return QueueingHint.QUEUE_SKIP
    if old is None:
        return QueueingHint.QUEUE
    before = NodeInfo(old["metadata"]["name"], old).allocatable
    grew = requested_resources_increased(req, before, after.allocatable, dra_backed)
    return QueueingHint.QUEUE if grew else QueueingHint.QUEUE_SKIP


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; ``args`` is a NodeResourcesFitArgs or None."""
    if args is not None and not isinstance(args, NodeResourcesFitArgs):
        raise TypeError(f"NodeResourcesFit takes NodeResourcesFitArgs, not {type(args).__name__}")
    ctx = getattr(handle, "ctx", None)  # selftests build the plugin without a framework
    dra = DeviceClassMapping(ctx) if ctx is not None and ctx.gates.get("DRAExtendedResource", True) else None
    return NodeResourcesFit(
        args or NodeResourcesFitArgs(),
        dra,
        features.enable_in_place_pod_vertical_scaling_scheduler_preemption,
        in_place=features.enable_in_place_pod_vertical_scaling,
    )


_: type[FilterPlugin] = NodeResourcesFit
_f: type[PreFilterPlugin] = NodeResourcesFit
_s: type[ScorePlugin] = NodeResourcesFit
_p: type[PreScorePlugin] = NodeResourcesFit
_e: type[EnqueueExtensions] = NodeResourcesFit
_pl: type[PlacementScorePlugin] = NodeResourcesFit
