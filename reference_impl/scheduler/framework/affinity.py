"""Models kube-scheduler's ``fwk.AffinityTerm`` and ``getAffinityTerms`` (framework/types.go).

A pod's inter-pod (anti-)affinity terms are compiled once per pod version: the label
selector and namespace selector into ``Selector`` values, the namespaces into a frozenset
(the pod's own namespace when both are unset, as upstream).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.meta import Selector, selector_from_label_selector

__all__ = [
    "AffinityTerm",
    "PodAffinityTerms",
    "WeightedAffinityTerm",
    "has_pod_affinity",
    "parse_affinity_terms",
]

Obj = dict[str, Any]
_NOTHING: Final = Selector(nothing=True)
_REQUIRED: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED: Final = "preferredDuringSchedulingIgnoredDuringExecution"


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """One PodAffinityTerm: which pods (selector, namespaces) and the topology key."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector = _NOTHING

    def matches(self, namespace: str, labels: Mapping[str, str], ns_labels: Mapping[str, str] | None) -> bool:
        """``AffinityTerm.Matches``: the pod's namespace is covered and its labels match."""
        if namespace in self.namespaces or (
            ns_labels is not None and self.namespace_selector.matches(ns_labels)
        ):
            return self.selector.matches(labels)
        return False

    def with_namespaces(self, extra: frozenset[str]) -> AffinityTerm:
        """The namespace selector resolved into names (``mergeAffinityTermNamespacesIfNotEmpty``)."""
        return AffinityTerm(self.namespaces | extra, self.selector, self.topology_key, _NOTHING)


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    """A preferred term with its weight (1..100)."""

    term: AffinityTerm
    weight: int


@dataclass(frozen=True, slots=True)
class PodAffinityTerms:
    """Every inter-pod term of one pod."""

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedAffinityTerm, ...] = ()

    def any(self) -> bool:
        """Whether the pod has any inter-pod term (``PodsWithAffinity`` membership)."""
        return bool(
            self.required_affinity or self.required_anti_affinity
            or self.preferred_affinity or self.preferred_anti_affinity
        )


_EMPTY: Final = PodAffinityTerms()


def _term(pod_ns: str, raw: Obj) -> AffinityTerm:
    namespaces = frozenset(raw.get("namespaces") or ())
    ns_sel_raw = raw.get("namespaceSelector")
    if not namespaces and ns_sel_raw is None:
        namespaces = frozenset({pod_ns})  # neither set: the pod's own namespace
    ns_sel = selector_from_label_selector(ns_sel_raw)
    return AffinityTerm(
        namespaces, selector_from_label_selector(raw.get("labelSelector")),
        str(raw.get("topologyKey") or ""), ns_sel,
    )


def has_pod_affinity(pod: Obj) -> bool:
    """Whether spec.affinity has podAffinity or podAntiAffinity (cheap, no parsing)."""
    aff = pod["spec"].get("affinity")
    return bool(aff) and bool(aff.get("podAffinity") or aff.get("podAntiAffinity"))


def parse_affinity_terms(pod: Obj) -> PodAffinityTerms:
    """All of a pod's inter-pod terms; the shared empty value when it has none."""
    if not has_pod_affinity(pod):
        return _EMPTY
    ns = pod["metadata"].get("namespace") or "default"
    aff = pod["spec"]["affinity"]
    pa, paa = aff.get("podAffinity") or {}, aff.get("podAntiAffinity") or {}

    def required(part: Obj) -> tuple[AffinityTerm, ...]:
        return tuple(_term(ns, t) for t in part.get(_REQUIRED) or ())

    def preferred(part: Obj) -> tuple[WeightedAffinityTerm, ...]:
        return tuple(
            WeightedAffinityTerm(_term(ns, t.get("podAffinityTerm") or {}), int(t.get("weight") or 0))
            for t in part.get(_PREFERRED) or ()
        )

    return PodAffinityTerms(required(pa), required(paa), preferred(pa), preferred(paa))
