"""Models pkg/scheduler/backend/queue/scheduling_queue.go (the PriorityQueue).

Three places a pending pod can be: activeQ (a heap by the profile's QueueSort), backoffQ
(by backoff expiry, 1s doubling to 10s of simulated time, truncated to upstream's 1-second
ordering windows; pods of one window in QueueSort order) and the unschedulable pool.
PreEnqueue plugins gate entry to activeQ. Cluster events move pods out of the pool only
when a queueing hint of a plugin that rejected them says QUEUE; pods left in the pool for
5 minutes are flushed back. As upstream's SchedulerPopFromBackoffQ (on by default; the
reference models only that state), a pod backing off after an unschedulable verdict may be
popped early when activeQ is empty, and a pod's backoff completes only once the current
window is past its (truncated) expiry; backoffQ is flushed at window boundaries.
With GenericWorkload a pod-group member whose root (Composite)PodGroup is not in the
queue's workload forest waits in ``incompletePodGroupPods``, in no sub-queue, until the
root's arrival lets it in (through PreEnqueue); a group's delete moves its queued pods back.
A member added while its root is the last popped group and none of the root's pods is queued
waits in ``pendingPodGroupPods``; it is queued when the attempt ends (here: once no pod of that
root is in flight, upstream's AddAttemptedPodGroupIfNeeded at the end of the group cycle),
when the group's pooled pods are retried with it. The queue holds member pods, but keeps a
root group's queued pods together as upstream's entity: a member gated by PreEnqueue holds
the whole group in the pool (PreEnqueue runs again for every gated member before the group
moves), and a new member joins the sub-queue its group is in (``addToPodGroupIfExists``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, Final, Protocol

from reference_impl.clock import Duration, Instant, SimClock, seconds
from reference_impl.scheduler.framework.events import FORCE_ACTIVATE
from reference_impl.scheduler.framework.heap import KeyedHeap
from reference_impl.scheduler.framework.interface import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.pod_group_member_pods import PodGroupMemberPods
from reference_impl.scheduler.framework.queue_index import QueueIndex, UnschedulablePool
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo, pod_key
from reference_impl.scheduler.framework.workload_forest import (
    EntityKey,
    QueuedPodGroupInfo,
    WorkloadForest,
    pod_group_key_for_pod,
    pod_group_key_of,
)

__all__ = ["ORDERING_WINDOW", "QueueFramework", "SchedulingQueue", "align_to_window", "backoff_duration"]

Obj = dict[str, Any]
INITIAL_BACKOFF: Final = seconds(1)
MAX_BACKOFF: Final = seconds(10)
MAX_IN_UNSCHEDULABLE_PODS: Final = seconds(300)
ORDERING_WINDOW: Final = seconds(1)  # backoffQOrderingWindowDuration


class QueueFramework(Protocol):
    """What the queue needs from the profile's framework."""

    def queue_sort_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """The QueueSort plugin's order."""
        ...

    def run_pre_enqueue_plugins(self, pod: Obj) -> Status:
        """The first non-success PreEnqueue status, or OK."""
        ...

    def events_for(self, plugin: str) -> Sequence[ClusterEventWithHint]:
        """The events ``plugin`` registered, with their hints."""
        ...

    def plugins_interested_in(self, event: ClusterEvent) -> frozenset[str]:
        """Plugins with a registration matching ``event``."""
        ...


def _key(p: QueuedPodInfo) -> str:
    return p.info.key


class _Lookup(Enum):
    """A root argument's default: look the pod's root up (``_root_of``) where needed."""

    ROOT = 0


_Root = QueuedPodGroupInfo | None | _Lookup


class SchedulingQueue:
    """The scheduling queue; ``on_ready`` is called whenever a pod may be popped."""

    def __init__(
        self,
        clock: SimClock,
        framework: QueueFramework,
        on_ready: Callable[[], None],
        *,
        hints_enabled: bool = True,
        initial_backoff: Duration = INITIAL_BACKOFF,
        max_backoff: Duration = MAX_BACKOFF,
        signer: Callable[[Obj], str | None] | None = None,
        pre_queueing_hints: bool = True,
        max_in_unschedulable: Duration = MAX_IN_UNSCHEDULABLE_PODS,
        composite_pod_group: bool = False,
        pod_group_member: Callable[[Obj], bool] | None = None,
    ) -> None:
        self._clock = clock
        # The (Composite)PodGroups observed, for root and leaf lookups (workloadForest).
        self.workload_forest = WorkloadForest(composite_pod_group)
        # ``isPodGroupMember``; None: GenericWorkload is off and no pod is a member.
        self._pod_group_member = pod_group_member
        # ``incompletePodGroupPods``: members whose root is not in the forest yet.
        self._incomplete = PodGroupMemberPods()
        # ``pendingPodGroupPods``: members added while their root group is in flight.
        self._pending = PodGroupMemberPods()
        # ``lastPoppedEntityKey`` when the last pop was a pod-group member: its root.
        self._last_popped: QueuedPodGroupInfo | None = None
        # PodGroup key -> its members that may be queued (a superset: each is looked up
        # where it is), so a group's queued pods are found without scanning the queue.
        self._queued_members: dict[EntityKey, dict[str, None]] = {}
        # PodGroup keys whose indexed members are all in the pool (none in activeQ/backoffQ,
        # none gone): gating such a group moves nothing, so the O(group) scan is skipped.
        self._pooled_groups: set[EntityKey] = set()
        # A pending member changed PodGroup: its key may linger under the old group, so
        # groups are no longer marked pooled (the scans decide, as before).
        self._group_moved = False
        # In-flight member pod -> its root's key when popped (for AddAttemptedPodGroupIfNeeded),
        # and each such root's count of pods in flight (kept with it, not rebuilt per pod).
        self._flight_roots: dict[str, EntityKey] = {}
        self._roots_in_flight: dict[EntityKey, int] = {}
        # Whether plugins' pool indexes (upstream's PreQueueingHintFns) may narrow events.
        self._pre_queueing_hints = pre_queueing_hints
        # OpportunisticBatching's PodSigner (signPod); None: no pod gets a signature.
        self._signer = signer
        self._fw = framework
        self._on_ready = on_ready
        self._hints_enabled = hints_enabled
        # podInitialBackoffSeconds / podMaxBackoffSeconds of the scheduler configuration.
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._max_in_unschedulable = max_in_unschedulable  # podMaxInUnschedulablePodsDuration
        self._active: KeyedHeap[QueuedPodInfo] = KeyedHeap(framework.queue_sort_less)
        # backoffQ is upstream's two heaps: pods rejected by plugins, and pods that errored.
        self._backoff: KeyedHeap[QueuedPodInfo] = KeyedHeap(self._backoff_less)
        self._error_backoff: KeyedHeap[QueuedPodInfo] = KeyedHeap(self._backoff_less)
        self._unschedulable = UnschedulablePool()
        self.last_examined = 0  # pods whose hints the last cluster event ran
        self.examined_total = 0
        self._in_flight: dict[str, tuple[QueuedPodInfo, int]] = {}
        # ``inFlightEvents``: (seq, pod key or "" for a cluster event, event, old, new) seen
        # while pods are in flight; a rejected pod replays those after its pop (its marker).
        self._flight_events: list[tuple[int, str, ClusterEvent, Obj | None, Obj | None]] = []
        self._event_seq = 0
        self._seq = 0
        self.scheduling_cycle = 0
        self._backoff_timer: Instant | None = None
        self._leftover_timer: Instant | None = None
        self._errored: set[str] = set()

    def register_index(self, plugin: str, index: QueueIndex) -> None:
        """Let ``plugin`` index the pods it rejects by the events that may help them
        (ignored without PreQueueingHints: upstream then evaluates every pod)."""
        if self._pre_queueing_hints:
            self._unschedulable.register_index(plugin, index)

    # -- sizes and lookups ------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff) + len(self._error_backoff) + len(self._unschedulable)

    def counts(self) -> dict[str, int]:
        """Pods per sub-queue, like the scheduler_pending_pods metric."""
        gated = sum(1 for p in self._unschedulable.values() if p.gated)
        out = {
            "active": len(self._active),
            "backoff": len(self._backoff) + len(self._error_backoff),
            "unschedulable": len(self._unschedulable) - gated,
            "gated": gated,
        }
        if self._pod_group_member is not None:  # GenericWorkload's extra queue label
            out["incomplete"] = len(self._incomplete)
            out["pending"] = len(self._pending)
        return out

    def has_ready(self) -> bool:
        """Whether ``pop`` would return a pod now."""
        return bool(self._active) or self._poppable_backoff() is not None

    def where(self, key: str) -> str:
        """Which sub-queue holds ``key`` ("active", "backoff", "unschedulable", "gated",
        "incomplete", "pending", "in-flight"; "" if none)."""
        if key in self._incomplete:
            return "incomplete"
        if key in self._pending:
            return "pending"
        if key in self._active:
            return "active"
        if key in self._backoff or key in self._error_backoff:
            return "backoff"
        if key in self._unschedulable:
            return "gated" if self._unschedulable[key].gated else "unschedulable"
        return "in-flight" if key in self._in_flight else ""

    # -- informer-driven changes ------------------------------------------------------

    def add(self, pod: Obj) -> None:
        """A new pending pod: PreEnqueue decides between activeQ and the pool."""
        self._seq += 1
        pinfo = QueuedPodInfo(PodInfo(pod), self._clock.now(), seq=self._seq)
        if self._signer is not None:
            pinfo.signature = self._signer(pod)
        if self._is_pod_group_member(pod):
            self._add_pod_group_member(pinfo)
        else:
            self._move_to_active(pinfo)

    def _is_pod_group_member(self, pod: Obj) -> bool:
        """``isPodGroupMember``."""
        return self._pod_group_member is not None and self._pod_group_member(pod)

    def _add_pod_group_member(self, pinfo: QueuedPodInfo) -> None:
        """``addPodGroupMember``: a member whose root is unobserved waits in the incomplete
        buffer; one whose root is the last popped group, with none of its pods queued, waits
        in the pending buffer; else it is queued (one by one here, see pop_member)."""
        root = self.workload_forest.get_root_lookup_info_for_pod(pinfo.pod)
        if root is None:
            self._incomplete.add(pinfo)
            return
        if self._join_queued_group(pinfo, root):
            return
        if self._is_last_popped(root):
            self._pending.add(pinfo)
            return
        self._move_to_active(pinfo, root=root if self._is_pod_group_member(pinfo.pod) else None)

    def _join_queued_group(self, pinfo: QueuedPodInfo, root: QueuedPodGroupInfo) -> bool:
        """``addToPodGroupIfExists``: a member whose root group is queued joins it where it
        is: activeQ (through PreEnqueue), backoffQ (with the group's backoff) or the pool
        (as the group was left there: no PreEnqueue, the group's rejectors). False: no
        other pod of the root is queued. ``root``: the member's, just looked up."""
        leaves = self.workload_forest.get_leaf_pod_groups(root)
        settled = self._settled_pool(pinfo, leaves)
        if settled is not None:  # every sibling is pooled: no scan for activeQ/backoffQ
            return self._join_pooled_group(pinfo, *settled)
        queued = self._queued_siblings(pinfo, leaves)
        if any(self._active.get(p.key) is p for p in queued):
            self._move_to_active(pinfo, root=root if self._is_pod_group_member(pinfo.pod) else None)
            return True
        for heap in (self._backoff, self._error_backoff):
            sib = next((p for p in queued if heap.get(p.key) is p), None)
            if sib is not None:
                pinfo.timestamp, pinfo.unschedulable_count = sib.timestamp, sib.unschedulable_count
                pinfo.consecutive_errors = sib.consecutive_errors
                self._requeue(pinfo, immediate=False)
                return True
        pooled = [p for p in queued if self._unschedulable.get(p.key) is p]
        if not pooled:
            return False
        return self._join_pooled_group(pinfo, pooled[0], any(p.gated for p in pooled))

    def _join_pooled_group(self, pinfo: QueuedPodInfo, sib: QueuedPodInfo, gated: bool) -> bool:
        """The pool part of ``addToPodGroupIfExists``: ``sib`` is the first pooled sibling."""
        if gated:  # a gated group: the newcomer's own gate counts too
            if self._pre_enqueue(pinfo):
                self._park(pinfo)
            return True
        pinfo.timestamp, pinfo.unschedulable_count = sib.timestamp, sib.unschedulable_count
        pinfo.unschedulable_plugins = set(sib.unschedulable_plugins)
        pinfo.pending_plugins = set(sib.pending_plugins)
        self._unschedulable[pinfo.key] = pinfo
        self._index_member(pinfo)
        self._arm_leftover_timer(_pooled_since(pinfo))
        return True

    def _is_last_popped(self, root: QueuedPodGroupInfo) -> bool:
        """``isLastPoppedEntity``."""
        return self._last_popped is not None and self._last_popped.key == root.key

    def _root_of(self, pod: Obj) -> QueuedPodGroupInfo | None:
        if not self._is_pod_group_member(pod):
            return None
        return self.workload_forest.get_root_lookup_info_for_pod(pod)

    def _add_attempted_pod_group_if_needed(self) -> None:
        """``AddAttemptedPodGroupIfNeeded``: once no pod of a root is in flight, its attempt
        is over and its pending pods are queued (through PreEnqueue). The attempted pods
        themselves came back one by one (``add_unschedulable_if_not_present``)."""
        if self._last_popped is None and not len(self._pending):
            return
        flying = self._roots_in_flight
        if self._last_popped is not None and self._last_popped.key not in flying:
            self._last_popped = None  # ``clearPoppedEntity``
        released = [p for p in self._pending.infos()
                    if (r := self._root_of(p.pod)) is None or r.key not in flying]
        for held in released:
            self._pending.delete(held.key)
        requeued: set[str] = set()
        for held in released:
            # The group, new pods and all, is retried: its pooled pods go back to backoffQ or
            # activeQ (upstream requeues the whole attempted entity with its pending pods).
            pooled = [p for p in self._queued_siblings(held) if self._unschedulable.get(p.key) is p]
            for member in [p for p in pooled if not p.gated]:
                if member.key not in requeued:
                    requeued.add(member.key)
                    self._requeue(member, immediate=False)
            self._add_pod_group_member(held)

    def update(self, old: Obj, new: Obj, events: Sequence[ClusterEvent]) -> None:
        """``PriorityQueue.Update``: a pending pod changed; a pool pod, gated or not, is
        re-checked against ``events``' hints (status-only updates included: their event is
        the general Update, which only plugins registering it hear)."""
        key = pod_key(new)
        if pod_group_key_for_pod(old) != pod_group_key_for_pod(new):
            self._group_moved = True
            self._pooled_groups.clear()
        pending = self._pending.update(new) if self._is_pod_group_member(new) else None
        if pending is not None:  # ``pendingPodGroupPods.update``
            if self._signer is not None:
                pending.signature = self._signer(new)
            return
        if self._is_pod_group_member(old) and self.workload_forest.get_root_lookup_info_for_pod(old) is None:
            # Upstream only refreshes a held pod here; one not held is not added.
            held = self._incomplete.get(key)
            if held is not None:
                held.info = PodInfo(new)
                if self._signer is not None:
                    held.signature = self._signer(new)
            return
        found = self._find(key)
        if found is None:
            self.add(new)
            return
        found.info = PodInfo(new)
        if self._signer is not None:  # upstream re-signs the updated pod
            found.signature = self._signer(new)
        if key in self._in_flight and found is self._in_flight[key][0]:
            for ev in events:  # ``addEventsIfPodInFlight``
                self._event_seq += 1
                self._flight_events.append((self._event_seq, key, ev, old, new))
            return
        if key not in self._unschedulable:
            return
        for ev in events:
            hint = self._worth_requeuing(found, ev, old, new)
            if hint is None:
                continue
            self._requeue(found, immediate=hint)
            if key not in self._unschedulable:
                return  # moved; a pod PreEnqueue gated again hears the next event

    def delete(self, pod: Obj) -> None:
        """A pending pod went away (deleted, or bound by someone else)."""
        key = pod_key(pod)
        self._incomplete.delete(key)
        self._pending.delete(key)
        self._active.delete(key)
        self._backoff_delete(key)
        self._unschedulable.pop(key, None)
        self._unindex_member(pod, key)
        if self._in_flight.pop(key, None) is not None:
            if key in self._flight_roots:
                self._land(key)
            self._prune_flight_events()
            self._add_attempted_pod_group_if_needed()
        self._errored.discard(key)

    # -- (Composite)PodGroup events: upstream's handlers, pod by pod ------------------------
    # Upstream also re-roots the queued group entity; this queue holds member pods, so a
    # group's arrival or delete only moves pods between the sub-queues and the buffer.

    def add_pod_group(self, pg: Obj) -> None:
        """``AddPodGroup``: record the PodGroup; if its root is complete now, its leaves'
        held pods are queued (through PreEnqueue)."""
        self.workload_forest.add_pod_group(pg)
        root = self.workload_forest.get_root_lookup_info_for_pod_group(pg)
        if root is not None:
            self._release_incomplete(self.workload_forest.get_leaf_pod_groups(root))

    def update_pod_group(self, pg: Obj) -> None:
        """``UpdatePodGroup``."""
        self.workload_forest.update_pod_group(pg)

    def delete_pod_group(self, pg: Obj) -> None:
        """``DeletePodGroup``: its queued pods go back to the incomplete buffer (one in
        flight goes there when it returns)."""
        root = self.workload_forest.get_root_lookup_info_for_pod_group(pg)
        self.workload_forest.delete_pod_group(pg)
        if root is not None:
            self._hold_rootless([pg])
            if self._is_last_popped(root):  # its pending pods lost their root
                for pinfo in self._pending.clear(pod_group_key_of(pg)):
                    self._incomplete.add(pinfo)

    def add_composite_pod_group(self, cpg: Obj) -> None:
        """``AddCompositePodGroup`` (a no-op with the CompositePodGroup gate off)."""
        if not self.workload_forest.is_composite_pod_group_enabled:
            return
        self.workload_forest.add_composite_pod_group(cpg)
        root = self.workload_forest.get_root_lookup_info_for_cpg(cpg)
        if root is not None:
            self._release_incomplete(self.workload_forest.get_leaf_pod_groups(root))

    def update_composite_pod_group(self, cpg: Obj) -> None:
        """``UpdateCompositePodGroup``."""
        if self.workload_forest.is_composite_pod_group_enabled:
            self.workload_forest.update_composite_pod_group(cpg)

    def delete_composite_pod_group(self, cpg: Obj) -> None:
        """``DeleteCompositePodGroup``: the queued pods of its subtree (those of the root's
        leaves that lost their root) go back to the incomplete buffer."""
        forest = self.workload_forest
        if not forest.is_composite_pod_group_enabled:
            return
        root = forest.get_root_lookup_info_for_cpg(cpg)
        leaves = forest.get_leaf_pod_groups(root) if root is not None else []
        forest.delete_composite_pod_group(cpg)
        self._hold_rootless(leaves)
        if root is not None and self._is_last_popped(root):
            for pg in leaves:  # pending pods stay pending only while they keep a root
                for pinfo in self._pending.clear(pod_group_key_of(pg)):
                    if forest.get_root_lookup_info_for_pod(pinfo.pod) is not None:
                        self._pending.add(pinfo)
                    else:
                        self._incomplete.add(pinfo)

    def _release_incomplete(self, leaves: Sequence[Obj]) -> None:
        """Queue the held pods of ``leaves`` (upstream re-adds each via addPodGroupMember)."""
        for pg in leaves:
            for pinfo in self._incomplete.clear(pod_group_key_of(pg)):
                self._add_pod_group_member(pinfo)

    def _hold_rootless(self, leaves: Sequence[Obj]) -> None:
        """Move the queued pods of ``leaves`` whose root is gone to the incomplete buffer."""
        groups = {pod_group_key_of(pg) for pg in leaves}
        self._pooled_groups -= groups  # their pods may leave the pool unindexed
        queued = [p for h in (self._active, self._backoff, self._error_backoff) for k in h.keys()
                  if (p := h.get(k)) is not None]
        queued += list(self._unschedulable.values())
        for pinfo in queued:
            if (pod_group_key_for_pod(pinfo.pod) in groups
                    and self.workload_forest.get_root_lookup_info_for_pod(pinfo.pod) is None):
                self._active.delete(pinfo.key)
                self._backoff_delete(pinfo.key)
                self._unschedulable.pop(pinfo.key, None)
                self._errored.discard(pinfo.key)
                self._incomplete.add(pinfo)

    def move_all_to_active_or_backoff(
        self, event: ClusterEvent, old: Obj | None, new: Obj | None,
        precheck: Callable[[Obj], bool] | None = None,
    ) -> None:
        """Requeue pool pods for which a rejecting plugin's hint says QUEUE (in key order).

        ``precheck`` (upstream's PreEnqueueCheck) limits the move to the pods it accepts.
        """
        interested = self._fw.plugins_interested_in(event)
        wildcard = event.resource is EventResource.WILDCARD and event.action == ActionType.ALL
        if self._in_flight and (wildcard or interested):  # ``isEventOfInterest``
            self._event_seq += 1
            self._flight_events.append((self._event_seq, "", event, old, new))
        # The pool's indexes narrow the scan to pods this event may help (DRA-REQUEUE).
        narrowed: dict[str, set[str]] = {}
        candidates = self._unschedulable.candidates(event, old, new, interested, narrowed)
        self.last_examined = len(candidates)
        self.examined_total += len(candidates)
        for key in sorted(candidates):
            pinfo = self._unschedulable.get(key)
            if pinfo is None:
                continue  # moved along with its group meanwhile
            if precheck is not None and not precheck(pinfo.pod):
                continue
            hint = self._worth_requeuing(pinfo, event, old, new, narrowed)
            if hint is not None:
                self._requeue(pinfo, immediate=hint)

    # -- the scheduling loop's side ---------------------------------------------------

    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule, marked in flight; None when nothing is ready."""
        pinfo = self._active.pop(_key)
        if pinfo is None:
            pinfo = self._poppable_backoff()
            if pinfo is None:
                return None
            self._backoff.delete(pinfo.key)
        self.scheduling_cycle += 1
        self._last_popped = self._root_of(pinfo.pod)
        pinfo.attempts += 1
        if pinfo.initial_attempt_timestamp is None:
            pinfo.initial_attempt_timestamp = self._clock.now()
        self._in_flight[pinfo.key] = (pinfo, self._event_seq)
        self._fly(pinfo, self._last_popped)
        return pinfo

    def pop_member(self, key: str) -> QueuedPodInfo | None:
        """Take one more pod of a pod group into the current cycle (``popGroupMembers``):
        from activeQ, backoffQ or the pool, but never a pod PreEnqueue still holds."""
        pinfo = self._active.get(key) or self._backoff_get(key) or self._unschedulable.get(key)
        if pinfo is None or pinfo.gated:
            return None
        self._active.delete(key)
        self._backoff_delete(key)
        self._unschedulable.pop(key, None)
        pinfo.attempts += 1
        if pinfo.initial_attempt_timestamp is None:
            pinfo.initial_attempt_timestamp = self._clock.now()
        self._in_flight[key] = (pinfo, self._event_seq)
        self._fly(pinfo, self._root_of(pinfo.pod))
        return pinfo

    def _fly(self, pinfo: QueuedPodInfo, root: QueuedPodGroupInfo | None) -> None:
        """The pod left the queue for a cycle; its root (if a member) is in flight with it."""
        self._unindex_member(pinfo.pod, pinfo.key)
        if root is not None:
            if pinfo.key in self._flight_roots:  # not expected: one flight until it returns
                self._land(pinfo.key)
            self._flight_roots[pinfo.key] = rkey = root.key
            self._roots_in_flight[rkey] = self._roots_in_flight.get(rkey, 0) + 1

    def _land(self, key: str) -> None:
        """The pod (in ``_flight_roots``) is no longer in flight: its root has one fewer there."""
        rkey = self._flight_roots.pop(key)
        if (n := self._roots_in_flight[rkey] - 1) > 0:
            self._roots_in_flight[rkey] = n
        else:
            del self._roots_in_flight[rkey]

    def done(self, key: str) -> None:
        """The pod's cycle ended without a requeue (bound, or gone)."""
        if self._in_flight.pop(key, None) is not None:
            if key in self._flight_roots:
                self._land(key)
            self._prune_flight_events()
        self._errored.discard(key)
        self._add_attempted_pod_group_if_needed()

    def activate(self, pods: Sequence[Obj]) -> None:
        """``Activate`` (PodsToActivate): pods in the pool or backoffQ go to activeQ (a pool
        pod through PreEnqueue); one in flight gets FORCE_ACTIVATE for its return."""
        for pod in pods:
            key = pod_key(pod)
            pinfo = self._unschedulable.get(key)
            if pinfo is not None:
                self._move_to_active(pinfo)
                continue
            pinfo = self._backoff_get(key)
            if pinfo is not None:
                self._errored.discard(key)
                self._move_to_active(pinfo, from_backoff=True)
            elif key in self._in_flight:  # ``addEventsIfPodInFlight``
                self._event_seq += 1
                self._flight_events.append((self._event_seq, key, FORCE_ACTIVATE, None, pod))

    def get_pod(self, name: str, namespace: str) -> QueuedPodInfo | None:
        """``GetPod``: the pod in activeQ, backoffQ, the pool or the incomplete buffer
        (not one in flight)."""
        key = f"{namespace}/{name}"
        return (self._active.get(key) or self._backoff_get(key) or self._unschedulable.get(key)
                or self._pending.get(key) or self._incomplete.get(key))

    def pending_pods(self) -> tuple[list[Obj], str]:
        """``PendingPods``: every queued pod (activeQ, backoffQ, pool; with GenericWorkload
        also the pending and incomplete buffers) and a summary."""
        def pods(h: KeyedHeap[QueuedPodInfo]) -> list[Obj]:
            return [p.pod for k in h.keys() if (p := h.get(k)) is not None]

        active, backoff = pods(self._active), pods(self._backoff) + pods(self._error_backoff)
        pool = [p.pod for p in self._unschedulable.values()]
        summary = f"activeQ:{len(active)}; backoffQ:{len(backoff)}; unschedulableEntities:{len(pool)}"
        if self._pod_group_member is None:
            return active + backoff + pool, summary
        pending, incomplete = self._pending.list(), self._incomplete.list()
        summary += f"; pendingPodGroupMemberPods:{len(pending)}; incompletePodGroupPods:{len(incomplete)}"
        return active + backoff + pool + pending + incomplete, summary

    def add_unschedulable_if_not_present(self, pinfo: QueuedPodInfo, *, error: bool) -> None:
        """Return a failed pod: to backoffQ if something moved meanwhile or it errored,
        else to the unschedulable pool; a pod-group member's return may end its group's
        attempt (pending members are queued then)."""
        if not self._is_pod_group_member(pinfo.pod):
            self._last_popped = None  # ``clearPoppedEntity``
        self._add_unschedulable(pinfo, error=error)
        self._add_attempted_pod_group_if_needed()

    def _add_unschedulable(self, pinfo: QueuedPodInfo, *, error: bool) -> None:
        entry = self._in_flight.pop(pinfo.key, None)
        if pinfo.key in self._flight_roots:
            self._land(pinfo.key)
        seen: list[tuple[ClusterEvent, Obj | None, Obj | None]] = []
        if entry is not None:
            seen = [(ev, old, new) for seq, key, ev, old, new in self._flight_events
                    if seq > entry[1] and key in ("", pinfo.key)]
            self._prune_flight_events()
        if (entry is None or self._find(pinfo.key) is not None or pinfo.key in self._incomplete
                or pinfo.key in self._pending):
            return  # deleted while in flight, or already re-added by an update
        if self._is_pod_group_member(pinfo.pod) and self.workload_forest.get_root_lookup_info_for_pod(pinfo.pod) is None:
            # Its group went while it was in flight (``AddAttemptedPodGroupIfNeeded``).
            self._incomplete.add(pinfo)
            return
        pinfo.timestamp = self._clock.now()
        pinfo.flush_timestamp = None
        # No rejecting plugin means something unusual failed: upstream counts it as an error.
        if error or not (pinfo.unschedulable_plugins or pinfo.pending_plugins):
            pinfo.consecutive_errors += 1
            if self._pre_enqueue_entity(pinfo):  # ``moveToBackoffQ`` runs PreEnqueue on the way in
                self._errored.add(pinfo.key)
                self._push_backoff(pinfo)
            return
        pinfo.unschedulable_count += 1
        pinfo.consecutive_errors = 0  # the error is gone
        self._errored.discard(pinfo.key)
        strategy = self._in_flight_hint(pinfo, seen)
        if strategy is not None:
            self._requeue(pinfo, immediate=strategy)
            return
        self._unschedulable[pinfo.key] = pinfo
        self._index_member(pinfo)
        self._arm_leftover_timer()

    def _in_flight_hint(
        self, pinfo: QueuedPodInfo, events: Sequence[tuple[ClusterEvent, Obj | None, Obj | None]]
    ) -> bool | None:
        """``determineSchedulingHintForInFlightPod`` over the events seen since the pop."""
        strategy: bool | None = None
        for ev, old, new in events:
            hint = self._worth_requeuing(pinfo, ev, old, new)
            if hint is None:
                continue
            if hint:
                return True
            strategy = False
            if not pinfo.pending_plugins:
                break
        return strategy

    def _prune_flight_events(self) -> None:
        """Drop the events no in-flight pod can still see."""
        if not self._in_flight:
            self._flight_events.clear()
            return
        oldest = min(marker for _, marker in self._in_flight.values())
        if self._flight_events and self._flight_events[0][0] <= oldest:
            self._flight_events = [e for e in self._flight_events if e[0] > oldest]

    # -- internals --------------------------------------------------------------------

    def _find(self, key: str) -> QueuedPodInfo | None:
        found = self._active.get(key) or self._backoff_get(key) or self._unschedulable.get(key)
        if found is None and key in self._in_flight:
            return self._in_flight[key][0]
        return found

    def _pre_enqueue(self, pinfo: QueuedPodInfo) -> bool:
        """Run PreEnqueue: True if it passed; else the pod is (back) in the pool, gated."""
        status = self._fw.run_pre_enqueue_plugins(pinfo.pod)
        if not status.is_success():
            pinfo.gating_plugin = status.plugin or "PreEnqueue"
            pinfo.gating_message = status.message()
            pinfo.unschedulable_plugins = {pinfo.gating_plugin}
            self._unschedulable[pinfo.key] = pinfo
            self._index_member(pinfo)
            self._arm_leftover_timer(_pooled_since(pinfo))
            return False
        pinfo.gating_plugin = pinfo.gating_message = ""
        return True

    def _pre_enqueue_entity(self, pinfo: QueuedPodInfo, root: _Root = _Lookup.ROOT) -> bool:
        """PreEnqueue for the pod's entity (``runPreEnqueuePlugins`` runs it for every pod of
        a pod group): a gated member gates its root group, whose queued pods then wait in
        the pool; a member passing while another is still gated waits there too. ``root``:
        ``_root_of(pinfo.pod)``, where the caller has it."""
        if not self._pre_enqueue(pinfo):
            self._gate_group(pinfo, root)
            return False
        if self._held_by_group_gate(pinfo, root):
            self._park(pinfo)
            return False
        return True

    def _index_member(self, pinfo: QueuedPodInfo) -> None:
        if self._is_pod_group_member(pinfo.pod) and (pg := pod_group_key_for_pod(pinfo.pod)) is not None:
            self._queued_members.setdefault(pg, {})[pinfo.key] = None

    def _index_queued(self, pinfo: QueuedPodInfo) -> None:
        """The pod entered activeQ or backoffQ: ``_index_member`` then ``_unpool``, the
        PodGroup key looked up once."""
        if (pg := pod_group_key_for_pod(pinfo.pod)) is None:
            return
        if self._is_pod_group_member(pinfo.pod):
            self._queued_members.setdefault(pg, {})[pinfo.key] = None
        self._pooled_groups.discard(pg)

    def _unpool(self, pinfo: QueuedPodInfo) -> None:
        """The pod entered activeQ or backoffQ: its group is not all pooled."""
        if (pg := pod_group_key_for_pod(pinfo.pod)) is not None:
            self._pooled_groups.discard(pg)

    def _unindex_member(self, pod: Obj, key: str) -> None:
        """The pod left the queue (popped or deleted)."""
        if (pg := pod_group_key_for_pod(pod)) is not None and (keys := self._queued_members.get(pg)):
            keys.pop(key, None)
            if not keys:
                del self._queued_members[pg]

    def _queued_siblings(
        self, pinfo: QueuedPodInfo, leaves: list[Obj] | None = None, root: _Root = _Lookup.ROOT
    ) -> list[QueuedPodInfo]:
        """The other queued pods (activeQ, backoffQ or the pool) of the pod's root group, in
        the order they were queued: every member of the root's leaf PodGroups still queued
        (``leaves``: those PodGroups, if already looked up; else ``root``, if it was)."""
        if leaves is None:
            if root is _Lookup.ROOT:
                root = self._root_of(pinfo.pod)
            if root is None:
                return []
            leaves = self.workload_forest.get_leaf_pod_groups(root)
        out = []
        for pg in leaves:
            keys = self._queued_members.get(pg_key := pod_group_key_of(pg))
            if not keys:
                continue
            all_pooled = True
            for key in list(keys):
                pooled = self._unschedulable.get(key)
                found = self._active.get(key) or self._backoff_get(key) or pooled
                if found is None:
                    keys.pop(key)  # left the queue unnoticed
                    continue
                all_pooled = all_pooled and found is pooled
                if key != pinfo.key:
                    out.append(found)
            if all_pooled and not self._group_moved:
                self._pooled_groups.add(pg_key)
            else:
                self._pooled_groups.discard(pg_key)
        return out

    def _settled_pool(
        self, pinfo: QueuedPodInfo, leaves: list[Obj]
    ) -> tuple[QueuedPodInfo, bool] | None:
        """Where every leaf's indexed members are pooled (none of them ``pinfo``), the first
        pooled sibling and whether any is gated, looked up only as far as needed; else None."""
        keys = [self._queued_members.get(k, {}) for pg in leaves
                if (k := pod_group_key_of(pg)) in self._pooled_groups or not self._queued_members.get(k)]
        if len(keys) != len(leaves) or not any(keys) or any(pinfo.key in ks for ks in keys):
            return None
        first: QueuedPodInfo | None = None
        for ks in keys:
            for key in ks:
                sib = self._unschedulable.get(key)
                if sib is None:  # not expected: the full lookup decides
                    return None
                if first is None:
                    first = sib
                if sib.gated:
                    return first, True
        return (first, False) if first is not None else None

    def _gate_group(self, pinfo: QueuedPodInfo, root: _Root = _Lookup.ROOT) -> None:
        """The gated member's group waits in the pool: its pods in activeQ or backoffQ go there."""
        if root is _Lookup.ROOT:
            root = self._root_of(pinfo.pod)
        if root is None:
            return
        leaves = self.workload_forest.get_leaf_pod_groups(root)
        if all(pod_group_key_of(pg) in self._pooled_groups for pg in leaves):
            return  # the group is all pooled already
        for other in self._queued_siblings(pinfo, leaves):
            if self._unschedulable.get(other.key) is not other:
                self._park(other)
        if not self._group_moved:
            self._pooled_groups.update(pod_group_key_of(pg) for pg in leaves)

    def _held_by_group_gate(self, pinfo: QueuedPodInfo, root: _Root = _Lookup.ROOT) -> bool:
        """Whether another member of the pod's root is still gated; PreEnqueue runs again for
        each gated member, and when all pass they join activeQ (the group is ungated)."""
        gated = [m for m in self._queued_siblings(pinfo, root=root)
                 if m.gated and self._unschedulable.get(m.key) is m]  # fmt: skip
        if not gated:
            return False
        passed = []
        for member in gated:
            status = self._fw.run_pre_enqueue_plugins(member.pod)
            if status.is_success():
                passed.append(member)
            else:
                member.gating_plugin = status.plugin or "PreEnqueue"
                member.gating_message = status.message()
        if len(passed) < len(gated):
            return True
        for member in passed:
            member.gating_plugin = member.gating_message = ""
            self._unschedulable.pop(member.key, None)
            self._active.push(member.key, member)
            self._unpool(member)
        return False

    def _park(self, pinfo: QueuedPodInfo) -> None:
        """Keep an ungated member in the pool while its group is gated."""
        self._active.delete(pinfo.key)
        self._backoff_delete(pinfo.key)
        self._unschedulable[pinfo.key] = pinfo
        self._index_member(pinfo)
        self._arm_leftover_timer(_pooled_since(pinfo))

    def _move_to_active(
        self, pinfo: QueuedPodInfo, *, from_backoff: bool = False, root: _Root = _Lookup.ROOT
    ) -> None:
        # ``moveToActiveQ``: a pod leaving backoffQ passed PreEnqueue when it entered it.
        if not from_backoff and not self._pre_enqueue_entity(pinfo, root):
            return
        self._backoff_delete(pinfo.key)
        self._unschedulable.pop(pinfo.key, None)
        self._active.push(pinfo.key, pinfo)
        self._index_queued(pinfo)
        self._on_ready()

    def _requeue(self, pinfo: QueuedPodInfo, *, immediate: bool) -> None:
        """``requeueEntityWithQueueingStrategy``: activeQ unless backing off; a pod still
        backing off goes to backoffQ, PreEnqueue permitting (with SchedulerPopFromBackoffQ
        upstream runs PreEnqueue on entering backoffQ, not on leaving it), even if it was
        gated before."""
        self._unschedulable.pop(pinfo.key, None)
        if immediate or not self._backing_off(pinfo):
            self._move_to_active(pinfo)
        else:
            self._move_to_backoff(pinfo)

    def _move_to_backoff(self, pinfo: QueuedPodInfo) -> bool:
        """``moveToBackoffQ``: with SchedulerPopFromBackoffQ PreEnqueue runs on the way in;
        False: it gated the pod, which is in the pool now."""
        if not self._pre_enqueue_entity(pinfo):
            return False
        self._push_backoff(pinfo)
        return True

    def _worth_requeuing(
        self, pinfo: QueuedPodInfo, event: ClusterEvent, old: Obj | None, new: Obj | None,
        narrowed: dict[str, set[str]] | None = None,
    ) -> bool | None:
        """None: QUEUE_SKIP; False: queue after backoff; True: queue immediately.

        As ``isPodWorthRequeuing``: a QUEUE from a Pending plugin wins outright; one from
        an Unschedulable plugin settles it only when the pod has no Pending plugins, else
        the Pending plugins' hints still run (one of them may say queue immediately). A
        plugin whose index narrowed the event (``narrowed``) is asked only about the pods
        it named.
        """
        pending = pinfo.pending_plugins
        rejectors = pinfo.unschedulable_plugins | pending
        if not rejectors or event.resource is EventResource.WILDCARD:
            return False
        strategy: bool | None = None
        for plugin in sorted(rejectors):
            if strategy is False and plugin not in pending:
                continue  # it could only say "after backoff" again
            if narrowed and plugin in narrowed and pinfo.key not in narrowed[plugin]:
                continue
            for reg in self._fw.events_for(plugin):
                if reg.event.matches(event) and self._hint(reg, pinfo.pod, old, new):
                    if plugin in pending:
                        return True
                    if not pending:
                        return False
                    strategy = False
                    break
        return strategy

    def _hint(self, reg: ClusterEventWithHint, pod: Obj, old: Obj | None, new: Obj | None) -> bool:
        if reg.hint is None or not self._hints_enabled:
            return True
        try:
            return reg.hint(pod, old, new) is QueueingHint.QUEUE
        except Exception:  # noqa: BLE001 - upstream queues the pod when a hint fails
            return True

    def _backoff_expiry(self, pinfo: QueuedPodInfo) -> Instant | None:
        """``getBackoffTime``: by the consecutive errors if the last attempts errored, else
        by the rejections, truncated to the ordering window; None (upstream's zero time)
        before any attempt or without a maximum backoff."""
        count = pinfo.consecutive_errors or pinfo.unschedulable_count
        if self._max_backoff == 0 or count == 0:
            return None
        return align_to_window(Instant(pinfo.timestamp + backoff_duration(count, self._initial_backoff,
                                                                          self._max_backoff)))

    def _backing_off(self, pinfo: QueuedPodInfo) -> bool:
        """``isEntityBackingoff``: the expiry is not before the current window."""
        expiry = self._backoff_expiry(pinfo)
        return expiry is not None and expiry >= align_to_window(self._clock.now())

    def _backoff_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """``lessBackoffCompletedWithPriority``: by expiry, then in activeQ's order."""
        ea, eb = self._backoff_expiry(a), self._backoff_expiry(b)
        if ea != eb:
            return (ea if ea is not None else _NO_BACKOFF) < (eb if eb is not None else _NO_BACKOFF)
        return self._fw.queue_sort_less(a, b)

    def _backoff_get(self, key: str) -> QueuedPodInfo | None:
        return self._backoff.get(key) or self._error_backoff.get(key)

    def _backoff_delete(self, key: str) -> None:
        self._backoff.delete(key)
        self._error_backoff.delete(key)

    def _push_backoff(self, pinfo: QueuedPodInfo) -> None:
        """``backoffQueue.add``: the error heap after an error, else the rejected one."""
        errored = pinfo.key in self._errored
        (self._backoff if errored else self._error_backoff).delete(pinfo.key)
        (self._error_backoff if errored else self._backoff).push(pinfo.key, pinfo)
        self._index_queued(pinfo)
        self._arm_backoff_timer()
        if not self._active and not errored:
            self._on_ready()

    def _poppable_backoff(self) -> QueuedPodInfo | None:
        """PopFromBackoffQ: the head of the rejected pods' heap (never an errored pod)."""
        return self._backoff.peek(_key)

    def _arm_backoff_timer(self) -> None:
        """The flush at the first window boundary where a head's backoff is complete
        (upstream flushes at every boundary: only that one can move anything)."""
        expiries = [self._backoff_expiry(h) for h in (self._backoff.peek(_key), self._error_backoff.peek(_key))
                    if h is not None]
        if not expiries:
            return
        expiry = min((e if e is not None else _NO_BACKOFF) for e in expiries)
        when = Instant(max(expiry + ORDERING_WINDOW, align_to_window(self._clock.now()) + ORDERING_WINDOW))
        if self._backoff_timer is None or when < self._backoff_timer:
            self._backoff_timer = when
            self._clock.call_at(when, self._flush_backoff)

    def pop_all_backoff_completed(self) -> list[QueuedPodInfo]:
        """``popAllBackoffCompleted``: take the pods whose backoff is complete, those
        rejected first and then those that errored (upstream's two heaps), each in order."""
        done: list[QueuedPodInfo] = []
        for heap in (self._backoff, self._error_backoff):
            while (head := heap.peek(_key)) is not None and not self._backing_off(head):
                heap.delete(head.key)
                done.append(head)
        return done

    def _flush_backoff(self) -> None:
        """``flushBackoffQCompleted``: pods whose backoff completed go to activeQ."""
        if self._backoff_timer is not None and self._backoff_timer > self._clock.now():
            return  # a stale timer; a newer one is armed
        self._backoff_timer = None
        for pinfo in self.pop_all_backoff_completed():
            self._errored.discard(pinfo.key)
            self._move_to_active(pinfo, from_backoff=True)
        self._arm_backoff_timer()

    def _arm_leftover_timer(self, earliest: Instant | None = None) -> None:
        # Pods join the pool in time order, so without a timer the newcomer is the earliest.
        if self._leftover_timer is not None:
            return
        if earliest is None:
            earliest = self._clock.now()
        self._leftover_timer = Instant(earliest + self._max_in_unschedulable)
        self._clock.call_at(self._leftover_timer, self._flush_leftover)

    def _flush_leftover(self) -> None:
        """``flushUnschedulableEntitiesLeftover``: pods pooled for 5 minutes are retried,
        gated ones too (PreEnqueue runs again; one still gated waits 5 minutes more)."""
        self._leftover_timer = None
        now = self._clock.now()
        cutoff = now - self._max_in_unschedulable
        for key in sorted(self._unschedulable):
            pinfo = self._unschedulable.get(key)
            if pinfo is not None and _pooled_since(pinfo) <= cutoff:
                pinfo.flush_timestamp = now
                self._requeue(pinfo, immediate=False)
        if self._unschedulable:  # never armed in the past (that would spin the clock)
            earliest = min(_pooled_since(p) for p in self._unschedulable.values())
            self._arm_leftover_timer(Instant(max(earliest, cutoff + 1)))


def _pooled_since(pinfo: QueuedPodInfo) -> Instant:
    """The later of the pod's last attempt and its last leftover flush."""
    flushed = pinfo.flush_timestamp
    return pinfo.timestamp if flushed is None or flushed < pinfo.timestamp else flushed


_NO_BACKOFF: Final = Instant(-(1 << 62))  # upstream's zero time: before any window


def align_to_window(t: Instant) -> Instant:
    """``alignToWindow``: ``t`` truncated to the 1-second ordering window."""
    return Instant(t - t % ORDERING_WINDOW)


def backoff_duration(
    count: int, initial: Duration = INITIAL_BACKOFF, maximum: Duration = MAX_BACKOFF, size: int = 1
) -> Duration:
    """``calculateBackoffDuration``: ``initial`` doubled per attempt after the first, capped
    at ``maximum`` (times the square root of a pod group's size); none before any attempt."""
    if count == 0:
        return Duration(0)
    if size > 1:
        maximum = Duration(int(maximum * math.sqrt(size)))
    shift = count - 1
    if initial > maximum >> shift:
        return maximum
    return Duration(initial << shift)
