"""The parts of Go's ``net/url.Parse`` (go1.27) that URL validators read: scheme, userinfo,
host, raw query and fragment, and the errors Parse returns (as ``ValueError``)."""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from typing import Final

__all__ = ["GoURL", "parse_request_uri", "parse_url"]

_HEX: Final = frozenset(string.hexdigits)
# Bytes allowed unescaped in a host (``shouldEscape`` in encodeHost mode).
_HOST_OK: Final = frozenset(string.ascii_letters + string.digits + "-._~!$&'()*+,;=:[]<>\"")
_USERINFO_OK: Final = frozenset(string.ascii_letters + string.digits + "-._:~!$&'()*+,;=%@")
_PORT: Final = re.compile(r"^(:[0-9]*)?$")


def _q(s: str) -> str:
    """Go's %q, for the text URLs hold."""
    return json.dumps(s, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class GoURL:
    """What Parse found; ``user`` is None without an ``@`` in the authority."""

    scheme: str = ""
    user: str | None = None
    host: str = ""
    raw_query: str = ""
    fragment: str = ""


def _scheme(raw: str) -> tuple[str, str]:
    """``getScheme``."""
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise ValueError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


def _unescape(s: str, host: bool) -> None:
    """``unescape``'s checks: well-formed %XX, and in a host only allowed bytes."""
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            esc = s[i : i + 3]
            if len(esc) < 3 or not set(esc[1:]) <= _HEX:
                raise ValueError(f"invalid URL escape {_q(esc)}")
            if host and int(esc[1], 16) < 8 and esc != "%25":
                raise ValueError(f"invalid URL escape {_q(esc)}")
            i += 3
            continue
        if host and c.isascii() and c not in _HOST_OK:
            raise ValueError(f"invalid character {_q(c)} in host name")
        i += 1


def _host(scheme: str, host: str) -> str:
    """``parseHost`` without the IP-literal address check."""
    bracket = host.rfind("[")
    if bracket > 0:
        raise ValueError("invalid IP-literal")
    if bracket == 0:
        close = host.rfind("]")
        if close < 0:
            raise ValueError("missing ']' in host")
        port = host[close + 1 :]
    else:
        first = host.find(":")
        # strict colons for http(s): the port starts at the first colon
        at = first if scheme in ("http", "https") else host.rfind(":")
        port = host[at:] if first >= 0 else ""
    if not _PORT.match(port):
        raise ValueError(f"invalid port {_q(port)} after host")
    _unescape(host, True)
    return host


def _parse(raw: str, via_request: bool = False) -> GoURL:
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise ValueError("net/url: invalid control character in URL")
    scheme, rest = _scheme(raw)
    scheme = scheme.lower()
    query = ""
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest, _, query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return GoURL(scheme=scheme, raw_query=query)  # opaque
        if via_request:
            raise ValueError("invalid URI for request")
        if ":" in rest.partition("/")[0]:
            raise ValueError("first path segment in URL cannot contain colon")
    user: str | None = None
    host = ""
    if rest.startswith("//") and (scheme or not via_request and not rest.startswith("///")):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        info, at, hostpart = authority.rpartition("@")
        host = _host(scheme, hostpart if at else authority)
        if at:
            if not set(info) <= _USERINFO_OK:
                raise ValueError("net/url: invalid userinfo")
            user = info
    _unescape(rest, False)
    return GoURL(scheme=scheme, user=user, host=host, raw_query=query)


def parse_request_uri(raw: str) -> GoURL:
    """``url.ParseRequestURI``: the whole string is the URI (no fragment is cut off), and
    without a scheme it must be an absolute path."""
    if not raw:
        raise ValueError(f"parse {_q(raw)}: empty url")
    try:
        return _parse(raw, via_request=True)
    except ValueError as e:
        raise ValueError(f"parse {_q(raw)}: {e}") from None


def parse_url(raw: str) -> GoURL:
    """``url.Parse``: the fragment is cut off first, then the rest parsed."""
    head, _, frag = raw.partition("#")
    try:
        u = _parse(head)
    except ValueError as e:
        raise ValueError(f"parse {_q(head)}: {e}") from None
    if frag:
        try:
            _unescape(frag, False)
        except ValueError as e:
            raise ValueError(f"parse {_q(raw)}: {e}") from None
    return GoURL(u.scheme, u.user, u.host, u.raw_query, frag)
