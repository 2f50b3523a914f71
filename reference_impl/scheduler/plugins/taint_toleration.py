"""Models pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Any, Final, Self, final

from reference_impl.api.taints import (
    Toleration,
    find_untolerated,
    parse_taints,
    parse_tolerations,
    tolerated,
)
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
    NodeScore,
    Plugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueingHint,
    ScoreExtensions,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.helper import default_normalize_score

__all__ = ["NAME", "TaintToleration", "new"]

Obj = dict[str, Any]
NAME: Final = names.TAINT_TOLERATION
DO_NOT_SCHEDULE: Final = frozenset({"NoSchedule", "NoExecute"})
ERR_REASON_UNTOLERATED: Final = "node(s) had untolerated taint(s)"
_TAINTS: Final = attrgetter("taints")
_UNTOLERATED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNTOLERATED,), NAME)


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    prefer_no_schedule: tuple[Toleration, ...]

    def clone(self) -> Self:
        return self


_PRE_SCORE: Final = StateKey[_PreScoreState]("PreScore" + NAME)


@final
class TaintToleration:
    """Filters nodes with untolerated NoSchedule/NoExecute taints; prefers fewer
    untolerated PreferNoSchedule taints."""

    def __init__(self, resize_preemption: bool = False, comparison_ops: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._compare = comparison_ops  # TaintTolerationComparisonOperators (Gt, Lt)
        # Tolerations of the pod being scheduled, parsed once per cycle rather than per node.
        self._pod: Obj | None = None
        self._tolerations: tuple[Toleration, ...] = ()

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the tolerations."""
        return sign.signed((sign.TOLERATIONS_SIGNER, sign.tolerations_signer(pod)))

    def _tolerations_of(self, pod: Obj) -> tuple[Toleration, ...]:
        if self._pod is not pod:
            self._pod, self._tolerations = pod, parse_tolerations(pod, self._compare)
        return self._tolerations

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP for a deferred resize (KEP-5836); upstream has this PreFilter only for that."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP
        return None, OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """UNSCHEDULABLE_AND_UNRESOLVABLE with upstream 1.37's reason, which no longer
        names the taint (so nodes with different taints share one histogram entry)."""
        if not node_info.taints:
            return OK
        taint = find_untolerated(node_info.taints, self._tolerations_of(pod), DO_NOT_SCHEDULE)
        if taint is None:
            return OK
        return _UNTOLERATED

    def filter_suspects(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> set[int] | None:
        """Nodes with any taint (BatchFilterPlugin): an untainted node always passes."""
        index = nodes[0].index if nodes else None  # the cache's, shared by its NodeInfos
        if index is not None and not index.tainted:
            return set()
        return set(compress(range(len(nodes)), map(_TAINTS, nodes)))

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """Keep the tolerations that can tolerate PreferNoSchedule taints.

        Deviation: SKIP when no candidate node has a PreferNoSchedule taint. Upstream would
        give every node the same score then, which cannot change the ranking.
        """
        index = nodes[0].index if nodes else None
        if (index is not None and not index.tainted) or not any(
            t.effect == "PreferNoSchedule" for ni in nodes if ni.taints for t in ni.taints
        ):
            return SKIP
        prefer = tuple(t for t in self._tolerations_of(pod) if t.effect in ("", "PreferNoSchedule"))
        state.write(_PRE_SCORE, _PreScoreState(prefer))
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The number of intolerable PreferNoSchedule taints (lower is better)."""
        if not node_info.taints:
            return 0, OK
        tols = state.read(_PRE_SCORE).prefer_no_schedule
        count = sum(
            1 for t in node_info.taints if t.effect == "PreferNoSchedule" and not tolerated(t, tols)
        )
        return count, OK

    def score_extensions(self) -> ScoreExtensions | None:
        """Reverse-normalised: the node with most intolerable taints scores 0."""
        return self

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """``DefaultNormalizeScore(MaxNodeScore, reverse=true)``."""
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A node's taints changing, or the pod's tolerations changing."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self._node_changed,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_TOLERATIONS), None
            ),
        )


    def _node_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        return _node_changed(pod, old, new, self._compare)


def _node_changed(pod: Obj, old: Obj | None, new: Obj | None, compare: bool) -> QueueingHint:
    if new is None:
        return QueueingHint.QUEUE_SKIP
    tols = parse_tolerations(pod, compare)
    if find_untolerated(parse_taints(new), tols, DO_NOT_SCHEDULE) is not None:
        return QueueingHint.QUEUE_SKIP
    was_ok = old is not None and find_untolerated(parse_taints(old), tols, DO_NOT_SCHEDULE) is None
    return QueueingHint.QUEUE_SKIP if was_ok else QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return TaintToleration(gate, features.enable_taint_toleration_comparison_operators)


_: type[FilterPlugin] = TaintToleration
_s: type[ScorePlugin] = TaintToleration
_p: type[PreScorePlugin] = TaintToleration
_e: type[EnqueueExtensions] = TaintToleration
_f: type[PreFilterPlugin] = TaintToleration
