"""Kubernetes CEL library functions cel-python lacks, for CRD rules at runtime: the
cel-go ``ext.Strings`` members (charAt, indexOf, lastIndexOf, replace, split, substring,
trim, upperAscii, lowerAscii, join, reverse), the apiserver ``library.Lists`` members
(isSorted, sum, min, max, indexOf, lastIndexOf), ``ext.Lists`` slice, flatten, distinct,
sort and reverse, the ``sets`` and ``lists.range`` namespaced functions, the regex
library's find and findAll, ``string(x)`` as cel-go prints it, cross-type numeric ordering
(cel-go compares an int with a double by value), the quantity library of
``apiserver.cel_quantity``, and the URL/IP/CIDR library of ``cel_library_net``."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import cmp_to_key
from typing import Any, Final

from celpy import celtypes
from celpy.evaluation import CELEvalError

from reference_impl.apiserver.cel_quantity import QUANTITY_FUNCTIONS
from reference_impl.apiserver.customresource.cel_library_net import NET_LIBRARY, LibraryError

__all__ = ["LIBRARY", "NAMESPACES", "go_float"]

_NUM: Final = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)
_S = celtypes.StringType
_I = celtypes.IntType


def _order(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
    """An ordering operator: an int and a double compare by value; other kinds only with
    their own kind, and lists and maps not at all (no such overload)."""

    def f(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError) or isinstance(b, CELEvalError):
            return a if isinstance(a, CELEvalError) else b
        num_a, num_b = isinstance(a, _NUM), isinstance(b, _NUM)
        bool_a, bool_b = isinstance(a, celtypes.BoolType), isinstance(b, celtypes.BoolType)
        containers = isinstance(a, celtypes.ListType | celtypes.MapType)
        if num_a != num_b or bool_a != bool_b or containers:
            return CELEvalError("no such overload", TypeError)
        if num_a and type(a) is not type(b):
            return celtypes.BoolType(op(float(a), float(b)))
        try:
            return celtypes.BoolType(op(a, b))
        except TypeError:
            return CELEvalError("no such overload", TypeError)

    return f


def _index_of(target: Any, sub: Any, start: Any = None) -> Any:
    if isinstance(target, celtypes.ListType):
        return _I(next((i for i, x in enumerate(target) if _eq(x, sub)), -1))
    s, i = str(target), int(start or 0)
    if i < 0 or i > len(s):
        return LibraryError(f"index out of range: {i}", IndexError)
    return _I(s.find(str(sub), i))


def _last_index_of(target: Any, sub: Any, end: Any = None) -> Any:
    if isinstance(target, celtypes.ListType):
        return _I(max((i for i, x in enumerate(target) if _eq(x, sub)), default=-1))
    s = str(target)
    i = len(s) if end is None else int(end)
    if i < 0 or i > len(s):
        return LibraryError(f"index out of range: {i}", IndexError)
    return _I(s.rfind(str(sub), 0, i + len(str(sub))))


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, _NUM) and isinstance(b, _NUM) and not isinstance(a, celtypes.BoolType):
        return float(a) == float(b) and not isinstance(b, celtypes.BoolType)
    try:
        return type(a) is type(b) and bool(a == b)
    except TypeError:
        return False


def _replace(s: Any, old: Any, new: Any, n: Any = -1) -> Any:
    return _S(str(s).replace(str(old), str(new), int(n)))


def _split(s: Any, sep: Any, n: Any = -1) -> Any:
    n = int(n)
    if n == 0:
        return celtypes.ListType([])
    parts = list(str(s)) if str(sep) == "" else str(s).split(str(sep), n - 1 if n > 0 else -1)
    if str(sep) == "" and n > 0 and len(parts) > n:
        parts = [*parts[: n - 1], "".join(parts[n - 1 :])]
    return celtypes.ListType([_S(p) for p in parts])


def _substring(s: Any, start: Any, end: Any = None) -> Any:
    text, i = str(s), int(start)
    j = len(text) if end is None else int(end)
    if i < 0 or i > len(text) or j < i or j > len(text):
        return LibraryError(f"index out of range: {i if i < 0 or i > len(text) else j}", IndexError)
    return _S(text[i:j])


def _char_at(s: Any, i: Any) -> Any:
    text = str(s)
    if int(i) < 0 or int(i) > len(text):
        return LibraryError(f"index out of range: {int(i)}", IndexError)
    return _S(text[int(i) : int(i) + 1])


def _ascii(s: Any, upper: bool) -> Any:
    return _S("".join((c.upper() if upper else c.lower()) if c.isascii() else c for c in str(s)))


_LT, _GT = _order(lambda x, y: x < y), _order(lambda x, y: x > y)


def _cmp(a: Any, b: Any) -> int:
    """-1, 0 or 1 (0 also for values that do not order)."""
    lt, gt = _LT(a, b), _GT(a, b)
    if isinstance(lt, celtypes.BoolType) and lt:
        return -1
    return 1 if isinstance(gt, celtypes.BoolType) and gt else 0


def _comparable(xs: Any, name: str) -> Any:
    if any(isinstance(x, celtypes.ListType | celtypes.MapType) for x in xs):
        return LibraryError(f"found no matching overload for '{name}'", TypeError)
    return None


def _is_sorted(xs: Any) -> Any:
    return _comparable(xs, "isSorted") or celtypes.BoolType(
        all(_cmp(a, b) <= 0 for a, b in zip(xs, xs[1:], strict=False))
    )


def _sum(xs: Any) -> Any:
    if not xs:  # the element type's zero (cel-go knows it from the declared type)
        return getattr(xs, "zero", _I(0))
    if any(isinstance(x, _S) for x in xs):
        return LibraryError("found no matching overload for 'sum'", TypeError)
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


def _extreme(name: str, sign: int) -> Callable[[Any], Any]:
    def f(xs: Any) -> Any:
        if not xs:
            return LibraryError(f"{name} called on empty list", ValueError)
        bad = _comparable(xs, name)
        if bad is not None:
            return bad
        best = xs[0]
        for x in xs[1:]:
            best = x if _cmp(x, best) * sign > 0 else best
        return best

    return f


def _reverse(x: Any) -> Any:
    if isinstance(x, celtypes.ListType):
        return celtypes.ListType(list(reversed(x)))
    return _S(str(x)[::-1])


def _slice(xs: Any, start: Any, end: Any) -> Any:
    i, j = int(start), int(end)
    if i < 0 or j < 0:
        return LibraryError(f"cannot slice({i}, {j}), negative indexes not supported", IndexError)
    if i > j:
        return LibraryError(f"cannot slice({i}, {j}), start index must be less than or equal to end index",
                            IndexError)  # fmt: skip
    if j > len(xs):
        return LibraryError(f"cannot slice({i}, {j}), list is length {len(xs)}", IndexError)
    return celtypes.ListType(xs[i:j])


def _flatten(xs: Any, depth: Any = 1) -> Any:
    if int(depth) < 0:
        return LibraryError("level must be non-negative", ValueError)
    out: list[Any] = []
    for x in xs:
        if isinstance(x, celtypes.ListType) and int(depth) > 0:
            out += _flatten(x, int(depth) - 1)
        else:
            out.append(x)
    return celtypes.ListType(out)


def _distinct(xs: Any) -> Any:
    out: list[Any] = []
    for x in xs:
        if not any(_eq(x, y) for y in out):
            out.append(x)
    return celtypes.ListType(out)


def _sort(xs: Any) -> Any:
    if len({type(x) for x in xs}) > 1 or _comparable(xs, "sort") is not None:
        return LibraryError("list elements must have the same type", TypeError)
    return celtypes.ListType(sorted(xs, key=cmp_to_key(_cmp)))


def _join(xs: Any, sep: Any = "") -> Any:
    return _S(str(sep).join(str(x) for x in xs))


def _regex(pattern: Any) -> re.Pattern[str] | LibraryError:
    try:
        return re.compile(str(pattern))
    except re.error as e:
        return LibraryError(f"error parsing regexp: {e}", ValueError)


def _find(s: Any, pattern: Any) -> Any:
    """``library.Regex`` ``find``: the first match, or the empty string."""
    rx = _regex(pattern)
    if isinstance(rx, CELEvalError):
        return rx
    m = rx.search(str(s))
    return _S(m.group(0) if m else "")


def _find_all(s: Any, pattern: Any, n: Any = -1) -> Any:
    """``findAll``: at most ``n`` matches (all when negative)."""
    rx = _regex(pattern)
    if isinstance(rx, CELEvalError):
        return rx
    found = [m.group(0) for m in rx.finditer(str(s))]
    return celtypes.ListType([_S(x) for x in (found if int(n) < 0 else found[: int(n)])])


_GO_DURATION: Final = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_NANOS: Final = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
                 "h": 3600 * 10**9}  # fmt: skip


def _duration(x: Any) -> Any:
    """``duration(s)``: Go's ``time.ParseDuration`` ("0", or signed runs of a decimal
    number and a unit of ns, us, ms, s, m, h)."""
    if isinstance(x, celtypes.DurationType):
        return x
    text = str(x)
    body = text[1:] if text[:1] in ("-", "+") else text
    total, pos = Decimal(0), 0
    while body != "0" and pos < len(body):
        m = _GO_DURATION.match(body, pos)
        if m is None or m.group(1) in ("", "."):
            return LibraryError(f'time: invalid duration "{text}"', ValueError)
        total, pos = total + Decimal(m.group(1)) * _NANOS[m.group(2)], m.end()
    if not body:
        return LibraryError(f'time: invalid duration "{text}"', ValueError)
    nanos = int(total) * (-1 if text.startswith("-") else 1)
    return celtypes.DurationType(seconds=0, nanos=nanos)


def go_float(f: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 64)``: shortest digits, exponent form below 1e-4
    or from 1e6 (``%g``)."""
    if f != f or f in (float("inf"), float("-inf")):
        return {"nan": "NaN", "inf": "+Inf", "-inf": "-Inf"}[repr(f)]
    sign, digits, exp = Decimal(repr(f)).normalize().as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    e = len(digits) + int(exp) - 1 if f else 0
    lead = "-" if sign else ""
    if e < -4 or e >= 6:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{lead}{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    return lead + format(Decimal(repr(abs(f))).normalize(), "f")


def _seconds(d: Any) -> str:
    """cel-go's duration text: seconds with up to nine fractional digits, then "s"."""
    total = Decimal(int(d.total_seconds())) + Decimal(d.microseconds) / Decimal(10**6) if d.days >= 0 else \
        Decimal(str(d.total_seconds()))  # fmt: skip
    return format(total.normalize(), "f") + "s"


class _StringConversion:
    """``string``: the conversion (``string(x)``, as cel-go prints ``x``) and, compared, the
    string type (``type(s) == string``)."""

    def __eq__(self, other: object) -> bool:
        return other is celtypes.StringType or isinstance(other, _StringConversion)

    def __hash__(self) -> int:
        return hash(celtypes.StringType)

    def __call__(self, x: Any) -> Any:
        return _string(x)


def _string(x: Any) -> Any:
    if isinstance(x, celtypes.BoolType):
        return _S("true" if x else "false")
    if isinstance(x, celtypes.DoubleType):
        return _S(go_float(float(x)))
    if isinstance(x, celtypes.DurationType):
        return _S(_seconds(x))
    if isinstance(x, celtypes.BytesType):
        try:
            return _S(bytes(x).decode())
        except UnicodeDecodeError:
            return LibraryError("invalid UTF-8 in bytes, cannot convert to string", ValueError)
    if isinstance(x, celtypes.TimestampType):
        text = x.isoformat().replace("+00:00", "Z")
        if "." in text:  # RFC3339Nano trims trailing zeros of the fraction
            head, _, rest = text.partition(".")
            digits = len(rest) - len(rest.lstrip("0123456789"))
            frac, zone = rest[:digits].rstrip("0"), rest[digits:]
            text = f"{head}.{frac}{zone}" if frac else head + zone
        return _S(text)
    return _S(str(x)) if isinstance(x, celtypes.StringType | celtypes.IntType | celtypes.UintType) else \
        CELEvalError("no such overload", TypeError)  # fmt: skip


class Namespace:
    """A library namespace (``sets``, ``lists``, ``ip``): bound as a variable, so that
    ``sets.contains(a, b)`` reaches ``contains`` with it as the receiver."""

    def __init__(self, name: str) -> None:
        self.name = name


NAMESPACES: Final[dict[str, Any]] = {n: Namespace(n) for n in ("sets", "lists", "ip")}


def _in_ns(x: Any, name: str) -> bool:
    return isinstance(x, Namespace) and x.name == name


def _subset(a: Any, b: Any) -> bool:
    return all(any(_eq(x, y) for y in a) for x in b)


def _contains(target: Any, *args: Any) -> Any:
    """``sets.contains(a, b)``, else the string member ``contains``."""
    if _in_ns(target, "sets"):
        return celtypes.BoolType(_subset(*args))
    return celtypes.BoolType(str(args[0]) in str(target))


def _is_canonical(ns: Any, s: Any) -> Any:
    """``ip.isCanonical(s)``: ``s`` is the address's own text."""
    ip = NET_LIBRARY["ip"](s)
    return ip if isinstance(ip, CELEvalError) else celtypes.BoolType(str(ip.addr) == str(s))


LIBRARY: Final[dict[str, Any]] = {
    **QUANTITY_FUNCTIONS,
    **NET_LIBRARY,
    "find": _find,
    "findAll": _find_all,
    "_<_": _order(lambda a, b: a < b),
    "_<=_": _order(lambda a, b: a <= b),
    "_>_": _order(lambda a, b: a > b),
    "_>=_": _order(lambda a, b: a >= b),
    "string": _StringConversion(),
    "duration": _duration,
    "contains": _contains,
    "equivalent": lambda _ns, a, b: celtypes.BoolType(_subset(a, b) and _subset(b, a)),
    "intersects": lambda _ns, a, b: celtypes.BoolType(any(_eq(x, y) for x in a for y in b)),
    "range": lambda _ns, n: celtypes.ListType([_I(i) for i in range(int(n))]),
    "isCanonical": _is_canonical,
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda s: _S(
        str(s).strip(
            " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
            "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
        )
    ),
    "upperAscii": lambda s: _ascii(s, True),
    "lowerAscii": lambda s: _ascii(s, False),
    "join": _join,
    "reverse": _reverse,
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _extreme("min", -1),
    "max": _extreme("max", 1),
    "slice": _slice,
    "flatten": _flatten,
    "distinct": _distinct,
    "sort": _sort,
}
