"""Models pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go: the
``clusterrole-aggregation-controller`` of kube-controller-manager.

A ClusterRole with an ``aggregationRule`` gets, as its ``rules``, the rules of every other
ClusterRole one of its selectors matches: selector by selector, the matching roles in name
order, each rule once (the first occurrence wins). ``rules`` is written only when it
differs (``equality.Semantic``: an empty list equals an absent one). Any ClusterRole add,
update or delete queues every aggregating ClusterRole, since which roles feed which is not
tracked. Upstream writes with a forced server-side apply of ``rules`` alone (field manager
``clusterrole-aggregation-controller``); the reference replaces ``rules`` by an update,
which has the same effect on the stored object.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.equality import semantic
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter

__all__ = [
    "FIELD_MANAGER",
    "ClusterRoleAggregationController",
    "aggregated_rules",
    "apply_rule",
    "rule_exists",
]

Obj = dict[str, Any]
FIELD_MANAGER: Final = "clusterrole-aggregation-controller"
_RBAC: Final = "rbac.authorization.k8s.io/v1"
# The PolicyRule fields ``toApplyPolicyRule`` copies, in its order.
_RULE_FIELDS: Final = ("resources", "resourceNames", "apiGroups", "nonResourceURLs", "verbs")


def _rules(role: Mapping[str, Any]) -> list[Obj]:
    raw = role.get("rules")
    return [r for r in raw if isinstance(r, dict)] if isinstance(raw, list) else []


def _copy_rule(rule: Mapping[str, Any]) -> Obj:
    """A copy of a PolicyRule (string lists and strings): ``copy.deepcopy``, faster."""
    return {k: list(v) if isinstance(v, list) else copy.deepcopy(v) for k, v in rule.items()}


def rule_exists(haystack: Iterable[Mapping[str, Any]], needle: Mapping[str, Any]) -> bool:
    """``ruleExists``: whether a rule semantically equal to ``needle`` is in ``haystack``."""
    want = semantic(dict(needle))
    return any(semantic(dict(r)) == want for r in haystack)


def apply_rule(rule: Mapping[str, Any]) -> Obj:
    """``toApplyPolicyRule``: the rule's five PolicyRule fields, the unset ones left out."""
    return {f: copy.deepcopy(rule[f]) for f in _RULE_FIELDS if rule.get(f) is not None}


def aggregated_rules(role: Mapping[str, Any], cluster_roles: Iterable[Mapping[str, Any]]) -> list[Obj]:
    """The rules ``syncClusterRole`` computes for the aggregating ``role`` out of all
    ``cluster_roles`` (the lister's contents; ``role`` itself is skipped)."""
    name = (role.get("metadata") or {}).get("name")
    rule_obj = role.get("aggregationRule") or {}
    by_name = sorted(cluster_roles, key=lambda r: str((r.get("metadata") or {}).get("name")))
    out: list[Obj] = []
    seen: list[Any] = []  # out's rules as ``rule_exists`` compares them, computed once
    for sel in rule_obj.get("clusterRoleSelectors") or []:
        # A selector is a struct value upstream: never nil, so never "selects nothing".
        selector = selector_from_label_selector(sel if isinstance(sel, dict) else {})
        for other in by_name:
            meta = other.get("metadata") or {}
            if meta.get("name") == name or not selector.matches(meta.get("labels")):
                continue
            for r in _rules(other):
                key = semantic(r)
                if key not in seen:
                    seen.append(key)
                    out.append(_copy_rule(r))
    return out


class ClusterRoleAggregationController:
    """Keeps aggregating ClusterRoles' ``rules`` the union of the roles they select."""

    name: Final = "clusterrole-aggregation-controller"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self.sync, name="ClusterRoleAggregator",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._roles: SharedInformer | None = None

    def start(self) -> None:
        """Watch ClusterRoles; queue the aggregating ones there are."""
        self._roles = self._ctx.informers.informer(_RBAC, "ClusterRole")
        self._roles.add_handler(self._on_cluster_role)
        self._enqueue()

    def _on_cluster_role(self, ev: ObjectEvent) -> None:
        self._enqueue()

    def _enqueue(self) -> None:
        """``enqueue``: every ClusterRole with an aggregationRule, whatever changed."""
        assert self._roles is not None
        for role in self._roles.items():
            if role.get("aggregationRule") is not None:
                self._queue.add(object_key(role))

    def sync(self, key: str) -> None:
        """``syncClusterRole``: recompute ``key``'s rules; write them when they differ."""
        assert self._roles is not None
        role = self._roles.get(key)
        if role is None or role.get("aggregationRule") is None:
            return
        rules = aggregated_rules(role, self._roles.items())
        if semantic(rules) == semantic(_rules(role)):
            return
        self._write(key, [apply_rule(r) for r in rules])

    def _write(self, name: str, rules: list[Obj]) -> None:
        """``applyClusterRoles``: replace ``rules`` on the stored role (a Conflict or
        NotFound is retried by the queue, which re-reads the informer)."""
        current = self._ctx.server.get(_RBAC, "ClusterRole", name)
        out = copy.deepcopy(current)
        out["rules"] = rules
        self._ctx.server.update(out)
        self._ctx.trace.record(self.name, "apply", f"ClusterRole/{name}")
