"""The static cost estimate of a CRD ``x-kubernetes-validations`` expression: cel-python's
parse tree walked the way cel-go's ``checker/cost.go`` walks the checked AST (macros as
cel-go expands them; ``has()`` free, as the base environment's
``PresenceTestHasCost(false)`` makes it), with the Kubernetes library's call costs
(``library.CostEstimator``) and sizes read by path from the node's CEL type
(``compilation.go``'s ``sizeEstimator``). Only the maximum is kept (cel-go's minimum never
feeds it). A shape this estimator does not model gives no estimate: it never guesses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from lark import Tree

from reference_impl.apiserver.strategies.apiextensions_cel_sizes import (
    MAP_KEY,
    MAXU,
    Decl,
    add,
    factor,
    mul,
)

__all__ = ["estimate"]

_STRING_FACTOR: Final = 0.1  # common.StringTraversalCostFactor
_REGEX_FACTOR: Final = 0.25  # common.RegexStringLengthCostFactor


class _Unsupported(Exception):
    """A shape the estimator does not model: no estimate."""


@dataclass(frozen=True)
class _E:
    """One sub-expression's estimate."""

    cost: int
    kind: str  # cel kind: string, bytes, int, uint, double, bool, null, list, map, object, dyn, ...
    path: tuple[str, ...] = ()
    size: int | None = None  # a computed size (literal, call result); None: by path or type
    decl: Decl | None = None
    elem_kind: str = "dyn"  # a list's items or a map's keys where no ``decl`` says


_SCALARS: Final = frozenset({"bool", "double", "duration", "int", "timestamp", "uint"})
_PASS: Final = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                          "unary", "member", "primary"})  # fmt: skip
_LITERALS: Final = {"INT_LIT": "int", "UINT_LIT": "uint", "FLOAT_LIT": "double", "STRING_LIT": "string",
                    "BYTES_LIT": "bytes", "BOOL_LIT": "bool", "NULL_LIT": "null"}  # fmt: skip


def _string_literal_len(text: str, escapes: bool = False) -> int:
    """A string literal's length in code points (cel-go's ``String.Size``); with
    ``escapes``, after decoding them (a raw string keeps its backslashes)."""
    raw = text[:1] in "rR"
    if raw:
        text = text[1:]
    for q in ('"""', "'''", '"', "'"):
        if len(text) >= 2 * len(q) and text.startswith(q) and text.endswith(q):
            inner = text[len(q) : -len(q)]
            if "\\" in inner:
                if not escapes:
                    raise _Unsupported("escape in literal")
                return len(inner) if raw else _decoded_len(inner)
            return len(inner)
    raise _Unsupported("literal")


# The characters an escape takes after its backslash: \xHH, \uHHHH, \UHHHHHHHH, \ooo;
# any other (\n, \\, \" ...) takes one.
_ESCAPE_LEN: Final = {"x": 3, "X": 3, "u": 5, "U": 9, "0": 3, "1": 3, "2": 3, "3": 3}


def _decoded_len(inner: str) -> int:
    i = n = 0
    while i < len(inner):
        i += 1 + _ESCAPE_LEN.get(inner[i + 1], 1) if inner[i] == "\\" and i + 1 < len(inner) else 1
        n += 1
    return n


class _Coster:
    def __init__(self, root: Decl, variables: Mapping[str, Decl] | None = None, extended: bool = False) -> None:
        self.root = root
        # None: a CRD rule's ``self``/``oldSelf``, whose size estimator reads every path
        # from the rule's type; else the environment's variables, a path from any other
        # root having no size (DRA's ``sizeEstimator``).
        self.variables = variables
        # The Kubernetes library calls and dyn operands the DRA environment's checks need.
        self.extended = extended
        self.locals: list[tuple[str, _E]] = []

    def _by_path(self, path: tuple[str, ...]) -> Decl | None:
        if not path:
            return None
        node: Decl | None = self.root if self.variables is None else self.variables.get(path[0])
        for name in path[1:]:
            if node is None:
                return None
            if name == "@keys":
                node = (node.key or MAP_KEY) if node.kind == "map" else None
            elif name in ("@items", "@values"):
                node = node.elem
            elif name in node.fields:
                node = node.fields[name]
            else:
                node = node.elem if node.by_name else None
        return node

    def size(self, e: _E) -> int:
        """``sizeOrUnknown`` (maximum): computed, by path, scalar, else unknown."""
        if e.size is not None:
            return e.size
        d = self._by_path(e.path)
        if d is not None:
            return d.max_elements
        if e.kind in _SCALARS:
            return 1
        return MAXU

    def node(self, t: Any) -> _E:
        if not isinstance(t, Tree):
            raise _Unsupported(str(t))
        kids = [k for k in t.children if k is not None]
        fn = getattr(self, f"n_{t.data}", None)
        if fn is not None:
            out: _E = fn(kids)
            return out
        if t.data in _PASS and len(kids) == 1:
            return self.node(kids[0])
        raise _Unsupported(t.data)

    # operators -------------------------------------------------------------------------
    def n_expr(self, kids: list[Any]) -> _E:
        if len(kids) == 1:
            return self.node(kids[0])
        c, a, b = (self.node(k) for k in kids)
        kind = a.kind if a.kind == b.kind else "dyn"
        size = max(self.size(a), self.size(b))
        return _E(add(c.cost, max(a.cost, b.cost)), kind, size=size)

    def _logical(self, kids: list[Any]) -> _E:
        if len(kids) == 1:
            return self.node(kids[0])
        a, b = self.node(kids[0]), self.node(kids[1])
        return _E(add(a.cost, b.cost), "bool")

    n_conditionalor = _logical
    n_conditionaland = _logical

    def n_relation(self, kids: list[Any]) -> _E:
        if len(kids) == 1:
            return self.node(kids[0])
        op = kids[0].data
        a, b = self.node(kids[0].children[0]), self.node(kids[1])
        args = add(a.cost, b.cost)
        if op == "relation_in":
            if b.kind == "list":
                return _E(add(factor(self.size(b), 1), args), "bool")
            if b.kind == "map":
                return _E(add(1, args), "bool")
            if b.kind == "dyn" and self.extended:  # in_list and in_map: the costlier
                return _E(add(max(self.size(b), 1), args), "bool")
            raise _Unsupported("in")
        if op in ("relation_eq", "relation_ne") or (a.kind == b.kind and a.kind in ("string", "bytes")):
            return _E(add(factor(min(self.size(a), self.size(b)), _STRING_FACTOR), args), "bool")
        if "dyn" in (a.kind, b.kind):
            other = b.kind if a.kind == "dyn" else a.kind
            if self.extended and other in ("int", "uint", "double"):
                return _E(add(1, args), "bool")  # only numeric overloads remain
            if self.extended and other in ("string", "bytes", "dyn"):
                # The string (and bytes) overloads cost a traversal of the shorter; with
                # two dyn operands the numeric ones (1) join the union.
                c = factor(min(self.size(a), self.size(b)), _STRING_FACTOR)
                return _E(add(max(c, 1) if other == "dyn" else c, args), "bool")
            raise _Unsupported("dyn ordering")
        return _E(add(1, args), "bool")

    def n_addition(self, kids: list[Any]) -> _E:
        if len(kids) == 1:
            return self.node(kids[0])
        op = kids[0].data
        a, b = self.node(kids[0].children[0]), self.node(kids[1])
        args = add(a.cost, b.cost)
        if op == "addition_add" and a.kind == b.kind and a.kind in ("string", "bytes", "list"):
            size = add(self.size(a), self.size(b))
            if a.kind == "list":
                return _E(add(1, args), "list", size=size)
            return _E(add(factor(size, _STRING_FACTOR), args), a.kind, size=size)
        numeric = self._numeric_with_dyn(a, b)
        if numeric is not None:
            return _E(add(1, args), numeric)
        if a.kind != b.kind or a.kind not in ("int", "uint", "double"):
            raise _Unsupported("addition")
        return _E(add(1, args), a.kind)

    def _numeric_with_dyn(self, a: _E, b: _E) -> str | None:
        """Arithmetic on a dyn and a number: only that number's overloads remain, each
        costing 1 (the DRA environment's attributes are dyn)."""
        if self.extended and "dyn" in (a.kind, b.kind):
            other = b.kind if a.kind == "dyn" else a.kind
            if other in ("int", "uint", "double"):
                return other
        return None

    def n_multiplication(self, kids: list[Any]) -> _E:
        if len(kids) == 1:
            return self.node(kids[0])
        a, b = self.node(kids[0].children[0]), self.node(kids[1])
        numeric = self._numeric_with_dyn(a, b)
        if numeric is not None:
            return _E(add(1, add(a.cost, b.cost)), numeric)
        if a.kind != b.kind or a.kind not in ("int", "uint", "double"):
            raise _Unsupported("multiplication")
        return _E(add(1, add(a.cost, b.cost)), a.kind)

    def n_unary(self, kids: list[Any]) -> _E:
        if len(kids) == 1:
            return self.node(kids[0])
        negate = kids[0].data == "unary_not"
        lit = _unwrap(kids[1])
        number = isinstance(lit, Tree) and lit.data == "literal" and getattr(lit.children[0], "type", "") in _NUMBERS
        if not negate and number:
            return self.node(lit)  # cel-go's parser folds a negated number into the literal
        a = self.node(kids[1])
        if self.extended and a.kind == "dyn":  # every overload costs 1
            return _E(add(1, a.cost), "bool" if negate else "dyn")
        if (negate and a.kind != "bool") or (not negate and a.kind not in ("int", "double")):
            raise _Unsupported("unary")
        return _E(add(1, a.cost), a.kind)

    # leaves ----------------------------------------------------------------------------
    def n_literal(self, kids: list[Any]) -> _E:
        tok = kids[0]
        kind = _LITERALS.get(tok.type)
        if kind is None:
            raise _Unsupported(tok.type)
        text = str(tok)
        if kind == "bytes":
            size = _string_literal_len(text[1:])  # b"...": its length in bytes (ASCII only here)
            if not text[1:].isascii():
                raise _Unsupported("bytes literal")
        else:
            size = _string_literal_len(text, self.extended) if kind == "string" else 1
        return _E(0, kind, size=size)

    def n_ident(self, kids: list[Any]) -> _E:
        name = str(kids[0])
        for var, e in reversed(self.locals):
            if var == name:
                return _E(1, e.kind, e.path, e.size, e.decl)
        if self.variables is None and name in ("self", "oldSelf"):
            return _E(1, _kind(self.root), (name,), None, self.root)
        if self.variables is not None and name in self.variables:
            return _E(1, _kind(self.variables[name]), (name,), None, self.variables[name])
        raise _Unsupported(name)

    def n_paren_expr(self, kids: list[Any]) -> _E:
        return self.node(kids[0])

    def n_list_lit(self, kids: list[Any]) -> _E:
        items = [self.node(k) for k in kids[0].children] if kids else []
        kinds = {i.kind for i in items}
        elem = kinds.pop() if len(kinds) == 1 else "dyn"
        return _E(add(10, sum(i.cost for i in items)), "list", size=len(items), elem_kind=elem)

    def n_map_lit(self, kids: list[Any]) -> _E:
        items = [self.node(k) for k in kids[0].children] if kids else []
        kinds = {i.kind for i in items[0::2]}
        key = kinds.pop() if len(kinds) == 1 else "dyn"
        return _E(add(30, sum(i.cost for i in items)), "map", size=len(items) // 2, elem_kind=key)

    # selection -------------------------------------------------------------------------
    def n_member_dot(self, kids: list[Any]) -> _E:
        base, name = self.node(kids[0]), str(kids[1])
        d = base.decl
        if base.kind == "object" and d is not None:
            if name not in d.fields:
                raise _Unsupported(f"field {name}")
            ft = d.fields[name]
            return _E(add(base.cost, 1), _kind(ft), (*base.path, name), None, ft)
        if base.kind == "map" and d is not None and d.elem is not None:
            # A map entry by name: its path names no field, so its size is not read by path.
            return _E(add(base.cost, 1), _kind(d.elem), (*base.path, name), None, d.elem)
        raise _Unsupported("select")

    def n_member_index(self, kids: list[Any]) -> _E:
        base, idx = self.node(kids[0]), self.node(kids[1])
        d = base.decl
        if base.kind in ("list", "map") and d is not None and d.elem is not None:
            sub = "@items" if base.kind == "list" else "@values"
            path = (*base.path, sub)
            return _E(add(1, add(base.cost, idx.cost)), _kind(d.elem), path, None, d.elem)
        raise _Unsupported("index")

    def n_ident_arg(self, kids: list[Any]) -> _E:
        name = str(kids[0])
        args = list(kids[1].children) if len(kids) > 1 else []
        if name == "has" and len(args) == 1:
            sel = _unwrap(args[0])
            if isinstance(sel, Tree) and sel.data == "member_dot":
                # The base environment sets PresenceTestHasCost(false): only the operand costs.
                return _E(self.node(sel.children[0]).cost, "bool")
            raise _Unsupported("has")
        ests = [self.node(a) for a in args]
        cost = sum(e.cost for e in ests)
        sized = ("string", "bytes", "list", "map", "dyn") if self.extended else ("string", "bytes", "list", "map")
        if name == "size" and len(ests) == 1 and ests[0].kind in sized:
            return _E(add(1, cost), "int")
        if name == "string" and len(ests) == 1 and ests[0].kind in ("string", "int", "uint", "double", "bool"):
            return _E(add(1, cost), "string")
        if name in ("int", "double") and len(ests) == 1 and ests[0].kind in ("int", "uint", "double"):
            return _E(add(1, cost), name)
        if self.extended and name in ("int", "uint", "double") and len(ests) == 1 and ests[0].kind == "string":
            return _E(add(1, cost), name)  # a conversion: cel-go's default call cost
        if self.extended and name in _PARSERS and len(ests) in (1, 2) and ests[0].kind in ("string", "dyn"):
            return _E(add(factor(self.size(ests[0]), _STRING_FACTOR), cost), _PARSERS[name])
        raise _Unsupported(name)

    def n_member_dot_arg(self, kids: list[Any]) -> _E:
        name = str(kids[1])
        args = list(kids[2].children) if len(kids) > 2 else []
        if name in _MACROS and len(args) == 2:
            var = _unwrap(args[0])
            if isinstance(var, Tree) and var.data == "ident":
                return self._comprehension(name, self.node(kids[0]), str(var.children[0]), args[1])
        if self.extended and name == "bind" and len(args) == 3 and _is_ident(kids[0], "cel"):
            return self._bind(args)
        target = self.node(kids[0])
        ests = [self.node(a) for a in args]
        argc = add(target.cost, sum(e.cost for e in ests))
        tk = target.kind
        if self.extended:
            if name in _QUANTITY_SEMVER and tk in ("quantity", "semver", "dyn"):
                return _E(add(1, argc), _QUANTITY_SEMVER[name] or tk)
            if name == "includes" and len(ests) == 1 and tk == "dyn":  # a list under dyn: 1 per item
                return _E(add(self.size(target), argc), "bool")
            if name in _LIST_SCANS and tk == "dyn":  # no element type: charged as a string
                kind = {"isSorted": "bool", "indexOf": "int", "lastIndexOf": "int"}.get(name, "dyn")
                return _E(add(factor(self.size(target), _STRING_FACTOR), argc), kind)
            if name == "size" and not ests and tk == "dyn":  # every overload costs 1
                return _E(add(1, argc), "int")
            if tk in ("string", "dyn") and name in _STRING_ONLY:
                # The only overloads take strings: the checker picks them for dyn operands.
                tk = "string"
                ests = [replace(e, kind="string") if e.kind == "dyn" else e for e in ests]
        if tk == "string" and name in ("lowerAscii", "upperAscii", "trim") and not ests:
            sz = self.size(target)
            return _E(add(factor(sz, _STRING_FACTOR), argc), "string", size=sz)
        if tk == "string" and name == "contains" and len(ests) == 1 and ests[0].kind == "string":
            c = mul(factor(self.size(target), _STRING_FACTOR), factor(self.size(ests[0]), _STRING_FACTOR))
            return _E(add(c, argc), "bool")
        if tk == "string" and name in ("startsWith", "endsWith") and len(ests) == 1 and ests[0].kind == "string":
            return _E(add(factor(self.size(ests[0]), _STRING_FACTOR), argc), "bool")
        if tk == "string" and name == "matches" and len(ests) == 1 and ests[0].kind == "string":
            c = mul(factor(add(self.size(target), 1), _STRING_FACTOR), factor(self.size(ests[0]), _REGEX_FACTOR))
            return _E(add(c, argc), "bool")
        if name == "size" and not ests and tk in ("string", "bytes", "list", "map"):
            return _E(add(1, argc), "int")
        if tk == "string" and name == "find" and len(ests) == 1 and ests[0].kind == "string":
            sz = self.size(target)
            c = mul(factor(add(sz, 1), _STRING_FACTOR), factor(self.size(ests[0]), _REGEX_FACTOR))
            return _E(add(c, argc), "string", size=sz)
        if tk == "string" and name == "split" and len(ests) in (1, 2) and ests[0].kind == "string":
            sz = self.size(target)
            limit = _int_literal(args[1]) if len(args) == 2 else None
            return _E(add(factor(sz, 2 * _STRING_FACTOR), argc), "list", size=sz if limit is None else limit,
                      elem_kind="string")
        if tk == "list" and name == "join" and len(ests) <= 1:
            items = self._items(target)
            n = self.size(target)
            sz = mul(n, self.size(items))
            if ests:
                sz = add(sz, mul(self.size(ests[0]), max(n - 1, 0)))
            return _E(add(factor(sz, _STRING_FACTOR), argc), "string", size=sz)
        if name in _LIST_SCANS and tk == "list":
            items = self._items(target)
            each = add(1, factor(self.size(items), _STRING_FACTOR)) if items.kind in ("string", "bytes") else 1
            kind = {"isSorted": "bool", "indexOf": "int", "lastIndexOf": "int", "includes": "bool"}.get(name, items.kind)
            return _E(add(mul(self.size(target), each), argc), kind)
        if name in ("indexOf", "lastIndexOf") and tk == "string" and ests and ests[0].kind == "string":
            return _E(add(factor(self.size(target), _STRING_FACTOR), argc), "int")
        if tk in ("timestamp", "duration") and name in _TIME_GETTERS and not ests:
            return _E(add(1, argc), "int")
        raise _Unsupported(name)

    def _bind(self, args: list[Any]) -> _E:
        """``cel.bind(v, init, expr)`` as the bindings macro expands it: a comprehension over
        an empty list whose accumulator ``v`` starts as ``init`` and whose result is
        ``expr``; ``v`` has the path ``[v]``, which no variable roots."""
        var = _unwrap(args[0])
        if not (isinstance(var, Tree) and var.data == "ident"):
            raise _Unsupported("bind")
        init = self.node(args[1])
        self.locals.append((str(var.children[0]), _E(1, init.kind, (str(var.children[0]),), init.size, init.decl)))
        try:
            result = self.node(args[2])
        finally:
            self.locals.pop()
        return _E(add(add(10, init.cost), result.cost), result.kind, size=result.size)

    def _items(self, target: _E) -> _E:
        """``listElementNode``: a list's items, by path when the list has one."""
        d = target.decl
        kind = d.elem.kind if d is not None and d.elem is not None else target.elem_kind
        return _E(0, kind, (*target.path, "@items") if target.path else (), None, d.elem if d is not None else None)

    def _comprehension(self, name: str, rng: _E, var: str, body: Any) -> _E:
        """A macro as cel-go expands it: range, accumulator init, loop condition and step
        (per element), result."""
        if rng.kind == "dyn" and self.extended:
            # A dyn range gives its variable no path (cel-go adds one for lists and maps).
            it = _E(1, "dyn")
        elif rng.kind not in ("list", "map"):
            raise _Unsupported("range")
        else:
            d = rng.decl
            elem = (d.elem if rng.kind == "list" else (d.key or MAP_KEY)) if d is not None else None
            sub = "@items" if rng.kind == "list" else "@keys"
            # cel-go appends to the range's path even when it has none; the size estimator
            # then drops the first element and reads the rule's own type: so does ``size``.
            it = _E(1, elem.kind if elem is not None else rng.elem_kind, (*rng.path, sub), None, elem)
        self.locals.append((var, it))
        try:
            b = self.node(body)
        finally:
            self.locals.pop()
        n = self.size(rng)
        if name == "all":  # init true; cond @not_strictly_false(acc); step acc && p; result acc
            init, per, result, kind = 0, add(2, add(1, b.cost)), 1, "bool"
        elif name == "exists":  # init false; cond @not_strictly_false(!acc); step acc || p
            init, per, result, kind = 0, add(3, add(1, b.cost)), 1, "bool"
        elif name == "exists_one":  # init 0; cond true; step p ? acc + 1 : acc; result acc == 1
            init, per, result, kind = 0, add(b.cost, 2), 2, "bool"
        elif name == "map":  # init []; cond true; step acc + [f]; result acc
            cost = add(add(rng.cost, 10), add(1, mul(n, add(12, b.cost))))
            return _E(cost, "list", size=n, elem_kind=b.kind)
        else:  # filter: init []; cond true; step p ? acc + [x] : acc; result acc
            cost = add(add(rng.cost, 10), add(1, mul(n, add(13, b.cost))))
            return _E(cost, "list", size=n, elem_kind=it.kind)
        return _E(add(add(rng.cost, init), add(result, mul(n, per))), kind)


_NUMBERS: Final = ("INT_LIT", "FLOAT_LIT")
# The list functions the Kubernetes library charges per element (and per character of
# string elements).
_LIST_SCANS: Final = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"})


def _int_literal(t: Any) -> int | None:
    lit = _unwrap(t)
    if isinstance(lit, Tree) and lit.data == "literal" and getattr(lit.children[0], "type", "") == "INT_LIT":
        try:
            return int(str(lit.children[0]), 0)
        except ValueError:
            return None
    return None
# The getters of timestamps and durations (one overload each without a time zone).
_TIME_GETTERS: Final = frozenset(
    "getDate getDayOfMonth getDayOfWeek getDayOfYear getFullYear getHours getMilliseconds getMinutes getMonth "
    "getSeconds".split()
)
_MACROS: Final = frozenset({"all", "exists", "exists_one", "map", "filter"})
# The Kubernetes library's quantity and semver parsers (cost: a traversal of the string)
# and methods (cost 1 each; None: the target's type), ``library.CostEstimator``.
_PARSERS: Final = {"quantity": "quantity", "isQuantity": "bool", "semver": "semver", "isSemver": "bool"}
_QUANTITY_SEMVER: Final[dict[str, str | None]] = {
    "sign": "int", "asInteger": "int", "isInteger": "bool", "asApproximateFloat": "double",
    "isGreaterThan": "bool", "isLessThan": "bool", "compareTo": "int", "add": "quantity", "sub": "quantity",
    "major": "int", "minor": "int", "patch": "int",
}  # fmt: skip
# String methods with no list or map overload.
_STRING_ONLY: Final = frozenset({"lowerAscii", "upperAscii", "trim", "contains", "startsWith", "endsWith", "matches",
                                 "find", "split"})  # fmt: skip


def _is_ident(t: Any, name: str) -> bool:
    u = _unwrap(t)
    return isinstance(u, Tree) and u.data == "ident" and str(u.children[0]) == name


def _kind(d: Decl) -> str:
    return d.kind


def _unwrap(t: Any) -> Any:
    while isinstance(t, Tree) and t.data in _PASS and len(t.children) == 1:
        t = t.children[0]
    return t


def estimate(tree: Any, root: Decl, variables: Mapping[str, Decl] | None = None, extended: bool = False) -> int | None:
    """The estimated maximum cost of a parsed expression whose ``self`` has type ``root``
    (``EstimateCost``'s ``Max``), or None where this estimator has no exact answer. With
    ``variables`` (and ``extended`` for the DRA environment's library) the expression's
    variables are those instead of ``self``/``oldSelf``."""
    try:
        return _Coster(root, variables, extended).node(tree).cost
    except (_Unsupported, RecursionError):
        return None
