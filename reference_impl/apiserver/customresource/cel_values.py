"""A custom resource value as CEL sees it, after ``k8s.io/apiserver/pkg/cel/common``
``UnstructuredToVal``: the schema types the value. Numbers are doubles (an integral JSON
number too), strings of format duration, date, date-time and byte are durations,
timestamps and bytes, an object with properties (or an embedded resource, which also
shows apiVersion, kind and metadata.name/generateName) exposes only its declared
properties under their escaped names (``cel.Escape``), additionalProperties make a map
with raw keys, set and map lists are ``cel_lists``' kinds, and data the schema does not allow is an error value."""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime
from typing import Any, Final

from celpy import celtypes

from reference_impl.apiserver.customresource.cel_library_net import LibraryError
from reference_impl.apiserver.customresource.cel_lists import (
    MapList,
    ObjectMap,
    SetList,
    UnknownPreserved,
)
from reference_impl.apiserver.strategies.apiextensions_cel_types import _escape
from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list

__all__ = ["to_cel"]

Obj = dict[str, Any]
_META: Final[Obj] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}},
}
_EMBEDDED: Final[Obj] = {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": _META,
}
# strfmt.ParseDuration: Go durations plus the unit words it accepts.
_DURATION: Final = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?)\s*([a-zµμ]+)\s*$", re.IGNORECASE)
_UNITS: Final = {
    "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0,
    "w": 604800.0,
}  # fmt: skip


def _err(msg: str) -> LibraryError:
    return LibraryError(msg)


def _duration(s: str) -> Any:
    try:
        return celtypes.DurationType(s)  # Go's time.ParseDuration syntax
    except Exception:  # noqa: BLE001 - celpy raises several types for a bad duration
        pass
    m = _DURATION.match(s)  # strfmt's "<n> <unit>" form
    if m and m.group(2).lower() in _UNITS:
        return celtypes.DurationType(seconds=float(m.group(1)) * _UNITS[m.group(2).lower()])
    return _err(f"Invalid duration {s}")


def _timestamp(s: str, date_only: bool) -> Any:
    try:
        if date_only:
            d = datetime.strptime(s, "%Y-%m-%d").replace(tzinfo=UTC)
        else:
            d = datetime.fromisoformat(s.replace("z", "Z"))
            d = d if d.tzinfo else d.replace(tzinfo=UTC)
        return celtypes.TimestampType(d)
    except ValueError:
        return _err(f"Invalid {'date' if date_only else 'date-time'} formatted string {s}")


def _string(s: str, fmt: str) -> Any:
    if fmt == "duration":
        return _duration(s)
    if fmt in ("date", "date-time"):
        return _timestamp(s, fmt == "date")
    if fmt == "byte":
        try:
            return celtypes.BytesType(base64.b64decode(s, validate=True))
        except (binascii.Error, ValueError):
            return _err(f"Invalid byte formatted string {s}")
    return celtypes.StringType(s)


def _with_type_and_object_meta(props: Obj) -> Obj:
    """``WithTypeAndObjectMeta``: kind, apiVersion and metadata (name, generateName only),
    unless the properties already declare all of them."""
    meta = as_dict(props.get("metadata"))
    mprops = as_dict(meta.get("properties"))
    typed = all(
        as_dict(p).get("type") == "string"
        for p in (
            props.get("kind"),
            props.get("apiVersion"),
            mprops.get("name"),
            mprops.get("generateName"),
        )
    )
    if typed and meta.get("type") == "object":
        return props
    return {**props, **_EMBEDDED}


def _object(x: Obj, s: Obj, root: bool) -> Any:
    props = as_dict(s.get("properties"))
    if s.get("x-kubernetes-embedded-resource") or root:
        props = _with_type_and_object_meta(props)
    if props or "properties" in s:
        out: dict[Any, Any] = {}
        names = {k: _escape(k) or k for k in props}  # an unescapable name stays (compared only)
        for k, v in x.items():
            if k not in props or v is None:  # a null field of an object is absent
                continue
            val = to_cel(v, as_dict(props[k]))
            out[celtypes.StringType(names[k])] = val
            if names[k] == f"__{k}__":  # cel.Unescape finds a keyword under its own name too
                out[celtypes.StringType(k)] = val
        return ObjectMap(out, x, names)
    ap = s.get("additionalProperties")
    if isinstance(ap, dict):
        return celtypes.MapType({celtypes.StringType(k): to_cel(v, ap) for k, v in x.items()})
    return ObjectMap({}, x, {})  # no fields to read; compared as data


def _zero(items: Obj) -> Any:
    """The zero of a list's element type (``sum()`` of an empty list), where not int."""
    if items.get("type") == "number":
        return celtypes.DoubleType(0)
    if items.get("type") == "string" and items.get("format") == "duration":
        return celtypes.DurationType(0)
    return None


def to_cel(x: Any, s: Obj, root: bool = False) -> Any:
    """``UnstructuredToVal(x, s)``; ``root``: ``s`` is a resource root's schema, which also
    shows apiVersion, kind and metadata."""
    if x is None:
        return (
            None
            if s.get("nullable")
            else _err("invalid data, got null for schema with nullable=false")
        )
    if s.get("x-kubernetes-int-or-string"):
        if isinstance(x, str):
            return celtypes.StringType(x)
        if isinstance(x, int) and not isinstance(x, bool):
            return celtypes.IntType(x)
        return _err("invalid data, expected XIntOrString value to be either a string or integer")
    typ = s.get("type")
    if typ == "object":
        if not isinstance(x, dict):
            return _err("invalid data, expected a map for the provided schema with type=object")
        return _object(x, s, root)
    if typ == "array":
        if not isinstance(x, list):
            return _err("invalid data, expected an array for the provided schema with type=array")
        items = items_schema(s)
        if items is None:
            return _err("invalid array type, expected Items with a non-empty Schema")
        values = [to_cel(v, items) for v in x]
        kind = s.get("x-kubernetes-list-type")
        out: celtypes.ListType
        if kind == "set":
            out = SetList(values)
        elif kind == "map":
            keys = [str(k) for k in as_list(s.get("x-kubernetes-list-map-keys"))]
            out = MapList(values, tuple(_escape(k) or k for k in keys))
        else:
            out = celtypes.ListType(values)
        if not values and (zero := _zero(items)) is not None:
            out.zero = zero  # type: ignore[attr-defined]  # what sum() of it is
        return out
    if typ == "string":
        if not isinstance(x, str):
            return _err(f"invalid data, expected string, got {type(x).__name__}")
        return _string(x, str(s.get("format") or ""))
    if typ == "number":
        if isinstance(x, bool) or not isinstance(x, int | float):
            return _err(f"invalid data, expected float, got {type(x).__name__}")
        return celtypes.DoubleType(x)
    if typ == "integer":
        if isinstance(x, bool) or not isinstance(x, int):
            return _err(f"invalid data, expected integer, got {type(x).__name__}")
        return celtypes.IntType(x)
    if typ == "boolean":
        if not isinstance(x, bool):
            return _err(f"invalid data, expected bool, got {type(x).__name__}")
        return celtypes.BoolType(x)
    if s.get("x-kubernetes-preserve-unknown-fields"):
        return UnknownPreserved(x)
    return _err(
        f"invalid type, expected object, array, number, integer, boolean or string, or no type "
        f"with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got {typ}"
    )
