"""Compile checks of admission policies' CEL expressions with cel-python (``celpy``).

A parse failure, or a variable the environment does not declare (``params`` without a
paramKind, ``authorizer`` in a messageExpression, ``variables`` without composition), is
upstream's ``compilation failed`` Invalid. cel-python has no type checker, so type errors,
unknown functions and unknown fields are not reported; it also lacks CEL's optional syntax
(``a.?b``, ``[?x]``, ``{?k: v}``), so such expressions are not judged."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

import celpy
from lark import Token, Tree

from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["cel_causes", "declared"]

_ENV: Final = celpy.Environment()
_OPTIONAL: Final = re.compile(r"[.\[{,]\s*\?")
# Type names and function namespaces every Kubernetes CEL environment declares.
_ALWAYS: Final = frozenset(
    "object oldObject request namespaceObject int uint double string bool bytes list map type "
    "null_type dyn google optional cel math strings sets base64 lists kubernetes jsonpatch".split()
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


@lru_cache(maxsize=1024)
def _error(expression: str, names: frozenset[str]) -> str | None:
    if _OPTIONAL.search(expression):
        return None
    try:
        tree = _ENV.compile(expression)
    except Exception as e:  # noqa: BLE001 - celpy raises several parse error types
        return f"compilation failed: ERROR: <input>: Syntax error: {_first_line(e)}"
    try:
        name = _undeclared(tree, names)
    except _Unsure:
        return None
    return None if name is None else f"compilation failed: ERROR: <input>: undeclared reference to '{name}' (in container '')"


def cel_causes(expression: str, path: str, names: frozenset[str]) -> list[Cause]:
    """An Invalid at ``path`` when ``expression`` does not parse or names an undeclared variable."""
    err = _error(expression, names)
    return [] if err is None else [fe.invalid(path, expression, err)]
