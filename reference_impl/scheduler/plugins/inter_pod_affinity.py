"""Models pkg/scheduler/framework/plugins/interpodaffinity (plugin.go, filtering.go).

Filter: the pod's required affinity (some matching pod in the node's domain of every
term, or the pod matches its own terms when no pod matches anywhere), its required
anti-affinity, and the symmetric rule: existing pods' required anti-affinity terms that
match the incoming pod. Scoring lives in ``inter_pod_affinity_scoring``. The
InterPodAffinityHostnameFastPath gate (alpha, off by default) is not modelled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Self, final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.scheduler.framework import signature as sign
from reference_impl.scheduler.framework.affinity import (
    AffinityTerm,
    has_pod_affinity,
    parse_affinity_terms,
)
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    OK,
    SKIP,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Plugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueingHint,
    ScorePlugin,
    Status,
)
from reference_impl.scheduler.framework.pod_resources import is_pod_resize_deferred
from reference_impl.scheduler.framework.registry import Handle, SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import inter_pod_affinity_scoring as scoring
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.inter_pod_affinity_parse import affinity_parse_error

__all__ = [
    "ERR_REASON_AFFINITY",
    "ERR_REASON_ANTI_AFFINITY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY",
    "NAME",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "new",
]

Obj = dict[str, Any]
NAME: Final = names.INTER_POD_AFFINITY
ERR_REASON_EXISTING_ANTI_AFFINITY: Final = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY: Final = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY: Final = "node(s) didn't match pod anti-affinity rules"
TopologyPair = tuple[str, str]


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs:
    """``InterPodAffinityArgs`` with upstream's defaults."""

    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False


@dataclass(frozen=True, slots=True)
class _State:
    existing_anti: Counter[TopologyPair]  # existing pods' anti-affinity matching this pod
    affinity_counts: Counter[TopologyPair]
    anti_counts: Counter[TopologyPair]
    affinity: tuple[AffinityTerm, ...]
    anti_affinity: tuple[AffinityTerm, ...]
    self_match: bool  # the pod matches all its own required affinity terms

    def clone(self) -> Self:
        return self  # refreshed() recomputes rather than mutating


_PRE_FILTER: Final = StateKey[_State]("PreFilter" + NAME)


def matches_all(terms: Sequence[AffinityTerm], pod: Obj) -> bool:
    """``podMatchesAllAffinityTerms`` (false for no terms)."""
    if not terms:
        return False
    ns, labels = pod["metadata"].get("namespace") or "default", pod["metadata"].get("labels") or {}
    return all(t.matches(ns, labels, None) for t in terms)


def matches_any(terms: Sequence[AffinityTerm], pod: Obj) -> bool:
    """``podMatchesAnyAffinityTerms``."""
    ns, labels = pod["metadata"].get("namespace") or "default", pod["metadata"].get("labels") or {}
    return any(t.matches(ns, labels, None) for t in terms)


@final
class InterPodAffinity:
    """Required and preferred inter-pod affinity and anti-affinity."""

    def __init__(self, handle: Handle, args: InterPodAffinityArgs, resize_preemption: bool = False) -> None:
        # InPlacePodVerticalScalingSchedulerPreemption: deferred resizes skip this plugin.
        self._resize_preemption = resize_preemption
        self._h = handle
        self.args = args

    def name(self) -> str:
        """The plugin name."""
        return NAME

    def sign_pod(self, pod: Obj) -> tuple[list[sign.SignFragment], Status]:
        """``SignPod``: pods with pod (anti-)affinity cannot be signed; others sign their
        labels, which existing pods' terms may match, unless IgnorePreferredTermsOfExistingPods."""
        affinity = pod["spec"].get("affinity") or {}
        if affinity.get("podAffinity") is not None or affinity.get("podAntiAffinity") is not None:
            return sign.unsignable("pods with InterPodAffinity are not signable")
        if self.args.ignore_preferred_terms_of_existing_pods:
            return sign.signed()
        return sign.signed((sign.LABELS_SIGNER, pod["metadata"].get("labels") or None))

    # -- namespaces -----------------------------------------------------------------

    def namespace_labels(self, ns: str) -> dict[str, str]:
        """``GetNamespaceLabelsSnapshot``: the namespace's labels, {} when unknown."""
        got = self._h.ctx.informers.informer("v1", "Namespace").get(ns)
        return dict((got or {}).get("metadata", {}).get("labels") or {})

    def resolve(self, terms: Sequence[AffinityTerm], raw_selectors: Sequence[Obj | None]) -> tuple[AffinityTerm, ...]:
        """``mergeAffinityTermNamespacesIfNotEmpty``: namespaces the selector picks, as names."""
        out = []
        for t, raw in zip(terms, raw_selectors, strict=True):
            if raw is None:
                out.append(t)
                continue
            sel = selector_from_label_selector(raw)
            nss = self._h.ctx.informers.informer("v1", "Namespace").items()
            picked = frozenset(n["metadata"]["name"] for n in nss if sel.matches(n["metadata"].get("labels") or {}))
            out.append(t.with_namespaces(picked))
        return tuple(out)

    def incoming_terms(self, pod: Obj) -> tuple[tuple[AffinityTerm, ...], tuple[AffinityTerm, ...]]:
        """The pod's required affinity and anti-affinity terms, namespaces resolved."""
        terms = parse_affinity_terms(pod)
        if not terms.required_affinity and not terms.required_anti_affinity:
            return (), ()
        aff = pod["spec"]["affinity"]
        raw_a = _raw(aff.get("podAffinity"), False)
        raw_aa = _raw(aff.get("podAntiAffinity"), False)
        return self.resolve(terms.required_affinity, raw_a), self.resolve(terms.required_anti_affinity, raw_aa)

    # -- PreFilter / Filter -----------------------------------------------------------

    def _compute(self, pod: Obj) -> _State:
        lister = self._h.snapshot_shared_lister()
        ns = pod["metadata"].get("namespace") or "default"
        labels = pod["metadata"].get("labels") or {}
        ns_labels = self.namespace_labels(ns)
        existing: Counter[TopologyPair] = Counter()
        for ni in lister.index.sorted_anti_affinity():
            node_labels = ni.labels
            for info in ni.pods_with_required_anti_affinity.values():
                for t in info.affinity.required_anti_affinity:
                    if t.topology_key in node_labels and t.matches(ns, labels, ns_labels):
                        existing[(t.topology_key, node_labels[t.topology_key])] += 1
        affinity, anti = self.incoming_terms(pod)
        aff_counts: Counter[TopologyPair] = Counter()
        anti_counts: Counter[TopologyPair] = Counter()
        if affinity or anti:
            for ni in lister.node_infos():
                node_labels = ni.labels
                for info in ni.pods.values():
                    if matches_all(affinity, info.pod):
                        for t in affinity:
                            if t.topology_key in node_labels:
                                aff_counts[(t.topology_key, node_labels[t.topology_key])] += 1
                    for t in anti:
                        if t.topology_key in node_labels and matches_any((t,), info.pod):
                            anti_counts[(t.topology_key, node_labels[t.topology_key])] += 1
        return _State(existing, aff_counts, anti_counts, affinity, anti, matches_all(affinity, pod))

    def pre_filter(
        self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """SKIP when neither the pod nor any existing pod's anti-affinity constrains it."""
        if self._resize_preemption and is_pod_resize_deferred(pod):
            return None, SKIP  # KEP-5836: a deferred resize skips this
        if has_pod_affinity(pod) and (err := affinity_parse_error(pod)):
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"parsing pod: {err}",), NAME)
        if not self._h.snapshot_shared_lister().index.anti_affinity and not _has_required(pod):
            return None, SKIP  # the common case, without building any state
        s = self._compute(pod)
        if not s.existing_anti and not s.affinity and not s.anti_affinity:
            return None, SKIP
        state.write(_PRE_FILTER, s)
        return None, OK

    def refresh_pre_filter(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> None:
        """Recount after the snapshot changed (upstream's AddPod/RemovePod)."""
        state.write(_PRE_FILTER, self._compute(pod))

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        """Affinity (unresolvable), then anti-affinity, then existing pods' anti-affinity."""
        s = state.try_read(_PRE_FILTER)
        if s is None and self._resize_preemption and is_pod_resize_deferred(pod):
            return OK  # upstream's Filter also passes a deferred resize (no state then)
        s = s if s is not None else state.read(_PRE_FILTER)
        labels = node_info.labels
        if s.affinity and not _topology_matches_affinity(s, labels):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_AFFINITY,), NAME)
        if s.anti_counts:
            for t in s.anti_affinity:
                v = labels.get(t.topology_key)
                if v is not None and s.anti_counts[(t.topology_key, v)] > 0:
                    return Status(Code.UNSCHEDULABLE, (ERR_REASON_ANTI_AFFINITY,), NAME)
        if s.existing_anti:
            for pair in labels.items():
                if s.existing_anti[pair] > 0:
                    return Status(Code.UNSCHEDULABLE, (ERR_REASON_EXISTING_ANTI_AFFINITY,), NAME)
        return OK

    # -- scoring ----------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo]) -> Status:
        """Sum the weights of matching terms per topology domain; SKIP when none match."""
        return scoring.pre_score(self, state, pod)

    def score(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> tuple[int, Status]:
        """The node's domains' summed weights (may be negative before normalising)."""
        return scoring.score(state, node_info), OK

    def score_extensions(self) -> scoring.Normalizer:
        """Min-max scaling to [0, 100]."""
        return scoring.NORMALIZER

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Assigned pods added, relabelled or deleted; the pod relabelled; nodes added or
        relabelled."""
        return (
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.ASSIGNED_POD,
                    ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
                ),
                _assigned_pod_changed,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_LABEL), None
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                _node_changed,
            ),
        )


def _raw(part: Obj | None, preferred: bool) -> list[Obj | None]:
    key = "preferredDuringSchedulingIgnoredDuringExecution" if preferred else "requiredDuringSchedulingIgnoredDuringExecution"
    terms = (part or {}).get(key) or ()
    if preferred:
        return [(t.get("podAffinityTerm") or {}).get("namespaceSelector") for t in terms]
    return [t.get("namespaceSelector") for t in terms]


def _has_required(pod: Obj) -> bool:
    aff = pod["spec"].get("affinity") or {}
    req = "requiredDuringSchedulingIgnoredDuringExecution"
    return bool((aff.get("podAffinity") or {}).get(req) or (aff.get("podAntiAffinity") or {}).get(req))


def _topology_matches_affinity(s: _State, labels: Mapping[str, str]) -> bool:
    """``nodeTopologyMatchesAffinity``."""
    pods_exist = True
    for t in s.affinity:
        v = labels.get(t.topology_key)
        if v is None:
            return False
        if s.affinity_counts[(t.topology_key, v)] <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # No pod matches anywhere: the first pod of a group may match its own terms.
    return not s.affinity_counts and s.self_match


def _assigned(p: Obj | None) -> bool:
    return p is None or bool(p["spec"].get("nodeName") or (p.get("status") or {}).get("nominatedNodeName"))


def _assigned_pod_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    if not _assigned(new) or not _assigned(old):
        return QueueingHint.QUEUE_SKIP
    terms = parse_affinity_terms(pod)
    aff, anti = terms.required_affinity, terms.required_anti_affinity
    if old is not None and new is not None:
        if not matches_all(aff, old) and matches_all(aff, new):
            return QueueingHint.QUEUE
        if matches_any(anti, old) and not matches_any(anti, new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
    if new is not None:
        return QueueingHint.QUEUE if matches_all(aff, new) else QueueingHint.QUEUE_SKIP
    if old is None or matches_any(anti, old):
        return QueueingHint.QUEUE
    theirs = parse_affinity_terms(old).required_anti_affinity
    return QueueingHint.QUEUE if matches_any(theirs, pod) else QueueingHint.QUEUE_SKIP


def _node_changed(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    terms = parse_affinity_terms(pod)
    before = (old or {}).get("metadata", {}).get("labels") or {}
    after = (new or {}).get("metadata", {}).get("labels") or {}
    for t in terms.required_affinity:
        k = t.topology_key
        if old is None:
            if k in after:
                return QueueingHint.QUEUE
            continue
        if (k not in before and k in after) or (k in before and k in after and before[k] != after[k]):
            return QueueingHint.QUEUE
    for t in terms.required_anti_affinity:
        k = t.topology_key
        if old is None:
            return QueueingHint.QUEUE
        if (k in before and k not in after) or (k in before and k in after and before[k] != after[k]):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def new(args: object | None, handle: Handle, features: SchedulerFeatures) -> Plugin:
    """The registry factory; ``args`` is an InterPodAffinityArgs or None."""
    if args is not None and not isinstance(args, InterPodAffinityArgs):
        raise TypeError(f"InterPodAffinity takes InterPodAffinityArgs, not {type(args).__name__}")
    a = args or InterPodAffinityArgs()
    if not 0 <= a.hard_pod_affinity_weight <= 100:
        raise ValueError(f"hardPodAffinityWeight: Invalid value: {a.hard_pod_affinity_weight}: not in valid range [0, 100]")
    gate = features.enable_in_place_pod_vertical_scaling_scheduler_preemption
    return InterPodAffinity(handle, a, resize_preemption=gate)


_: type[FilterPlugin] = InterPodAffinity
_f: type[PreFilterPlugin] = InterPodAffinity
_s: type[ScorePlugin] = InterPodAffinity
_p: type[PreScorePlugin] = InterPodAffinity
_e: type[EnqueueExtensions] = InterPodAffinity
