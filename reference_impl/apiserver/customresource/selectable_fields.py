"""Field selectors on custom resources (KEP-4358 ``selectableFields``, GA): the CR
strategy's ``GetAttrs`` (``pkg/registry/customresource/strategy.go`` ``selectableFields``
over ``objectMetaFieldsSet``) and ``crConverter.ConvertFieldLabel``
(``pkg/apiserver/conversion/converter.go``): metadata.name, metadata.namespace when
namespaced, and the version's selectable fields; any other label is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.errors import BadRequest

__all__ = ["convert_field_label", "field_predicate", "to_selectable_fields"]

Obj = dict[str, Any]


def _sprint(value: Any) -> str:
    """``fmt.Sprint`` of a JSON scalar (selectable fields are strings, integers or
    booleans); an absent value is ""."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def to_selectable_fields(info: CustomResourceInfo, obj: Obj) -> dict[str, str]:
    """``GetAttrs``' fields: the ObjectMeta set merged with each selectable field's value
    (a missing one reads "", as the JSONPath with ``AllowMissingKeys`` finds nothing)."""
    meta = obj.get("metadata") or {}
    out = {"metadata.name": str(meta.get("name") or "")}
    if info.namespaced:
        out["metadata.namespace"] = str(meta.get("namespace") or "")
    for name in info.selectable_fields:
        cur: Any = obj
        for part in name.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        out[name] = _sprint(cur)
    return out


def convert_field_label(info: CustomResourceInfo, label: str) -> str:
    """``crConverter.ConvertFieldLabel``: BadRequest for a label the version lacks."""
    if label == "metadata.name" or (info.namespaced and label == "metadata.namespace"):
        return label
    if label in info.selectable_fields:
        return label
    raise BadRequest(f"field label not supported: {label}")


def field_predicate(info: CustomResourceInfo, selector: str) -> Callable[[Obj], bool] | None:
    """A list/watch predicate from a client's field selector text; None selects all."""
    from reference_impl.apiserver.field_selectors import Term, matches, parse_selector

    terms = [
        Term(convert_field_label(info, t.field), t.value, t.negated)
        for t in parse_selector(selector)
    ]
    if not terms:
        return None
    return lambda obj: matches(terms, to_selectable_fields(info, obj))
