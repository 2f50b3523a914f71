"""CustomResourceDefinition leaf rules of upstream v1.37.2
``apiextensions-apiserver/pkg/apis/apiextensions/validation``: names, printer columns,
subresources, selectable fields, deprecation warnings, and the schema walk (``SchemaHas``)
the spec rules and the update ratchets share. Paths are the internal type's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

from reference_impl.api.formats import dns1035_label_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = [
    "MAX_SELECTABLE_FIELDS",
    "column_causes",
    "deprecation_warning_errors",
    "names_causes",
    "schema_has",
    "selectable_fields_causes",
    "simple_json_path_causes",
    "subresources_causes",
]

Obj = dict[str, Any]
MAX_SELECTABLE_FIELDS: Final = 8
_COLUMN_TYPES: Final = ("boolean", "date", "integer", "number", "string")
_COLUMN_FORMATS: Final = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")
_MIXED_CASE: Final = "may have mixed case, but should otherwise match: "
# JSONSchemaProps fields holding one schema, a list of them, or a map of them.
_ONE: Final = ("not",)
_MANY: Final = ("allOf", "anyOf", "oneOf")
_MAPS: Final = ("properties", "patternProperties", "definitions")


def _children(s: Obj) -> Iterator[Obj]:
    """The sub-schemas ``SchemaHas`` visits (items as a schema or a list, bool-or-schema
    fields only when they hold a schema)."""
    items = s.get("items")
    if isinstance(items, dict):
        yield items
    else:
        yield from (x for x in as_list(items) if isinstance(x, dict))
    for k in _MANY:
        yield from (x for x in as_list(s.get(k)) if isinstance(x, dict))
    for k in (*_ONE, "additionalProperties", "additionalItems"):
        if isinstance(s.get(k), dict):
            yield s[k]
    for k in _MAPS:
        yield from (x for x in as_dict(s.get(k)).values() if isinstance(x, dict))
    yield from (x for x in as_dict(s.get("dependencies")).values() if isinstance(x, dict))


def schema_has(s: Any, pred: Callable[[Obj], bool]) -> bool:
    """``SchemaHas``: whether ``pred`` holds at some node of schema ``s``."""
    if not isinstance(s, dict):
        return False
    return pred(s) or any(schema_has(c, pred) for c in _children(s))


def _label(value: str, path: str, prefix: str = "") -> list[Cause]:
    errs = dns1035_label_errors(value.lower() if prefix else value)
    return [fe.invalid(path, value, prefix + ",".join(errs))] if value and errs else []


def names_causes(names: Obj, path: str) -> list[Cause]:
    """``ValidateCustomResourceDefinitionNames``."""
    plural, singular = str(names.get("plural") or ""), str(names.get("singular") or "")
    kind, list_kind = str(names.get("kind") or ""), str(names.get("listKind") or "")
    out = _label(plural, f"{path}.plural") + _label(singular, f"{path}.singular")
    out += _label(kind, f"{path}.kind", _MIXED_CASE) + _label(list_kind, f"{path}.listKind", _MIXED_CASE)
    for i, short in enumerate(as_list(names.get("shortNames"))):
        errs = dns1035_label_errors(str(short))
        if errs:
            out.append(fe.invalid(f"{path}.shortNames[{i}]", short, ",".join(errs)))
    if kind and kind == list_kind:
        out.append(fe.invalid(f"{path}.listKind", list_kind, "kind and listKind may not be the same"))
    for i, cat in enumerate(as_list(names.get("categories"))):
        errs = dns1035_label_errors(str(cat))
        if errs:
            out.append(fe.invalid(f"{path}.categories[{i}]", cat, ",".join(errs)))
    return out


def simple_json_path_causes(s: str, path: str) -> list[Cause]:
    """``validateSimpleJSONPath``."""
    if not s:
        return [fe.invalid(path, s, "must not be empty")]
    if s[0] != ".":
        return [fe.invalid(path, s, "must be a simple json path starting with .")]
    return []


def column_causes(col: Obj, path: str) -> list[Cause]:
    """``ValidateCustomResourceColumnDefinition`` (the path field is ``JSONPath``
    internally)."""
    out: list[Cause] = []
    if not col.get("name"):
        out.append(fe.required(f"{path}.name"))
    must = "must be one of " + ",".join(_COLUMN_TYPES)
    typ = str(col.get("type") or "")
    if not typ:
        out.append(fe.required(f"{path}.type", must))
    elif typ not in _COLUMN_TYPES:
        out.append(fe.invalid(f"{path}.type", typ, must))
    fmt = str(col.get("format") or "")
    if fmt and fmt not in _COLUMN_FORMATS:
        out.append(fe.invalid(f"{path}.format", fmt, "must be one of " + ",".join(_COLUMN_FORMATS)))
    json_path = str(col.get("jsonPath") or "")
    if not json_path:
        out.append(fe.required(f"{path}.JSONPath"))
    else:
        out += simple_json_path_causes(json_path, f"{path}.JSONPath")
    return out


def _scale_path(value: str, path: str, prefixes: tuple[str, ...], where: str) -> list[Cause]:
    errs = simple_json_path_causes(value, path)
    if errs:
        return errs
    if not value.startswith(prefixes):
        return [fe.invalid(path, value, f"should be a json path under {where}")]
    return []


def subresources_causes(sub: Any, path: str) -> list[Cause]:
    """``ValidateCustomResourceDefinitionSubresources``."""
    scale = as_dict(sub).get("scale")
    if not isinstance(scale, dict):
        return []
    out: list[Cause] = []
    for key, prefix in (("specReplicasPath", ".spec"), ("statusReplicasPath", ".status")):
        value = str(scale.get(key) or "")
        if not value:
            out.append(fe.required(f"{path}.scale.{key}"))
        else:
            out += _scale_path(value, f"{path}.scale.{key}", (prefix + ".",), prefix)
    selector = str(scale.get("labelSelectorPath") or "")
    if selector:
        out += _scale_path(
            selector, f"{path}.scale.labelSelectorPath", (".spec.", ".status."), "either .spec or .status"
        )
    return out


def deprecation_warning_errors(deprecated: bool, warning: str | None) -> list[str]:
    """``validateDeprecationWarning``: lengths are in bytes, as Go's."""
    if not deprecated and warning is not None:
        return ["can only be set for deprecated versions"]
    if warning is None:
        return []
    out: list[str] = []
    size = len(warning.encode("utf-8", "surrogatepass"))
    if size > 256:
        out.append("must be <= 256 characters long")
    if size == 0:
        out.append("must not be an empty string")
    offset = 0
    for ch in warning:
        # Python's isprintable is Go's unicode.IsPrint (letters, marks, numbers,
        # punctuation, symbols and the ASCII space).
        if not ch.isprintable():
            out.append(f"must only contain printable UTF-8 characters; non-printable character found at index {offset}")
            break
        offset += len(ch.encode("utf-8", "surrogatepass"))
    return out


class _PathError(Exception):
    pass


def _tokens(json_path: str) -> Iterator[str]:
    """The tokens of ``ValidFieldPath``'s scanner: '.', '[' and ']' alone, a single-quoted
    string whole, other runs of text between them."""
    i, n = 0, len(json_path)
    while i < n:
        c = json_path[i]
        if c == "'":
            j = i + 1
            while j < n and not (json_path[j] == "'" and json_path[j - 1] != "\\"):
                j += 1
            yield json_path[i : j + 1]
            i = j + 1
        elif c in ".[]":
            yield c
            i += 1
        else:
            j = i
            while j < n and json_path[j] not in ".[]":
                j += 1
            yield json_path[i:j]
            i = j


def _field_path(json_path: str, schema: Any) -> tuple[list[tuple[str, bool]], Any]:
    """``cel.ValidFieldPath`` without array notation: the steps (name, is-property) and
    the schema found, or ``_PathError``."""
    steps: list[tuple[str, bool]] = []
    node: Any = schema
    tokens = _tokens(json_path)
    for tok in tokens:
        if tok == "[":
            raise _PathError("array notation is not allowed")
        if tok != ".":
            raise _PathError(f"expected [ or . but got: {tok}")
        name = next(tokens, None)
        if name is None:
            raise _PathError("unexpected end of JSON path")
        s = as_dict(node)
        if "properties" in s and s["properties"] is not None:
            props = as_dict(s["properties"])
            if name not in props:
                raise _PathError("does not refer to a valid field")
            steps.append((name, True))
            node = props[name]
        elif isinstance(s.get("additionalProperties"), dict | bool):
            steps.append((name, False))
            ap = s["additionalProperties"]
            node = ap if isinstance(ap, dict) else None
        else:
            raise _PathError("does not refer to a valid field")
    return steps, node


def _printed(steps: list[tuple[str, bool]]) -> str:
    out = ""
    for name, named in steps:
        out += (f".{name}" if out else name) if named else f"[{name}]"
    return out


def selectable_fields_causes(fields: list[Any], schema: Any, path: str, allow_too_many: bool) -> list[Cause]:
    """``ValidateCustomResourceSelectableFields`` over the raw schema (the structural
    schema's types are the raw ``type`` values)."""
    out: list[Cause] = []
    seen: set[str] = set()
    for i, f in enumerate(fields):
        at = f"{path}[{i}].jsonPath"
        json_path = str(as_dict(f).get("jsonPath") or "")
        if not json_path:
            out.append(fe.required(at))
            continue
        try:
            steps, found = _field_path(json_path, schema)
        except _PathError as e:
            out.append(fe.invalid(at, json_path, f"is an invalid path: {e}"))
            continue
        if steps and steps[0] == ("metadata", True):
            out.append(fe.invalid(at, json_path, "must not point to fields in metadata"))
        if as_dict(found).get("type") not in ("string", "boolean", "integer"):
            out.append(fe.invalid(at, json_path, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
        key = _printed(steps)
        if key in seen:
            out.append(fe.duplicate(at, json_path))
        seen.add(key)
    if len(seen) > MAX_SELECTABLE_FIELDS and not allow_too_many:
        out.append(fe.too_many(path, len(seen), MAX_SELECTABLE_FIELDS))
    return out
