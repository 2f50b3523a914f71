"""``cel.bind(v, init, expr)`` for cel-python, which lacks cel-go's bindings macro.

The DRA environment declares ``ext.Bindings`` since 1.31 (``k8s.io/dynamic-resource-
allocation/cel`` ``compile.go``; the apiserver's base environment, and so CRD validation
rules, do not). cel-go expands the macro to a comprehension over an empty range whose
accumulator ``v`` holds ``init``, evaluated lazily and at most once, visible in ``expr``
only and shadowing an outer ``v``.

``expand_binds`` rewrites celpy's Lark parse tree once per compiled expression: each
``cel.bind(v, init, expr)`` becomes ``[init].map(v, expr).@bind()``, which celpy evaluates
with ``v`` bound to ``init`` in ``expr``'s scope (``@bind``, the BIND_FUNCTION, takes the
only element, or passes an error in ``init`` through with its own message). A body that
never names ``v`` becomes the body alone, so its ``init`` is never evaluated, as cel-go's
lazy accumulator is never read. Left as celpy does it: a body that names ``v`` evaluates
``init`` even where cel-go would not read it (``false && v``), and an error inside the body
is raised past ``&&``/``||`` as in celpy's other macros.
"""

from __future__ import annotations

from typing import Any, Final

from celpy import celtypes
from lark import Token, Tree

__all__ = ["BIND_FUNCTION", "bind_result", "expand_binds"]

# Not a CEL identifier, so no expression can call it by name.
BIND_FUNCTION: Final = "@bind"


def bind_result(values: Any) -> Any:
    """The bound body's value: the one element ``[init].map(v, expr)`` produced."""
    if not isinstance(values, celtypes.ListType) or len(values) != 1:
        raise TypeError("cel.bind: internal rewrite produced no single value")
    return values[0]


def _unwrap(t: Any) -> Any:
    while isinstance(t, Tree) and len(t.children) == 1 and t.data not in ("ident", "literal"):
        t = t.children[0]
    return t


def _is_cel_namespace(member: Any) -> bool:
    t = _unwrap(member)
    return isinstance(t, Tree) and t.data == "ident" and str(t.children[0]) == "cel"


def _simple_ident(arg: Any) -> str | None:
    t = _unwrap(arg)
    if isinstance(t, Tree) and t.data == "ident":
        return str(t.children[0])
    return None


def _names(tree: Any, name: str) -> bool:
    """Whether ``name`` occurs as an identifier in ``tree`` (conservative: also where an
    inner macro or bind shadows it, which only costs laziness)."""
    if not isinstance(tree, Tree):
        return False
    return any(str(t.children[0]) == name for t in tree.find_data("ident"))


def expand_binds(tree: Any) -> Any:
    """``tree`` with every ``cel.bind`` rewritten (innermost first). One whose variable is
    not a simple identifier is left as it is: the write-time checker (``cel_check``)
    reports it with cel-go's message, and evaluating it fails (``bind`` is undeclared)."""
    if not isinstance(tree, Tree):
        return tree
    children = [expand_binds(c) for c in tree.children]
    if tree.data == "member_dot_arg" and len(children) == 3:
        member, method, args = children
        if (
            str(method) == "bind"
            and isinstance(args, Tree)
            and len(args.children) == 3
            and _is_cel_namespace(member)
            and _simple_ident(args.children[0]) is not None
        ):
            return _rewrite(tree, *args.children)
    return Tree(tree.data, children, tree.meta)


def _rewrite(node: Tree[Any], var_expr: Any, init: Any, body: Any) -> Tree[Any]:
    var = str(_simple_ident(var_expr))
    if not _names(body, var):
        # The accumulator is never read: yield the body's own member node.
        return _as_member_node(body, node)
    meta = node.meta
    listed = Tree("member", [Tree("primary", [Tree("list_lit", [Tree("exprlist", [init], meta)], meta)], meta)], meta)
    mapped = Tree("member_dot_arg", [listed, Token("IDENT", "map"), Tree("exprlist", [var_expr, body], meta)], meta)
    return Tree("member_dot_arg", [Tree("member", [mapped], meta), Token("IDENT", BIND_FUNCTION)], meta)


def _as_member_node(body: Any, node: Tree[Any]) -> Tree[Any]:
    # The replaced node sits under a ``member``: the body fits there parenthesized.
    return Tree("primary", [Tree("paren_expr", [body], node.meta)], node.meta)
