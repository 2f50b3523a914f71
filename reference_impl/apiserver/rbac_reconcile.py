"""RBAC role and binding reconciliation, after component-helpers v0.37.2
``auth/rbac/reconciliation`` (``computeReconciledRole``, ``aggregationRuleCovers``,
``merge``, ``computeReconciledRoleBinding``, ``diffSubjectLists``) and
``auth/rbac/validation``'s ``Covers`` (``BreakdownRule``, ``ruleCovers``).

kube-apiserver's rbac post-start hook runs them over every bootstrap object that exists:
an object annotated ``rbac.authorization.kubernetes.io/autoupdate: "false"`` is protected
(left alone), any other gets the missing labels, annotations, rules, aggregation selectors
and subjects added (a union: the hook never removes extra permissions), and a binding
whose roleRef differs (immutable) is deleted and created again.

Objects are the v1 wire shape: absent and empty lists or maps are the same (upstream
compares with ``equality.Semantic``, which does not tell nil from empty).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

__all__ = [
    "AUTOUPDATE",
    "Operation",
    "RoleBindingResult",
    "RoleResult",
    "aggregation_rule_covers",
    "breakdown_rule",
    "compute_reconciled_role",
    "compute_reconciled_role_binding",
    "covers",
    "diff_subject_lists",
    "merge",
    "non_resource_url_covers",
]

Obj = dict[str, Any]
AUTOUPDATE: Final = "rbac.authorization.kubernetes.io/autoupdate"  # rbacv1.AutoUpdateAnnotationKey
_SUBJECT_FIELDS: Final = ("kind", "apiGroup", "name", "namespace")


class Operation(StrEnum):
    """``ReconcileOperation``."""

    CREATE = "create"
    UPDATE = "update"
    RECREATE = "recreate"
    NONE = "none"


@dataclass
class RoleResult:
    """``ReconcileClusterRoleResult``: ``role`` is what to store (a copy of the existing
    object, changed) when ``operation`` is UPDATE."""

    role: Obj
    operation: Operation = Operation.NONE
    protected: bool = False
    missing_rules: list[Obj] = field(default_factory=list)
    extra_rules: list[Obj] = field(default_factory=list)
    missing_selectors: list[Obj] = field(default_factory=list)
    extra_selectors: list[Obj] = field(default_factory=list)


@dataclass
class RoleBindingResult:
    """``ReconcileClusterRoleBindingResult``; ``binding`` is the expected one on RECREATE."""

    binding: Obj
    operation: Operation = Operation.NONE
    protected: bool = False
    missing_subjects: list[Obj] = field(default_factory=list)
    extra_subjects: list[Obj] = field(default_factory=list)


# -- validation.Covers -------------------------------------------------------------------


def _list(rule: Mapping[str, Any], key: str) -> list[str]:
    value = rule.get(key)
    return list(value) if value else []


def breakdown_rule(rule: Mapping[str, Any]) -> list[Obj]:
    """``BreakdownRule``: one rule per (group, resource, verb[, name]) and per
    (non-resource URL, verb)."""
    out: list[Obj] = []
    verbs = _list(rule, "verbs")
    names = _list(rule, "resourceNames")
    for group in _list(rule, "apiGroups"):
        for resource in _list(rule, "resources"):
            for verb in verbs:
                base: Obj = {"apiGroups": [group], "resources": [resource], "verbs": [verb]}
                if names:
                    out.extend({**base, "resourceNames": [n]} for n in names)
                else:
                    out.append(base)
    for url in _list(rule, "nonResourceURLs"):
        out.extend({"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs)
    return out


def _resource_covers_all(owned: list[str], wanted: list[str]) -> bool:
    """``resourceCoversAll``: "*" or every resource, where "*/sub" covers "x/sub"."""
    if "*" in owned or set(wanted) <= set(owned):
        return True
    for path in wanted:
        if path in owned:
            continue
        if "/" not in path or "*/" + path.split("/", 1)[1] not in owned:
            return False
    return True


def non_resource_url_covers(owner: str, sub: str) -> bool:
    """``nonResourceURLCovers``: equal, or a trailing "*" prefix match."""
    return owner == sub or (owner.endswith("*") and sub.startswith(owner.rstrip("*")))


def _rule_covers(owner: Mapping[str, Any], sub: Mapping[str, Any]) -> bool:
    """``ruleCovers``."""
    verbs, groups = _list(owner, "verbs"), _list(owner, "apiGroups")
    owner_names, sub_names = _list(owner, "resourceNames"), _list(sub, "resourceNames")
    urls = _list(owner, "nonResourceURLs")
    if not ("*" in verbs or set(_list(sub, "verbs")) <= set(verbs)):
        return False
    if not ("*" in groups or set(_list(sub, "apiGroups")) <= set(groups)):
        return False
    if not _resource_covers_all(_list(owner, "resources"), _list(sub, "resources")):
        return False
    if not all(any(non_resource_url_covers(o, p) for o in urls) for p in _list(sub, "nonResourceURLs")):
        return False
    if not sub_names:
        return not owner_names
    return not owner_names or set(sub_names) <= set(owner_names)


def covers(owner_rules: Sequence[Mapping[str, Any]], servant_rules: Sequence[Mapping[str, Any]]) -> tuple[bool, list[Obj]]:
    """``Covers``: whether ``owner_rules`` cover every broken-down servant rule, and the
    broken-down servant rules they do not cover."""
    uncovered = [
        sub
        for rule in servant_rules
        for sub in breakdown_rule(rule)
        if not any(_rule_covers(owner, sub) for owner in owner_rules)
    ]
    return not uncovered, uncovered


# -- computeReconciledRole ---------------------------------------------------------------


def merge(*maps: Mapping[str, str] | None) -> dict[str, str]:
    """``merge``: later maps win."""
    out: dict[str, str] = {}
    for m in maps:
        out.update(m or {})
    return out


def _meta_map(obj: Mapping[str, Any], key: str) -> dict[str, str]:
    value = obj.get("metadata", {}).get(key)
    return dict(value) if value else {}


def _set_meta_map(obj: Obj, key: str, value: dict[str, str]) -> None:
    meta = obj.setdefault("metadata", {})
    if value:
        meta[key] = value
    else:
        meta.pop(key, None)


def _selectors(rule: Mapping[str, Any] | None) -> list[Obj]:
    return list((rule or {}).get("clusterRoleSelectors") or [])


def _same_selector(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """``equality.Semantic.DeepEqual`` of two label selectors (nil and empty alike)."""
    return (a.get("matchLabels") or {}) == (b.get("matchLabels") or {}) and (
        a.get("matchExpressions") or []
    ) == (b.get("matchExpressions") or [])


def aggregation_rule_covers(owner: Mapping[str, Any] | None, servant: Mapping[str, Any] | None) -> tuple[bool, list[Obj]]:
    """``aggregationRuleCovers``: the servant's selectors the owner lacks (None: no rule)."""
    if servant is None:
        return True, []
    if owner is None:
        return False, _selectors(servant)
    owned = _selectors(owner)
    uncovered = [s for s in _selectors(servant) if not any(_same_selector(o, s) for o in owned)]
    return not uncovered, uncovered


def _reconcile_meta(result: Obj, existing: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    """The expected labels and annotations joined under the existing ones (existing values
    win); whether that changed anything."""
    changed = False
    for key in ("annotations", "labels"):
        merged = merge(_meta_map(expected, key), _meta_map(existing, key))
        _set_meta_map(result, key, merged)
        changed = changed or merged != _meta_map(existing, key)
    return changed


def compute_reconciled_role(existing: Mapping[str, Any], expected: Mapping[str, Any], remove_extra_permissions: bool) -> RoleResult:
    """``computeReconciledRole`` for a ClusterRole or Role (a Role has no aggregation
    rule, as ``RoleRuleOwner.GetAggregationRule`` answers nil)."""
    role = copy.deepcopy(dict(existing))
    result = RoleResult(role=role, protected=_meta_map(existing, "annotations").get(AUTOUPDATE) == "false")
    if _reconcile_meta(role, existing, expected):
        result.operation = Operation.UPDATE

    want_rules, have_rules = list(expected.get("rules") or []), list(existing.get("rules") or [])
    want_agg, have_agg = expected.get("aggregationRule"), existing.get("aggregationRule")
    if want_agg is None or have_agg is None:
        _, result.extra_rules = covers(want_rules, have_rules)
    _, result.missing_rules = covers(have_rules, want_rules)
    if not remove_extra_permissions and result.missing_rules:
        role["rules"] = have_rules + result.missing_rules
        result.operation = Operation.UPDATE
    elif remove_extra_permissions and (result.missing_rules or result.extra_rules):
        _set_list(role, "rules", copy.deepcopy(want_rules))
        result.operation = Operation.UPDATE

    _, result.extra_selectors = aggregation_rule_covers(want_agg, have_agg)
    _, result.missing_selectors = aggregation_rule_covers(have_agg, want_agg)
    if want_agg is None and have_agg is not None:
        role.pop("aggregationRule", None)
        result.operation = Operation.UPDATE
    elif not remove_extra_permissions and result.missing_selectors:
        agg = dict(role.get("aggregationRule") or {})
        agg["clusterRoleSelectors"] = _selectors(agg) + copy.deepcopy(result.missing_selectors)
        role["aggregationRule"] = agg
        result.operation = Operation.UPDATE
    elif remove_extra_permissions and (result.missing_selectors or result.extra_selectors):
        role["aggregationRule"] = copy.deepcopy(want_agg)
        result.operation = Operation.UPDATE
    return result


def _set_list(obj: Obj, key: str, value: list[Obj]) -> None:
    if value:
        obj[key] = value
    else:
        obj.pop(key, None)


# -- computeReconciledRoleBinding --------------------------------------------------------


def _subject_key(s: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(s.get(k) or "") for k in _SUBJECT_FIELDS)


def diff_subject_lists(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> tuple[list[Obj], list[Obj]]:
    """``diffSubjectLists``: the subjects only in ``a`` and only in ``b``, first
    occurrence order, without duplicates."""

    def only(xs: Sequence[Mapping[str, Any]], ys: Sequence[Mapping[str, Any]]) -> list[Obj]:
        in_ys = {_subject_key(y) for y in ys}
        out: list[Obj] = []
        seen: set[tuple[str, ...]] = set()
        for x in xs:
            k = _subject_key(x)
            if k not in in_ys and k not in seen:
                seen.add(k)
                out.append(dict(x))
        return out

    return only(a, b), only(b, a)


def _role_ref(obj: Mapping[str, Any]) -> tuple[str, ...]:
    ref = obj.get("roleRef") or {}
    return tuple(str(ref.get(k) or "") for k in ("apiGroup", "kind", "name"))


def compute_reconciled_role_binding(existing: Mapping[str, Any], expected: Mapping[str, Any], remove_extra_subjects: bool) -> RoleBindingResult:
    """``computeReconciledRoleBinding`` for a ClusterRoleBinding or RoleBinding."""
    protected = _meta_map(existing, "annotations").get(AUTOUPDATE) == "false"
    if _role_ref(expected) != _role_ref(existing):  # roleRef is immutable: recreate
        return RoleBindingResult(binding=dict(expected), operation=Operation.RECREATE, protected=protected)
    binding = copy.deepcopy(dict(existing))
    result = RoleBindingResult(binding=binding, protected=protected)
    if _reconcile_meta(binding, existing, expected):
        result.operation = Operation.UPDATE
    want, have = list(expected.get("subjects") or []), list(existing.get("subjects") or [])
    result.missing_subjects, result.extra_subjects = diff_subject_lists(want, have)
    if not remove_extra_subjects and result.missing_subjects:
        binding["subjects"] = have + copy.deepcopy(result.missing_subjects)
        result.operation = Operation.UPDATE
    elif remove_extra_subjects and (result.missing_subjects or result.extra_subjects):
        _set_list(binding, "subjects", copy.deepcopy(want))
        result.operation = Operation.UPDATE
    return result
