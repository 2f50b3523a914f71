"""An object as kube-apiserver writes it: Go's ``encoding/json`` over the typed object.

The apiserver decodes a body into Go structs and encodes its answer from them, so what
it returns differs from the JSON it was given in ways no strategy asks for: an empty
``omitempty`` value (``""``, ``0``, ``false``, ``{}``, ``[]``) is left out; a field
without ``omitempty`` is always written, as its zero value where the body had none
(``status: {}``, a nil slice as ``null``, a zero ``metav1.Time`` as ``null``); a ``null``
reads as absent. The object is read back from protobuf storage first, so an empty list
or map there is nil (``null`` without ``omitempty``). ``go_encoding.json`` (``tools/gotypes/encoding.py``, from the v1.37.2
type declarations) says, per struct field, its shape and json options.
"""

from __future__ import annotations

import base64
import json
from functools import cache
from importlib import resources
from typing import Any, Final

from reference_impl.apiserver.wire import root_definition

__all__ = ["field_table", "go_encoded", "root_definition_of"]

Obj = dict[str, Any]
_ABSENT: Final = object()
Field = tuple[str, bool, bool]  # shape, omitempty, omitzero
_SCHEMA: Final = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"


@cache
def _table() -> dict[str, dict[str, Field]]:
    text = resources.files("reference_impl.apiserver").joinpath("go_encoding.json").read_text("utf-8")
    raw: dict[str, dict[str, list[Any]]] = json.loads(text)
    return {d: {k: (str(v[0]), bool(v[1]), bool(v[2])) for k, v in fs.items()} for d, fs in raw.items()}


# The definition a kind's root schema copies, once per kind.
_root: Final = cache(root_definition)


def field_table() -> dict[str, dict[str, Field]]:
    """Per Go struct (by schema definition), each field's (shape, omitempty, omitzero)."""
    return _table()


@cache
def root_definition_of(api_version: str, kind: str) -> str:
    """The Go struct a kind's objects decode into ("" for one without, a custom resource)."""
    definition = _root(api_version, kind)
    return definition if definition in _table() else ""


def _zero(shape: str) -> Any:
    """What Go writes for a zero value of ``shape``."""
    if shape.startswith(("*", "[]", "{}")) or shape in ("any", "bytes", "struct:time", "struct:raw", "struct:schemaor"):
        return None
    if shape == "str":
        return ""
    if shape in ("int", "float", "struct:intstr"):
        return 0
    if shape == "bool":
        return False
    if shape == "struct:qty":
        return "0"
    if shape == "struct:dur":
        return "0s"
    return _struct({}, shape[len("struct:") :])


def _is_zero(v: Any, shape: str) -> bool:
    """``omitempty``'s test (structs are never empty to it)."""
    if v is None:
        return True
    if shape.startswith(("[]", "{}")) or shape == "bytes":
        return len(v) == 0
    return shape in ("str", "int", "float", "bool") and not v


def _is_byte(x: Any) -> bool:
    return x is None or (isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 256)  # null: zero


def _schema_or(v: Any) -> Any:
    """JSONSchemaPropsOr{Array,Bool,StringArray}: a schema (or a list of them) is read by
    a plain, non-strict Unmarshal, so keys JSONSchemaProps lacks are dropped."""
    if isinstance(v, dict):
        return _struct(v, _SCHEMA, lax=True)
    if isinstance(v, list):
        return [_struct(x, _SCHEMA, lax=True) if isinstance(x, dict) else x for x in v]
    return v


def _value(v: Any, shape: str, lax: bool = False) -> Any:
    """``v`` (not absent, maybe null) encoded as Go type ``shape``; ``lax``: read by a
    non-strict decoder (unknown keys dropped)."""
    if v is None:
        return _zero(shape)
    if shape.startswith("*"):
        return _value(v, shape[1:], lax)
    if shape.startswith("[]") and isinstance(v, list):
        return [_value(item, shape[2:], lax) for item in v]
    if shape.startswith("{}") and isinstance(v, dict):
        return {k: _value(item, shape[2:], lax) for k, item in v.items()}
    if shape == "bytes" and isinstance(v, list) and all(_is_byte(x) for x in v):
        return base64.b64encode(bytes(x or 0 for x in v)).decode()  # a JSON array reads as []byte
    if shape == "struct:schemaor":
        return _schema_or(v)
    if shape.startswith("struct:") and isinstance(v, dict) and shape[7:] in _table():
        return _struct(v, shape[7:], lax)
    return v


def _struct(v: Obj, definition: str, lax: bool = False) -> Obj:
    fields = _table().get(definition)
    if fields is None:
        return v
    out: Obj = {}
    for name, (shape, omitempty, omitzero) in fields.items():
        item = v.get(name, _ABSENT)
        if item is _ABSENT or item is None:
            if shape.startswith("*") or shape.startswith(("[]", "{}")) or shape in ("any", "bytes"):
                if not omitempty and not omitzero:
                    out[name] = None
                continue
            if omitzero or (omitempty and not shape.startswith("struct:")):
                continue
            out[name] = _zero(shape)
            continue
        if omitempty and _is_zero(item, shape):
            continue
        if shape.startswith(("[]", "{}")) or shape == "bytes":
            # The object is read back from protobuf storage, where an empty list or map
            # is nil: null when the field has no omitempty.
            out[name] = None if isinstance(item, list | dict | str) and not item else _value(item, shape, lax)
            continue
        out[name] = _value(item, shape, lax)
    for name, item in v.items():  # a field the table lacks: kept as written (strict decoding refused it)
        if name not in fields and not lax:
            out[name] = item
    return out


def go_encoded(obj: Obj) -> Obj:
    """``obj`` (a whole object at its apiVersion) as the apiserver would write it; an
    object of a kind without a Go struct (a custom resource) comes back as it is."""
    definition = _root(str(obj.get("apiVersion")), str(obj.get("kind")))
    return _struct(obj, definition) if definition in _table() else obj
