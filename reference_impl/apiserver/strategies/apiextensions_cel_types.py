"""The few type-checking verdicts on CRD ``x-kubernetes-validations`` rules that a
cel-python parse tree allows (cel-python has no checker): a field selected from ``self``
that the schema does not declare, a reserved word selected as a field, a comparison of a
``self`` scalar with a literal of another kind, and a rule (or messageExpression) whose
whole expression has the wrong type. Anything less certain gives no verdict."""

from __future__ import annotations

import re
from typing import Any, Final

from lark import Token, Tree

from reference_impl.apiserver.strategies.apiextensions_structural import items_schema
from reference_impl.apiserver.validation.resource.lists import as_dict

__all__ = ["type_error"]

Obj = dict[str, Any]

_WRAPPERS: Final = frozenset(
    "expr conditionalor conditionaland relation addition multiplication unary member primary".split()
)
_RESERVED: Final = frozenset("true false null in".split())
_KEYWORDS: Final = frozenset(
    "true false null in as break const continue else for function if import let loop package "
    "namespace return var void while".split()
)
_RELATIONS: Final = frozenset(f"relation_{op}" for op in "eq ne lt le gt ge".split())
_LITERALS: Final = {
    "INT_LIT": "number", "UINT_LIT": "number", "FLOAT_LIT": "number", "STRING_LIT": "string",
    "MLSTRING_LIT": "string", "BYTES_LIT": "bytes", "BOOL_LIT": "bool", "NULL_LIT": "null",
}  # fmt: skip
_SCALARS: Final = {"string": "string", "integer": "number", "number": "number", "boolean": "bool"}
# Kubernetes CEL types strings of these formats as timestamps, durations and bytes.
_STRING_FORMATS: Final = {"date": "timestamp", "date-time": "timestamp", "duration": "duration", "byte": "bytes"}
# Result kinds of methods on any receiver, and of global functions.
_METHODS: Final = {
    "size": "number", "startsWith": "bool", "endsWith": "bool", "contains": "bool", "matches": "bool",
    "lowerAscii": "string", "upperAscii": "string", "trim": "string",
}  # fmt: skip
_FUNCTIONS: Final = {"size": "number", "int": "number", "double": "number", "string": "string", "has": "bool"}
_EXPAND: Final = re.compile(r"__|[-./]|[^a-zA-Z0-9_]")


def _escape(name: str) -> str | None:
    """``cel.Escape``: the CEL field name of a property, or None when it has none."""
    if not name or name[0].isdigit():
        return None
    if name in _KEYWORDS:
        return f"__{name}__"
    table = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
    bad = False

    def sub(m: re.Match[str]) -> str:
        nonlocal bad
        if m.group(0) not in table:
            bad = True
        return table.get(m.group(0), "")

    out = _EXPAND.sub(sub, name)
    return None if bad else out


def _unwrap(t: Any) -> Any:
    while isinstance(t, Tree) and t.data in _WRAPPERS and len(t.children) == 1:
        t = t.children[0]
    return t


class _Unknown(Exception):
    """The expression selects a field its schema does not declare."""


def _closed(s: Obj) -> bool:
    """An object whose CEL type declares only its properties."""
    return s.get("type") == "object" and s.get("additionalProperties") is None


_META_TYPE: Final[Obj] = {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}


def _field(s: Obj, name: str, resource: bool) -> Obj | None:
    """The schema of field ``name`` of ``s``; raises when it surely does not exist. A
    resource (the root, an embedded resource) has string ``apiVersion`` and ``kind`` and
    a ``metadata`` of ``name`` and ``generateName`` (``WithTypeAndObjectMeta``)."""
    props = as_dict(s.get("properties"))
    if resource and name in ("apiVersion", "kind"):
        return {"type": "string"}
    if resource and name == "metadata":
        declared = as_dict(as_dict(props.get("metadata")).get("properties"))
        full = all(as_dict(declared.get(k)).get("type") == "string" for k in ("name", "generateName"))
        return as_dict(props["metadata"]) if full else _META_TYPE
    for p, sub in props.items():
        plain = {p} if p in _KEYWORDS - _RESERVED else set()
        if name == _escape(p) or name in plain:
            return as_dict(sub)
    if _closed(s):
        raise _Unknown(name)
    return None


def _resolve(t: Any, node: Obj, resource: bool) -> Obj | None:
    """The schema of the value ``t`` selects from ``self`` (None: not such a chain)."""
    t = _unwrap(t)
    if isinstance(t, Tree) and t.data == "ident" and str(t.children[0]) in ("self", "oldSelf"):
        return node
    if isinstance(t, Tree) and t.data == "member_dot":
        parent = _resolve(t.children[0], node, resource)
        if parent is None:
            return None
        at_root = parent is node and resource
        return _field(parent, str(t.children[1]), at_root or bool(parent.get("x-kubernetes-embedded-resource")))
    if isinstance(t, Tree) and t.data == "member_index":
        parent = _resolve(t.children[0], node, resource)
        return items_schema(parent) if parent is not None and parent.get("type") == "array" else None
    return None


def _kind(t: Any, node: Obj, resource: bool) -> str | None:
    """The kind (string, number, bool, bytes) of ``t`` when it is a literal or a ``self``
    scalar of a plain type."""
    u = _unwrap(t)
    if isinstance(u, Tree) and u.data == "literal" and isinstance(u.children[0], Token):
        return _LITERALS.get(str(u.children[0].type))
    if isinstance(u, Tree) and u.data in ("list_lit", "map_lit"):
        return u.data[:-4]
    if isinstance(u, Tree) and u.data == "member_dot_arg" and str(u.children[1]) in _METHODS:
        return _METHODS[str(u.children[1])]
    if isinstance(u, Tree) and u.data == "ident_arg" and str(u.children[0]) in _FUNCTIONS:
        return _FUNCTIONS[str(u.children[0])]
    s = _resolve(u, node, resource)
    if s is None or s.get("x-kubernetes-int-or-string"):
        return None
    fmt = str(s.get("format") or "")
    if s.get("type") == "string" and fmt in _STRING_FORMATS:
        return _STRING_FORMATS[fmt]
    return None if fmt else _SCALARS.get(str(s.get("type") or ""))


def type_error(tree: Any, node: Obj, resource: bool, want: str) -> str | None:
    """A compile error of the expression ``tree`` on ``node`` that needs no real type
    checker, or None; ``want`` is the result kind ("bool" or "string")."""
    try:
        for sub in tree.iter_subtrees():
            if sub.data in ("member_dot", "member_dot_arg") and str(sub.children[1]) in _RESERVED:
                return f"Syntax error: mismatched input '{sub.children[1]}' expecting IDENTIFIER"
            if sub.data == "member_dot":
                _resolve(sub, node, resource)
            op = sub.children[0] if sub.data == "relation" and len(sub.children) == 2 else None
            if isinstance(op, Tree) and op.data in _RELATIONS and op.children:
                a, b = _kind(op.children[0], node, resource), _kind(sub.children[1], node, resource)
                if a and b and a != b and "null" not in (a, b):
                    return f"found no matching overload for '{op.data}' applied to '({a}, {b})'"
        whole = _kind(tree, node, resource)
    except _Unknown as e:
        return f"undefined field '{e.args[0]}'"
    if whole is not None and whole != want:
        return "wrong result type"
    return None
