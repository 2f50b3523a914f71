"""Models the node-selection half of pkg/scheduler/schedule_one.go (``schedulePod``).

PreFilter, then Filter over the nodes starting at a rotating index until enough feasible
nodes are found (``percentageOfNodesToScore``), then PreScore/Score and a seeded random
tie-break among the top-scored nodes. Filtering is sequential here, which visits nodes in
the same order upstream's parallel search would have claimed them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import eq
from typing import Any, Final

from reference_impl.rng import Rng
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.batch import BatchFilterPlugin
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis, FitError
from reference_impl.scheduler.framework.interface import OK, Code, FilterPlugin, Status
from reference_impl.scheduler.framework.node_memo import rotated
from reference_impl.scheduler.framework.opportunistic_batch import OtherNodesCount
from reference_impl.scheduler.framework.runtime import Framework
from reference_impl.scheduler.framework.signature import PodSignature
from reference_impl.scheduler.framework.sorted_nodes import NodePluginScores, SortedScoredNodes
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.nominator import Nominator

__all__ = ["NO_NODES_AVAILABLE", "PodScheduler", "ScheduleResult", "num_feasible_nodes_to_find"]

Obj = dict[str, Any]
MIN_FEASIBLE_NODES_TO_FIND: Final = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: Final = 5
NO_NODES_AVAILABLE: Final = "no nodes available to schedule pods"


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """How many feasible nodes to look for before scoring (``numFeasibleNodesToFind``)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct == 0:
        # The adaptive default: 50% at 0 nodes, shrinking by 1% per 125 nodes, floor 5%.
        pct = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass(slots=True)
class ScheduleResult:
    """The chosen node, or why none was chosen (a FitError or an error status)."""

    node_name: str = ""
    status: Status = OK
    fit_error: FitError | None = None
    evaluated_nodes: int = 0
    feasible_nodes: int = 0


class PodScheduler:
    """Chooses a node for one pod over the cache's snapshot."""

    def __init__(self, framework: Framework, cache: SchedulerCache, rng: Rng) -> None:
        self._fw = framework
        self._cache = cache
        self._rng = rng
        self.next_start_node_index = 0
        self.nominator: Nominator | None = None  # set by the Scheduler
        # The queue's scheduling cycle (``CurrentCycle``), set by the Scheduler; without
        # one each schedule_pod call is a cycle of its own.
        self.current_cycle: Callable[[], int] | None = None
        self._calls = 0
        self.last_hint = ""  # OpportunisticBatching's hint in the last cycle

    def schedule_pod(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo] | None = None,
        signature: PodSignature = None,
    ) -> ScheduleResult:
        """``schedulePod``: a node name, or a FitError / error status.

        ``nodes`` narrows the search (a pod group's topology domain); default: every node.
        ``signature``: the QueuedPodInfo's (OpportunisticBatching).
        """
        placement = nodes
        if nodes is None:
            nodes = self._cache.node_infos()
        if not nodes:
            return ScheduleResult(status=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_NODES_AVAILABLE,)))
        self._calls += 1
        cycle = self.current_cycle() if self.current_cycle is not None else self._calls
        diagnosis = Diagnosis()
        feasible, status = self._find_nodes_that_fit(
            state, pod, nodes, diagnosis, signature=signature, cycle=cycle, placement=placement)
        batch, hint = self._fw.batch, self.last_hint
        if not status.is_success():
            return ScheduleResult(status=status)
        evaluated = len(feasible) + len(diagnosis.node_to_status)
        if not feasible:
            fit = FitError(len(nodes), diagnosis)
            return ScheduleResult(status=Status(Code.UNSCHEDULABLE), fit_error=fit,
                                  evaluated_nodes=evaluated)
        if len(feasible) == 1:
            # Upstream skips scoring when only one node passed.
            if batch is not None:
                batch.store_schedule_results(signature, hint, feasible[0].name, None, cycle)
            return ScheduleResult(feasible[0].name, OK, None, evaluated, 1)
        status = self._fw.run_pre_score_plugins(state, pod, feasible)
        if not status.is_success():
            return ScheduleResult(status=status)
        raw: dict[str, list[int]] | None = {} if batch is not None and signature is not None else None
        totals, status = self._fw.run_score_plugins(state, pod, feasible, raw)
        if not status.is_success():
            return ScheduleResult(status=status)
        host = self._select_host(feasible, totals)
        if batch is not None:
            others: SortedScoredNodes | OtherNodesCount = (
                OtherNodesCount(len(feasible) - 1) if raw is None
                else _other_nodes(feasible, totals, raw, host))
            batch.store_schedule_results(signature, hint, host, others, cycle)
        return ScheduleResult(host, OK, None, evaluated, len(feasible))

    def _select_host(self, nodes: Sequence[NodeInfo], totals: list[int]) -> str:
        best = max(totals)
        ties = totals.count(best)
        if ties == 1:
            return nodes[totals.index(best)].name
        # Upstream reservoir-samples among equal top scores; a seeded choice among them, in
        # the (deterministic) order the nodes were evaluated, keeps replays exact.
        pick = self._rng.index(ties)
        top: NodeInfo = next(islice(compress(nodes, map(eq, totals, repeat(best))), pick, None))
        return top.name

    def _find_nodes_that_fit(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo], diagnosis: Diagnosis,
        *, signature: PodSignature = None, cycle: int = 0,
        placement: Sequence[NodeInfo] | None = None,
    ) -> tuple[list[NodeInfo], Status]:
        self.last_hint = ""
        result, status, narrowing = self._fw.run_pre_filter_plugins(state, pod, nodes)
        diagnosis.unschedulable_plugins.update(narrowing)  # upstream: pluginsWithNodes
        if not status.is_success():
            if not status.is_rejected():
                return [], status
            diagnosis.node_to_status.absent = status
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            return [], OK
        batch = self._fw.batch
        if batch is not None:  # after PreFilter, even for a pod with a nominated node
            self.last_hint = batch.get_node_hint(pod, signature, state, cycle)
        nominated = self.nominator.nominated_node(pod) if self.nominator is not None else ""
        # Upstream tries a preemptor's nominated node, else the hint, before all the others.
        target = nominated or self.last_hint
        if target:
            at_nominated = self._evaluate_nominated_node(state, pod, target, diagnosis, placement)
            if at_nominated:
                return at_nominated, OK
        candidates = nodes
        if result is not None and result.node_names is not None:
            found = (self._cache.get(n) for n in sorted(result.node_names))
            candidates = [ni for ni in found if ni is not None]
            reason = f"node(s) didn't satisfy plugin(s) [{' '.join(narrowing)}]"
            diagnosis.node_to_status.absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,))
        feasible, status = self._find_nodes_that_pass_filters(
            state, pod, candidates, diagnosis, len(nodes))
        if self.nominator is not None and feasible:
            feasible = self.nominator.recheck(self._fw, state, pod, feasible, diagnosis)
        return feasible, status

    def _evaluate_nominated_node(
        self, state: CycleState, pod: Obj, name: str, diagnosis: Diagnosis,
        placement: Sequence[NodeInfo] | None = None,
    ) -> list[NodeInfo]:
        """``evaluateNominatedNode``: the nominated (or hinted) node if it passes
        (nominations counted) and lies in the cycle's placement; the rotating start index
        is left alone, as upstream moves it only for full passes."""
        ni = self._cache.get(name)
        if ni is None or (placement is not None and all(n.name != name for n in placement)):
            return []
        keep = self.next_start_node_index
        feasible, status = self._find_nodes_that_pass_filters(state, pod, [ni], diagnosis)
        self.next_start_node_index = keep
        if not status.is_success() or not feasible:
            return []
        if self.nominator is None:
            return feasible
        return self.nominator.recheck(self._fw, state, pod, feasible, diagnosis)

    def _find_nodes_that_pass_filters(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo], diagnosis: Diagnosis,
        total: int = 0,
    ) -> tuple[list[NodeInfo], Status]:
        """``total``: how many nodes the cycle has; upstream advances nextStartNodeIndex by
        the nodes processed modulo that, even when PreFilter narrowed ``nodes``."""
        n = len(nodes)
        total = total or n
        if n == 0:
            return [], OK
        to_find = num_feasible_nodes_to_find(self._fw.profile.percentage_of_nodes_to_score, n)
        if not self._fw.score:
            to_find = 1  # upstream: without scoring, the first feasible node is the answer
        filters = self._fw.active_filters(state)
        start = self.next_start_node_index % n
        if not filters:
            self.next_start_node_index = (self.next_start_node_index + to_find) % total
            return rotated(nodes, start, to_find), OK
        batch = self._fw.batch_filters(filters)
        feasible: list[NodeInfo] = []
        pos, processed = 0, n
        statuses = diagnosis.node_to_status.statuses
        seen: Status | None = None
        seen_fn: Callable[..., Status] | None = None
        attributed = OK
        # Chunks of exactly the nodes still needed: the sequential search would visit every
        # one of them, so the visited set (and next_start_node_index) is unchanged.
        while pos < n:
            chunk = rotated(nodes, start + pos, min(to_find - len(feasible), n - pos))
            suspects, rest, lone = _suspects(state, pod, chunk, filters, batch)
            if not suspects and not rest:
                feasible.extend(chunk)
            elif lone is not None and self._record_certain(state, lone, chunk, suspects, diagnosis):
                feasible.extend([ni for i, ni in enumerate(chunk) if i not in suspects])
            else:
                for i, ni in enumerate(chunk):
                    # A plugin that vouched for a node would return OK there: skip it.
                    for fn in suspects.get(i, rest):
                        s = fn(state, pod, ni)
                        if s is not OK and s.code is not Code.SUCCESS:
                            if not s.is_rejected():
                                return [], self._filter_error(s, fn)
                            # Plugins return shared statuses: attribute each one once.
                            if s is not seen or fn is not seen_fn:
                                seen, seen_fn = s, fn
                                attributed = s.with_plugin(self._plugin_name(fn))
                                diagnosis.add_plugin_status(attributed)
                            statuses[ni.name] = attributed
                            break
                    else:
                        feasible.append(ni)
            pos += len(chunk)
            if len(feasible) >= to_find:
                processed = pos
                break
        self.next_start_node_index = (self.next_start_node_index + processed) % total
        if len(feasible) == pos:
            # Every visited node passed: one window, so scores memoised by position apply.
            feasible = chunk if len(chunk) == pos else rotated(nodes, start, pos)
        return feasible, OK

    def _record_certain(
        self,
        state: CycleState,
        plugin: FilterPlugin,
        chunk: list[NodeInfo],
        suspects: Mapping[int, object],
        diagnosis: Diagnosis,
    ) -> bool:
        """Record every suspect of the only plugin with suspects (no per-node filters left)
        as rejected, without calling its Filter, when it knows it rejects them all; else
        record nothing and return False."""
        known = self._fw.filter_rejections(plugin, state)
        if known is None:
            return False
        names, status = known
        rejected = [chunk[i].name for i in sorted(suspects)]  # chunk order, as the loop
        if not all(name in names for name in rejected):
            return False
        diagnosis.node_to_status.statuses.update(dict.fromkeys(rejected, status))
        diagnosis.add_plugin_status(status)
        return True

    @staticmethod
    def _plugin_name(fn: Callable[..., Status]) -> str:
        name: str = getattr(fn, "__self__").name()  # noqa: B009 - bound method's plugin
        return name

    def _filter_error(self, s: Status, fn: Callable[..., Status]) -> Status:
        name = self._plugin_name(fn)
        return Status(Code.ERROR, (f'running "{name}" filter plugin: {s.message()}',), name)




def _other_nodes(
    nodes: Sequence[NodeInfo], totals: list[int], raw: dict[str, list[int]], host: str
) -> SortedScoredNodes:
    """The scored nodes but the chosen one, for the batch (signed pods only)."""
    return SortedScoredNodes([
        NodePluginScores(ni.name, [(pl, scores[i]) for pl, scores in raw.items()],
                         total_score=totals[i])
        for i, ni in enumerate(nodes) if ni.name != host
    ])


def _suspects(
    state: CycleState,
    pod: Obj,
    chunk: list[NodeInfo],
    filters: Sequence[FilterPlugin],
    batch: Sequence[BatchFilterPlugin],
) -> tuple[dict[int, list[Callable[..., Status]]], list[Callable[..., Status]], FilterPlugin | None]:
    """For each chunk index some batch plugin cannot vouch for, the filters to run there
    (in order, without those that vouched for it); the filters every node needs; and the
    batch plugin that alone has suspects when no other filter is left to run."""
    unsure: dict[int, set[int]] = {}  # id(plugin) -> the indices it cannot vouch for
    for pl in batch:
        got = pl.filter_suspects(state, pod, chunk)
        if got is not None:
            unsure[id(pl)] = got
    rest = [pl.filter for pl in filters if id(pl) not in unsure]
    every: set[int] = set().union(*unsure.values())
    if not every:
        return {}, rest, None
    if not rest:
        lone = [pl for pl in filters if unsure.get(id(pl))]
        if len(lone) == 1:  # the usual case: one list serves every suspect
            return dict.fromkeys(every, [lone[0].filter]), rest, lone[0]
    plan = [(pl.filter, unsure.get(id(pl))) for pl in filters]
    per_node = {i: [fn for fn, u in plan if u is None or i in u] for i in every}
    return per_node, rest, None
