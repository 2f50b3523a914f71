"""Models pkg/scheduler/schedule_one_podgroup.go: the pod-group scheduling cycle.

When a pod of a PodGroup (gang or basic: upstream pops every pod group as one entity) is
popped, every other pending member is taken out of the queue too and the group gets one
placement attempt: each pod is placed in turn on the cache with its assumption and
reservation, and only if at least ``minCount`` members (already-bound ones included; one
for a basic group) fit at the same time do they bind; GangScheduling's PlacementFeasible
ends the attempt as soon as that can no longer happen. Otherwise every
assumption and reservation is rolled back, the members return to the unschedulable pool,
and workload-aware preemption may free room; the PodGroup's condition and each member's
status carry upstream's messages (``_fail_unschedulable``). Where the group is tried (one candidate per
topology domain with TopologyAwareWorkloadScheduling, the best-scoring feasible one kept)
is ``group_placement.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from reference_impl.clock import rfc3339
from reference_impl.errors import ApiError
from reference_impl.scheduler.composite_cycle import CompositeCycle
from reference_impl.scheduler.eventhandlers import EventHandlers
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.interface import (
    ActionType,
    ClusterEvent,
    Code,
    EventResource,
    Status,
)
from reference_impl.scheduler.framework.pod_group_post_filter import (
    PodGroupPostFilterInfo,
    PodGroupPostFilterResult,
    PodGroupScheduling,
)
from reference_impl.scheduler.framework.types import QueuedPodInfo, pod_key
from reference_impl.scheduler.group_placement import (
    PG_UNSCHEDULABLE,
    GroupAttempt,
    GroupPlacer,
    as_error,
)
from reference_impl.scheduler.plugins.gang_scheduling import (
    NAME as GANG,
)
from reference_impl.scheduler.plugins.gang_scheduling import (
    POD_GROUP_VERSION,
    GangScheduling,
    group_key,
    min_count,
)
from reference_impl.scheduler.podgroup_rules import (
    INITIALLY_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    initially_scheduled_status,
    validate_pod_group,
)

if TYPE_CHECKING:
    from reference_impl.scheduler.scheduler import Scheduler

__all__ = ["INITIALLY_SCHEDULED", "WorkloadCycle"]

Obj = dict[str, Any]
_POD_ADD: Final = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD)


class WorkloadCycle:
    """The pod-group cycle of one scheduler."""

    def __init__(self, sched: Scheduler) -> None:
        self._s = sched
        self.gang = next(
            (p for p in sched.framework.plugins if isinstance(p, GangScheduling)), None
        )
        self.group_attempts = 0
        self.last_dry_run_message = ""
        self.placer = GroupPlacer(sched)
        self.composite = CompositeCycle(self) if sched.features.enable_composite_pod_group else None

    def start(self) -> None:
        """Requeue held pods when PodGroups or member pods appear. The queue hears the
        (Composite)PodGroups with GenericWorkload on, GangScheduling or not (upstream's
        handlers): its member pods wait for their root there."""
        if not self._s.features.enable_generic_workload:
            return
        groups = self._s.ctx.informers.informer(POD_GROUP_VERSION, "PodGroup")
        for pg in groups.items():  # the groups observed before this scheduler started
            self._s.cache.add_pod_group(pg)
            self._s.queue.add_pod_group(pg)
        groups.add_handler(EventHandlers(self._s).on_pod_group)
        if self.composite is not None:
            self.composite.start()

    def pod_added(self, pod: Obj) -> None:
        """``addPodToSchedulingQueue``'s UnscheduledPod/Add move, once the pod is in its
        group's state (``eventhandlers``), so GangScheduling's PreEnqueue counts it.
        Narrower than upstream's (every pod of this scheduler, GenericWorkload on): only a
        member pod with GangScheduling on, as this move always was here."""
        if self.gang is not None and group_key(pod) is not None:
            self._s.queue.move_all_to_active_or_backoff(_POD_ADD, None, pod)

    def group_of(self, pod: Obj) -> Obj | None:
        """The pod's PodGroup, gang or basic, when the pod-group cycle applies, else None:
        upstream pops every pod group as one entity (``scheduleOnePodGroup``)."""
        gk = group_key(pod)
        if gk is None or self.gang is None:
            return None
        return self.gang.pod_group(gk)

    def missing_pod_group(self, pod: Obj) -> str:
        """``reconcilePodGroupWithSnapshot``'s error for a popped member whose PodGroup went
        after it was queued (``PodGroups().Get`` on the cache's pod-group states), else ""."""
        gk = group_key(pod)
        if gk is None or not self._s.features.enable_generic_workload:
            return ""
        ns, _, name = gk.partition("/")
        return self._s.cache.pod_groups_get(ns, name)[1]

    # -- the cycle ------------------------------------------------------------------

    def schedule_group(self, first: QueuedPodInfo, pg: Obj) -> None:
        """One all-or-nothing attempt for ``first``'s group."""
        assert self.gang is not None
        self.group_attempts += 1
        self.placer.group_cycle = CycleState()
        if self.composite is not None:
            root, why = self.composite.gating_root(pg)
            if root is not None or why:
                self.composite.schedule(first, pg, root, why)  # a gang ancestor decides
                return
        gk = group_key(first.pod) or ""
        pinfos = [first, *self._take_members(gk, first.key)]
        bound_pods = self._bound_pods(gk)
        err = validate_pod_group(
            (p.pod for p in pinfos),
            bound_pods,
            pg,
            profiles=(self._s.profile.scheduler_name,),
            preemption_policy_gate=self._s.features.enable_pod_group_preemption_policy,
        )
        if err is not None:
            self._fail_with_error(pinfos, pg, err)
            return
        pinfos = self.skip_pod_group_pod_schedule(pinfos)
        if not pinfos:
            return  # every popped member was skipped: the attempt ends, nothing requeued
        bound = [p["spec"]["nodeName"] for p in bound_pods]
        need = max(0, min_count(pg) - len(bound))
        best, failed = self.placer.place(pinfos, pg, bound, need)
        if best is None:
            if failed is not None and failed.error is not None:
                self._fail_with_error(pinfos, pg, failed.error.message(), failed)
            else:
                self._fail_unschedulable(pinfos, pg, need, failed)
            return
        for pinfo, status in best.failed:
            diag = Diagnosis()
            diag.add_plugin_status(status)
            self._s._handle_failure(pinfo, status, diag)  # noqa: SLF001 - the scheduler's own helper
        for state, pinfo, node in best.placed:
            self._s._permit_and_bind(state, pinfo, node)  # noqa: SLF001
        self._set_condition(pg, "True", "Scheduled", "")  # upstream: the Success status has no message

    def dry_run(self, pinfos: list[QueuedPodInfo], pg: Obj, need: int) -> bool:
        """Whether ``need`` of ``pinfos`` would fit together now (nothing is kept)."""
        bound = self._bound_members(group_key(pinfos[0].pod) or "")
        candidates = self.placer.candidates(pg, bound)[0]
        first: GroupAttempt | None = None
        for nodes in candidates:
            attempt = self.placer.try_place(pinfos, nodes, pg, len(bound))
            self.placer.rollback(attempt)
            if _fits(attempt, need):
                return True
            if first is None:
                first = attempt
        # The status upstream's PodGroupSchedulingFunc returns, for the preemption message.
        msg = first.status.message() if first is not None else ""
        if first is not None and self._s.features.enable_topology_aware_workload_scheduling:
            msg = (
                f"{PG_UNSCHEDULABLE}, 0/{len(candidates)} placements are available, "
                f"first placement status: {as_error(first.status)}"
            )
        self.last_dry_run_message = msg
        return False

    def dry_run_placement(self, pinfos: list[QueuedPodInfo], pg: Obj, need: int) -> dict[str, str]:
        """Like ``dry_run``: pod key -> node of the first placement that fits ({} if none);
        gang preemption nominates each member to its node."""
        bound = self._bound_members(group_key(pinfos[0].pod) or "")
        for nodes in self.placer.candidates(pg, bound)[0]:
            attempt = self.placer.try_place(pinfos, nodes, pg, len(bound))
            self.placer.rollback(attempt)
            if _fits(attempt, need):
                return {p.key: node for _, p, node in attempt.placed}
        return {}

    def skip_pod_group_pod_schedule(self, pinfos: list[QueuedPodInfo]) -> list[QueuedPodInfo]:
        """``skipPodGroupPodSchedule``: members being deleted or already assumed
        (``skipPodSchedule``) leave the attempt; their in-flight entry ends, no requeue."""
        kept = []
        for pinfo in pinfos:
            latest = self._s._latest(pinfo.key)  # noqa: SLF001
            if latest is None or self._s.skip_pod_schedule(latest):
                self._s.queue.done(pinfo.key)
                continue
            kept.append(pinfo)
        return kept

    def _take_members(self, gk: str, first: str) -> list[QueuedPodInfo]:
        assert self.gang is not None
        out = []
        for key in self.gang.members(gk):
            if key != first and (p := self._s.queue.pop_member(key)) is not None:
                out.append(p)
        return out

    def _bound_members(self, gk: str) -> list[str]:
        """Members already on a node (bound or assumed), as node names."""
        return [p["spec"]["nodeName"] for p in self._bound_pods(gk)]

    def _bound_pods(self, gk: str) -> list[Obj]:
        """Members already on a node: bound, or assumed (waiting at Permit or PreBind) with
        the node they were assumed on: the cache's ``podGroupState.ScheduledPods``, by pod
        key (upstream's order is a map's)."""
        ns, _, name = gk.partition("/")
        state, _ = self._s.cache.pod_group_states_get(ns, name)
        return [] if state is None else sorted(state.scheduled_pods(), key=pod_key)

    def _fail_with_error(
        self, pinfos: list[QueuedPodInfo], pg: Obj, err: str, att: GroupAttempt | None = None
    ) -> None:
        """An internal error (``handlePodGroupFailureBeforeScheduling``, or an Error result
        in ``submitPodGroupAlgorithmResult``): every member fails with the error, a pod
        that errored itself with its own status, and the PodGroup reports SchedulerError;
        no preemption is tried."""
        own = {p.key: st for p, st in (att.failed if att else ()) if st.code is Code.ERROR}
        for pinfo in pinfos:
            status = own.get(pinfo.key) or Status(Code.ERROR, (err,))
            self._s._handle_failure(pinfo, status, Diagnosis())  # noqa: SLF001
        self._set_condition(pg, "False", REASON_SCHEDULER_ERROR, err)

    def _fail_unschedulable(
        self, pinfos: list[QueuedPodInfo], pg: Obj, need: int, att: GroupAttempt | None
    ) -> None:
        """The group does not fit (``podGroupCycle`` then ``submitPodGroupAlgorithmResult``).

        The PodGroup's condition carries the group status's message ("minCount (N) cannot
        be satisfied: S scheduled, R remaining" from GangScheduling's PlacementFeasible),
        with the PodGroupPostFilter (preemption) status appended as one more reason. A
        member that failed on its own reports its own status; one never tried (the attempt
        stopped early) the group status as it was before preemption ran; one that did fit
        the group status if the group now waits on preemption, else "pod group is
        unschedulable, " and the group's message."""
        group = att.status if att is not None else Status(Code.UNSCHEDULABLE, (PG_UNSCHEDULABLE,))
        if group.is_success():  # no placement at all was evaluated
            group = Status(Code.UNSCHEDULABLE, (PG_UNSCHEDULABLE,))
        final, waiting = group, False
        if group.code is Code.UNSCHEDULABLE:  # only then does PodGroupPostFilter run
            res, post = self._post_filter(pinfos, pg, need)
            if post.code is Code.ERROR:  # applyPodGroupPostFilterResult: the error wins
                self._fail_with_error(pinfos, pg, post.message(), att)
                return
            waiting = post.is_success()
            if waiting and res is not None:
                self._nominate(pinfos, res.nominating)
            final = Status(group.code, (*group.reasons, post.message()), group.plugin)
        self.submit_unschedulable(pinfos, pg, att, group, final, waiting)

    def _post_filter(
        self, pinfos: list[QueuedPodInfo], pg: Obj, need: int
    ) -> tuple[PodGroupPostFilterResult | None, Status]:
        """``RunPodGroupPostFilterPlugins`` (the framework's PodGroupPostFilter plugins, in
        profile order) with the group algorithm's dry runs as ``pgSchedulingFunc``."""
        info = PodGroupPostFilterInfo(
            pg, [p.pod for p in pinfos],
            scheduled=len(self._bound_pods(group_key(pinfos[0].pod) or "")), need=need)
        schedule = PodGroupScheduling(
            fits=lambda: self.dry_run(pinfos, pg, need),
            place=lambda: self.dry_run_placement(pinfos, pg, need),
            message=lambda: self.last_dry_run_message,
        )
        return self._s.framework.run_pod_group_post_filter_plugins(
            self.placer.group_cycle, info, schedule)

    def _nominate(self, pinfos: list[QueuedPodInfo], nominating: Mapping[str, str]) -> None:
        """``applyPodGroupPostFilterResult``: a member the result names gets that node as
        its nomination (ModeOverride, written by the FailureHandler); others keep theirs."""
        for pinfo in pinfos:
            node = nominating.get(pinfo.key)
            latest = self._s._latest(pinfo.key)  # noqa: SLF001
            if not node or latest is None or latest["spec"].get("nodeName"):
                continue
            if (latest.get("status") or {}).get("nominatedNodeName") == node:
                continue
            try:
                self._s.ctx.server.update_status(
                    {**latest, "status": {**(latest.get("status") or {}), "nominatedNodeName": node}})
            except ApiError:
                pass  # changed or gone meanwhile; its next attempt nominates again

    def submit_unschedulable(
        self,
        pinfos: list[QueuedPodInfo],
        pg: Obj,
        att: GroupAttempt | None,
        group: Status,
        final: Status,
        waiting: bool,
    ) -> None:
        """``submitPodGroupAlgorithmResult`` for a rejected group: ``group`` is its status as
        the algorithm left it (what members never tried get), ``final`` with PostFilter's
        reason appended, ``waiting`` whether PostFilter succeeded."""
        own = {p.key: st for p, st in (att.failed if att else ())}
        placed = {p.key for _, p, _ in (att.placed if att else ())}
        rejectors = (att.rejectors if att else set()) | {GANG}
        for pinfo in pinfos:
            if pinfo.key in own:
                status = own[pinfo.key]
            elif pinfo.key in placed:
                status = final if waiting else Status(
                    Code.UNSCHEDULABLE, (PG_UNSCHEDULABLE, final.message())
                )
            else:
                status = group  # completePodGroupAlgorithmResult: a clone, before PostFilter
            diag = Diagnosis()
            diag.unschedulable_plugins |= rejectors
            self._s._handle_failure(pinfo, status, diag)  # noqa: SLF001
        # Unschedulable whether or not the group now waits on preemption.
        self._set_condition(pg, "False", "Unschedulable", final.message())

    def _set_condition(self, pg: Obj, status: str, reason: str, message: str) -> None:
        """``updatePodGroupCondition`` on the latest PodGroup (``podgroup_rules``)."""
        latest = (
            self.gang.pod_group(
                f"{pg['metadata'].get('namespace', 'default')}/{pg['metadata']['name']}"
            )
            if self.gang
            else None
        )
        if latest is None:
            return
        cond = {"type": INITIALLY_SCHEDULED, "status": status, "reason": reason, "message": message}
        st = initially_scheduled_status(latest, cond, rfc3339(self._s.ctx.clock.now()))
        if st is None:
            return
        try:
            self._s.ctx.server.update_status({**latest, "status": st})
        except ApiError:
            pass  # changed meanwhile; the next attempt writes it again


def _fits(attempt: GroupAttempt, need: int) -> bool:
    """A dry run's verdict as ``runRootSchedulingAlgorithm`` gives it: the PlacementFeasible
    plugins agree and at least one pod (and ``need``) was placed."""
    return attempt.status.is_success() and len(attempt.placed) >= max(need, 1)
