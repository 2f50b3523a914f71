"""Models the placement half of pkg/scheduler/schedule_one_podgroup.go
(``podGroupSchedulingAlgorithm`` and ``findBestPlacement``): where a pod group goes.

Each pending member is placed in turn on the cache with its assumption and reservation,
the PlacementFeasible plugins (GangScheduling) asked before the first and after each, so
an attempt stops once the group's minimum can no longer be met. Without TopologyAwareWorkloadScheduling that is one attempt over every node. With it the
placement plugins (``framework/placement.py``) offer candidates (one per value of a
topology constraint's label), each is tried and rolled back, and of the feasible ones
the best PlacementScore total is placed again and kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
    run_placement_feasible_plugins,
    run_placement_generate_plugins,
    run_placement_score_plugins,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo

if TYPE_CHECKING:
    from reference_impl.scheduler.scheduler import Scheduler

__all__ = ["PG_UNSCHEDULABLE", "GroupAttempt", "GroupPlacer", "Option", "proposed"]

Obj = dict[str, Any]
# errPodGroupUnschedulable: a status "WithError" it lists this first among its reasons.
PG_UNSCHEDULABLE: Final = "pod group is unschedulable"
# (remaining, scheduled) -> the PlacementFeasible plugins' verdict.
Feasible = Callable[[int, int], Status]


@dataclass(slots=True)
class GroupAttempt:
    """One tentative placement of a group's pending pods (assumed and reserved)."""

    placed: list[tuple[CycleState, QueuedPodInfo, str]] = field(default_factory=list)
    failed: list[tuple[QueuedPodInfo, Status]] = field(default_factory=list)
    rejectors: set[str] = field(default_factory=set)
    # An internal error (Code.ERROR) ends the attempt: the group fails with SchedulerError.
    error: Status | None = None
    # The group's algorithm status (``podGroupAlgorithmResult.status``): Success, or
    # Unschedulable with the PlacementFeasible plugins' reasons.
    status: Status = OK
    # Members never tried: the attempt stopped once the minimum could no longer be met.
    skipped: list[QueuedPodInfo] = field(default_factory=list)


def as_error(status: Status) -> str:
    """``Status.AsError().Error()``: only the wrapped error where one is set (a status
    built ``WithError(errPodGroupUnschedulable)``), else the message."""
    if status.reasons[:1] == (PG_UNSCHEDULABLE,):
        return PG_UNSCHEDULABLE
    return status.message()


# A feasible candidate: its nodes (None = every node) and the (pod, node) pairs it proposed.
Option = tuple[Sequence[NodeInfo] | None, tuple[tuple[PodInfo, str], ...]]


def proposed(*attempts: GroupAttempt) -> tuple[tuple[PodInfo, str], ...]:
    """The (pod, node) assignments of ``attempts``."""
    return tuple((p.info, node) for att in attempts for _, p, node in att.placed)


class GroupPlacer:
    """Tentative placements of a pod group's pending members on one scheduler's cache."""

    def __init__(self, sched: Scheduler) -> None:
        self._s = sched
        # The pod-group cycle's CycleState: each member's state links to it.
        self.group_cycle: CycleState | None = None

    def place(
        self,
        pinfos: list[QueuedPodInfo],
        pg: Obj,
        bound: list[str],
        need: int,
        parent: Sequence[NodeInfo] | None = None,
    ) -> tuple[GroupAttempt | None, GroupAttempt | None]:
        """``podGroupSchedulingAlgorithm`` inside ``parent`` (None = every node): (the
        chosen attempt, left assumed and reserved, or None; the failed attempt, for the
        report: its ``status`` is the group's).

        Every candidate placement is tried and rolled back; with several feasible ones
        the PlacementScore plugins choose, and the winner is placed again and kept.
        Upstream counts a placement feasible on a Success status even where no pod was
        placed; the group then fails as a whole ("pod group is unschedulable").
        """
        placements, status = self.named_candidates(pg, bound, parent)
        if not status.is_success():
            error = status if status.code is Code.ERROR else None
            return None, GroupAttempt(rejectors={status.plugin} - {""}, error=error, status=status)
        feasible: list[tuple[str, Sequence[NodeInfo] | None, GroupAttempt]] = []
        first: GroupAttempt | None = None
        rejectors: set[str] = set()
        for name, nodes in placements:
            attempt = self.try_place(pinfos, nodes, pg, len(bound))
            if attempt.error is not None:  # upstream returns at the first erroring placement
                self.rollback(attempt)
                return None, attempt
            fits = attempt.status.is_success() and len(attempt.placed) >= need
            if fits and len(placements) == 1 and attempt.placed:
                return attempt, None
            self.rollback(attempt)
            rejectors |= attempt.rejectors
            if fits:
                feasible.append((name, nodes, attempt))
            if first is None:  # anyResult: the first placement evaluated
                first = attempt
        if not feasible:
            if first is None:
                return None, None
            first.rejectors |= rejectors
            if self._s.features.enable_topology_aware_workload_scheduling:
                why = (
                    f"0/{len(placements)} placements are available, first placement status: "
                    f"{as_error(first.status)}"
                )
                first.status = Status(Code.UNSCHEDULABLE, (PG_UNSCHEDULABLE, why))
            return None, first
        options = [(nodes, proposed(att)) for _, nodes, att in feasible]
        best, status = self.best(pg, bound, options, [name for name, _, _ in feasible])
        if not status.is_success():  # findBestPlacement failed: the group errors
            return None, GroupAttempt(rejectors=rejectors, error=status, status=status)
        if not feasible[best][2].placed:
            # runRootSchedulingAlgorithm: Success with no pod scheduled is Unschedulable.
            chosen = feasible[best][2]
            chosen.rejectors |= rejectors
            chosen.status = Status(Code.UNSCHEDULABLE, (PG_UNSCHEDULABLE,))
            return None, chosen
        chosen = self.try_place(pinfos, feasible[best][1], pg, len(bound))
        if len(chosen.placed) < max(need, 1):  # the cache moved on meanwhile; never here
            self.rollback(chosen)
            return None, chosen
        return chosen, None

    def candidates(
        self,
        group: Obj,
        scheduled: Sequence[str],
        parent: Sequence[NodeInfo] | None = None,
        walk_error: str = "",
    ) -> tuple[list[Sequence[NodeInfo] | None], Status]:
        """The node sets a (Composite)PodGroup is tried on, inside ``parent`` (None = every
        node); without TopologyAwareWorkloadScheduling just ``parent``. ``walk_error``: see
        ``PodGroupInfo``."""
        named, status = self.named_candidates(group, scheduled, parent, walk_error)
        return [nodes for _, nodes in named], status

    def named_candidates(
        self,
        group: Obj,
        scheduled: Sequence[str],
        parent: Sequence[NodeInfo] | None = None,
        walk_error: str = "",
    ) -> tuple[list[tuple[str, Sequence[NodeInfo] | None]], Status]:
        """``candidates`` with each placement's name (the PlacementScore plugins see it)."""
        if not self._s.features.enable_topology_aware_workload_scheduling:
            return [("", parent)], OK
        nodes = self._s.cache.node_infos() if parent is None else parent
        placements, status = run_placement_generate_plugins(
            self._s.framework.placement_generate,
            PodGroupInfo(group, tuple(scheduled), walk_error),
            nodes,
        )
        # The name "" is the parent placement handed back unchanged.
        return [(p.name, parent if p.name == "" else p.nodes) for p in placements], status

    def choose(
        self,
        group: Obj,
        scheduled: Sequence[str],
        options: Sequence[Option],
        walk_error: str = "",
        names: Sequence[str] | None = None,
    ) -> tuple[int, Status]:
        """``best`` for a CompositePodGroup (``findBestCompositePodGroupPlacement``): a
        plugin's failure status is returned, and is the subtree's result."""
        return self.best(group, scheduled, options, names, walk_error=walk_error)

    def best(
        self,
        group: Obj,
        scheduled: Sequence[str],
        options: Sequence[Option],
        names: Sequence[str] | None = None,
        walk_error: str = "",
    ) -> tuple[int, Status]:
        """``findBestPlacement``: the index of the highest PlacementScore total (ties go to
        the first candidate; upstream draws at random), or a plugin's failure. ``names``
        are the placements' names (default: their indexes)."""
        every = self._s.cache.node_infos()
        cands = [
            PodGroupAssignments(
                Placement(names[i] if names is not None else str(i), every if nodes is None else nodes),
                pods,
            )
            for i, (nodes, pods) in enumerate(options)
        ]
        fw = self._s.framework
        totals, status = run_placement_score_plugins(
            fw.placement_score, fw.weights, PodGroupInfo(group, tuple(scheduled), walk_error), cands
        )
        if not status.is_success():
            return 0, status
        return max(range(len(totals)), key=lambda i: (totals[i], -i)), OK

    def try_place(
        self,
        pinfos: list[QueuedPodInfo],
        nodes: Sequence[NodeInfo] | None,
        group: Obj | None = None,
        scheduled: int = 0,
        *,
        composite: bool = False,
    ) -> GroupAttempt:
        """``podGroupSchedulingDefaultAlgorithm``: each pod in key order on ``nodes`` (None =
        every node), assumed and reserved. With ``group`` (``scheduled`` of its members
        already on a node), the PlacementFeasible plugins run before the first pod and
        after each one, and the attempt stops as soon as they answer Unschedulable (the
        minimum can no longer be met): the rest are ``skipped``."""
        s, attempt = self._s, GroupAttempt()
        order = sorted(pinfos, key=lambda p: p.key)
        feasible = self._feasible(group, composite)
        remaining = len(order)
        if feasible is not None:
            status = feasible(remaining, scheduled)
            if status.code is Code.ERROR:
                why = f"failed to evaluate placement feasibility: {status.message()}"
                attempt.error = attempt.status = Status(Code.ERROR, (why,), status.plugin)
                attempt.skipped = order
                return attempt
            if status.code is Code.UNSCHEDULABLE:
                attempt.status = Status(Code.UNSCHEDULABLE, (PG_UNSCHEDULABLE, *status.reasons))
                attempt.skipped = order
                return attempt
            attempt.status = status
        for i, pinfo in enumerate(order):
            state = CycleState(pinfo.info)
            state.pod_group_cycle = self.group_cycle
            result = s.algorithm.schedule_pod(state, pinfo.pod, nodes, pinfo.signature)
            if not result.node_name:
                if result.status.code is Code.ERROR:
                    # podGroupSchedulingDefaultAlgorithm stops at a pod's error.
                    attempt.failed.append((pinfo, result.status))
                    why = f"failed to schedule other pod from a pod group: {result.status.message()}"
                    attempt.error = attempt.status = Status(Code.ERROR, (why,), result.status.plugin)
                    attempt.skipped = order[i + 1:]
                    break
                diag = result.fit_error.diagnosis if result.fit_error else Diagnosis()
                attempt.rejectors |= diag.unschedulable_plugins | diag.pending_plugins
                msg = result.fit_error.message() if result.fit_error else result.status.message()
                attempt.failed.append(
                    (pinfo, Status(Code.UNSCHEDULABLE, (msg,), result.status.plugin))
                )
            else:
                s.cache.assume_pod(pinfo.info, result.node_name)
                status = s.framework.run_reserve_plugins_reserve(state, pinfo.pod, result.node_name)
                if not status.is_success():
                    s.framework.run_reserve_plugins_unreserve(state, pinfo.pod, result.node_name)
                    s.cache.forget_pod(pinfo.key)
                    attempt.failed.append((pinfo, status))
                    if not status.is_rejected():  # an error at Reserve ends it, as one at Filter
                        why = f"failed to schedule other pod from a pod group: {status.message()}"
                        attempt.error = attempt.status = Status(Code.ERROR, (why,), status.plugin)
                        attempt.skipped = order[i + 1:]
                        break
                else:
                    attempt.placed.append((state, pinfo, result.node_name))
                    scheduled += 1
            remaining -= 1
            if feasible is None:
                continue
            status = feasible(remaining, scheduled)
            if status.code is Code.ERROR:
                why = f"failed to evaluate placement feasibility: {status.message()}"
                attempt.error = attempt.status = Status(Code.ERROR, (why,), status.plugin)
                attempt.skipped = order[i + 1:]
                break
            attempt.status = status
            if status.code is Code.UNSCHEDULABLE:  # the minimum cannot be met any more
                attempt.skipped = order[i + 1:]
                break
        if attempt.status.code is Code.WAIT:
            attempt.status = Status(Code.UNSCHEDULABLE, (PG_UNSCHEDULABLE, *attempt.status.reasons))
        return attempt

    def _feasible(self, group: Obj | None, composite: bool) -> Feasible | None:
        """The PlacementFeasible plugins for ``group``; None when there is no group (or no
        such plugin): every pod is tried."""
        plugins = getattr(self._s.framework, "placement_feasible", ())
        if group is None or not plugins:
            return None
        return lambda remaining, scheduled: run_placement_feasible_plugins(
            plugins, group, remaining, scheduled, composite=composite
        )

    def rollback(self, attempt: GroupAttempt) -> None:
        """Nothing stays reserved: undo every assumption of a failed attempt."""
        for state, pinfo, node in reversed(attempt.placed):
            self._s.framework.run_reserve_plugins_unreserve(state, pinfo.pod, node)
            self._s.cache.forget_pod(pinfo.key)
