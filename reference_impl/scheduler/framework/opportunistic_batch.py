"""Models pkg/scheduler/framework/runtime/batch.go: OpportunisticBatching (KEP-5598).

After a pod with a signature is scheduled, the other feasible nodes, sorted by score, are
kept; the next pod with the same signature, in the very next cycle (or the same pod-group
cycle with GenericWorkload), gets the best of them as a hint, which the cycle tries first
as it tries a nominated node. The previously chosen node is filtered again and, when the
new pod still fits there, rescored against the kept candidates. The kept state expires
after ``MAX_BATCH_AGE`` on the simulated clock.

Upstream reports what happens through metrics; here ``flushes`` (reason -> count),
``attempts`` (no_hint / hint_used / hint_not_used -> count) and ``batched_pods`` are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final, Protocol

from reference_impl.clock import Instant, SimClock, millis
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import FilterPlugin, Status
from reference_impl.scheduler.framework.signature import PodSignature
from reference_impl.scheduler.framework.sorted_nodes import (
    NodePluginScores,
    PluginScore,
    SortedScoredNodes,
)
from reference_impl.scheduler.framework.types import NodeInfo

if TYPE_CHECKING:
    from reference_impl.scheduler.framework.registry import SharedLister

__all__ = [
    "MAX_BATCH_AGE",
    "BatchHandle",
    "OpportunisticBatch",
    "OtherNodesCount",
]

Obj = dict[str, Any]
MAX_BATCH_AGE: Final = millis(500)

# metrics.BatchAttempt* and metrics.BatchFlush* labels.
NO_HINT: Final = "no_hint"
HINT_USED: Final = "hint_used"
HINT_NOT_USED: Final = "hint_not_used"
POD_FAILED: Final = "pod_failed"
POD_SKIPPED: Final = "pod_skipped"
POD_NOMINATED: Final = "pod_nominated"
NODE_MISSING: Final = "node_missing"
EMPTY_LIST: Final = "empty_list"
EXPIRED: Final = "expired"
POD_INCOMPATIBLE: Final = "pod_incompatible"
POD_NOT_BATCHABLE: Final = "pod_not_batchable"
FILTER_ERROR: Final = "filter_error"
PRESCORE_ERROR: Final = "prescore_error"
RESCORE_ERROR: Final = "rescore_error"
NORMALIZE_ERROR: Final = "normalize_error"


class BatchHandle(Protocol):
    """The part of the Framework OpportunisticBatch uses (upstream's ``batchHandle``)."""

    def snapshot_shared_lister(self) -> SharedLister: ...

    def active_filters(self, state: CycleState) -> list[FilterPlugin]: ...

    def run_filter_plugins(
        self, state: CycleState, pod: Obj, node_info: NodeInfo, plugins: Sequence[FilterPlugin]
    ) -> Status: ...

    def run_pre_score_plugins(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> Status: ...

    def run_raw_score_plugins(
        self, state: CycleState, pod: Obj, node_info: NodeInfo
    ) -> tuple[list[PluginScore], Status]: ...

    def normalize_scores(
        self, state: CycleState, pod: Obj, scores: list[NodePluginScores]
    ) -> Status: ...


class OtherNodesCount:
    """Stands for the other scored nodes of a pod without a signature: only their number
    matters (empty_list vs pod_not_batchable), so the list is never built."""

    __slots__ = ("_n",)

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n


@dataclass(slots=True)
class _BatchState:
    signature: str
    sorted_nodes: SortedScoredNodes
    creation_time: Instant


@dataclass(slots=True)
class _Cycle:
    cycle_count: int = 0
    chosen_node: str = ""
    succeeded: bool = False


class OpportunisticBatch:
    """``OpportunisticBatch``: hints from the previous compatible cycle's scores."""

    def __init__(
        self, handle: BatchHandle, generic_workload: bool, clock: SimClock | None = None
    ) -> None:
        self._h = handle
        self._generic_workload = generic_workload
        self._clock = clock
        self.state: _BatchState | None = None
        self.last_cycle = _Cycle()
        self.batched_pods = 0
        self.flushes: Counter[str] = Counter()
        self.attempts: Counter[str] = Counter()

    def _now(self) -> Instant:
        return self._clock.now() if self._clock is not None else Instant(0)

    def get_node_hint(
        self, pod: Obj, signature: PodSignature, state: CycleState, cycle_count: int
    ) -> str:
        """``GetNodeHint``: the best kept node for this pod, or ""."""
        if not self._compatible(pod, signature, cycle_count) or not self._refresh(
            pod, cycle_count, state
        ):
            self.attempts[NO_HINT] += 1
            return ""
        assert self.state is not None  # _compatible checked it
        return self.state.sorted_nodes.pop().name

    def store_schedule_results(
        self,
        signature: PodSignature,
        hinted_node: str,
        chosen_node: str,
        other_nodes: SortedScoredNodes | OtherNodesCount | None,
        cycle_count: int,
    ) -> None:
        """``StoreScheduleResults``: remember the cycle; keep the other nodes when the pod
        was signable and no hint was used."""
        last = self.last_cycle  # updated in place: this runs once per scheduled pod
        last.cycle_count, last.chosen_node, last.succeeded = cycle_count, chosen_node, True
        if hinted_node == chosen_node:
            self.attempts[HINT_USED] += 1
            self.batched_pods += 1
            return
        if hinted_node:
            self.attempts[HINT_NOT_USED] += 1
        if signature is not None and isinstance(other_nodes, SortedScoredNodes) and other_nodes:
            self.state = _BatchState(signature, other_nodes, self._now())
            return
        self.flushes[EMPTY_LIST if not other_nodes else POD_NOT_BATCHABLE] += 1
        self.state = None

    def _empty(self) -> bool:
        return self.state is None or not self.state.sorted_nodes

    def _compatible(self, pod: Obj, signature: PodSignature, cycle_count: int) -> bool:
        """``batchStateCompatible``; an incompatible state is kept (the next store
        replaces it), as upstream only logs the flush."""
        if self._empty():
            return False
        assert self.state is not None
        last = self.last_cycle
        if cycle_count != last.cycle_count + 1 and not (
            self._generic_workload and cycle_count == last.cycle_count
        ):
            return self._flush(POD_SKIPPED)
        if not last.succeeded:
            return self._flush(POD_FAILED)
        if (pod.get("status") or {}).get("nominatedNodeName"):
            return self._flush(POD_NOMINATED)
        if signature is None or signature != self.state.signature:
            return self._flush(POD_INCOMPATIBLE)
        if self._now() > self.state.creation_time + MAX_BATCH_AGE:
            return self._flush(EXPIRED)
        return True

    def _flush(self, reason: str) -> bool:
        self.flushes[reason] += 1
        return False

    def _refresh(self, pod: Obj, cycle_count: int, state: CycleState) -> bool:
        """``refreshHintCandidates``: the last chosen node, if the pod still fits there,
        competes again with fresh scores."""
        node = self._h.snapshot_shared_lister().get(self.last_cycle.chosen_node)
        if node is None:
            return self._flush(NODE_MISSING)
        status = self._h.run_filter_plugins(state, pod, node, self._h.active_filters(state))
        if status.is_success():
            return self._rescore(pod, state, node)
        if not status.is_rejected():
            return self._flush(FILTER_ERROR)
        return True

    def _rescore(self, pod: Obj, state: CycleState, chosen: NodeInfo) -> bool:
        """``rescoreHintedNode``: PreScore over every candidate, Score the chosen node,
        NormalizeScore across all of them, on a clone of the cycle state."""
        assert self.state is not None
        lister = self._h.snapshot_shared_lister()
        # Copies: NormalizeScore rewrites scores in place, the kept heap must not change.
        cached = [replace(ns) for ns in self.state.sorted_nodes.unordered_list()]
        infos: list[NodeInfo] = []
        for ns in cached:
            ni = lister.get(ns.name)
            if ni is None:
                return self._flush(NODE_MISSING)
            infos.append(ni)
        infos.append(chosen)
        clone = state.clone()
        if not self._h.run_pre_score_plugins(clone, pod, infos).is_success():
            return self._flush(PRESCORE_ERROR)
        fresh, status = self._h.run_raw_score_plugins(clone, pod, chosen)
        if not status.is_success():
            return self._flush(RESCORE_ERROR)
        scores = [*cached, NodePluginScores(chosen.name, fresh)]
        if not self._h.normalize_scores(clone, pod, scores).is_success():
            return self._flush(NORMALIZE_ERROR)
        self.state.sorted_nodes = SortedScoredNodes(scores)
        return True
