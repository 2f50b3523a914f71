"""Models pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

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
from reference_impl.scheduler.plugins.helper import (
    CompiledTerm,
    NodeSelector,
    compile_terms,
    default_normalize_score,
)

__all__ = ["ERR_REASON_POD", "NAME", "NodeAffinity", "new", "required_node_selector"]

Obj = dict[str, Any]
NAME: Final = names.NODE_AFFINITY
ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
_REJECT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_POD,), NAME)


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    selector: NodeSelector

    def clone(self) -> Self:
        return self


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    preferred: tuple[tuple[int, CompiledTerm], ...]

    def clone(self) -> Self:
        return self


_PRE_FILTER: Final = StateKey[_PreFilterState]("PreFilter" + NAME)
_PRE_SCORE: Final = StateKey[_PreScoreState]("PreScore" + NAME)


def _node_affinity(pod: Obj) -> Obj:
    aff: Obj = ((pod["spec"].get("affinity") or {}).get("nodeAffinity")) or {}
    return aff


def required_node_selector(pod: Obj) -> NodeSelector | None:
    """spec.nodeSelector plus the required terms, or None when the pod has neither."""
    required = _node_affinity(pod).get("requiredDuringSchedulingIgnoredDuringExecution")
    labels = tuple(sorted((pod["spec"].get("nodeSelector") or {}).items()))
    if required is None and not labels:
        return None
    terms = None if required is None else compile_terms(required.get("nodeSelectorTerms") or ())
    return NodeSelector(labels, terms)


def _node_names(pod: Obj) -> frozenset[str] | None:
    # Upstream narrows to named nodes when every term pins metadata.name with In.
    required = _node_affinity(pod).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = (required or {}).get("nodeSelectorTerms") or ()
    out: set[str] = set()
    for t in terms:
        pins = [f for f in t.get("matchFields") or () if f["key"] == "metadata.name"
                and f["operator"] == "In"]
        if not pins:
            return None
        out.update(pins[0].get("values") or ())
    return frozenset(out) if terms else None


@final
class NodeAffinity:
    """Required node selector and affinity as a Filter; preferred terms as a Score."""

    def __init__(self, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP when the pod has no node selector or required affinity."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, Status(Code.SKIP)  # KEP-5836: a deferred resize skips this
        selector = required_node_selector(pod)
        if selector is None:
            return None, Status(Code.SKIP)
        state.write(_PRE_FILTER, _PreFilterState(selector))
        pinned = _node_names(pod)
        return (None if pinned is None else PreFilterResult(pinned)), OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Reject nodes whose labels (or name) do not satisfy the selector."""
        selector = state.read(_PRE_FILTER).selector
        return OK if selector.matches(node_info.labels, node_info.name) else _REJECT

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """SKIP when the pod has no preferred terms."""
        raw = _node_affinity(pod).get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        if not raw:
            return Status(Code.SKIP)
        terms = compile_terms([t["preference"] for t in raw])
        state.write(_PRE_SCORE, _PreScoreState(tuple(zip((int(t["weight"]) for t in raw), terms, strict=True))))
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The sum of the weights of the preferred terms the node matches."""
        preferred = state.read(_PRE_SCORE).preferred
        total = sum(w for w, t in preferred if t.matches(node_info.labels, node_info.name))
        return total, OK

    def score_extensions(self) -> ScoreExtensions | None:
        """Scores are scaled to [0, 100]."""
        return self

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """``DefaultNormalizeScore(MaxNodeScore, reverse=false)``."""
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A node appearing or relabelled so that it now matches."""
        ev = ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
        return (ClusterEventWithHint(ev, _node_changed),)


def _node_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    selector = required_node_selector(pod)
    if new is None:
        return QueueingHint.QUEUE_SKIP
    if selector is None:
        return QueueingHint.QUEUE
    if not selector.matches(new["metadata"].get("labels") or {}, new["metadata"]["name"]):
        return QueueingHint.QUEUE_SKIP
    if old is not None and selector.matches(old["metadata"].get("labels") or {}, old["metadata"]["name"]):
        return QueueingHint.QUEUE_SKIP  # it matched before, so the pod was not rejected for this
    return QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory."""
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return NodeAffinity(resize_preemption=gate)


_: type[FilterPlugin] = NodeAffinity
_f: type[PreFilterPlugin] = NodeAffinity
_s: type[ScorePlugin] = NodeAffinity
_p: type[PreScorePlugin] = NodeAffinity
_e: type[EnqueueExtensions] = NodeAffinity
