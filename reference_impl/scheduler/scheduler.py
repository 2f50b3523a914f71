"""Models pkg/scheduler/scheduler.go and the cycle halves of schedule_one.go.

``Scheduler(ctx).start()`` registers informer handlers; from then on pods are scheduled
one per clock event (``call_later(0)``) while the queue has a ready pod, so all decisions
are ordered on the simulated clock. Binding is synchronous: the scheduling cycle and the
binding cycle of a pod run in the same event unless a Permit plugin makes it wait.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import set_condition
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, rfc3339
from reference_impl.errors import ApiError
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.eventhandlers import EventHandlers
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis, FitError
from reference_impl.scheduler.framework.events import ASSIGNED_POD_DELETE
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.framework.queue import SchedulingQueue
from reference_impl.scheduler.framework.queue_index import QueueIndex
from reference_impl.scheduler.framework.registry import Registry, SchedulerFeatures
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.types import QueuedPodInfo, pod_key
from reference_impl.scheduler.framework.waiting_pods import WaitingPod
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.plugins.registry import in_tree_registry
from reference_impl.scheduler.profile import Profile, default_profile
from reference_impl.scheduler.schedule_one import PodScheduler
from reference_impl.scheduler.workload_cycle import WorkloadCycle

__all__ = ["Scheduler"]

Obj = dict[str, Any]
COMPONENT: Final = "scheduler"


class Scheduler:
    """The kube-scheduler model for one profile."""

    def __init__(
        self, ctx: ComponentContext, profile: Profile | None = None, registry: Registry | None = None
    ) -> None:
        self.ctx = ctx
        self.profile = profile or default_profile(ctx.gates)
        self.features = SchedulerFeatures.from_gates(ctx.gates)
        self.cache = SchedulerCache(
            ctx.gates.get("DRANodeAllocatableResources", False),
            generic_workload=self.features.enable_generic_workload,
            composite_pod_group=self.features.enable_composite_pod_group,
        )
        self.framework = Framework(
            self.profile, registry or in_tree_registry(), ctx, self.cache, self.features
        )
        self.queue = SchedulingQueue(
            ctx.clock, self.framework, self._kick,
            hints_enabled=self.features.enable_scheduling_queue_hint,
            # A profile that signs no pod (the default one) skips signing altogether.
            signer=None if self.framework.signer.signs_nothing else self.framework.sign_pod,
            # collectEntitiesToEvaluate: no narrowing while CompositePodGroup is on.
            pre_queueing_hints=not self.features.enable_composite_pod_group,
            composite_pod_group=self.features.enable_composite_pod_group,
            pod_group_member=self._is_pod_group_member if self.features.enable_generic_workload else None,
        )
        self.algorithm = PodScheduler(self.framework, self.cache, ctx.rng.child(COMPONENT))
        self.algorithm.current_cycle = lambda: self.queue.scheduling_cycle  # CurrentCycle
        # Preemptors' nominated nodes stay reserved for them (nominator.py).
        self.nominator = Nominator(ctx)
        self.algorithm.nominator = self.nominator
        self.workload = WorkloadCycle(self)
        self._armed = False
        self._started = False
        self.killed = False  # kill -9: no further cycle or bind (a new Scheduler takes over)
        self.attempts = 0
        self.bound = 0

    def start(self) -> None:
        """Register informer handlers and take in existing nodes and pods."""
        if self._started:
            return
        self._started = True
        handlers = EventHandlers(self)
        self.nominator.start()
        for pl in self.framework.post_filter:  # preemption dry-runs honour nominations too
            if hasattr(pl, "use_nominator"):
                pl.use_nominator(self.nominator)
        self.workload.start()
        for plugin in self.framework.plugins:  # DRA: claim/slice/class events requeue pods
            hook = getattr(plugin, "start_events", None)
            if hook is not None:
                hook(self.queue.move_all_to_active_or_backoff)
            if isinstance(plugin, QueueIndex):  # DRA-REQUEUE: index pool pods by event
                self.queue.register_index(plugin.name(), plugin)
        nodes = self.ctx.informers.informer("v1", "Node")
        pods = self.ctx.informers.informer("v1", "Pod")
        nodes.add_handler(handlers.on_node)
        pods.add_handler(handlers.on_pod)
        handlers.start_storage()
        node_info = self.ctx.server.resource("v1", "Node")
        pod_info = self.ctx.server.resource("v1", "Pod")
        for node in nodes.items():
            handlers.on_node(ObjectEvent("ADDED", node_info, node, None))
        for pod in pods.items():
            handlers.on_pod(ObjectEvent("ADDED", pod_info, pod, None))

    # -- the loop -----------------------------------------------------------------------

    def _is_pod_group_member(self, pod: Obj) -> bool:
        """``isPodGroupMember`` (GenericWorkload on): the pod names a scheduling group and
        is not a deferred resize (those are queued alone, KEP-5836)."""
        return bool(pod["spec"].get("schedulingGroup")) and not self.features.defers(pod)

    def _kick(self) -> None:
        if not self._armed:
            self._armed = True
            self.ctx.clock.call_later(Duration(0), self._schedule_next)

    def kill(self) -> None:
        """kill -9: the queue, assumed pods and pods waiting at Permit are lost; nothing
        more is bound by this instance. Its informer handlers become no-ops."""
        self.killed = True
        self.framework.waiting_pods.clear()

    def _schedule_next(self) -> None:
        self._armed = False
        if self.killed:
            return
        pinfo = self.queue.pop()
        if pinfo is not None:
            self.schedule_one(pinfo)
        if self.queue.has_ready():
            self._kick()

    def schedule_one(self, pinfo: QueuedPodInfo) -> None:
        """One scheduling cycle, then (unless Permit waits) the binding cycle."""
        self.attempts += 1
        latest = self._latest(pinfo.key)
        deferred = self.features.defers(pinfo.pod)
        if latest is None or (latest["spec"].get("nodeName") and not deferred):
            self.queue.done(pinfo.key)  # deleted or bound meanwhile (the informer's view)
            return
        pod = pinfo.pod
        # A deferred resize is queued alone, never as a pod-group member (isPodGroupMember).
        group = None if deferred else self.workload.group_of(latest)
        if group is None and not deferred and (err := self.workload.missing_pod_group(latest)):
            # handlePodGroupFailureBeforeScheduling: the queue holds it until the group is back.
            self._handle_failure(pinfo, Status(Code.ERROR, (err,)), Diagnosis(), clear_nominated=True)
            return
        if group is not None:
            # The pod-group cycle; its skipPodGroupPodSchedule drops deleting/assumed members.
            self.workload.schedule_group(pinfo, group)
            return
        if self.skip_pod_schedule(latest):
            self.queue.done(pinfo.key)  # no requeue; only the in-flight entry ends
            return
        state = CycleState(pinfo.info)
        result = self.algorithm.schedule_pod(state, pod, None, pinfo.signature)
        if not result.node_name:
            diagnosis = result.fit_error.diagnosis if result.fit_error else Diagnosis()
            status = result.status
            if result.fit_error is not None:
                status = self._post_filter(state, pod, diagnosis)
                message = result.fit_error.message()
                status = Status(status.code, (message,), status.plugin)
            # Upstream clears the nomination unless the FitError went through PostFilter.
            self._handle_failure(pinfo, status, diagnosis, clear_nominated=result.fit_error is None)
            return
        self._assume_and_permit(state, pinfo, result.node_name)

    def skip_pod_schedule(self, pod: Obj) -> bool:
        """``skipPodSchedule`` (schedule_one.go): the pod is being deleted, or already
        assumed (an update requeued it during the cycle that assumed it)."""
        return bool(pod["metadata"].get("deletionTimestamp")) or self.cache.is_assumed(pod_key(pod))

    def _post_filter(self, state: CycleState, pod: Obj, diagnosis: Diagnosis) -> Status:
        """The preemption hook: PostFilter plugins (a later DefaultPreemption) run here, and
        their failure message joins the FitError's ("preemption: 0/3 nodes are ...")."""
        if not self.framework.post_filter:
            return Status(Code.UNSCHEDULABLE)
        _, status = self.framework.run_post_filter_plugins(state, pod, diagnosis.node_to_status)
        diagnosis.post_filter_msg = status.message()
        # Upstream's schedulingCycle: Unschedulable with the FitError whatever PostFilter
        # said; a PostFilter error is only logged.
        return Status(Code.UNSCHEDULABLE)

    def _assume_and_permit(self, state: CycleState, pinfo: QueuedPodInfo, node: str) -> None:
        pod = pinfo.pod
        why = self.cache.unassumable(pinfo.key)
        if why:
            # A deferred resize that fits lands here: upstream's AssumePod refuses a pod the
            # cache already holds, so the cycle errors before Reserve and Permit.
            self._handle_failure(pinfo, Status(Code.ERROR, (why,)), Diagnosis(), clear_nominated=True)
            return
        self.cache.assume_pod(pinfo.info, node)
        status = self.framework.run_reserve_plugins_reserve(state, pod, node)
        if not status.is_success():
            self._undo(state, pinfo, node, status, fit_node=node)
            return
        self._permit_and_bind(state, pinfo, node)

    def _permit_and_bind(self, state: CycleState, pinfo: QueuedPodInfo, node: str) -> None:
        """Permit, then the binding cycle, for a pod already assumed and reserved."""
        pod = pinfo.pod
        status, waits = self.framework.run_permit_plugins(state, pod, node)
        if status.is_wait():
            self.framework.waiting_pods[pinfo.key] = WaitingPod(
                pod, node, waits, self.ctx.clock,
                lambda s: self._permit_done(state, pinfo, node, s),
            )
            return
        if not status.is_success():
            self._undo(state, pinfo, node, status, fit_node=node)
            return
        self._binding_cycle(state, pinfo, node)

    def _permit_done(self, state: CycleState, pinfo: QueuedPodInfo, node: str, s: Status) -> None:
        self.framework.waiting_pods.pop(pinfo.key, None)

        def resume() -> None:
            if s.is_success():
                self._binding_cycle(state, pinfo, node)
            else:
                self._undo(state, pinfo, node, s, fit_node=node)

        # Allow/Reject may be called from inside another plugin's cycle: continue later.
        self.ctx.clock.call_later(Duration(0), resume)

    def reject_waiting(self, key: str, message: str) -> bool:
        """Reject a pod parked at Permit (it was deleted); False if none was waiting."""
        wp = self.framework.waiting_pods.get(key)
        if wp is not None:
            wp.reject("", message)
        return wp is not None

    def _binding_cycle(self, state: CycleState, pinfo: QueuedPodInfo, node: str) -> None:
        if self.killed:
            return
        status = self.framework.run_pre_bind_plugins(
            state, pinfo.pod, node, done=lambda s: self._bind(state, pinfo, node, s))
        if not status.is_wait():  # WAIT: a PreBind plugin resumes through ``done`` later
            self._bind(state, pinfo, node, status)

    def _bind(self, state: CycleState, pinfo: QueuedPodInfo, node: str, status: Status) -> None:
        if self.killed:
            return
        pod = pinfo.pod
        if status.is_success():
            status = self.framework.run_bind_plugins(state, pod, node)
            if status.is_skip():
                status = Status(Code.ERROR, ("no bind plugin bound the pod",))
        if not status.is_success():
            self._undo(state, pinfo, node, status)
            # The reservation is released, which may let other pods fit (AssignedPodDelete).
            self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, None, None)
            return
        self.queue.done(pinfo.key)
        self.bound += 1
        self.ctx.trace.record(COMPONENT, "Bound", pinfo.key, node)
        self.framework.run_post_bind_plugins(state, pod, node)

    def _undo(
        self, state: CycleState, pinfo: QueuedPodInfo, node: str, status: Status, fit_node: str = ""
    ) -> None:
        """Unreserve and forget, then the failure handler with ``clearNominatedNode``.
        ``fit_node``: a Reserve/Permit/WaitOnPermit rejection there becomes a one-node
        FitError (``assumeAndReserve``, ``prepareForBindingCycle``, ``bindingCycle``)."""
        self.framework.run_reserve_plugins_unreserve(state, pinfo.pod, node)
        self.cache.forget_pod(pinfo.key)
        diagnosis = Diagnosis()
        diagnosis.add_plugin_status(status)
        if fit_node and status.is_rejected():
            diagnosis.node_to_status.set(fit_node, status)
            status = Status(status.code, (FitError(1, diagnosis).message(),), status.plugin)
        self._handle_failure(pinfo, status, diagnosis, clear_nominated=True)

    # -- failures -----------------------------------------------------------------------

    def _latest(self, key: str) -> Obj | None:
        return self.ctx.informers.informer("v1", "Pod").get(key)

    def _handle_failure(
        self, pinfo: QueuedPodInfo, status: Status, diagnosis: Diagnosis,
        clear_nominated: bool = False,
    ) -> None:
        """``handleSchedulingFailure``: requeue, trace, and set PodScheduled=False (and
        clear ``status.nominatedNodeName`` when ``clear_nominated``: ``clearNominatedNode``).
        A pod recreated meanwhile (another UID) is neither requeued nor patched.

        A deferred resize is only requeued: it is bound and running, so it gets no
        PodScheduled=False, no FailedScheduling and no nomination.
        """
        latest = self._latest(pinfo.key)
        deferred = self.features.defers(pinfo.pod)
        if latest is None or (latest["spec"].get("nodeName") and not deferred) or (
            latest["metadata"].get("uid") != pinfo.pod["metadata"].get("uid")
        ):
            self.queue.done(pinfo.key)
            return
        pinfo.unschedulable_plugins = set(diagnosis.unschedulable_plugins)
        pinfo.pending_plugins = set(diagnosis.pending_plugins)
        self.queue.add_unschedulable_if_not_present(pinfo, error=status.code is Code.ERROR)
        reason = "Unschedulable" if status.is_rejected() else "SchedulerError"
        message = status.message()
        self.ctx.trace.record(COMPONENT, reason, pinfo.key, message)
        if not deferred:
            self._set_pod_scheduled_false(latest, reason, message, clear_nominated)

    def _set_pod_scheduled_false(
        self, latest: Obj, reason: str, message: str, clear_nominated: bool = False
    ) -> None:
        """``updatePod``: patch only when the condition or the nomination changes."""
        old_status = latest.get("status") or {}
        status = {**old_status, "conditions": [dict(c) for c in old_status.get("conditions") or ()]}
        cond = {"type": "PodScheduled", "status": "False", "reason": reason, "message": message}
        clear = clear_nominated and bool(old_status.get("nominatedNodeName"))
        if clear:
            del status["nominatedNodeName"]
        if not set_condition(status, cond, rfc3339(self.ctx.clock.now())) and not clear:
            return  # unchanged: upstream skips the status patch
        try:
            self.ctx.server.update_status({**latest, "status": status})
        except ApiError:
            pass  # the pod changed or went away; its next event requeues it anyway
