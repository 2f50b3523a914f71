"""The CEL cost limits of ``validateCustomResourceDefinitionValidation`` and
``ValidateCustomResourceDefinitionOpenAPISchema`` (upstream v1.37.2): per rule (its
estimate times the node's cardinality), per messageExpression, and per CRD schema.

The cardinality is ``CELSchemaContext``'s (``extractMaxElements``, ``childContext``),
else ``compilation.go``'s ``maxCardinality`` of the node's type; then
``getExpressionCost``, ``TotalCost.ObserveExpressionCost`` and ``getCostErrorMessage``.
The estimate itself is ``apiextensions_cel_estimate`` (the DRA estimator in
``reference_impl.dra.cel_check`` is a coarser per-node approximation for another
environment whose verdicts must not move, so this exact one stands apart)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.apiserver.strategies.apiextensions_cel_estimate import estimate
from reference_impl.apiserver.strategies.apiextensions_cel_sizes import (
    Decl,
    add,
    decl_type,
    max_cardinality,
    mul,
)
from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict
from reference_impl.errors import Cause

__all__ = [
    "STATIC_ESTIMATED_COST_LIMIT",
    "STATIC_ESTIMATED_CRD_COST_LIMIT",
    "CostScope",
    "Decl",
    "TotalCost",
    "cost_error_message",
    "decl_type",
    "expression_cost",
    "rule_max_cardinality",
]

Obj = dict[str, Any]

STATIC_ESTIMATED_COST_LIMIT: Final = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT: Final = 100_000_000


def _int(s: Obj, key: str) -> int | None:
    v = s.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _max_elements(s: Obj) -> int | None:
    """``extractMaxElements`` (None: unbounded)."""
    t = s.get("type")
    if t == "object":
        if s.get("additionalProperties") is not None:
            mp = _int(s, "maxProperties")
            return max(mp, 0) if mp is not None else None
        return 1
    if t == "array":
        mi = _int(s, "maxItems")
        return max(mi, 0) if mi is not None else None
    return 1


def rule_max_cardinality(root: Obj, path: str) -> int | None:
    """``CELSchemaContext.MaxCardinality`` of the schema node at ``path`` (a path below
    ``openAPIV3Schema`` through properties, items and additionalProperties); None:
    unbounded."""
    at = path.find("openAPIV3Schema")
    rest = path[at + len("openAPIV3Schema") :] if at >= 0 else ""
    node: Obj = root
    card: int | None = 1
    while rest:
        parent = node
        if rest.startswith(".properties["):
            tail = rest[len(".properties[") :]
            keys = [k for k in as_dict(node.get("properties")) if tail.startswith(f"{k}]")]
            if not keys:
                return None
            key = max(keys, key=len)
            node, rest = as_dict(node["properties"][key]), tail[len(key) + 1 :]
        elif rest.startswith(".items"):
            node, rest = items_schema(node) or {}, rest[len(".items") :]
        elif rest.startswith(".additionalProperties"):
            node, rest = as_dict(node.get("additionalProperties")), rest[len(".additionalProperties") :]
        else:
            return None
        m = _max_elements(parent)
        card = None if card is None or m is None else mul(card, m)
    return card


def expression_cost(max_cost: int, context_cardinality: int | None, rule_cardinality: int) -> int:
    """``getExpressionCost``: the cost times the node's bounded cardinality, else times the
    cardinality its type's minimum size allows."""
    card = context_cardinality if context_cardinality is not None else rule_cardinality
    return 0 if max_cost == 0 else mul(max_cost, card)


def _go_f(x: float) -> str:
    return f"{x:f}"


def cost_error_message(name: str, cost: int, limit: int) -> str:
    """``getCostErrorMessage``."""
    factor = float(cost) / float(limit)
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{_go_f(factor)}x"
    else:
        shown = f"{factor:.1f}x"
    return (
        f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


@dataclass
class TotalCost:
    """``TotalCost``: the schema's running total and its four most expensive expressions
    (each at least 1% of the per-CRD limit)."""

    total: int = 0
    most_expensive: list[tuple[str, int]] = field(default_factory=list)

    def observe(self, path: str, cost: int) -> None:
        """``ObserveExpressionCost``."""
        self.total = add(self.total, cost)
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT // 100:
            return
        self.most_expensive.append((path, cost))
        # Go's sort.Slice is not stable; equal costs keep their order here.
        self.most_expensive.sort(key=lambda pc: -pc[1])
        del self.most_expensive[4:]

    def causes(self, schema_path: str) -> list[Cause]:
        """The per-CRD limit's errors (after the schema walk's)."""
        if self.total <= STATIC_ESTIMATED_CRD_COST_LIMIT:
            return []
        out = [
            fe.forbidden(p, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema")
            for p, _ in self.most_expensive
        ]
        name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
        return out + [fe.forbidden(schema_path, cost_error_message(name, self.total, STATIC_ESTIMATED_CRD_COST_LIMIT))]



@dataclass
class CostScope:
    """One schema's cost bookkeeping (``RootCELContext``'s ``TotalCost``) and whether the
    per-expression limit is suppressed (an update leaving this version's schema as it was)."""

    total: TotalCost = field(default_factory=TotalCost)
    suppress: bool = False

    def rule_cost_causes(self, tree: Any, decl: Decl | None, card: int | None, rule_path: str) -> list[Cause]:
        """Estimate a compiled rule, observe it, and its per-expression error (if any)."""
        raw = estimate(tree, decl) if decl is not None else None
        if raw is None or decl is None:
            return []
        cost = expression_cost(raw, card, max_cardinality(decl.min_size))
        self.total.observe(rule_path, cost)
        if self.suppress or cost <= STATIC_ESTIMATED_COST_LIMIT:
            return []
        return [fe.forbidden(rule_path, cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT))]

    def message_cost_causes(self, tree: Any, decl: Decl | None, path: str) -> list[Cause]:
        """The same for a compiled messageExpression (its cost is not multiplied)."""
        cost = estimate(tree, decl) if decl is not None else None
        if cost is None:
            return []
        out = []
        if not self.suppress and cost > STATIC_ESTIMATED_COST_LIMIT:
            name = "estimated messageExpression cost"
            out.append(fe.forbidden(path, cost_error_message(name, cost, STATIC_ESTIMATED_COST_LIMIT)))
        self.total.observe(path, cost)
        return out
