"""Whether a device is reachable from a node (``nodeName``, ``allNodes``, ``nodeSelector``)."""

from __future__ import annotations

from typing import Any

from reference_impl.dra.pools import DeviceInfo

__all__ = ["node_matches", "node_selector_matches"]

Obj = dict[str, Any]


def _req(expr: Obj, values: dict[str, str]) -> bool:
    key, op, vals = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or []
    have = values.get(key)
    if op == "In":
        return have is not None and have in vals
    if op == "NotIn":
        return have is None or have not in vals
    if op == "Exists":
        return have is not None
    if op == "DoesNotExist":
        return have is None
    if op in ("Gt", "Lt") and have is not None and vals:
        try:
            a, b = int(have), int(vals[0])
        except ValueError:
            return False
        return a > b if op == "Gt" else a < b
    return False


def node_selector_matches(selector: Obj, node: Obj) -> bool:
    """A core/v1 NodeSelector: any term matches (all of its expressions and fields)."""
    labels = dict(node["metadata"].get("labels") or {})
    fields = {"metadata.name": node["metadata"]["name"]}
    for term in selector.get("nodeSelectorTerms") or ():
        exprs = term.get("matchExpressions") or ()
        flds = term.get("matchFields") or ()
        if (exprs or flds) and all(_req(e, labels) for e in exprs) and all(
            _req(f, fields) for f in flds
        ):
            return True
    return False


def node_matches(d: DeviceInfo, node: Obj | None) -> bool:
    """Whether ``d`` can be used on ``node`` (None: only devices usable everywhere)."""
    if d.all_nodes:
        return True
    if node is None:
        return False
    if d.node_name is not None:
        return bool(d.node_name == node["metadata"]["name"])
    return d.node_selector is not None and node_selector_matches(d.node_selector, node)
