"""Models ``k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go``: quota matching, the
usage-stats fold, and the object-count evaluator (``count/<resource>[.<group>]``).

Where Go returns an error from a scope function (a scope selector that does not parse),
these raise ValueError; ``calculate_usage_stats`` swallows it and returns the partial sum,
as upstream's does (it returns ``result, nil``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from reference_impl.api import resources
from reference_impl.api.meta import Requirement, label_key_errors, label_value_errors
from reference_impl.api.quantity import Quantity
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver import conversion
from reference_impl.apiserver.quota.resources import add, intersection, resource_names
from reference_impl.apiserver.quota.types import Env, ResourceList, UsageStatsOptions
from reference_impl.apiserver.registry import Operation

__all__ = [
    "ONE",
    "ObjectCountEvaluator",
    "ScopeFunc",
    "calculate_usage_stats",
    "gate_enabled",
    "go_scope",
    "matches",
    "matches_no_scope",
    "matching_scopes",
    "object_count_resource_name",
    "scope_selectors",
    "selector_matches",
    "served_resource",
    "uncovered_scopes",
]

Obj = dict[str, Any]
ScopeFunc = Callable[[Obj, Obj], bool]
ONE: Final = Quantity(Decimal(1), "DecimalSI")  # resource.NewQuantity(1, DecimalSI)
_ZERO: Final = Quantity(Decimal(0), "DecimalSI")
_OPS: Final = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


_CRD: Final = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")


def gate_enabled(env: Env, name: str) -> bool:
    """``feature.DefaultFeatureGate.Enabled(name)``."""
    return env.ctx.gates.enabled(name)


def object_count_resource_name(group_resource: str) -> str:
    """``ObjectCountQuotaResourceNameFor``: ``count/<resource>[.<group>]``."""
    return f"count/{group_resource}"


def go_scope(req: Mapping[str, Any]) -> str:
    """A requirement as Go's ``%v`` prints it: ``{PriorityClass In [a b]}``."""
    values = " ".join(req.get("values") or ())
    return f"{{{req.get('scopeName', '')} {req.get('operator', '')} [{values}]}}"


def selector_matches(req: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """``ScopedResourceSelectorRequirementsAsSelector(req).Matches(labels)``: the scope
    name as a label key; ValueError when the requirement is not a valid selector."""
    op, key = req.get("operator", ""), str(req.get("scopeName", ""))
    values = tuple(str(v) for v in req.get("values") or ())
    if op not in _OPS:
        raise ValueError(f'"{op}" is not a valid scope selector operator')
    errs = [f"key: Invalid value: {key!r}: {e}" for e in label_key_errors(key)]
    if op in ("In", "NotIn") and not values:
        errs.append(
            "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"
        )
    if op in ("Exists", "DoesNotExist") and values:
        errs.append("values: Invalid value: values set must be empty for exists and does not exist")
    errs += [f"values[{i}][{key}]: Invalid value: {v!r}: {e}" for i, v in enumerate(values)
             for e in label_value_errors(v)]  # fmt: skip
    if errs:
        raise ValueError(errs[0] if len(errs) == 1 else f"[{', '.join(errs)}]")
    return Requirement(key, _OPS[op], values).matches(labels)


def matches_no_scope(scope: Obj, obj: Obj) -> bool:
    """``MatchesNoScopeFunc``."""
    return False


def scope_selectors(quota: Mapping[str, Any]) -> list[Obj]:
    """``getScopeSelectorsFromQuota``: ``spec.scopes`` as Exists requirements, then the
    scope selector's expressions."""
    spec = quota.get("spec") or {}
    out: list[Obj] = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or ()]
    return out + list((spec.get("scopeSelector") or {}).get("matchExpressions") or ())


def matches(
    quota: Mapping[str, Any],
    obj: Obj,
    matching_resources: Callable[[Sequence[str]], list[str]],
    scope_func: ScopeFunc,
) -> bool:
    """``Matches``: the quota's ``status.hard`` names a resource the evaluator tracks, and
    ``obj`` matches every scope (ValueError from a bad selector)."""
    hard = (quota.get("status") or {}).get("hard") or {}
    found = bool(matching_resources(resource_names(hard)))
    in_scope = True
    for scope in scope_selectors(quota):
        in_scope = scope_func(scope, obj) and in_scope
    return found and in_scope


def matching_scopes(obj: Obj, selectors: Sequence[Obj], scope_func: ScopeFunc) -> list[Obj]:
    """The pod and claim evaluators' ``MatchingScopes`` loop."""
    out = []
    for sel in selectors:
        try:
            hit = scope_func(sel, obj)
        except ValueError as e:
            raise ValueError(f"error on matching scope {go_scope(sel)}: {e}") from None
        if hit:
            out.append(sel)
    return out


def uncovered_scopes(limited: Sequence[Obj], matched: Sequence[Obj]) -> list[Obj]:
    """``UncoveredQuotaScopes``: limited scopes with no matched scope of the same name."""
    names = {m.get("scopeName") for m in matched}
    return [s for s in limited if s.get("scopeName") not in names]


def calculate_usage_stats(
    options: UsageStatsOptions,
    items: Sequence[Obj],
    scope_func: ScopeFunc,
    usage_func: Callable[[Obj], ResourceList],
) -> ResourceList:
    """``CalculateUsageStats``: every asked resource starts at a DecimalSI zero, then the
    usage of each item matching ``options.scopes`` (as Exists) and the scope selector."""
    result: ResourceList = {name: _ZERO for name in options.resources}
    exprs = list((options.scope_selector or {}).get("matchExpressions") or ())
    for item in items:
        try:
            hits = [
                scope_func({"scopeName": s, "operator": "Exists"}, item) for s in options.scopes
            ]
            hits += [scope_func(sel, item) for sel in exprs]
        except ValueError:
            return result
        if all(hits):
            result = add(result, usage_func(item))
    return result


def served_resource(group_resource: str, env: Env) -> ResourceInfo | None:
    """The stored resource of ``plural[.group]`` (its storage version), or None when 1.37
    does not serve it, it is virtual, or its gates are off; a custom resource when an
    Established CRD defines it (the quota monitor discovers those too)."""
    for info in resources.RESOURCES.values():
        if info.group_resource == group_resource and not info.virtual:
            stored = conversion.storage_info(info)
            if all(gate_enabled(env, g) for g in stored.gates):
                return stored
    return _custom_resource(group_resource, env) if "." in group_resource else None


def _custom_resource(group_resource: str, env: Env) -> ResourceInfo | None:
    """The storage version of the custom resource ``plural.group``, read from its CRD."""
    plural, _, group = group_resource.partition(".")
    crd = env.ctx.lister_get(*_CRD, group_resource, None)
    spec = (crd or {}).get("spec") or {}
    conds = ((crd or {}).get("status") or {}).get("conditions") or []
    if spec.get("group") != group or (spec.get("names") or {}).get("plural") != plural or not any(
        c.get("type") == "Established" and c.get("status") == "True" for c in conds
    ):
        return None
    storage = next((v["name"] for v in spec.get("versions") or [] if v.get("storage")), None)
    if storage is None:
        return None
    kind = str((spec.get("names") or {}).get("kind") or "")
    return ResourceInfo(f"{group}/{storage}", kind, plural, spec.get("scope") == "Namespaced")


@dataclass(frozen=True)
class ObjectCountEvaluator:
    """``objectCountEvaluator``: one ``count/...`` per stored object (plus the legacy
    alias, e.g. ``configmaps``), counted on create only."""

    group_resource: str
    env: Env
    alias: str = ""
    resource_names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        names = (object_count_resource_name(self.group_resource),)
        object.__setattr__(self, "resource_names", names + ((self.alias,) if self.alias else ()))

    def constraints(self, required: Sequence[str], obj: Obj) -> str | None:
        return None

    def handles(self, operation: Operation, subresource: str, obj: Obj, old: Obj | None) -> bool:
        return not subresource and operation is Operation.CREATE

    def matches(self, quota: Obj, obj: Obj) -> bool:
        return matches(quota, obj, self.matching_resources, matches_no_scope)

    def matching_scopes(self, obj: Obj, selectors: Sequence[Obj]) -> list[Obj]:
        return []

    def uncovered_quota_scopes(self, limited: Sequence[Obj], matched: Sequence[Obj]) -> list[Obj]:
        return []

    def matching_resources(self, names: Sequence[str]) -> list[str]:
        return intersection(names, self.resource_names)

    def usage(self, obj: Obj) -> ResourceList:
        return {name: ONE for name in self.resource_names}

    def usage_stats(self, options: UsageStatsOptions) -> ResourceList:
        """Lists through ``env.ctx``; a cluster-scoped resource has no objects in a
        namespace (the lister's namespace index holds none)."""
        info = served_resource(self.group_resource, self.env)
        items: list[Obj] = []
        if info is not None and info.namespaced:
            items = self.env.ctx.list(info.api_version, info.kind, options.namespace)
        return calculate_usage_stats(options, items, matches_no_scope, self.usage)
