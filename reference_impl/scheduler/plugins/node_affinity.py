"""Models pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

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
from reference_impl.scheduler.plugins.helper import (
    CompiledTerm,
    NodeSelector,
    aggregate,
    compile_terms,
    default_normalize_score,
)

__all__ = [
    "ERR_REASON_POD",
    "NAME",
    "NodeAffinity",
    "NodeAffinityArgs",
    "new",
    "preferred_terms",
    "required_node_selector",
]

Obj = dict[str, Any]
NAME: Final = names.NODE_AFFINITY
ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED: Final = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT: Final = "pod affinity terms conflict"
_REJECT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_POD,), NAME)
_ENFORCED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_ENFORCED,), NAME)
_MATCH_ALL: Final = NodeSelector((), None)  # an empty (non-nil) spec.nodeSelector, no affinity
Preferred = tuple[tuple[int, CompiledTerm], ...]


@dataclass(frozen=True, slots=True)
class NodeAffinityArgs:
    """``NodeAffinityArgs``: ``added_affinity`` is a v1 NodeAffinity every pod gets too."""

    added_affinity: Obj | None = None


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    selector: NodeSelector

    def clone(self) -> Self:
        return self


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    preferred: Preferred

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


def preferred_terms(raw: Sequence[Obj]) -> tuple[Preferred, str]:
    """``NewPreferredSchedulingTerms``: (weight, term) pairs, skipping zero weights and
    empty terms, and the aggregated parse errors ("" when none)."""
    prefs = [t.get("preference") or {} for t in raw]
    compiled = compile_terms(prefs)
    out: list[tuple[int, CompiledTerm]] = []
    errs: list[str] = []
    for t, pref, term in zip(raw, prefs, compiled, strict=True):
        weight = int(t.get("weight") or 0)
        if weight == 0 or not (pref.get("matchExpressions") or pref.get("matchFields")):
            continue
        errs += term.errors
        out.append((weight, term))
    return tuple(out), (aggregate(errs) if errs else "")


def _node_names(pod: Obj) -> frozenset[str] | None:
    # PreFilter: each term's metadata.name In pins, intersected within the term (ANDed)
    # and united across terms (ORed); None when some term pins no name.
    required = _node_affinity(pod).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = (required or {}).get("nodeSelectorTerms") or ()
    if not terms:
        return None
    out: set[str] = set()
    for t in terms:
        term_names: set[str] | None = None
        for f in t.get("matchFields") or ():
            if f.get("key") == "metadata.name" and f.get("operator") == "In":
                vals = set(f.get("values") or ())
                term_names = vals if term_names is None else term_names & vals
        if term_names is None:
            return None
        out |= term_names
    return frozenset(out)


@final
class NodeAffinity:
    """Required node selector and affinity as a Filter; preferred terms as a Score."""

    def __init__(self, resize_preemption: bool = False, args: NodeAffinityArgs | None = None) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        added = (args.added_affinity if args else None) or {}
        # addedNodeSelector: a scheduler-enforced required selector (its terms ORed).
        self._added_required: tuple[CompiledTerm, ...] | None = None
        required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            self._added_required = compile_terms(required.get("nodeSelectorTerms") or ())
            errs = [e for t in self._added_required for e in t.errors]
            if errs:
                raise ValueError(f"parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: {aggregate(errs)}")
        self._added_preferred: Preferred | None = None
        if added.get("preferredDuringSchedulingIgnoredDuringExecution"):
            self._added_preferred, err = preferred_terms(added["preferredDuringSchedulingIgnoredDuringExecution"])
            if err:
                raise ValueError(f"parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: {err}")

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: the node affinity and the nodeSelector."""
        return sign.signed(
            (sign.NODE_AFFINITY_SIGNER, sign.node_affinity_signer(pod)),
            (sign.NODE_SELECTOR_SIGNER, pod["spec"].get("nodeSelector") or None),
        )

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP when neither the pod (node selector, required affinity) nor the added
        affinity constrains nodes; the named nodes when every term pins metadata.name."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        selector = required_node_selector(pod)
        if selector is None and self._added_required is None and pod["spec"].get("nodeSelector") is None:
            return None, SKIP
        state.write(_PRE_FILTER, _PreFilterState(selector or _MATCH_ALL))
        pinned = _node_names(pod)
        if pinned is not None and not pinned:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,), NAME)
        return (None if pinned is None else PreFilterResult(pinned)), OK

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Reject nodes the added affinity or the pod's selector and affinity exclude."""
        labels, name = node_info.labels, node_info.name
        if self._added_required is not None:
            if self._resize_preemption and is_pod_resize_deferred(pod):
                return OK
            if not any(t.matches(labels, name) for t in self._added_required):
                return _ENFORCED
        st = state.try_read(_PRE_FILTER)
        # Without PreFilter (disabled, or it said SKIP) the selector comes from the pod.
        selector = st.selector if st is not None else required_node_selector(pod)
        if selector is None or selector.matches(labels, name):
            return OK
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # KEP-5836: a deferred resize is never rejected here
        return _REJECT

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """SKIP when neither the pod nor the added affinity has preferred terms; ERROR
        when the pod's terms do not parse."""
        raw = _node_affinity(pod).get("preferredDuringSchedulingIgnoredDuringExecution")
        if raw is None and self._added_preferred is None:
            return SKIP
        preferred, err = preferred_terms(raw or ())
        if err:
            return Status(Code.ERROR, (err,), NAME)
        state.write(_PRE_SCORE, _PreScoreState(preferred))
        return OK

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The sum of the weights of the preferred terms (pod's and added) the node matches."""
        labels, name = node_info.labels, node_info.name
        total = 0
        if self._added_preferred:
            total = sum(w for w, t in self._added_preferred if t.matches(labels, name))
        st = state.try_read(_PRE_SCORE)
        if st is None:  # PreScore disabled: parse the pod's terms here
            preferred, err = preferred_terms(
                _node_affinity(pod).get("preferredDuringSchedulingIgnoredDuringExecution") or ()
            )
            if err:
                return 0, Status(Code.ERROR, (err,), NAME)
        else:
            preferred = st.preferred
        return total + sum(w for w, t in preferred if t.matches(labels, name)), OK

    def score_extensions(self) -> ScoreExtensions | None:
        """Scores are scaled to [0, 100]."""
        return self

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """``DefaultNormalizeScore(MaxNodeScore, reverse=false)``."""
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A node appearing or relabelled so that it now matches."""
        ev = ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
        return (ClusterEventWithHint(ev, self._node_changed),)

    def _node_changed(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        """``isSchedulableAfterNodeChange``: the node now matches (added affinity first)."""
        if new is None:
            return QueueingHint.QUEUE_SKIP
        labels, name = new["metadata"].get("labels") or {}, new["metadata"].get("name") or ""
        if self._added_required is not None and not any(
            t.matches(labels, name) for t in self._added_required
        ):
            return QueueingHint.QUEUE_SKIP
        selector = required_node_selector(pod) or _MATCH_ALL
        if not selector.matches(labels, name):
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        was = selector.matches(old["metadata"].get("labels") or {}, old["metadata"].get("name") or "")
        # It matched before, so the pod was not rejected for this node's labels.
        return QueueingHint.QUEUE_SKIP if was else QueueingHint.QUEUE


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; ``args`` is a NodeAffinityArgs or None."""
    if args is not None and not isinstance(args, NodeAffinityArgs):
        raise TypeError(f"NodeAffinity takes NodeAffinityArgs, not {type(args).__name__}")
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return NodeAffinity(gate, args)


_: type[FilterPlugin] = NodeAffinity
_f: type[PreFilterPlugin] = NodeAffinity
_s: type[ScorePlugin] = NodeAffinity
_p: type[PreScorePlugin] = NodeAffinity
_e: type[EnqueueExtensions] = NodeAffinity
