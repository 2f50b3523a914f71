"""The syntax check of client-go's ``util/jsonpath`` ``Parser.Parse``: only whether a
template parses (and the first error), not the nodes it builds; the admission policies'
``validateFieldRef`` needs no more."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["parse_error"]

_EOF: Final = ""
_DICT_KEY: Final = re.compile(r"'([^']*)'")
_SLICE: Final = re.compile(r"(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?")
_FILTER: Final = re.compile(r"([^!<>=]+)([!<>=]+)(.+?)", re.DOTALL)
_NUMBER: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
_INT64: Final = 1 << 63
_SIMPLE_ESC: Final = frozenset("abfnrtv\\")
_HEX_LEN: Final = {"x": 2, "u": 4, "U": 8}


class _Syntax(Exception):
    """A parse error; its message mirrors upstream's."""


def _is_digit(r: str) -> bool:
    return r != _EOF and unicodedata.category(r) == "Nd"


def _is_alnum(r: str) -> bool:
    return r == "_" or r.isalpha() or _is_digit(r)


def _is_terminator(r: str) -> bool:
    return r in (_EOF, " ", "\t", "\r", "\n", ".", ",", "[", "]", "$", "@", "{", "}")


def _unquote_char(s: str, quote: str) -> str:
    """Go's ``strconv.UnquoteChar``: the rest of ``s`` after its first (escaped) character."""
    c = s[0]
    if c == quote:
        raise _Syntax("invalid syntax")
    if c != "\\":
        return s[1:]
    if len(s) <= 1:
        raise _Syntax("invalid syntax")
    c, rest = s[1], s[2:]
    if c in _SIMPLE_ESC or (c in "'\"" and c == quote):
        return rest
    if c in _HEX_LEN:
        n = _HEX_LEN[c]
        digits = rest[:n]
        if len(digits) < n or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise _Syntax("invalid syntax")
        v = int(digits, 16)
        if c != "x" and (v > 0x10FFFF or 0xD800 <= v <= 0xDFFF):
            raise _Syntax("invalid syntax")
        return rest[n:]
    if "0" <= c <= "7":
        digits = c + rest[:2]
        if len(digits) < 3 or any(not "0" <= d <= "7" for d in digits) or int(digits, 8) > 255:
            raise _Syntax("invalid syntax")
        return rest[2:]
    raise _Syntax("invalid syntax")


def _unquote_extend(value: str) -> None:
    """``UnquoteExtend``: Go's unquoting, single quotes allowed."""
    quote, s = value[0], value[1:-1]
    if "\\" not in s and quote not in s:
        return
    while s:
        s = _unquote_char(s, quote)


class _Parser:
    def __init__(self, text: str) -> None:
        self.input = text
        self.pos = 0
        self.start = 0
        self.width = 0

    def next(self) -> str:
        if self.pos >= len(self.input):
            self.width = 0
            return _EOF
        self.width = 1
        self.pos += 1
        return self.input[self.pos - 1]

    def peek(self) -> str:
        r = self.next()
        self.pos -= self.width
        return r

    def consume(self) -> str:
        value = self.input[self.start : self.pos]
        self.start = self.pos
        return value

    def parse(self) -> list[str]:
        """``parseText`` and ``parseInsideAction`` as loops (upstream recurses); the kinds
        of the first action's nodes, which ``parseAction`` callers splice in."""
        actions: list[list[str]] = []
        while True:
            brace = self.input.find("{", self.pos)
            if brace < 0:
                return actions[0] if actions else []
            self.pos = self.start = brace + 1
            actions.append([])
            self._action(actions[-1])

    def _action(self, cur: list[str]) -> None:
        """One action up to its ``}``; ``cur`` holds the kinds of the nodes built so far."""
        while True:
            rest = self.input[self.pos :]
            if rest.startswith("}"):
                self.pos += 1
                self.start = self.pos
                return
            if rest.startswith("[?("):
                self._filter()
                cur.append("filter")
                continue
            if rest.startswith(".."):
                self._recursive(cur)
                continue
            cur.extend(self._one())

    def _one(self) -> list[str]:
        r = self.next()
        if r in (_EOF, "\r", "\n"):
            raise _Syntax("unclosed action")
        if r in (" ", "@", "$"):
            self.consume()
            return []
        if r == "[":
            return self._array()
        if r in ("'", '"'):
            self._quote(r)
            return ["text"]
        if r == ".":
            self._field()
            return ["field"]
        if r in ("+", "-") or _is_digit(r):
            self.pos -= self.width
            self._number()
            return ["number"]
        if _is_alnum(r):
            while not _is_terminator(self.next()):
                pass
            self.pos -= self.width
            self.consume()
            return ["identifier"]
        raise _Syntax(f"unrecognized character in action: {r!r}")

    def _recursive(self, cur: list[str]) -> None:
        if cur[-1:] == ["recursive"]:
            raise _Syntax("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.append("recursive")
        if _is_alnum(self.peek()):
            self._field()
            cur.append("field")

    def _number(self) -> None:
        if self.peek() in ("+", "-"):
            self.next()
        while True:
            r = self.next()
            if r != "." and not _is_digit(r):
                self.pos -= self.width
                break
        value = self.consume()
        # Atoi, else ParseFloat (which also fails out of range).
        if not _NUMBER.fullmatch(value) or abs(float(value)) == float("inf"):
            raise _Syntax(f"cannot parse number {value}")

    def _array(self) -> list[str]:
        while True:
            r = self.next()
            if r in (_EOF, "\n"):
                raise _Syntax("unterminated array")
            if r == "]":
                break
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"
        pieces = text.split(",")
        if len(pieces) > 1:
            for piece in pieces:
                _parse(f"{{[{piece.strip(' ')}]}}")
            return ["union"]
        key = _DICT_KEY.fullmatch(text)
        if key:
            return _parse(f"{{.{key.group(1)}}}")
        m = _SLICE.fullmatch(text)
        if m is None:
            raise _Syntax(f"invalid array index {text}")
        for i, part in enumerate(m.groups()):
            digits = (part or "")[1:] if i else part or ""
            if digits and (not re.fullmatch(r"[+-]?[0-9]+", digits) or not -_INT64 <= int(digits) < _INT64):
                raise _Syntax(f"array index {digits} is not a number")
        return ["array"]

    def _filter(self) -> None:
        self.pos += 3
        self.consume()
        begin = end = False
        pair = ""
        while True:
            r = self.next()
            if r in (_EOF, "\n"):
                raise _Syntax("unterminated filter")
            if r in ("'", '"'):
                if not begin:
                    begin, pair = True, r
                    continue
                if self.input[self.pos - 2] != "\\" and r == pair:
                    end = True
            elif r == ")" and begin == end:
                break
        if self.next() != "]":
            raise _Syntax("unclosed array expect ]")
        text = self.consume()[:-2]
        m = _FILTER.fullmatch(text)
        for side in (m.group(1), m.group(3)) if m else (text,):
            _parse(f"{{{side}}}")

    def _quote(self, end: str) -> None:
        while True:
            r = self.next()
            if r in (_EOF, "\n"):
                raise _Syntax("unterminated quoted string")
            if r == end and self.input[self.pos - 2] != "\\":
                break
        _unquote_extend(self.consume())

    def _field(self) -> None:
        self.consume()
        while True:
            r = self.next()
            if r == "\\":
                self.next()
            elif _is_terminator(r):
                self.pos -= self.width
                break
        self.consume()


def _parse(text: str) -> list[str]:
    return _Parser(text).parse()


def parse_error(template: str) -> str | None:
    """Why ``jsonpath.Parse`` rejects ``template``, or None when it parses."""
    try:
        _parse(template)
    except _Syntax as err:
        return str(err)
    except RecursionError:
        return "template nests too deeply"
    return None
