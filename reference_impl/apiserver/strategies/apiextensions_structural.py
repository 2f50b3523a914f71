"""Structural schemas (upstream v1.37.2 ``apiextensions-apiserver/pkg/apiserver/schema``):
``NewStructural``, ``ValidateStructural`` and the defaults' validation
(``pkg/apiserver/schema/defaulting``, in ``apiextensions_structural_defaults``).

Schemas are read in the v1 wire shape: ``items`` a schema (an array is not structural),
``additionalProperties`` a bool or a schema. Go's zero values (absent, ``false``, ``""``,
null, an empty ``enum``/``allOf``/``anyOf``/``oneOf``/``properties``) count as unset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import re2

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.resource.lists import as_dict, as_list
from reference_impl.errors import Cause

__all__ = ["RE2_OPTIONS", "StructuralResult", "go_regexp_error", "items_schema", "new_structural_error", "structural_causes"]

Obj = dict[str, Any]

_ROOT, _ITEM, _FIELD = 0, 1, 2
_JUNCTORS: Final = ("allOf", "anyOf", "oneOf")
# Fields a structural schema may not have (``validateUnsupportedFields``).
_UNSUPPORTED: Final = ("id", "$schema", "$ref", "patternProperties", "dependencies", "definitions")
# Lists whose empty value converts to Go's nil (the others stay non-nil when empty).
_NIL_WHEN_EMPTY: Final = frozenset(
    {"enum", "allOf", "anyOf", "oneOf", "properties", "x-kubernetes-list-map-keys", "x-kubernetes-validations"}
)
RE2_OPTIONS: Final = re2.Options()
RE2_OPTIONS.log_errors = False


@dataclass(slots=True)
class StructuralResult:
    """What ``validateCustomResourceDefinitionValidation`` learns from the structural
    pass: ``init_errors`` (``NewStructural`` failed; shown only when nothing else is
    wrong), ``errors`` (``ValidateStructural``, else ``ValidateDefaults``) and whether CEL
    rules may be compiled (``cel_ok``: the schema is structural and its defaults valid)."""

    init_errors: list[Cause] = field(default_factory=list)
    errors: list[Cause] = field(default_factory=list)
    cel_ok: bool = False


def go_regexp_error(pattern: str) -> str | None:
    """Why Go's ``regexp.Compile`` refuses ``pattern`` (RE2 syntax), or None."""
    if "\\C" in pattern.replace("\\\\", ""):
        return "invalid escape sequence: `\\C`"  # RE2 in C++ allows \C; Go does not
    try:
        re2.compile(pattern, options=RE2_OPTIONS)
    except Exception as e:  # noqa: BLE001 - re2 raises its own error type
        return str(e.args[0] if e.args else e)
    return None


def _set(s: Obj, key: str) -> bool:
    """Whether ``s[key]`` is set in Go terms (not the zero value)."""
    v = s.get(key)
    if v is None or v is False or v == "":
        return False
    if isinstance(v, list | dict) and not v:
        return key not in _NIL_WHEN_EMPTY
    return True


def items_schema(s: Obj) -> Obj | None:
    """The schema of ``s``'s items (``Structural.Items``)."""
    it = s.get("items")
    return it if isinstance(it, dict) else None


def _additional(s: Obj) -> Any:
    """``additionalProperties``: None when unset, else a bool or a schema."""
    ap = s.get("additionalProperties")
    return ap if isinstance(ap, bool | dict) else None


def new_structural_error(s: Obj) -> str | None:
    """``NewStructural``'s error for ``s`` (the first found)."""
    for k in _UNSUPPORTED:
        if s.get(k):  # each is unsupported only when non-empty
            return f"OpenAPIV3Schema '{k}' is not supported"
    if s.get("additionalItems") is not None:
        return "OpenAPIV3Schema 'additionalItems' is not supported"
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
    if as_list(s.get("items")):
        return "OpenAPIV3Schema 'items' must be a schema, but is an array"
    subs: list[Any] = [s.get("not"), items_schema(s), _additional(s)]
    for j in _JUNCTORS:
        subs += as_list(s.get(j))
    subs += as_dict(s.get("properties")).values()
    for sub in subs:
        if isinstance(sub, dict) and (err := new_structural_error(sub)):
            return err
    return None


def _int_or_string_pair(anyof: Any) -> bool:
    """``anyOf`` is exactly ``[{type: integer}, {type: string}]`` (nothing else set)."""
    clauses = as_list(anyof)
    if len(clauses) != 2:
        return False
    for c, t in zip(clauses, ("integer", "string"), strict=True):
        if not isinstance(c, dict) or c.get("type") != t or any(_set(c, k) for k in c if k != "type"):
            return False
    return True


def _invariants(s: Obj, lvl: int, p: str) -> list[Cause]:
    """``validateStructuralInvariants``."""
    out: list[Cause] = []
    typ = s.get("type") or ""
    items = items_schema(s)
    if typ == "array" and items is None:
        out.append(fe.required(f"{p}.items", "must be specified"))
    if items is not None:
        out += _invariants(items, _ITEM, f"{p}.items")
    props = as_dict(s.get("properties"))
    for k, v in props.items():
        out += _invariants(as_dict(v), _FIELD, f"{p}.properties[{k}]")
    ap = _additional(s)
    if ap is not None:
        if lvl == _ROOT:
            out.append(fe.forbidden(f"{p}.additionalProperties", "must not be used at the root"))
        if isinstance(ap, dict):
            out += _invariants(ap, _FIELD, f"{p}.additionalProperties")
    ios, embedded, preserve = (bool(s.get(k)) for k in (
        "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource", "x-kubernetes-preserve-unknown-fields"))  # fmt: skip
    if ios and preserve:
        out.append(fe.invalid(f"{p}.x-kubernetes-preserve-unknown-fields", True, "must be false if x-kubernetes-int-or-string is true"))
    if ios and embedded:
        out.append(fe.invalid(f"{p}.x-kubernetes-embedded-resource", True, "must be false if x-kubernetes-int-or-string is true"))
    all_of = as_list(s.get("allOf"))
    skip_first = bool(all_of) and isinstance(all_of[0], dict) and _int_or_string_pair(all_of[0].get("anyOf"))
    out += _value_validation(s, _int_or_string_pair(s.get("anyOf")), skip_first, lvl, p)
    if embedded and typ != "object":
        msg = "must be object if x-kubernetes-embedded-resource is true"
        out.append(fe.invalid(f"{p}.type", typ, msg) if typ else fe.required(f"{p}.type", msg))
    elif not typ and not ios and not preserve:
        where = {_ROOT: "at the root", _ITEM: "for specified array items", _FIELD: "for specified object fields"}
        out.append(fe.required(f"{p}.type", f"must not be empty {where[lvl]}"))
    if embedded and ap is not None:
        out.append(fe.forbidden(f"{p}.additionalProperties", "must not be used if x-kubernetes-embedded-resource is set"))
    if lvl == _ROOT and typ and typ != "object":
        out.append(fe.invalid(f"{p}.type", typ, "must be object at the root"))
    check_meta = lvl == _ROOT or embedded
    for name in ("kind", "apiVersion"):
        if name in props and check_meta and as_dict(props[name]).get("type") != "string":
            out.append(fe.invalid(f"{p}.properties[{name}].type", as_dict(props[name]).get("type", ""), "must be string"))
    if "metadata" in props:
        out += _metadata_invariants(as_dict(props["metadata"]), check_meta, lvl, f"{p}.properties[metadata]")
    if embedded and not preserve and not props:
        out.append(fe.required(f"{p}.properties", "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
    return out


def _metadata_invariants(m: Obj, check: bool, lvl: int, p: str) -> list[Cause]:
    """``validateStructuralMetadataInvariants``: at the root, only ``name`` and
    ``generateName`` may be restricted."""
    out: list[Cause] = []
    if check and m.get("type") != "object":
        out.append(fe.invalid(f"{p}.type", m.get("type", ""), "must be object"))
    if lvl == _ROOT:
        props = as_dict(m.get("properties"))
        names = set(props)
        only_names = bool(names) and names <= {"name", "generateName"}
        rest = [k for k in m if k not in ("type", "default") and _set(m, k)]
        if any(k != "properties" or not only_names for k in rest):
            out.append(fe.forbidden(p, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
    return out


def _value_validation(v: Obj, skip_any_of: bool, skip_first_all_of_any_of: bool, lvl: int, p: str) -> list[Cause]:
    """``validateValueValidation``."""
    out: list[Cause] = []
    if not skip_any_of:
        for i, c in enumerate(as_list(v.get("anyOf"))):
            out += _nested(as_dict(c), False, lvl, f"{p}.anyOf[{i}]")
    for i, c in enumerate(as_list(v.get("allOf"))):
        out += _nested(as_dict(c), skip_first_all_of_any_of and i == 0, lvl, f"{p}.allOf[{i}]")
    for i, c in enumerate(as_list(v.get("oneOf"))):
        out += _nested(as_dict(c), False, lvl, f"{p}.oneOf[{i}]")
    if isinstance(v.get("not"), dict):
        out += _nested(v["not"], False, lvl, f"{p}.not")
    pattern = v.get("pattern")
    if isinstance(pattern, str) and pattern and (err := go_regexp_error(pattern)):
        out.append(fe.invalid(f"{p}.pattern", pattern, f"must be a valid regular expression, but isn't: {err}"))
    return out


_NESTED_FORBIDDEN: Final = (
    ("type", "must be empty to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)
# Fields Go holds as pointers: set when present, whatever the value.
_POINTERS: Final = frozenset({"default", "x-kubernetes-list-type", "x-kubernetes-map-type"})


def _nested(v: Obj, skip_any_of: bool, lvl: int, p: str) -> list[Cause]:
    """``validateNestedValueValidation`` (value validations under a logic junctor)."""
    out = _value_validation(v, skip_any_of, False, lvl, p)
    if isinstance(items := items_schema(v), dict):
        out += _nested(items, False, lvl, f"{p}.items")
    props = as_dict(v.get("properties"))
    for k, sub in props.items():
        out += _nested(as_dict(sub), False, _FIELD, f"{p}.properties[{k}]")
    ap = v.get("additionalProperties")
    if ap is True or isinstance(ap, dict):  # nested, ``false`` converts to nil
        out.append(fe.forbidden(f"{p}.additionalProperties", "must be undefined to be structural"))
    for key, msg in _NESTED_FORBIDDEN:
        if v.get(key) is not None if key in _POINTERS else _set(v, key):
            out.append(fe.forbidden(f"{p}.{key}", msg))
    if "metadata" in props:
        out.append(fe.forbidden(f"{p}.properties[metadata]", "must not be specified in a nested context"))
    return out


def _completeness(v: Obj, s: Obj, sp: str, vp: str) -> list[Cause]:
    """``validateValueValidationCompleteness``: what the junctors of ``v`` restrict must
    be specified in ``s`` (the structural schema at ``sp``)."""
    out: list[Cause] = []
    if isinstance(v.get("not"), dict):
        out += _nested_completeness(v["not"], s, sp, f"{vp}.not")
    for j in ("allOf", "anyOf", "oneOf"):
        for i, c in enumerate(as_list(v.get(j))):
            out += _nested_completeness(as_dict(c), s, sp, f"{vp}.{j}[{i}]")
    return out


def _nested_completeness(v: Obj, s: Obj | None, sp: str, vp: str) -> list[Cause]:
    """``validateNestedValueValidationCompleteness``."""
    if s is None:
        return [fe.required(sp, f"because it is defined in {vp}")]
    out = _completeness(v, s, sp, vp)
    if (items := items_schema(v)) is not None:
        out += _nested_completeness(items, items_schema(s), f"{sp}.items", f"{vp}.items")
    s_props = as_dict(s.get("properties"))
    for k, sub in as_dict(v.get("properties")).items():
        if k in s_props:
            out += _nested_completeness(as_dict(sub), as_dict(s_props[k]), f"{sp}.properties[{k}]", f"{vp}.properties[{k}]")
        else:
            out.append(fe.required(f"{sp}.properties[{k}]", f"because it is defined in {vp}.properties[{k}]"))
    return out


def structural_causes(
    schema: Obj, path: str, require_pruned_defaults: bool, *, validate_defaults: bool = True
) -> StructuralResult:
    """The structural checks of the ``openAPIV3Schema`` at ``path``: ``NewStructural``,
    ``ValidateStructural``, then (unless not ``validate_defaults``, as upstream's
    ``schemaIsNonStructural``) ``ValidateDefaults``."""
    from reference_impl.apiserver.strategies.apiextensions_structural_defaults import (
        defaults_causes,
    )

    err = new_structural_error(schema)
    if err is not None:
        return StructuralResult(init_errors=[fe.invalid(path, "", err)])
    errors = _invariants(schema, _ROOT, path) + _completeness(schema, schema, path, path)
    if errors or not validate_defaults:
        return StructuralResult(errors=errors, cel_ok=not errors)
    errors = defaults_causes(schema, path, require_pruned_defaults)
    return StructuralResult(errors=errors, cel_ok=not errors)
