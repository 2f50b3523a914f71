"""Models plugins/helper/normalize_score.go and component-helpers' nodeaffinity matching.

Node selector terms are compiled once per pod (values into frozensets, Gt/Lt bounds into
ints), so Filter over thousands of nodes only does set lookups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference_impl.scheduler.framework.interface import OK, NodeScore, Status

__all__ = ["CompiledTerm", "NodeSelector", "compile_terms", "default_normalize_score"]

Obj = dict[str, Any]


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> Status:
    """Scale scores so the highest becomes ``max_priority``; ``reverse`` flips them."""
    top = max((s.score for s in scores), default=0)
    for s in scores:
        if top == 0:
            s.score = max_priority if reverse else 0
            continue
        value = max_priority * s.score // top
        s.score = max_priority - value if reverse else value
    return OK


@dataclass(frozen=True, slots=True)
class _Req:
    key: str
    op: str
    values: frozenset[str]
    bound: int | None

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        if self.op == "In":
            return value is not None and value in self.values
        if self.op == "NotIn":
            return value is None or value not in self.values
        if self.op == "Exists":
            return value is not None
        if self.op == "DoesNotExist":
            return value is None
        if value is None or self.bound is None:
            return False
        try:
            n = int(value)
        except ValueError:
            return False
        return n > self.bound if self.op == "Gt" else n < self.bound


def _compile_req(expr: Obj) -> _Req:
    values = tuple(expr.get("values") or ())
    bound = None
    if expr["operator"] in ("Gt", "Lt") and len(values) == 1:
        try:
            bound = int(values[0])
        except ValueError:
            bound = None  # validation rejects this; it then matches nothing
    return _Req(expr["key"], expr["operator"], frozenset(values), bound)


@dataclass(frozen=True, slots=True)
class CompiledTerm:
    """One NodeSelectorTerm: every expression and field requirement must hold."""

    expressions: tuple[_Req, ...]
    fields: tuple[_Req, ...]

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        """Whether a node with ``labels`` and ``node_name`` satisfies the term."""
        if not self.expressions and not self.fields:
            return False  # an empty term matches no objects
        if not all(r.matches(labels) for r in self.expressions):
            return False
        return all(r.matches({"metadata.name": node_name}) for r in self.fields)


def compile_terms(terms: Sequence[Obj]) -> tuple[CompiledTerm, ...]:
    """Compile ``nodeSelectorTerms`` (or preference terms' ``preference``)."""
    return tuple(
        CompiledTerm(
            tuple(_compile_req(e) for e in t.get("matchExpressions") or ()),
            tuple(_compile_req(e) for e in t.get("matchFields") or ()),
        )
        for t in terms
    )


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """``RequiredNodeAffinity``: spec.nodeSelector AND (any required term), if present."""

    labels: tuple[tuple[str, str], ...]
    terms: tuple[CompiledTerm, ...] | None

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        """Whether the node satisfies both parts."""
        for k, v in self.labels:
            if labels.get(k) != v:
                return False
        if self.terms is None:
            return True
        return any(t.matches(labels, node_name) for t in self.terms)
