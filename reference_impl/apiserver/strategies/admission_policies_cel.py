"""Compile checks of admission policies' CEL expressions with cel-python (``celpy``).

A parse failure, or a variable the environment does not declare (``params`` without a
paramKind, ``authorizer`` in a messageExpression, ``variables`` without composition) or a
``variables.<name>`` the composition has not declared, is upstream's ``compilation failed``
Invalid. cel-python has no type checker, so type errors, unknown functions and unknown
fields are not reported, except a result type the syntax alone fixes (a literal, an
aggregate, a boolean operator, an object construction) where a mutation wants another
(``must evaluate to Object``); it also lacks CEL's optional syntax (``a.?b``, ``[?x]``,
``{?k: v}``), so such expressions are not judged."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

import celpy
from lark import Token, Tree

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["cel_causes", "cel_error", "declared", "output_type_causes"]

_ENV: Final = celpy.Environment()
_OPTIONAL: Final = re.compile(r"[.\[{,]\s*\?")
# Type names and function namespaces every admission CEL environment declares. The base
# environment (apiserver pkg/cel/environment/base.go) has no ext.Bindings, ext.Math or
# ext.Encoders, so ``cel.bind``, ``math.*`` and ``base64.*`` are undeclared references.
_ALWAYS: Final = frozenset(
    "object oldObject request namespaceObject int uint double string bool bytes list map type "
    "null_type dyn google optional strings sets lists kubernetes jsonpatch".split()
)
_MACROS: Final = frozenset(
    "all exists exists_one existsOne map filter transformList transformMap transformMapEntry bind".split()
)


class _Unsure(Exception):
    """A construct this check does not model: no verdict."""


def declared(*, params: bool, authorizer: bool, variables: bool, patch: bool = False) -> frozenset[str]:
    """The identifiers of an environment (``OptionalVariableDeclarations`` and composition)."""
    extra = {"params": params, "authorizer": authorizer, "variables": variables, "Object": patch, "JSONPatch": patch}
    return _ALWAYS | {k for k, on in extra.items() if on}


def _simple_ident(t: Any) -> str | None:
    idents = [v for v in t.scan_values(lambda v: isinstance(v, Token) and v.type == "IDENT")] if isinstance(t, Tree) else []
    leaves = [v for v in t.scan_values(lambda v: isinstance(v, Token))] if isinstance(t, Tree) else []
    return str(idents[0]) if len(idents) == 1 and len(leaves) == 1 else None


def _undeclared(t: Any, names: frozenset[str]) -> str | None:
    """The first identifier ``t`` references that ``names`` lacks."""
    if not isinstance(t, Tree):
        return None
    if t.data == "ident":
        name = str(t.children[0])
        return None if name in names else name
    if t.data in ("dot_ident", "dot_ident_arg", "member_object"):
        raise _Unsure
    if t.data == "member_dot_arg" and str(t.children[1]) in _MACROS and len(t.children) > 2:
        args = list(t.children[2].children)
        bound = {n for n in map(_simple_ident, args[:-1]) if n}
        return _first([t.children[0], *args], names | bound)
    if t.data == "ident_arg":
        return _first(t.children[1:], names)
    if t.data == "member_dot":
        return _undeclared(t.children[0], names)
    return _first(t.children, names)


def _first(kids: Any, names: frozenset[str]) -> str | None:
    for k in kids:
        found = _undeclared(k, names)
        if found:
            return found
    return None


def _first_line(e: BaseException) -> str:
    text = str(e.args[0]) if e.args else str(e)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__


def _unknown_variable(tree: Any, fields: frozenset[str]) -> str | None:
    """The first ``variables.<name>`` whose name the composition has not declared."""
    for t in tree.iter_subtrees_topdown():
        if t.data == "member_dot" and len(t.children) == 2 and str(t.children[1]) not in fields:
            base = _strip(t.children[0])
            if isinstance(base, Tree) and base.data == "ident" and str(base.children[0]) == "variables":
                return str(t.children[1])
    return None


@lru_cache(maxsize=1024)
def _error(expression: str, names: frozenset[str], fields: frozenset[str] | None) -> str | None:
    if _OPTIONAL.search(expression):
        return None
    try:
        tree = _ENV.compile(expression)
    except Exception as e:  # noqa: BLE001 - celpy raises several parse error types
        return f"compilation failed: ERROR: <input>: Syntax error: {_first_line(e)}"
    if fields is not None and "variables" in names and (field := _unknown_variable(tree, fields)):
        return f"compilation failed: ERROR: <input>: undefined field '{field}'"
    try:
        name = _undeclared(tree, names)
    except _Unsure:
        return None
    return None if name is None else f"compilation failed: ERROR: <input>: undeclared reference to '{name}' (in container '')"


def cel_causes(
    expression: str, path: str, names: frozenset[str], variables: frozenset[str] | None = None
) -> list[Cause]:
    """An Invalid at ``path`` when ``expression`` does not parse, names an undeclared variable,
    or reads a field of ``variables`` that is not among the composition's ``variables``."""
    err = cel_error(expression, names, variables)
    return [] if err is None else [fe.invalid(path, expression, err)]


def cel_error(expression: str, names: frozenset[str], variables: frozenset[str] | None = None) -> str | None:
    """``cel_causes``' detail alone (``compilation failed: ...``), for callers whose Invalid
    carries another value (a CRD rule's)."""
    return _error(expression, names, variables)


# Single-child grammar nodes that only wrap the expression below them.
_WRAPPERS: Final = frozenset(
    "expr conditionalor conditionaland relation addition multiplication unary member primary paren_expr".split()
)


def _strip(t: Any) -> Any:
    while isinstance(t, Tree) and t.data in _WRAPPERS and len(t.children) == 1 and isinstance(t.children[0], Tree):
        t = t.children[0]
    return t


def _literal_type(tok: str) -> str:
    if tok in ("true", "false"):
        return "bool"
    if tok == "null":
        return "null_type"
    if tok[-1:] in "\"'":
        return "bytes" if tok[:1] in "bB" or tok[:2].lower() in ("rb", "br") else "string"
    if tok[-1:] in "uU":
        return "uint"
    if not tok.lower().startswith("0x") and any(c in tok for c in ".eE"):
        return "double"
    return "int"


def _type_of(t: Any) -> str | None:
    """The output type of ``t`` where the syntax alone fixes it (literals, aggregates, boolean
    operators, object construction); None where only a type checker would know."""
    t = _strip(t)
    if not isinstance(t, Tree):
        return None
    kids = t.children
    if t.data in ("conditionalor", "conditionaland", "relation") and len(kids) == 2:
        return "bool"
    if t.data == "literal" and kids:
        return _literal_type(str(kids[0]))
    if t.data == "map_lit":
        return "map(dyn, dyn)" if not kids else None
    if t.data == "member_object":
        name = ".".join(str(v) for v in kids[0].scan_values(lambda v: isinstance(v, Token))) if isinstance(kids[0], Tree) else ""
        return name or None
    if t.data == "list_lit":
        elems = [_type_of(e) for e in (kids[0].children if kids and isinstance(kids[0], Tree) else [])]
        if not elems:
            return "list(dyn)"
        if None in elems:
            return None
        return f"list({elems[0]})" if len(set(elems)) == 1 else "list(<mixed>)"
    return None


def output_type_causes(expression: str, path: str, want: str) -> list[Cause]:
    """``CompileCELExpression``'s return-type check (``must evaluate to Object``): an Invalid
    at ``path`` when the syntax alone shows ``expression`` yields some type other than ``want``."""
    if _OPTIONAL.search(expression):
        return []
    try:
        got = _type_of(_ENV.compile(expression))
    except Exception:  # noqa: BLE001 - cel_causes reports parse errors
        return []
    if got is None or got == want:
        return []
    return [fe.invalid(path, expression, f"must evaluate to {want} but got {got}")]
