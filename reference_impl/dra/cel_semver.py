"""The Kubernetes CEL semver library (``kubernetes.Semver``, library version 1).

After ``k8s.io/apiserver/pkg/cel/library/semverlib.go``, part of the base CEL
environment since 1.33 and so of the DRA selector environment: ``semver(s)``,
``semver(s, normalize)``, ``isSemver(s[, normalize])`` and the members ``major``,
``minor``, ``patch``, ``compareTo``, ``isGreaterThan`` and ``isLessThan``. Parsing
follows ``github.com/blang/semver/v4`` ``Parse`` (strict SemVer 2.0.0, with its error
texts, which surface in allocation errors); normalization follows the library's own
``normalizeAndParse``. A DRA ``version`` attribute is such a value, not a string.

Equality is SemVer precedence (build metadata ignored), as upstream's ``Semver.Equal``.
``semver == <non-semver>`` is a "no such overload" error while ``<string> == semver``
is false, because cel-go asks the left operand; ``<``/``>`` are not defined for semver.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from celpy import celtypes
from celpy.evaluation import CELEvalError, base_functions

__all__ = ["Semver", "extend_functions", "is_semver", "normalize_and_parse", "parse", "version_value"]

_NUMBERS: Final = frozenset("0123456789")
_ALPHANUM: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX: Final = (1 << 64) - 1
_NO_OVERLOAD: Final = "no such overload"
_FALSE: Final = celtypes.BoolType(False)


def _go_quote(s: str) -> str:
    # Go's %q for the strings these errors show (ASCII escapes; printable text as is).
    esc = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f",
           "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
    out = []
    for ch in s:
        if ch in esc:
            out.append(esc[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x80 else f"\\u{ord(ch):04x}")
    return '"' + "".join(out) + '"'


def _parse_uint(s: str) -> int:
    # strconv.ParseUint(s, 10, 64); callers have checked that s holds only digits.
    if not s:
        raise ValueError('strconv.ParseUint: parsing "": invalid syntax')
    n = int(s)
    if n > _UINT64_MAX:
        raise ValueError(f"strconv.ParseUint: parsing {_go_quote(s)}: value out of range")
    return n


def _only(s: str, chars: frozenset[str]) -> bool:
    return all(c in chars for c in s)


def _number(s: str, what: str) -> int:
    if not _only(s, _NUMBERS):
        raise ValueError(f"Invalid character(s) found in {what} number {_go_quote(s)}")
    if len(s) > 1 and s[0] == "0":
        raise ValueError(f"{what.capitalize()} number must not contain leading zeroes {_go_quote(s)}")
    return _parse_uint(s)


def _prerelease(s: str) -> int | str:
    if not s:
        raise ValueError("Prerelease is empty")
    if _only(s, _NUMBERS):
        if len(s) > 1 and s[0] == "0":
            raise ValueError(f"Numeric PreRelease version must not contain leading zeroes {_go_quote(s)}")
        return _parse_uint(s)
    if _only(s, _ALPHANUM):
        return s
    raise ValueError(f"Invalid character(s) found in prerelease {_go_quote(s)}")


class Semver:
    """A parsed semantic version; hashing and equality follow precedence (no build)."""

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int,
                 pre: tuple[int | str, ...] = (), build: tuple[str, ...] = ()) -> None:
        self.major, self.minor, self.patch = major, minor, patch
        self.pre, self.build = pre, build

    def compare(self, other: Semver) -> int:
        """-1, 0 or 1 by SemVer 2.0.0 precedence (blang ``Version.Compare``)."""
        a, b = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if a != b:
            return 1 if a > b else -1
        if not self.pre or not other.pre:  # a release outranks its pre-releases
            return (not self.pre) - (not other.pre)
        for x, y in zip(self.pre, other.pre, strict=False):
            if x == y:
                continue
            if isinstance(x, int) != isinstance(y, int):  # numeric < alphanumeric
                return -1 if isinstance(x, int) else 1
            return 1 if x > y else -1  # type: ignore[operator]  # same type here
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Semver):
            raise TypeError(_NO_OVERLOAD)
        return self.compare(other) == 0

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self) -> str:
        return f"Semver({str(self)!r})"


def parse(s: str) -> Semver:
    """blang/semver/v4 ``Parse``: ValueError with blang's message when invalid."""
    if not s:
        raise ValueError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise ValueError("No Major.Minor.Patch elements found")
    major, minor = _number(parts[0], "major"), _number(parts[1], "minor")
    rest, build, pre = parts[2], [], []
    if "+" in rest:
        rest, _, meta = rest.partition("+")
        build = meta.split(".")
    if "-" in rest:
        rest, _, prs = rest.partition("-")
        pre = prs.split(".")
    patch = _number(rest, "patch")
    parsed_pre = tuple(_prerelease(p) for p in pre)
    for b in build:
        if not b:
            raise ValueError("Build meta data is empty")
        if not _only(b, _ALPHANUM):
            raise ValueError(f"Invalid character(s) found in build meta data {_go_quote(b)}")
    return Semver(major, minor, patch, parsed_pre, tuple(build))


def normalize_and_parse(s: str) -> Semver:
    """The library's ``normalizeAndParse``: drop one leading "v", strip leading zeros
    of the dot-separated parts, pad a short version with ".0"; then ``parse``."""
    s = s.removeprefix("v")
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in _NUMBERS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise ValueError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))


def is_semver(s: str, normalize: bool = False) -> bool:
    """Whether ``semver(s[, normalize])`` would succeed."""
    try:
        (normalize_and_parse if normalize else parse)(s)
    except ValueError:
        return False
    return True


def version_value(s: str) -> Any:
    """A ``version`` attribute's CEL value (a ``Semver``); a CEL error if it is no
    semver (upstream rejects such slices on write, and fails matching with this
    message). Typed ``Any`` as celpy's containers do not know this value type."""
    try:
        return parse(s)
    except ValueError as e:
        return CELEvalError(f"parse semantic version: {e}")


def _string_arg(s: Any, normalize: Any) -> tuple[str, bool]:
    # celpy's `+` on strings yields a plain str, hence str rather than StringType.
    if not isinstance(s, str) or not isinstance(normalize, celtypes.BoolType | bool):
        raise TypeError(_NO_OVERLOAD)
    return str(s), bool(normalize)


def _semver(s: Any, normalize: Any = _FALSE) -> Semver | CELEvalError:
    text, norm = _string_arg(s, normalize)
    try:
        return (normalize_and_parse if norm else parse)(text)
    except ValueError as e:  # a CEL error value, so `||`/`&&` may still absorb it
        return CELEvalError(str(e))


def _is_semver(s: Any, normalize: Any = _FALSE) -> celtypes.BoolType:
    return celtypes.BoolType(is_semver(*_string_arg(s, normalize)))


def _v(x: Any) -> Semver:
    if isinstance(x, Semver):
        return x
    raise TypeError(_NO_OVERLOAD)


def _int64(n: int) -> celtypes.IntType:
    # types.Int(uint64) in Go wraps above MaxInt64.
    return celtypes.IntType(n - (1 << 64) if n >= 1 << 63 else n)


def _equal(op: Callable[[Any, Any], Any], negate: bool) -> Callable[[Any, Any], Any]:
    # cel-go asks the left operand: a non-semver is simply unequal to a semver, while
    # a semver refuses to compare with anything else.
    def eq(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError) or isinstance(b, CELEvalError):
            return op(a, b)
        if isinstance(a, Semver) and not isinstance(b, Semver):
            return CELEvalError(_NO_OVERLOAD)
        if isinstance(b, Semver) and not isinstance(a, Semver):
            return celtypes.BoolType(negate)
        return op(a, b)
    return eq


def _either(name: str, semver_fn: Callable[[Semver, Semver], Any],
            other: Callable[[Any, Any], Any] | None) -> Callable[[Any, Any], Any]:
    # compareTo/isGreaterThan/isLessThan are overloaded for Quantity and Semver.
    def call(a: Any, b: Any) -> Any:
        if isinstance(a, Semver) or other is None:
            return semver_fn(_v(a), _v(b))
        return other(a, b)
    call.__name__ = name
    return call


def extend_functions(functions: Mapping[str, Any]) -> dict[str, Any]:
    """``functions`` plus the semver library, keeping the other overloads of the
    shared member names (``compareTo``, ``isGreaterThan``, ``isLessThan``)."""
    out = dict(functions)
    for name, fn in (
        ("compareTo", lambda a, b: celtypes.IntType(a.compare(b))),
        ("isGreaterThan", lambda a, b: celtypes.BoolType(a.compare(b) == 1)),
        ("isLessThan", lambda a, b: celtypes.BoolType(a.compare(b) == -1)),
    ):
        out[name] = _either(name, fn, functions.get(name))
    out.update({
        "semver": _semver,
        "isSemver": _is_semver,
        "major": lambda a: _int64(_v(a).major),
        "minor": lambda a: _int64(_v(a).minor),
        "patch": lambda a: _int64(_v(a).patch),
        "_==_": _equal(functions.get("_==_", base_functions["_==_"]), False),
        "_!=_": _equal(functions.get("_!=_", base_functions["_!=_"]), True),
    })
    return out
