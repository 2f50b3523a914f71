"""Write-time type checking and cost estimation of DRA CEL expressions.

cel-python parses and evaluates but has no checker, so this walks its parse tree the way
cel-go's checker and cost estimator do for the DRA environment
(``k8s.io/dynamic-resource-allocation/cel``): ``device`` is the only variable, with
``driver`` (string), ``attributes`` (map of domain to map of name to dyn), ``capacity``
(map of domain to map of name to Quantity) and ``allowMultipleAllocations`` (bool). An
undeclared identifier or an unknown ``device`` field does not compile; the result type
must be bool or dyn for a selector, a scalar (or a list of scalars) for a derived
attribute. The cost is an estimate in cel-go's units: each node costs about one unit and a
comprehension multiplies its body by the largest size its range can have (the list
literal's length, or the declared maxima: 32 attributes per domain, 64 list values), so
nested loops cross the 1,000,000 limit where cel-go's do. Validation uses this rough cost
only where ``cel_cost`` (cel-go's exact estimate) does not model the expression.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from lark import Token, Tree

_T = Tree[Any]

__all__ = ["CheckError", "Checked", "check"]

_MACROS: Final = frozenset({"all", "exists", "exists_one", "map", "filter"})
_BOOL_FNS: Final = frozenset({"startsWith", "endsWith", "contains", "matches", "isGreaterThan",
                              "isLessThan", "includes", "has", "isSorted", "isQuantity", "isSemver"})
_RETURNS: Final[dict[str, str]] = {
    "size": "int", "compareTo": "int", "asInteger": "int", "int": "int", "uint": "uint",
    "double": "double", "string": "string", "bool": "bool", "asApproximateFloat": "double",
    "lowerAscii": "string", "upperAscii": "string", "trim": "string", "replace": "string",
    "find": "string", "substring": "string", "join": "string", "indexOf": "int",
    "lastIndexOf": "int", "quantity": "kubernetes.Quantity", "add": "kubernetes.Quantity", "sub": "kubernetes.Quantity",
    "semver": "kubernetes.Semver", "major": "int", "minor": "int", "patch": "int",
    "split": "list(string)", "findAll": "list(string)", "sum": "dyn", "min": "dyn", "max": "dyn",
}
# Every function of the DRA environment (CEL's standard library, the strings, sets, lists,
# regex, URL, IP/CIDR, format, quantity and semver libraries); any other is undeclared.
_KNOWN_FNS: Final = frozenset({
    "size", "has", "int", "uint", "double", "string", "bool", "bytes", "type", "dyn", "duration",
    "timestamp", "matches", "startsWith", "endsWith", "contains", "exists", "all", "exists_one",
    "map", "filter", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getFullYear",
    "getHours", "getMilliseconds", "getMinutes", "getMonth", "getSeconds", "charAt", "indexOf",
    "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim", "join",
    "format", "quote", "reverse", "isSorted", "sum", "min", "max", "find", "findAll", "url", "isURL",
    "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery", "ip", "isIP",
    "cidr", "isCIDR", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
    "isLinkLocalUnicast", "isGlobalUnicast", "containsIP", "containsCIDR", "masked", "prefixLength",
    "quantity", "isQuantity", "sign", "isGreaterThan", "isLessThan", "compareTo", "add", "sub",
    "isInteger", "asInteger", "asApproximateFloat", "semver", "isSemver", "major", "minor", "patch",
    "includes", "sets.contains", "sets.equivalent", "sets.intersects", "transformList",
    "transformMap", "transformMapEntry", "existsOne", "distinct", "flatten", "range", "slice",
    "sort", "sortBy", "first", "last", "optional.of", "optional.none", "optional.ofNonZeroValue",
    "value", "hasValue", "or", "orValue",
})
_PRIMITIVES: Final = frozenset({"int", "uint", "double", "string", "bool", "bytes"})
_DEVICE_FIELDS: Final[dict[str, str]] = {
    "driver": "string", "attributes": "map(string, map(string, dyn))",
    "capacity": "map(string, map(string, kubernetes.Quantity))", "allowMultipleAllocations": "bool",
}
_SIZES: Final[dict[str, int]] = {"map(string, map(string, dyn))": 32, "map(string, dyn)": 32,
                                 "map(string, map(string, kubernetes.Quantity))": 32, "map(string, kubernetes.Quantity)": 32}
_DYN_SIZE: Final = 64  # max(DeviceAttributeMaxValueLength, ResourceSliceMaxAttributeValuesPerDevice)


class CheckError(Exception):
    """The expression does not type-check (cel-go: ``compilation failed: ...``)."""


@dataclass(frozen=True)
class Checked:
    type: str  # cel-go's type name: bool, int, string, dyn, list(int), map(string, int)...
    cost: int
    size: int = 0  # the most elements a list or map value can have (0: unknown)


def _elem(t: str) -> str:
    if t.startswith("list(") and t.endswith(")"):
        return t[5:-1]
    if t.startswith("map(") and t.endswith(")"):
        depth = 0
        for i, ch in enumerate(t[4:-1]):
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                return t[4 + i + 2:-1]
    return "dyn"


def _map_key(t: str) -> str:
    """The key type of ``map(K, V)``."""
    depth = 0
    for i, ch in enumerate(t[4:-1]):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            return t[4:4 + i]
    return "dyn"


def _key(t: str) -> str:
    return "string" if t.startswith("map(") else _elem(t)


class _Checker:
    def __init__(self) -> None:
        self.scopes: list[dict[str, str]] = [{}]

    def ident(self, name: str, tok: Any) -> Checked:
        for scope in reversed(self.scopes):
            if name in scope:
                return Checked(scope[name], 1)
        if name == "device":
            return Checked("kubernetes.DRADevice", 1)
        line, col = getattr(tok, "line", 1), getattr(tok, "column", 1)
        raise CheckError(f"ERROR: <input>:{line}:{col}: undeclared reference to '{name}' (in container '')")

    def node(self, t: Any) -> Checked:
        if isinstance(t, Token):
            return Checked("dyn", 0)
        kids = [k for k in t.children if k is not None]
        fn = getattr(self, f"n_{t.data}", None)
        if fn is not None:
            out: Checked = fn(t, kids)
            return out
        if len(kids) == 1:
            return self.node(kids[0])
        return Checked("dyn", 1 + sum(self.node(k).cost for k in kids if isinstance(k, Tree)))

    def _binary(self, kids: list[Any]) -> tuple[Checked, Checked]:
        return self.node(kids[0]), self.node(kids[1])

    def n_expr(self, t: _T, kids: list[Any]) -> Checked:
        if len(kids) == 1:
            return self.node(kids[0])
        c, a, b = (self.node(k) for k in kids)
        if a.type != b.type and a.type in _PRIMITIVES and b.type in _PRIMITIVES:
            raise CheckError(f"ERROR: <input>:1:1: found no matching overload for '_?_:_' applied to "
                             f"'({c.type}, {a.type}, {b.type})'")
        typ = a.type if a.type == b.type else "dyn"
        return Checked(typ, c.cost + max(a.cost, b.cost))

    def _logical(self, op: str, kids: list[Any]) -> Checked:
        if len(kids) == 1:
            return self.node(kids[0])
        a, b = self._binary(kids)
        for x in (a, b):
            if x.type not in ("bool", "dyn"):  # cel-go checks each operand against bool
                raise CheckError(f"ERROR: <input>:1:1: expected type 'bool' but found '{x.type}'")
        return Checked("bool", a.cost + b.cost)

    def n_conditionalor(self, t: _T, kids: list[Any]) -> Checked:
        return self._logical("_||_", kids)

    def n_conditionaland(self, t: _T, kids: list[Any]) -> Checked:
        return self._logical("_&&_", kids)

    def n_relation(self, t: _T, kids: list[Any]) -> Checked:
        if len(kids) == 1:
            return self.node(kids[0])
        a, b = self.node(kids[0].children[0]), self.node(kids[1])
        op = kids[0].data
        if op in ("relation_eq", "relation_ne") and a.type != b.type and {a.type, b.type} <= _PRIMITIVES:
            name = "_==_" if op == "relation_eq" else "_!=_"
            raise CheckError(f"ERROR: <input>:1:1: found no matching overload for '{name}' applied to "
                             f"'({a.type}, {b.type})'")
        return Checked("bool", 1 + a.cost + b.cost)

    def n_addition(self, t: _T, kids: list[Any]) -> Checked:
        if len(kids) == 1:
            return self.node(kids[0])
        a, b = self.node(kids[0].children[0]), self.node(kids[1])
        typ = a.type if a.type == b.type else "dyn"
        return Checked(typ, 1 + a.cost + b.cost, a.size + b.size)

    n_multiplication = n_addition

    def n_unary(self, t: _T, kids: list[Any]) -> Checked:
        if len(kids) == 1:
            return self.node(kids[0])
        a = self.node(kids[1])
        negate = kids[0].data == "unary_not"
        if (negate and a.type in _PRIMITIVES - {"bool"}) or (not negate and a.type in ("string", "bool", "bytes")):
            raise CheckError(f"ERROR: <input>:1:1: found no matching overload for '{'!_' if negate else '-_'}' "
                             f"applied to '({a.type})'")
        return Checked("bool" if negate else a.type, 1 + a.cost)

    def n_member_dot(self, t: _T, kids: list[Any]) -> Checked:
        base, name = self.node(kids[0]), str(kids[1])
        if base.type == "kubernetes.DRADevice":
            if name not in _DEVICE_FIELDS:
                raise CheckError(f"ERROR: <input>:1:{getattr(kids[1], 'column', 1) - 1}: undefined field '{name}'")
            typ = _DEVICE_FIELDS[name]
            return Checked(typ, base.cost + 1, _SIZES.get(typ, 0))
        typ = _elem(base.type) if base.type.startswith("map(") else "dyn"
        return Checked(typ, base.cost + 1, _SIZES.get(typ, _DYN_SIZE if typ == "dyn" else 0))

    def n_member_index(self, t: _T, kids: list[Any]) -> Checked:
        base, idx = self.node(kids[0]), self.node(kids[1])
        self._index_overload(base, idx, kids[0])
        typ = _elem(base.type) if base.type.startswith(("map(", "list(")) else "dyn"
        return Checked(typ, base.cost + idx.cost + 1, _SIZES.get(typ, _DYN_SIZE if typ == "dyn" else 0))

    @staticmethod
    def _index_overload(base: Checked, idx: Checked, base_tree: Any) -> None:
        """cel-go's ``_[_]`` overloads: a map is indexed by its key type, a list by int."""
        want = _map_key(base.type) if base.type.startswith("map(") else "int" if base.type.startswith("list(") else None
        if want is None or want not in _PRIMITIVES or idx.type not in _PRIMITIVES or idx.type == want:
            return
        if want == "int" and idx.type == "uint":
            return
        meta = getattr(base_tree, "meta", None)
        line = getattr(meta, "end_line", 1) if meta is not None and not meta.empty else 1
        col = getattr(meta, "end_column", 1) if meta is not None and not meta.empty else 1
        shown = base.type.replace("dyn", "any")
        raise CheckError(f"ERROR: <input>:{line}:{col}: found no matching overload for '_[_]' applied to "
                         f"'({shown}, {idx.type})'")

    def n_member_dot_arg(self, t: _T, kids: list[Any]) -> Checked:
        args = list(kids[2].children) if len(kids) > 2 else []
        if str(kids[1]) == "bind" and len(args) == 3 and self._is_cel(kids[0]):
            return self._bind(args)
        base, name = self.node(kids[0]), str(kids[1])
        if name in _MACROS and len(args) == 2 and isinstance(args[0], Tree):
            var = self._var(args[0])
            if var is not None:
                return self._comprehension(name, base, var, args[1])
        self._declared(name, kids[1])
        costs = sum(self.node(a).cost for a in args)
        return Checked(self._returns(name, base), base.cost + costs + 1 + (base.size if name in ("matches", "find") else 0))

    def _is_cel(self, t: Any) -> bool:
        """``cel`` as the bindings macro's namespace, unless a local shadows it."""
        while isinstance(t, Tree) and len(t.children) == 1 and t.data != "ident":
            t = t.children[0]
        named = isinstance(t, Tree) and t.data == "ident" and str(t.children[0]) == "cel"
        return named and not any("cel" in scope for scope in self.scopes)

    def _bind(self, args: list[Any]) -> Checked:
        """``cel.bind(v, init, expr)`` (ext.Bindings, in the DRA environment since 1.31):
        ``expr`` with ``v`` of ``init``'s type."""
        var = self._var(args[0])
        if var is None:
            raise CheckError("ERROR: <input>:1:1: cel.bind() variable names must be simple identifiers")
        init = self.node(args[1])
        self.scopes.append({var: init.type})
        try:
            body = self.node(args[2])
        finally:
            self.scopes.pop()
        return Checked(body.type, 10 + init.cost + body.cost, body.size)

    def _declared(self, name: str, tok: Any) -> None:
        if name not in _KNOWN_FNS:
            col = getattr(tok, "column", 1) + len(name)  # cel-go points at the "("
            raise CheckError(f"ERROR: <input>:{getattr(tok, 'line', 1)}:{col}: undeclared reference to "
                             f"'{name}' (in container '')")

    def _returns(self, name: str, base: Checked | None) -> str:
        if name in _BOOL_FNS:
            return "bool"
        return _RETURNS.get(name, "dyn")

    def _var(self, t: _T) -> str | None:
        toks = [x for x in t.scan_values(lambda v: isinstance(v, Token) and v.type == "IDENT")]
        return str(toks[0]) if len(toks) == 1 else None

    def _comprehension(self, name: str, rng: Checked, var: str, body: Any) -> Checked:
        elem = _key(rng.type) if rng.type.startswith("map(") else _elem(rng.type)
        self.scopes.append({var: elem})
        try:
            b = self.node(body)
        finally:
            self.scopes.pop()
        if name in ("all", "exists", "exists_one", "filter") and b.type not in ("bool", "dyn"):
            raise CheckError(f"ERROR: <input>:1:1: expected type 'bool' but found '{b.type}'")
        n = rng.size or _DYN_SIZE
        typ = "bool" if name in ("all", "exists", "exists_one") else (
            f"list({b.type})" if name == "map" else f"list({elem})")
        return Checked(typ, rng.cost + n * (b.cost + 2), n)

    def n_ident_arg(self, t: _T, kids: list[Any]) -> Checked:
        name = str(kids[0])
        args = list(kids[1].children) if len(kids) > 1 else []
        if name == "has":
            return Checked("bool", 1)
        self._declared(name, kids[0])
        costs = sum(self.node(a).cost for a in args)
        return Checked(self._returns(name, None), costs + 1)

    def n_ident(self, t: _T, kids: list[Any]) -> Checked:
        return self.ident(str(kids[0]), kids[0])

    def n_literal(self, t: _T, kids: list[Any]) -> Checked:
        tok = kids[0]
        kind = {"INT_LIT": "int", "UINT_LIT": "uint", "FLOAT_LIT": "double", "STRING_LIT": "string",
                "MLSTRING_LIT": "string", "BYTES_LIT": "bytes", "BOOL_LIT": "bool",
                "NULL_LIT": "null_type"}.get(tok.type, "dyn")
        return Checked(kind, 0, len(str(tok)) if kind == "string" else 0)

    def n_list_lit(self, t: _T, kids: list[Any]) -> Checked:
        items = [self.node(k) for k in kids[0].children] if kids else []
        types = {i.type for i in items}
        elem = types.pop() if len(types) == 1 else "dyn"
        return Checked(f"list({elem})", 10 + sum(i.cost for i in items), len(items))

    def n_map_lit(self, t: _T, kids: list[Any]) -> Checked:
        items = [self.node(k) for k in kids[0].children] if kids else []
        keys, vals = {i.type for i in items[0::2]}, {i.type for i in items[1::2]}
        k = keys.pop() if len(keys) == 1 else "dyn"
        v = vals.pop() if len(vals) == 1 else "dyn"
        return Checked(f"map({k}, {v})", 30 + sum(i.cost for i in items), len(items) // 2)


def check(tree: Any) -> Checked:
    """The type and estimated cost of a parsed expression; CheckError when it does not check."""
    return _Checker().node(tree)
