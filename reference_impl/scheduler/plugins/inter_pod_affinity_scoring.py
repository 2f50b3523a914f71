"""Models pkg/scheduler/framework/plugins/interpodaffinity/scoring.go.

Per topology domain, the incoming pod's preferred (anti-)affinity terms add (subtract)
their weight for each existing pod they match; existing pods' required affinity terms
that match the incoming pod add ``hardPodAffinityWeight``, and their preferred terms add
or subtract their weights. A node scores the sum over its domains, min-max scaled.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Self

from reference_impl.scheduler.framework.affinity import (
    WeightedAffinityTerm,
    has_pod_affinity,
    parse_affinity_terms,
)
from reference_impl.scheduler.framework.cycle_state import CycleState, StateKey
from reference_impl.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    OK,
    SKIP,
    Code,
    NodeScore,
    Status,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.inter_pod_affinity_parse import affinity_parse_error

if TYPE_CHECKING:
    from reference_impl.scheduler.plugins.inter_pod_affinity import InterPodAffinity

__all__ = ["NORMALIZER", "Normalizer", "pre_score", "score"]

Obj = dict[str, Any]
ScoreMap = dict[str, dict[str, int]]


@dataclass(frozen=True, slots=True)
class _State:
    topology_score: ScoreMap

    def clone(self) -> Self:
        return self


_PRE_SCORE: Final = StateKey[_State]("PreScore" + names.INTER_POD_AFFINITY)


def _resolved(pl: InterPodAffinity, pod: Obj, part: str) -> tuple[WeightedAffinityTerm, ...]:
    terms = parse_affinity_terms(pod)
    weighted = terms.preferred_affinity if part == "podAffinity" else terms.preferred_anti_affinity
    if not weighted:
        return ()
    raw = (pod["spec"]["affinity"].get(part) or {}).get("preferredDuringSchedulingIgnoredDuringExecution") or ()
    selectors = [(t.get("podAffinityTerm") or {}).get("namespaceSelector") for t in raw]
    resolved = pl.resolve([w.term for w in weighted], selectors)
    return tuple(WeightedAffinityTerm(t, w.weight) for t, w in zip(resolved, weighted, strict=True))


def pre_score(pl: InterPodAffinity, state: CycleState, pod: Obj) -> Status:
    """``PreScore``: the topology score map over the snapshot, or SKIP when it is empty."""
    preferred = _resolved(pl, pod, "podAffinity")
    preferred_anti = _resolved(pl, pod, "podAntiAffinity")
    has_constraints = bool(preferred or preferred_anti)
    if pl.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
        return SKIP
    if has_pod_affinity(pod) and (err := affinity_parse_error(pod)):
        return Status(Code.ERROR, (f"failed to parse pod: {err}",), names.INTER_POD_AFFINITY)
    lister = pl._h.snapshot_shared_lister()  # noqa: SLF001 - the plugin's own handle
    nodes: Sequence[NodeInfo] = lister.node_infos() if has_constraints else lister.index.sorted_affinity()
    if not nodes:
        return SKIP
    ns = pod["metadata"].get("namespace") or "default"
    labels = pod["metadata"].get("labels") or {}
    ns_labels = pl.namespace_labels(ns)
    hard = pl.args.hard_pod_affinity_weight
    scores: ScoreMap = defaultdict(lambda: defaultdict(int))
    touched = False

    def add(key: str, node_labels: dict[str, str], delta: int) -> None:
        nonlocal touched
        value = node_labels.get(key)
        if value is not None:
            scores[key][value] += delta
            touched = True

    for ni in nodes:
        node_labels = ni.labels
        if not node_labels:
            continue
        pods: Sequence[PodInfo] = list((ni.pods if has_constraints else ni.pods_with_affinity).values())
        for info in pods:
            e_meta = info.pod["metadata"]
            e_ns, e_labels = e_meta.get("namespace") or "default", e_meta.get("labels") or {}
            for w in preferred:
                if w.term.matches(e_ns, e_labels, None):
                    add(w.term.topology_key, node_labels, w.weight)
            for w in preferred_anti:
                if w.term.matches(e_ns, e_labels, None):
                    add(w.term.topology_key, node_labels, -w.weight)
            theirs = info.affinity
            if hard > 0:
                for t in theirs.required_affinity:
                    if t.matches(ns, labels, ns_labels):
                        add(t.topology_key, node_labels, hard)
            for w in theirs.preferred_affinity:
                if w.term.matches(ns, labels, ns_labels):
                    add(w.term.topology_key, node_labels, w.weight)
            for w in theirs.preferred_anti_affinity:
                if w.term.matches(ns, labels, ns_labels):
                    add(w.term.topology_key, node_labels, -w.weight)
    if not touched:
        return SKIP
    state.write(_PRE_SCORE, _State({k: dict(v) for k, v in scores.items()}))
    return OK


def score(state: CycleState, node_info: NodeInfo) -> int:
    """The sum of the node's domains' scores."""
    total = 0
    labels = node_info.labels
    for key, values in state.read(_PRE_SCORE).topology_score.items():
        v = labels.get(key)
        if v is not None:
            total += values.get(v, 0)
    return total


class Normalizer:
    """``NormalizeScore``: (score - min) / (max - min) * 100, truncated; all 0 when flat."""

    def normalize_score(self, state: CycleState, pod: Obj, scores: list[NodeScore]) -> Status:
        """Rewrite ``scores`` in place."""
        if not state.read(_PRE_SCORE).topology_score or not scores:
            return OK
        lo, hi = min(s.score for s in scores), max(s.score for s in scores)
        diff = hi - lo
        for s in scores:
            s.score = int(MAX_NODE_SCORE * ((s.score - lo) / diff)) if diff > 0 else 0
        return OK


NORMALIZER: Final = Normalizer()
