"""Whether a string is one RFC 5322 address as Go's ``net/mail.ParseAddress`` accepts it:
an addr-spec, or a display name and an addr-spec in angle brackets.

Covers dot-atoms, quoted local parts, domain literals and quoted or atom display names;
comments (``(...)``) are not accepted, which only makes rare addresses stricter here.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["is_mail_address"]

_ATEXT: Final = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\U0010ffff]"
_DOT_ATOM: Final = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_QUOTED: Final = r'"(?:[^"\\\r\n]|\\.)*"'
_LITERAL: Final = r"\[[^\[\]\\\s]*\]"
_ADDR_SPEC: Final = rf"(?:{_DOT_ATOM}|{_QUOTED})@(?:{_DOT_ATOM}|{_LITERAL})"
_WORD: Final = rf"(?:{_ATEXT}|\.)+|{_QUOTED}"
_ADDRESS: Final = re.compile(
    rf"\s*(?:{_ADDR_SPEC}|(?:(?:{_WORD})(?:\s+(?:{_WORD}))*\s*)?<{_ADDR_SPEC}>)\s*", re.DOTALL
)


def is_mail_address(value: str) -> bool:
    """True when ``net/mail.ParseAddress`` would parse ``value`` without error."""
    return _ADDRESS.fullmatch(value) is not None
