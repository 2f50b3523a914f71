"""Node selector terms as component-helpers' nodeaffinity matches them (``NodeSelector``,
``LazyErrorNodeSelector``): compiled once (values into frozensets, Gt/Lt bounds into ints),
so a Filter over thousands of nodes only does set lookups. Shared by the scheduler's
plugins and the PV binding rules (``pv_helpers``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.formats import label_key_errors, label_value_errors

__all__ = ["CompiledTerm", "NodeSelector", "aggregate", "compile_terms", "go_int64"]

Obj = dict[str, Any]
_INT: Final = re.compile(r"[+-]?[0-9]+")
_LABEL_OPS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def go_int64(value: str) -> int | None:
    """``strconv.ParseInt(value, 10, 64)``, None when it fails."""
    if not _INT.fullmatch(value):
        return None
    n = int(value)
    return n if -(2**63) <= n < 2**63 else None


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
        n = go_int64(value)
        if n is None:
            return False
        return n > self.bound if self.op == "Gt" else n < self.bound


def _compile_req(expr: Obj) -> _Req:
    values = tuple(expr.get("values") or ())
    bound = None
    if expr["operator"] in ("Gt", "Lt") and len(values) == 1:
        bound = go_int64(values[0])  # validation rejects others; they then match nothing
    return _Req(expr["key"], expr["operator"], frozenset(values), bound)


def _invalid(path: str, value: object, detail: str) -> str:
    shown = f'"{value}"' if isinstance(value, str) else str(value)
    return f"{path}: Invalid value: {shown}: {detail}"


def _label_req_errors(expr: Obj, path: str) -> list[str]:
    """``nodeSelectorRequirementsAsSelector`` / ``labels.NewRequirement`` parse errors."""
    key, op, vals = expr.get("key") or "", expr.get("operator"), list(expr.get("values") or ())
    if op not in _LABEL_OPS:
        return [f'{path}.operator: Unsupported value: "{op}": supported values: '
                '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"']
    errs = [_invalid(f"{path}.key", key, "; ".join(e)) for e in [label_key_errors(key)] if e]
    if op in ("In", "NotIn") and not vals:
        errs.append(_invalid(f"{path}.values", vals, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist") and vals:
        errs.append(_invalid(f"{path}.values", vals, "values set must be empty for exists and does not exist"))
    elif op in ("Gt", "Lt"):
        if len(vals) != 1:
            errs.append(_invalid(f"{path}.values", vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
        errs += [_invalid(f"{path}.values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")
                 for i, v in enumerate(vals) if go_int64(v) is None]
    errs += [_invalid(f"{path}.values[{i}][{key}]", v, "; ".join(e))
             for i, v in enumerate(vals) for e in [label_value_errors(v)] if e]
    return errs


def _field_req_errors(expr: Obj, path: str) -> list[str]:
    """``nodeSelectorRequirementsAsFieldSelector``: In / NotIn with exactly one value."""
    op, vals = expr.get("operator"), list(expr.get("values") or ())
    if op not in ("In", "NotIn"):
        return [f'{path}.operator: Unsupported value: "{op}": supported values: "In", "NotIn"']
    return [] if len(vals) == 1 else [_invalid(f"{path}.values", vals, "must have one element")]


def aggregate(errs: Sequence[str]) -> str:
    """``errors.NewAggregate(errs).Error()``: one message, or several in brackets."""
    return errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


@dataclass(frozen=True, slots=True)
class CompiledTerm:
    """One NodeSelectorTerm: every expression and field requirement must hold."""

    expressions: tuple[_Req, ...]
    fields: tuple[_Req, ...]
    errors: tuple[str, ...] = ()  # parse errors: such a term matches nothing (LazyErrorNodeSelector)

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        """Whether a node with ``labels`` and ``node_name`` satisfies the term."""
        if self.errors or (not self.expressions and not self.fields):
            return False  # an empty term matches no objects
        if not all(r.matches(labels) for r in self.expressions):
            return False
        return all(r.matches({"metadata.name": node_name}) for r in self.fields)


def compile_terms(terms: Sequence[Obj]) -> tuple[CompiledTerm, ...]:
    """Compile ``nodeSelectorTerms`` (or preference terms' ``preference``); a term's parse
    errors carry paths like ``[0].matchExpressions[1].key`` (``newNodeSelectorTerm``)."""
    out = []
    for i, t in enumerate(terms):
        exprs, fields = t.get("matchExpressions") or (), t.get("matchFields") or ()
        errs = [e for j, x in enumerate(exprs) for e in _label_req_errors(x, f"[{i}].matchExpressions[{j}]")]
        errs += [e for j, x in enumerate(fields) for e in _field_req_errors(x, f"[{i}].matchFields[{j}]")]
        out.append(CompiledTerm(
            tuple(_compile_req(e) for e in exprs), tuple(_compile_req(e) for e in fields), tuple(errs)
        ))
    return tuple(out)


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
