"""The pod strategy's ``mutatePodAffinity`` and ``mutateTopologySpreadConstraints``
(PrepareForCreate): each pod (anti-)affinity term's ``matchLabelKeys`` /
``mismatchLabelKeys`` and each topology spread constraint's ``matchLabelKeys`` found in
the pod's labels join its label selector as ``In`` / ``NotIn`` expressions, before
validation sees the pod. MatchLabelKeysInPodAffinity is GA (locked on);
MatchLabelKeysInPodTopologySpread and ...SelectorMerge are beta, on by default in v1.37."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list

Obj = dict[str, Any]


def _apply_label_keys(selector: Obj, keys: list[Any], operator: str, labels: Obj) -> None:
    """``applyLabelKeysToLabelSelector``: one expression per key the pod's labels hold."""
    for key in keys:
        if isinstance(key, str) and key in labels:
            exprs = selector.setdefault("matchExpressions", [])
            if isinstance(exprs, list):
                exprs.append({"key": key, "operator": operator, "values": [labels[key]]})


def _apply_term(term: Obj, labels: Obj) -> None:
    """``applyMatchLabelKeysAndMismatchLabelKeys``: a nil selector matches none and stays."""
    match, mismatch = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    selector = term.get("labelSelector")
    if not (match or mismatch) or not isinstance(selector, dict):
        return
    _apply_label_keys(selector, match, "In", labels)
    _apply_label_keys(selector, mismatch, "NotIn", labels)


@preparer("Pod")
def mutate_pod_affinity(pod: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``mutatePodAffinity``, on create only."""
    if old is not None:
        return
    labels = as_dict(as_dict(pod.get("metadata")).get("labels"))
    affinity = as_dict(as_dict(pod.get("spec")).get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = as_dict(affinity.get(kind))
        for weighted in as_list(terms.get("preferredDuringSchedulingIgnoredDuringExecution")):
            if isinstance(weighted, dict) and isinstance(weighted.get("podAffinityTerm"), dict):
                _apply_term(weighted["podAffinityTerm"], labels)
        for term in as_list(terms.get("requiredDuringSchedulingIgnoredDuringExecution")):
            if isinstance(term, dict):
                _apply_term(term, labels)


@preparer("Pod")
def mutate_topology_spread_constraints(pod: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``mutateTopologySpreadConstraints`` (``applyMatchLabelKeys``), on create only, and
    only while both MatchLabelKeysInPodTopologySpread gates are on."""
    if old is not None:
        return
    gates = ctx.gates
    if not (
        gates.enabled("MatchLabelKeysInPodTopologySpread")
        and gates.enabled("MatchLabelKeysInPodTopologySpreadSelectorMerge")
    ):
        return
    labels = as_dict(as_dict(pod.get("metadata")).get("labels"))
    for c in as_list(as_dict(pod.get("spec")).get("topologySpreadConstraints")):
        if isinstance(c, dict) and isinstance(c.get("labelSelector"), dict):
            _apply_label_keys(c["labelSelector"], as_list(c.get("matchLabelKeys")), "In", labels)
