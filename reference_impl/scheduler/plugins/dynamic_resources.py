"""Models pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go.

PreEnqueue holds a pod until every claim it references exists. PreFilter resolves the
pod's claims; Filter runs the structured allocator for the unallocated ones against the
node's devices (and checks allocated ones' node selectors); Reserve assumes the result so
later pods see the devices as taken; Unreserve drops it; PreBind writes
``status.allocation`` and adds the pod to ``status.reservedFor`` (≤ 256) through
``/status``. Claim, slice, class and taint-rule events requeue rejected pods.
Device binding conditions (PreBind waits, PostFilter deallocates claims that cannot be
used) are in ``dynamic_resources_binding``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.owners import is_controlled_by
from reference_impl.apiserver.informers import object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.dra.allocator import CANNOT_ALLOCATE, AllocationError
from reference_impl.dra.nodes import node_selector_matches
from reference_impl.dra.tracker import ClaimTracker
from reference_impl.errors import ApiError
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
    NodeToStatusReader,
    Plugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.pod_group_post_filter import (
    PodGroupPostFilterResult,
    PodGroupScheduling,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import dynamic_resources_binding as binding
from reference_impl.scheduler.plugins import dynamic_resources_fast as fast
from reference_impl.scheduler.plugins import dynamic_resources_node_allocatable as na
from reference_impl.scheduler.plugins import dynamic_resources_podgroup as pgpf
from reference_impl.scheduler.plugins import extended_resources as ext
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.dynamic_resources_index import (
    ClaimEventIndex,
    missing_device_class,
)
from reference_impl.scheduler.plugins.dynamic_resources_score import DynamicResourcesScore

__all__ = ["DynamicResources", "MAX_RESERVED_FOR", "OPTIONAL_NODE_OPERATIONS", "new",
           "requires_optional_node_operations"]

Obj = dict[str, Any]
MAX_RESERVED_FOR: Final = 256
_KEY: Final = StateKey["_State"]("PreFilterDynamicResources")
_RESOURCES: Final = {
    "ResourceClaim": EventResource.RESOURCE_CLAIM,
    "ResourceSlice": EventResource.RESOURCE_SLICE,
    "DeviceClass": EventResource.DEVICE_CLASS,
    "DeviceTaintRule": EventResource.RESOURCE_SLICE,  # a rule changes what slices offer
}
# statusUnschedulable: every DRA Filter rejection is UnschedulableAndUnresolvable, so
# preemption never evicts pods for devices ("Preemption is not helpful for scheduling").
# Attributed already, so the runtime's WithPlugin need not copy it for every node.
_CANNOT_ALLOCATE: Final = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (CANNOT_ALLOCATE,), names.DYNAMIC_RESOURCES
)
# The node feature (status.declaredFeatures) an allocation with skipNodeOperations needs.
OPTIONAL_NODE_OPERATIONS: Final = "DRAOptionalNodeOperations"
_ACTIONS: Final = {"ADDED": ActionType.ADD, "MODIFIED": ActionType.UPDATE_OTHER,
                   "DELETED": ActionType.DELETE}


@dataclass(slots=True)
class _State:
    """What PreFilter found: the pod's claims, split by whether they are allocated."""

    claims: list[Obj]
    allocated: list[Obj]
    pending: list[Obj]
    per_node: dict[str, list[Obj]] = field(default_factory=dict)
    assumed: list[str] = field(default_factory=list)
    ext_requests: dict[str, int] = field(default_factory=dict)  # DRA-EXT
    ext_claims: dict[str, Obj] = field(default_factory=dict)  # node -> special claim
    consumers: list[Obj] = field(default_factory=list)  # reservedFor entry per claim
    vouched: list[Mapping[str, Obj] | fast.Vouched] = field(default_factory=list)  # fast path
    short: set[str] = field(default_factory=set)  # nodes the fast path found too full
    unavailable: set[str] = field(default_factory=set)  # allocated claims unusable (keys)
    waiting: list[str] = field(default_factory=list)  # claims PreBind waits for (keys)
    # Claims whose allocation skips node operations (keys): Filter wants
    # DRAOptionalNodeOperations among the node's declared features.
    node_ops: list[str] = field(default_factory=list)
    reused: set[str] = field(default_factory=set)  # keys whose allocation is a pending one
    node_alloc: na.CycleData | None = None  # DRANodeAllocatableResources (gate on)

    def clone(self) -> _State:
        return self


class DynamicResources(DynamicResourcesScore):
    """The DynamicResources plugin (Score: ``dynamic_resources_score``)."""

    def __init__(self, handle: Handle, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._ctx = handle.ctx
        self._move: Any = None
        self.tracker = ClaimTracker(handle.ctx, self._event, eager=True)
        gate = handle.ctx.gates.get("DRAExtendedResource", True)
        self._ext = ext.DeviceClassMapping(handle.ctx) if gate else None
        self._index = ClaimEventIndex(self.tracker)
        self._node_alloc = handle.ctx.gates.get(na.GATE, False)
        self._na_devices: bool | None = None  # na.any_node_allocatable, per set of slices
        self._pod_level = handle.ctx.gates.get("PodLevelResources", True)

    def name(self) -> str:
        """The registered name."""
        return names.DYNAMIC_RESOURCES

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: a pod with resource claims cannot be signed; others add nothing."""
        if pod["spec"].get("resourceClaims"):
            return sign.unsignable("pods with dra resource claims are not signable")
        return sign.signed()

    # -- events -------------------------------------------------------------------------

    def start_events(self, move: Any) -> None:
        """Receive the queue's ``move_all_to_active_or_backoff`` (wired by the scheduler)."""
        self._move = move

    def _event(self, kind: str, ev: ObjectEvent) -> None:
        if kind == "ResourceSlice":
            self._na_devices = None
        if self._move is None:
            return
        old = ev.obj if ev.type == "DELETED" else ev.old
        new = None if ev.type == "DELETED" else ev.obj
        self._move(ClusterEvent(_RESOURCES[kind], _ACTIONS[ev.type], f"{kind}{ev.type.title()}"), old, new)

    def pod_index_keys(self, pod: Obj) -> list[str] | None:
        """``QueueIndex``: the keys a rejected pod is filed under (DRA-REQUEUE)."""
        return self._index.pod_keys(pod)

    def event_index_keys(
        self, event: ClusterEvent, old: Obj | None, new: Obj | None
    ) -> list[str] | None:
        """``QueueIndex``: the keys of the pods ``event`` may help."""
        return self._index.event_keys(event, old, new)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """``EventsToRegister``: nodes added, relabelled or resized; claims (with a hint);
        the pod's generated claims (with a hint); classes and slices added or updated
        (a deletion frees nothing)."""
        add_update = ActionType.ADD | ActionType.UPDATE
        node = ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.RESOURCE_CLAIM, add_update | ActionType.DELETE),
                self._claim_hint,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                self._target_pod_hint),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_update)),
        )

    def _claim_hint(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """``isSchedulableAfterClaimChange``: a deleted claim matters only if it held
        devices; otherwise the pod's claims must all resolve, and the change must free
        devices (a deallocation), create one of them or change its status."""
        if new is None:  # deleted: the final state is known here (no DeletedFinalStateUnknown)
            return QueueingHint.QUEUE if _allocation(old) else QueueingHint.QUEUE_SKIP
        claims, _, why = self._claims(pod)
        if why:  # still not schedulable (the tracker already holds ``new``)
            return QueueingHint.QUEUE_SKIP
        if old is not None and _allocation(old) and not _allocation(new):
            return QueueingHint.QUEUE  # deallocated: devices were freed
        uid = new["metadata"].get("uid")
        if not any(c["metadata"].get("uid") == uid for c in claims):
            return QueueingHint.QUEUE_SKIP  # not a claim of this pod
        if old is None:
            return QueueingHint.QUEUE
        same = (old.get("status") or {}) == (new.get("status") or {})  # e.g. a finalizer added
        return QueueingHint.QUEUE_SKIP if same else QueueingHint.QUEUE

    def _target_pod_hint(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """``isSchedulableAfterTargetPodUpdate``: the updated pod's claims must all resolve
        (its status now names the generated ones)."""
        if new is None:
            return QueueingHint.QUEUE  # upstream: not a pod, an error and Queue
        return QueueingHint.QUEUE_SKIP if self._claims(new)[2] else QueueingHint.QUEUE

    # -- PreEnqueue / PreFilter ------------------------------------------------------------

    def _claims(self, pod: Obj) -> tuple[list[Obj], list[Obj], str]:
        """``foreachPodResourceClaim``: the pod's claims and the ``spec.resourceClaims``
        entries they serve, or why the pod must wait (upstream's messages)."""
        claims, refs, _, why = self._resolve(pod)
        return claims, refs, why

    def _resolve(self, pod: Obj) -> tuple[list[Obj], list[Obj], list[Obj], str]:
        """``_claims``, with the ``reservedFor`` entry each claim gets (``consumer``)."""
        ns = pod["metadata"].get("namespace", "default")
        pname = f'{ns}/{pod["metadata"]["name"]}'
        statuses = {st.get("name"): st for st in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}
        out: list[Obj] = []
        refs: list[Obj] = []
        consumers: list[Obj] = []
        tracker = self.tracker
        for ref in pod["spec"].get("resourceClaims") or ():
            shared = tracker.group_of(pod, ref)  # once: claim_name and consumer ask it too
            templated = not ref.get("resourceClaimName") and shared is None
            st = statuses.get(ref["name"])
            if templated and st is not None and not st.get("resourceClaimName"):
                continue  # resourceclaim.Name: nil, intentionally not created
            name = tracker.claim_name_for(pod, ref, shared)
            if name is None:
                return [], [], [], f'pod "{pname}": ResourceClaim not created yet'
            claim = tracker.claims.get(f"{ns}/{name}")
            if claim is None:  # the assume cache's NotFoundError
                return [], [], [], f'could not find ResourceClaim "{ns}/{name}"'
            if claim["metadata"].get("deletionTimestamp"):
                return [], [], [], f'resourceclaim "{name}" is being deleted'
            if templated and not is_controlled_by(claim, pod):  # resourceclaim.IsForPod
                return [], [], [], f"ResourceClaim {ns}/{name} was not created for Pod {pname} (Pod is not owner)"
            out.append(claim)
            refs.append(ref)
            consumers.append(tracker.consumer_for(pod, shared))
        return out, refs, consumers, ""

    def pre_enqueue(self, pod: Obj) -> Status:
        """Every referenced claim must exist."""
        if not pod["spec"].get("resourceClaims"):
            return OK
        _, _, why = self._claims(pod)
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (why,)) if why else OK

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Resolve the pod's claims; SKIP when it has none."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        if state.pod_group_cycle is not None:  # an empty state first, as upstream
            pgpf.record(state, pod, None)
        ext_reqs = ext.pod_requests(pod, self._ext.get()) if self._ext else {}
        if not pod["spec"].get("resourceClaims") and not ext_reqs:
            return None, SKIP
        claims, refs, consumers, why = self._resolve(pod)
        if why:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (why,))
        if not claims and not ext_reqs:  # every claim intentionally not created
            return None, SKIP
        allocated: list[Obj] = []
        pending: list[Obj] = []
        node_ops: list[str] = []
        merged: list[Obj] = []  # the claims with pending allocations (gate on only)
        reused: set[str] = set()
        # KEP-5729: a shared PodGroup claim is reserved for the group, not for the pod
        # (each claim's consumer came from ``_resolve``).
        for c, consumer in zip(claims, consumers, strict=True):
            st = c.get("status") or {}
            reserved = st.get("reservedFor") or []
            # PreFilter: an allocated claim that cannot take another consumer (CanBeReserved)
            # and is not reserved for this one (IsReservedForPod) makes the pod wait.
            if (st.get("allocation") and len(reserved) >= MAX_RESERVED_FOR
                    and all(r.get("uid") != consumer["uid"] for r in reserved)):
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("resourceclaim in use",))
            assumed = None if st.get("allocation") else self.tracker.assumed.get(object_key(c))
            if assumed is not None:  # a group member reserved it earlier in this group cycle
                c = {**c, "status": {**st, "allocation": assumed}}
            (allocated if st.get("allocation") or assumed else pending).append(c)
            if self._node_alloc:
                merged.append(c)
            if assumed is not None:
                reused.add(object_key(c))
            if requires_optional_node_operations(st.get("allocation") or assumed):
                node_ops.append(object_key(c))
        missing = missing_device_class(pending, self.tracker.classes.cache)
        if missing:  # waits in the pool for the DeviceClass event
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (missing,))
        node_alloc = None
        if self._node_alloc:
            if self._na_devices is None:
                self._na_devices = na.any_node_allocatable(self.tracker.slices.cache.values())
            node_alloc = na.prepare(lambda: list(self.tracker.slices.items()), merged, refs,
                                    self._na_devices)
        st_data = _State(claims, allocated, pending, ext_requests=ext_reqs, consumers=consumers,
                         node_ops=node_ops, reused=reused, node_alloc=node_alloc)
        state.write(_KEY, st_data)
        if state.pod_group_cycle is not None:  # PodGroupPostFilter reads it
            pgpf.record(state, pod, st_data)
        return None, OK

    # -- Filter -------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Allocated claims must be usable here; the others must be allocatable here."""
        s = state.try_read(_KEY)
        if s is None or node_info.node is None:
            return OK
        if node_info.name in s.short:  # filter_suspects counted too few free devices
            return _CANNOT_ALLOCATE  # (it runs only without allocated or extended claims)
        unusable = [object_key(c) for c in s.allocated if not self._usable(c, node_info.node)]
        if s.node_ops and OPTIONAL_NODE_OPERATIONS not in (
                (node_info.node.get("status") or {}).get("declaredFeatures") or ()):
            # Filter: a pending allocation (reused in a pod-group cycle) rejects the node
            # outright; an allocation in the claim's status makes the claim unavailable.
            for key in s.node_ops:
                if key in s.reused:
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (
                        f"resource claim {key} allocation requires {OPTIONAL_NODE_OPERATIONS} "
                        "feature on the node",))
                if key not in unusable:
                    unusable.append(key)
        if unusable:  # PostFilter may deallocate them
            s.unavailable.update(unusable)
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          ("resourceclaim not available on the node",))
        if s.node_alloc is not None:  # validateNodeAllocatableDRAClaimSharing
            for c in s.allocated:
                why = na.check_sharing(s.node_alloc, pod, c, object_key(c) in s.reused,
                                       self.tracker.groups is not None)
                if why is not None:
                    return why
        extra = self._ext_claim(pod, s, node_info)
        pending = [*s.pending, extra] if extra else s.pending
        if not pending:
            return self._node_fits(s, pod, node_info, {})
        if not extra and fast.cannot_allocate(self.tracker, s.pending, node_info):
            return _CANNOT_ALLOCATE  # no full search needed
        try:
            alloc = self.tracker.allocator(self.tracker.devices_for(node_info.name)).allocate(
                pending, node_info.node)
        except AllocationError as e:
            return Status(Code.ERROR, (str(e),))
        if alloc is None:
            return _CANNOT_ALLOCATE
        s.per_node[node_info.name] = alloc
        if extra:
            s.ext_claims[node_info.name] = extra
        return self._node_fits(s, pod, node_info, dict(zip([object_key(c) for c in pending], alloc, strict=False)))

    def _node_fits(self, s: _State, pod: Obj, node_info: NodeInfo, new: dict[str, Obj]) -> Status:
        # DRANodeAllocatableResources: what the pod's devices map or cost must fit the node.
        if s.node_alloc is None:
            return OK
        extra = s.ext_claims.get(node_info.name)
        claims = [*s.allocated, *s.pending, *([extra] if extra else [])]
        why = na.check_node(s.node_alloc, self.tracker.slices.items(), pod, claims, new, node_info,
                            self._pod_level)
        return OK if why is None else why

    # -- Score (DRAPrioritizedList; computeScore in dynamic_resources_score) -------------

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """SKIP unless a claim has a firstAvailable request (deviation: upstream scores all
        nodes 0 then, which cannot change the ranking)."""
        s = state.try_read(_KEY)
        if s is None or not any(
            "firstAvailable" in req
            for claim in (*s.allocated, *s.pending)
            for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()
        ):
            return SKIP
        return OK

    def _usable(self, claim: Obj, node: Obj) -> bool:
        # Its node selector matches, and its binding neither failed nor timed out.
        sel = ((claim.get("status") or {}).get("allocation") or {}).get("nodeSelector")
        if sel and not node_selector_matches(sel, node):
            return False
        return not self.tracker.features.binding_conditions or binding.usable(
            claim, self._ctx.clock.now())

    def post_filter(
        self, state: CycleState, pod: Obj, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        """Deallocate one unusable claim no other consumer holds (sorted: deterministic)."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, Status(Code.UNSCHEDULABLE)  # a bound pod's claims stay allocated
        s = state.try_read(_KEY)
        keys = sorted(s.unavailable) if s is not None else []
        return None, binding.deallocate_one(self._ctx.server, self.tracker, keys, pod)

    def pod_group_post_filter(
        self,
        group: CycleState | None,
        info: pgpf.PodGroupInfo,
        schedule: PodGroupScheduling,
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        """``PodGroupPostFilter``: free the failed gang's unusable claims
        (``dynamic_resources_podgroup``); never a result (it nominates nothing)."""
        st = pgpf.pod_group_post_filter(self._ctx.server, self.tracker, self._ctx.gates, group, info)
        return None, st

    def filter_suspects(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> set[int] | None:
        """BatchFilterPlugin: nodes ``filter`` might reject; vouched ones allocate at Reserve."""
        s = state.try_read(_KEY)
        if s is None:
            return set()
        if s.allocated or s.ext_requests or (s.node_alloc is not None and s.node_alloc.any_devices):
            return None  # (node-allocatable devices: Filter checks every node)
        if not s.pending:
            return set()
        got = fast.vouch(self.tracker, s.pending, nodes)
        if got is None:
            return None
        s.vouched.append(got[1])
        s.short.update(got[2])
        return got[0]

    def filter_rejections(self, state: CycleState) -> tuple[Set[str], Status] | None:
        """FilterRejections: the nodes ``filter_suspects`` found too full; ``filter``
        rejects them before anything else (their claims are all pending and simple)."""
        s = state.try_read(_KEY)
        return None if s is None or not s.short else (s.short, _CANNOT_ALLOCATE)

    def _ext_claim(self, pod: Obj, s: _State, node_info: NodeInfo) -> Obj | None:
        # DRA-EXT: the special claim for extended resources this node does not advertise.
        if not s.ext_requests or self._ext is None:
            return None
        return ext.node_claim(pod, s.ext_requests, self._ext.get(), node_info)

    def score_inputs(self, state: CycleState, node_name: str) -> tuple[list[Obj], list[Obj]] | None:
        """Allocated claims, then pending ones with the allocations Filter found here."""
        s = state.try_read(_KEY)
        if s is None:
            return None
        allocs = s.per_node.get(node_name)
        if allocs is None:  # Filter's fast path skipped the search on a vouched node
            allocs = _vouched_allocation(self.tracker, s, node_name)
        return None if allocs is None else ([*s.allocated, *s.pending], allocs)

    # -- Reserve / Unreserve / PreBind ----------------------------------------------------

    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Assume the allocation found for ``node_name``."""
        s = state.try_read(_KEY)
        extra = [s.ext_claims[node_name]] if s is not None and node_name in s.ext_claims else []
        if s is not None and s.reused:  # a pending allocation of the group: one more sharer
            for key in sorted(s.reused):
                if key in self.tracker.assumed:
                    self.tracker.assume(key, self.tracker.assumed[key])
                    s.assumed.append(key)
        if s is None or not (s.pending or extra):
            return OK
        allocs = s.per_node.get(node_name)
        if allocs is None:  # Filter's fast path skipped the search on a vouched node
            allocs = _vouched_allocation(self.tracker, s, node_name)
        if allocs is None:
            return Status(Code.UNSCHEDULABLE, (CANNOT_ALLOCATE,))
        for claim, alloc in zip([*s.pending, *extra], allocs, strict=True):
            key = object_key(claim)
            self.tracker.assume(key, alloc)
            s.assumed.append(key)
        return OK

    def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        """Forget what Reserve assumed; take the pod out of claims reserved for it."""
        s = state.try_read(_KEY)
        if s is not None:
            for key in s.assumed:  # the allocation stays while another pod shares it
                self.tracker.forget(key, force=False)
            s.assumed.clear()
            binding.unreserve(self._ctx.server, self.tracker, s.claims, s.consumers, pod)
            if s.node_alloc is not None and s.node_alloc.statuses.get(node_name):
                stored = self._ctx.server.try_get("v1", "Pod", pod["metadata"]["name"],
                                                  pod["metadata"].get("namespace", "default"))
                na.clear_status(self._ctx.server, stored or pod)

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        """Write allocations and reservations through ``resourceclaims/status``."""
        s = state.try_read(_KEY)
        if s is None:
            return SKIP
        allocs = dict(zip([object_key(c) for c in s.pending], s.per_node.get(node_name, []), strict=False))
        stamp = self.tracker.features.binding_conditions  # DRADeviceBindingConditions + status
        written, err = binding.bind_claims(self._ctx, self.tracker, s.claims, s.consumers, allocs, stamp)
        if err is not None:
            return err
        extra = s.ext_claims.get(node_name)
        if extra is not None:  # DRA-EXT: the special claim is created only now
            try:
                ext.create_claim(self._ctx, pod, extra, s.per_node[node_name][-1])
            except ApiError as e:
                return Status(Code.ERROR, (f"creating the extended resource claim: {e}",))
            finally:
                self.tracker.forget(object_key(extra))
        statuses = s.node_alloc.statuses.get(node_name) if s.node_alloc is not None else None
        if statuses:  # the scheduler's assume copied them into the pod's status
            assumed = {**pod, "status": {**(pod.get("status") or {}), na.FIELD: statuses}}
            why = na.patch_status(self._ctx.server, assumed, statuses)
            if why is not None:
                return why
        if not stamp or not binding.has_binding_conditions(written):
            return OK
        ready = binding.binding_status(written, self._ctx.clock.now())
        s.waiting = [object_key(c) for c in written] if ready is None else []
        return Status(Code.WAIT) if ready is None else ready  # WAIT: see wait_pre_bind

    def wait_pre_bind(self, state: CycleState, pod: Obj, node_name: str, resume: Any) -> None:
        """PreBind answered WAIT: poll the binding conditions and ``resume`` with the outcome."""
        s = state.try_read(_KEY)
        keys = s.waiting if s is not None else []
        binding.wait_for_binding(self.tracker, self._ctx.clock, keys, resume)


def requires_optional_node_operations(alloc: Obj | None) -> bool:
    """``allocationResultRequiresDRAOptionalNodeOperations``: a result lists
    ``skipNodeOperations``."""
    results = ((alloc or {}).get("devices") or {}).get("results") or ()
    return any(r.get("skipNodeOperations") for r in results)


def _allocation(claim: Obj | None) -> Any:
    return ((claim or {}).get("status") or {}).get("allocation")


def _vouched_allocation(tracker: ClaimTracker, s: _State, node_name: str) -> list[Obj] | None:
    """The allocation for a node the fast path vouched for (kept for the cycle), or None."""
    for v in s.vouched:
        node = v.get(node_name)
        if node is not None:
            break
    else:
        return None
    if type(v) is fast.Vouched:  # a window's: its counts kept the candidates
        allocs = v.allocate(tracker, s.pending, node)
    else:
        allocs = fast.allocate(tracker, s.pending, node)
    if allocs is not None:
        s.per_node[node_name] = allocs
    return allocs


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return DynamicResources(handle, resize_preemption=gate)


_p: type[PreEnqueuePlugin] = DynamicResources
_f: type[PreFilterPlugin] = DynamicResources
_g: type[FilterPlugin] = DynamicResources
_r: type[ReservePlugin] = DynamicResources
_b: type[PreBindPlugin] = DynamicResources
_pf: type[PostFilterPlugin] = DynamicResources
_s: type[ScorePlugin] = DynamicResources
_e: type[EnqueueExtensions] = DynamicResources
