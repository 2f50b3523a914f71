"""The Kubernetes CEL URL, IP and CIDR libraries (``k8s.io/apiserver/pkg/cel/library``
``urls.go``, ``ip.go``, ``cidr.go``) for cel-python: ``url(s)`` and ``isURL`` with the
getters, ``ip(s)``, ``isIP``, the IP predicates and ``family``, and ``cidr(s)`` with
``containsIP``, ``containsCIDR``, ``ip``, ``masked`` and ``prefixLength``. The namespaced
``ip.isCanonical`` and the ``net.IP``/``net.CIDR`` type names are not modelled."""

from __future__ import annotations

import ipaddress
from typing import Any, Final
from urllib.parse import quote, unquote, urlsplit

from celpy import celtypes
from celpy.evaluation import CELEvalError

__all__ = ["NET_LIBRARY", "LibraryError"]


class LibraryError(CELEvalError):
    """A Kubernetes CEL library function's runtime error; its first argument is cel-go's
    message."""


_S = celtypes.StringType
_Addr = ipaddress.IPv4Address | ipaddress.IPv6Address
_Net = ipaddress.IPv4Network | ipaddress.IPv6Network


class URL:
    """A parsed URL (``url.ParseRequestURI``)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts = urlsplit(text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


class IP:
    def __init__(self, addr: _Addr) -> None:
        self.addr = addr

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and other.addr == self.addr

    def __hash__(self) -> int:
        return hash(self.addr)


class CIDR:
    def __init__(self, addr: _Addr, net: _Net) -> None:
        self.addr, self.net = addr, net

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and (other.addr, other.net) == (self.addr, self.net)

    def __hash__(self) -> int:
        return hash((self.addr, self.net))


def _parse_url(s: str) -> URL | None:
    """``ParseRequestURI``: an absolute URL, or an absolute path."""
    try:
        u = URL(s)
        _ = u.parts.port  # a malformed port raises
    except ValueError:
        return None
    if not u.parts.scheme and not s.startswith("/"):
        return None
    return u


def _url(s: Any) -> Any:
    u = _parse_url(str(s))
    return (
        u
        if u is not None
        else LibraryError(f"URL parse error during conversion from string: {s}", ValueError)
    )


def _host(u: URL) -> str:
    return u.parts.netloc.rpartition("@")[2]


def _hostname(u: URL) -> str:
    h = _host(u)
    if h.startswith("["):
        return h[1 : h.find("]")]
    return h.rpartition(":")[0] if ":" in h else h


def _port(u: URL) -> str:
    h = _host(u)
    tail = h[h.find("]") + 1 :] if h.startswith("[") else h
    return tail.rpartition(":")[2] if ":" in tail else ""


def _query(u: URL) -> Any:
    out: dict[Any, Any] = {}
    for pair in u.parts.query.split("&") if u.parts.query else []:
        k, _, v = pair.partition("=")
        out.setdefault(_S(unquote(k)), celtypes.ListType([])).append(_S(unquote(v)))
    return celtypes.MapType(out)


def _parse_ip(s: str) -> _Addr | None:
    """``netip.ParseAddr`` without zones or IPv4-mapped IPv6 addresses."""
    try:
        a = ipaddress.ip_address(s)
    except ValueError:
        return None
    if isinstance(a, ipaddress.IPv6Address) and (a.ipv4_mapped is not None or "%" in s):
        return None
    return a


def _ip(x: Any) -> Any:
    if isinstance(x, IP):
        return x
    if isinstance(x, CIDR):
        return IP(x.addr)
    a = _parse_ip(str(x))
    return (
        IP(a)
        if a is not None
        else LibraryError(
            f"IP Address {str(x)!r} parse error during conversion from string", ValueError
        )
    )


def _parse_cidr(s: str) -> CIDR | None:
    addr, _, bits = s.partition("/")
    a = _parse_ip(addr)
    if a is None or not bits.isdigit():
        return None
    try:
        return CIDR(a, ipaddress.ip_network(f"{addr}/{bits}", strict=False))
    except ValueError:
        return None


def _cidr(x: Any) -> Any:
    c = x if isinstance(x, CIDR) else _parse_cidr(str(x))
    return (
        c
        if c is not None
        else LibraryError(
            f"network address {str(x)!r} parse error during conversion from string", ValueError
        )
    )


def _contains_ip(c: CIDR, x: Any) -> Any:
    ip = _ip(x)
    return ip if isinstance(ip, CELEvalError) else celtypes.BoolType(ip.addr in c.net)


def _contains_cidr(c: CIDR, x: Any) -> Any:
    o = _cidr(x)
    if isinstance(o, CELEvalError):
        return o
    same = o.net.version == c.net.version
    return celtypes.BoolType(same and o.net.prefixlen >= c.net.prefixlen and o.net.subnet_of(c.net))


def _family(x: Any) -> Any:
    return celtypes.IntType(x.addr.version)


def _is_url(s: Any) -> Any:
    return celtypes.BoolType(_parse_url(str(s)) is not None)


NET_LIBRARY: Final[dict[str, Any]] = {
    "url": _url,
    "isURL": _is_url,
    "getScheme": lambda u: _S(u.parts.scheme),
    "getHost": lambda u: _S(_host(u)),
    "getHostname": lambda u: _S(_hostname(u)),
    "getPort": lambda u: _S(_port(u)),
    "getEscapedPath": lambda u: _S(quote(unquote(u.parts.path), safe="/:@!$&'()*+,;=-._~")),
    "getQuery": _query,
    "ip": _ip,
    "isIP": lambda s: celtypes.BoolType(_parse_ip(str(s)) is not None),
    "family": _family,
    "isUnspecified": lambda x: celtypes.BoolType(x.addr.is_unspecified),
    "isLoopback": lambda x: celtypes.BoolType(x.addr.is_loopback),
    "isLinkLocalMulticast": lambda x: celtypes.BoolType(
        x.addr in ipaddress.ip_network("224.0.0.0/24" if x.addr.version == 4 else "ff02::/16")
    ),
    "isLinkLocalUnicast": lambda x: celtypes.BoolType(x.addr.is_link_local),
    "isGlobalUnicast": lambda x: celtypes.BoolType(
        not (
            x.addr.is_unspecified
            or x.addr.is_loopback
            or x.addr.is_multicast
            or x.addr.is_link_local
            or x.addr == ipaddress.ip_address("255.255.255.255")
        )
    ),
    "cidr": _cidr,
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
    "masked": lambda c: CIDR(c.net.network_address, c.net),
    "prefixLength": lambda c: celtypes.IntType(c.net.prefixlen),
}
