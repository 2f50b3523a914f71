"""The CEL types of a CRD schema with their size bounds (``common.SchemaDeclType``, with
the apiextensions model's ``WithTypeAndObjectMeta``: ``metadata.name`` capped at 253
characters, ``generateName`` at 252), and cel-go's saturating uint64 cost arithmetic
(upstream v1.37.2; see ``apiextensions_cel_cost``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.apiserver.strategies.apiextensions_cel_types import _escape
from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list

__all__ = ["MAX_REQUEST_SIZE_BYTES", "MAXU", "MAP_KEY", "Decl", "add", "decl_type", "factor", "max_cardinality", "mul"]

Obj = dict[str, Any]

MAX_REQUEST_SIZE_BYTES: Final = 3 * 1024 * 1024  # celconfig.MaxRequestSizeBytes
MAXU: Final = 2**64 - 1
_TWO_64: Final = float(2**64)

# --- saturating uint64 arithmetic (cel-go's NoOverflow helpers) -------------------------


def add(x: int, y: int) -> int:
    return min(x + y, MAXU)


def mul(x: int, y: int) -> int:
    return min(x * y, MAXU)


def factor(x: int, f: float) -> int:
    """``multiplyByCostFactor``: ceil in float64, saturating."""
    xf = float(x)
    if xf > 0 and f > 0 and xf > float(MAXU) / f:
        return MAXU
    c = math.ceil(xf * f)
    return MAXU if c >= _TWO_64 else int(c)


# --- the schema's CEL types -------------------------------------------------------------


@dataclass(frozen=True)
class Decl:
    """``apiservercel.DeclType``: what the estimator needs of it."""

    kind: str  # object, list, map, string, bytes, int, double, bool, dyn, duration, timestamp
    max_elements: int = 0
    min_size: int = 0
    fields: dict[str, Decl] = field(default_factory=dict)
    elem: Decl | None = None
    # A map whose entries selected by name (``m.name``) have its value type's size: DRA's
    # per-domain attribute map (its ``sizeEstimator``); a CRD map's entries have none.
    by_name: bool = False
    key: Decl | None = None  # a map's key type where it has a size (DRA); else ``MAP_KEY``


# A map's key type: the shared ``StringType``, whose MaxElements is 0.
MAP_KEY: Final = Decl("string", 0, 2)
_META_NAME: Final = 253  # DNS1123SubdomainMaxLength


def _capped(existing: Obj, cap: int) -> Obj:
    ml = existing.get("maxLength")
    return {"type": "string", "maxLength": ml if isinstance(ml, int) and ml < cap else cap}


def _with_type_and_object_meta(s: Obj) -> Obj:
    """``WithTypeAndObjectMeta`` of the apiextensions model."""
    props = as_dict(s.get("properties"))
    meta_props = as_dict(as_dict(props.get("metadata")).get("properties"))
    if (
        s.get("properties") is not None
        and as_dict(props.get("kind")).get("type") == "string"
        and as_dict(props.get("apiVersion")).get("type") == "string"
        and as_dict(props.get("metadata")).get("type") == "object"
        and as_dict(props.get("metadata")).get("properties") is not None
        and as_dict(meta_props.get("name")).get("type") == "string"
        and as_dict(meta_props.get("generateName")).get("type") == "string"
    ):
        return s
    new_props = dict(props)
    new_props["kind"] = {"type": "string"}
    new_props["apiVersion"] = {"type": "string"}
    new_props["metadata"] = {
        "type": "object",
        "properties": {
            "name": _capped(as_dict(meta_props.get("name")), _META_NAME),
            "generateName": _capped(as_dict(meta_props.get("generateName")), _META_NAME - 1),
        },
    }
    return {**s, "properties": new_props}


def _nonneg(v: int) -> int:
    return max(v, 0)


def _string_request_max(s: Obj) -> int:
    """``estimateMaxStringLengthPerRequest``."""
    if s.get("x-kubernetes-int-or-string") is True:
        return MAX_REQUEST_SIZE_BYTES - 2
    return {"duration": 32, "date": 12, "date-time": 32}.get(str(s.get("format") or ""), MAX_REQUEST_SIZE_BYTES - 2)


def _int(s: Obj, key: str) -> int | None:
    v = s.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def decl_type(s: Obj, is_resource_root: bool) -> Decl | None:
    """``common.SchemaDeclType`` of a structural schema."""
    if s.get("x-kubernetes-int-or-string") is True:
        ml = _int(s, "maxLength")
        return Decl("dyn", _nonneg(ml) * 4 if ml is not None else _string_request_max(s), 1)
    if is_resource_root:
        s = _with_type_and_object_meta(s)
    t = s.get("type")
    if t == "array":
        item = items_schema(s)
        if item is None:
            return None
        elem = decl_type(item, item.get("x-kubernetes-embedded-resource") is True)
        if elem is None:
            return None
        mi = _int(s, "maxItems")
        n = _nonneg(mi) if mi is not None else (MAX_REQUEST_SIZE_BYTES - 2) // (elem.min_size + 1)
        return Decl("list", n, 2, elem=elem)
    if t == "object":
        ap = s.get("additionalProperties")
        if ap is not None:
            if not isinstance(ap, dict):
                return None
            elem = decl_type(ap, ap.get("x-kubernetes-embedded-resource") is True)
            if elem is None:
                return None
            mp = _int(s, "maxProperties")
            n = _nonneg(mp) if mp is not None else (MAX_REQUEST_SIZE_BYTES - 2) // (elem.min_size + 6)
            return Decl("map", n, 2, elem=elem)
        required = {str(r) for r in as_list(s.get("required"))}
        fields: dict[str, Decl] = {}
        min_size = 2
        for name, prop in as_dict(s.get("properties")).items():
            p = as_dict(prop)
            ft = decl_type(p, p.get("x-kubernetes-embedded-resource") is True)
            if ft is None:
                continue
            escaped = _escape(name)
            if escaped is not None:
                fields[escaped] = ft
            if name in required and p.get("default") is None:
                min_size += len(name) + ft.min_size + 4
        return Decl("object", 0, min_size, fields)
    if t == "string":
        fmt = s.get("format")
        ml = _int(s, "maxLength")
        if fmt == "byte":
            return Decl("bytes", _nonneg(ml) if ml is not None else _string_request_max(s), 2)
        if fmt == "duration":
            return Decl("duration", _string_request_max(s), 3)
        if fmt == "date":
            return Decl("timestamp", _string_request_max(s), 12)
        if fmt == "date-time":
            return Decl("timestamp", _string_request_max(s), 21)
        if ml is not None:
            return Decl("string", _nonneg(ml) * 4, 2)
        enum = as_list(s.get("enum"))
        if enum:
            return Decl("string", max([len(v) for v in enum if isinstance(v, str)] + [0]), 2)
        return Decl("string", _string_request_max(s), 2)
    return {"boolean": Decl("bool", 0, 4), "number": Decl("double", 0, 1), "integer": Decl("int", 0, 1)}.get(str(t))


def max_cardinality(min_size: int) -> int:
    """``maxCardinality`` of compilation.go."""
    return MAX_REQUEST_SIZE_BYTES // (min_size + 1)
