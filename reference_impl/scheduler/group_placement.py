"""Models the placement half of pkg/scheduler/schedule_one_podgroup.go
(``podGroupSchedulingAlgorithm`` and ``findBestPlacement``): where a pod group goes.

Each pending member is placed in turn on the cache with its assumption and reservation.
Without TopologyAwareWorkloadScheduling that is one attempt over every node. With it the
placement plugins (``framework/placement.py``) offer candidates (one per value of a
topology constraint's label), each is tried and rolled back, and of the feasible ones
the best PlacementScore total is placed again and kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
    run_placement_generate_plugins,
    run_placement_score_plugins,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo

if TYPE_CHECKING:
    from reference_impl.scheduler.scheduler import Scheduler

__all__ = ["GroupAttempt", "GroupPlacer", "Option", "proposed"]

Obj = dict[str, Any]


@dataclass(slots=True)
class GroupAttempt:
    """One tentative placement of a group's pending pods (assumed and reserved)."""

    placed: list[tuple[CycleState, QueuedPodInfo, str]] = field(default_factory=list)
    failed: list[tuple[QueuedPodInfo, Status]] = field(default_factory=list)
    rejectors: set[str] = field(default_factory=set)
    # An internal error (Code.ERROR) ends the attempt: the group fails with SchedulerError.
    error: Status | None = None


# A feasible candidate: its nodes (None = every node) and the (pod, node) pairs it proposed.
Option = tuple[Sequence[NodeInfo] | None, tuple[tuple[PodInfo, str], ...]]


def proposed(*attempts: GroupAttempt) -> tuple[tuple[PodInfo, str], ...]:
    """The (pod, node) assignments of ``attempts``."""
    return tuple((p.info, node) for att in attempts for _, p, node in att.placed)


class GroupPlacer:
    """Tentative placements of a pod group's pending members on one scheduler's cache."""

    def __init__(self, sched: Scheduler) -> None:
        self._s = sched

    def place(
        self,
        pinfos: list[QueuedPodInfo],
        pg: Obj,
        bound: list[str],
        need: int,
        parent: Sequence[NodeInfo] | None = None,
    ) -> tuple[GroupAttempt | None, GroupAttempt | None]:
        """``podGroupSchedulingAlgorithm`` inside ``parent`` (None = every node): (the
        chosen attempt, left assumed and reserved, or None; the failed attempt that placed
        most, for the report).

        Every candidate placement is tried and rolled back; with several feasible ones
        the PlacementScore plugins choose, and the winner is placed again and kept.
        """
        placements, status = self.named_candidates(pg, bound, parent)
        if not status.is_success():
            error = status if status.code is Code.ERROR else None
            return None, GroupAttempt(rejectors={status.plugin} - {""}, error=error)
        feasible: list[tuple[str, Sequence[NodeInfo] | None, GroupAttempt]] = []
        failed: GroupAttempt | None = None
        rejectors: set[str] = set()
        for name, nodes in placements:
            attempt = self.try_place(pinfos, nodes)
            if attempt.error is not None:  # upstream returns at the first erroring placement
                self.rollback(attempt)
                return None, attempt
            fits = bool(attempt.placed) and len(attempt.placed) >= need
            if fits and len(placements) == 1:
                return attempt, None
            self.rollback(attempt)
            rejectors |= attempt.rejectors
            if fits:
                feasible.append((name, nodes, attempt))
            elif failed is None or len(attempt.placed) > len(failed.placed):
                failed = attempt
        if failed is not None:
            failed.rejectors |= rejectors
        if not feasible:
            return None, failed
        options = [(nodes, proposed(att)) for _, nodes, att in feasible]
        best, status = self.best(pg, bound, options, [name for name, _, _ in feasible])
        if not status.is_success():  # findBestPlacement failed: the group errors
            return None, GroupAttempt(rejectors=rejectors, error=status)
        chosen = self.try_place(pinfos, options[best][0])
        if len(chosen.placed) < max(need, 1):  # the cache moved on meanwhile; never here
            self.rollback(chosen)
            return None, chosen
        return chosen, None

    def candidates(
        self, group: Obj, scheduled: Sequence[str], parent: Sequence[NodeInfo] | None = None
    ) -> tuple[list[Sequence[NodeInfo] | None], Status]:
        """The node sets a (Composite)PodGroup is tried on, inside ``parent`` (None = every
        node); without TopologyAwareWorkloadScheduling just ``parent``."""
        named, status = self.named_candidates(group, scheduled, parent)
        return [nodes for _, nodes in named], status

    def named_candidates(
        self, group: Obj, scheduled: Sequence[str], parent: Sequence[NodeInfo] | None = None
    ) -> tuple[list[tuple[str, Sequence[NodeInfo] | None]], Status]:
        """``candidates`` with each placement's name (the PlacementScore plugins see it)."""
        if not self._s.features.enable_topology_aware_workload_scheduling:
            return [("", parent)], OK
        nodes = self._s.cache.node_infos() if parent is None else parent
        placements, status = run_placement_generate_plugins(
            self._s.framework.placement_generate, PodGroupInfo(group, tuple(scheduled)), nodes
        )
        # The name "" is the parent placement handed back unchanged.
        return [(p.name, parent if p.name == "" else p.nodes) for p in placements], status

    def choose(self, group: Obj, scheduled: Sequence[str], options: Sequence[Option]) -> int:
        """``best``, with the first candidate on a plugin failure (the composite cycle's
        rule; a PodGroup's attempt errors instead)."""
        return self.best(group, scheduled, options)[0]

    def best(
        self,
        group: Obj,
        scheduled: Sequence[str],
        options: Sequence[Option],
        names: Sequence[str] | None = None,
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
            fw.placement_score, fw.weights, PodGroupInfo(group, tuple(scheduled)), cands
        )
        if not status.is_success():
            return 0, status
        return max(range(len(totals)), key=lambda i: (totals[i], -i)), OK

    def try_place(
        self, pinfos: list[QueuedPodInfo], nodes: Sequence[NodeInfo] | None
    ) -> GroupAttempt:
        """Each pod in key order on ``nodes`` (None = every node), assumed and reserved."""
        s, attempt = self._s, GroupAttempt()
        for pinfo in sorted(pinfos, key=lambda p: p.key):
            state = CycleState(pinfo.info)
            result = s.algorithm.schedule_pod(state, pinfo.pod, nodes, pinfo.signature)
            if not result.node_name:
                if result.status.code is Code.ERROR:
                    # podGroupSchedulingDefaultAlgorithm stops at a pod's error.
                    attempt.failed.append((pinfo, result.status))
                    why = f"failed to schedule other pod from a pod group: {result.status.message()}"
                    attempt.error = Status(Code.ERROR, (why,), result.status.plugin)
                    break
                diag = result.fit_error.diagnosis if result.fit_error else Diagnosis()
                attempt.rejectors |= diag.unschedulable_plugins | diag.pending_plugins
                msg = result.fit_error.message() if result.fit_error else result.status.message()
                attempt.failed.append(
                    (pinfo, Status(Code.UNSCHEDULABLE, (msg,), result.status.plugin))
                )
                continue
            s.cache.assume_pod(pinfo.info, result.node_name)
            status = s.framework.run_reserve_plugins_reserve(state, pinfo.pod, result.node_name)
            if not status.is_success():
                s.framework.run_reserve_plugins_unreserve(state, pinfo.pod, result.node_name)
                s.cache.forget_pod(pinfo.key)
                attempt.failed.append((pinfo, status))
                continue
            attempt.placed.append((state, pinfo, result.node_name))
        return attempt

    def rollback(self, attempt: GroupAttempt) -> None:
        """Nothing stays reserved: undo every assumption of a failed attempt."""
        for state, pinfo, node in reversed(attempt.placed):
            self._s.framework.run_reserve_plugins_unreserve(state, pinfo.pod, node)
            self._s.cache.forget_pod(pinfo.key)
