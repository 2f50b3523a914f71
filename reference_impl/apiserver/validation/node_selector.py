"""core ``ValidateNodeSelector`` (at least one term; label and field requirements)."""

from __future__ import annotations

from typing import Any

from reference_impl.api.formats import (
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
)
from reference_impl.apiserver.validation import field as f
from reference_impl.errors import Cause

__all__ = ["node_selector", "node_selector_term"]


def _values(rq: dict[str, Any]) -> list[str]:
    return [str(v) if v is not None else "" for v in rq.get("values") or []]


def _expression(rq: dict[str, Any], path: str, check_values: bool = True) -> list[Cause]:
    op, values, out = str(rq.get("operator") or ""), _values(rq), []
    if op in ("In", "NotIn"):
        if not values:
            out.append(f.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            out.append(f.forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            out.append(f.required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        out.append(f.invalid(f"{path}.operator", op, "not a valid selector operator"))
    key = str(rq.get("key") or "")
    out += [f.invalid(f"{path}.key", key, m) for m in label_key_errors(key)]
    for i, v in enumerate(values if check_values else []):
        out += [f.invalid(f"{path}.values[{i}]", v, m) for m in label_value_errors(v)]
    return out


def _field(rq: dict[str, Any], path: str) -> list[Cause]:
    op, values, out = str(rq.get("operator") or ""), _values(rq), []
    if op in ("In", "NotIn"):
        if len(values) != 1:
            out.append(f.required(f"{path}.values", "must be only one value when `operator` is 'In' or "
                                  "'NotIn' for node field selector"))
    else:
        out.append(f.invalid(f"{path}.operator", op, "not a valid selector operator"))
    key = str(rq.get("key") or "")
    if key != "metadata.name":
        out.append(f.invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for i, v in enumerate(values):
            out += [f.invalid(f"{path}.values[{i}]", v, m) for m in dns1123_subdomain_errors(v)]
    return out


def node_selector(sel: Any, path: str, *, values: bool = True) -> list[Cause]:
    """``ValidateNodeSelector`` (``values=False``: AllowInvalidLabelValueInRequiredNodeAffinity)."""
    terms = (sel if isinstance(sel, dict) else {}).get("nodeSelectorTerms") or []
    tp = f"{path}.nodeSelectorTerms"
    if not terms:
        return [f.required(tp, "must have at least one node selector term")]
    out: list[Cause] = []
    for i, t in enumerate(terms):
        out += node_selector_term(t if isinstance(t, dict) else {}, f"{tp}[{i}]", values=values)
    return out


def node_selector_term(t: dict[str, Any], path: str, *, values: bool = True) -> list[Cause]:
    """``ValidateNodeSelectorTerm``; ``values=False`` allows invalid label values (the
    preferred terms of node affinity)."""
    out: list[Cause] = []
    for j, rq in enumerate(t.get("matchExpressions") or []):
        out += _expression(rq if isinstance(rq, dict) else {}, f"{path}.matchExpressions[{j}]", values)
    for j, rq in enumerate(t.get("matchFields") or []):
        out += _field(rq if isinstance(rq, dict) else {}, f"{path}.matchFields[{j}]")
    return out
