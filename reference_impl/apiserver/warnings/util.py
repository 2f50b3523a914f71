"""Shared pieces of the strategies' warnings: apimachinery's ``GetWarningsForIP`` and
``GetWarningsForCIDR`` (``pkg/util/validation/ip.go``), Go's ``%v`` of a string slice, and
the fractional-byte check of ``pkg/api/pod/warnings.go``."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from typing import Any

from reference_impl.api.quantity import milli_value, quantity_string
from reference_impl.apiserver.validation.ip_formats import IP, go_ip_string, parse_ip_sloppy

__all__ = ["cidr_warnings", "fractional_bytes", "go_list", "ip_warnings", "quote"]

Obj = dict[str, Any]


def quote(s: str) -> str:
    """Go's ``%q`` of an ASCII-safe string."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def go_list(items: Iterable[str]) -> str:
    """Go's ``%v`` of a ``[]string``: ``[a b]``."""
    return "[" + " ".join(items) + "]"


def _strict(value: str) -> IP | None:
    """``netip.ParseAddr``: no leading zeros, no zone."""
    if "%" in value:
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def ip_warnings(path: str, value: str) -> list[str]:
    """``validation.GetWarningsForIP``: a legacy (sloppy) IP that is not in standard form."""
    problem = _ip_problem(value)
    return [] if problem is None else [f"{path}: {problem}"]


@functools.lru_cache(maxsize=4096)  # status writes repeat the same few IPs
def _ip_problem(value: str) -> str | None:
    ip = parse_ip_sloppy(value)
    if ip is None:
        return None  # not reached after validation
    addr = _strict(value)
    if addr is None or isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return f"non-standard IP address {quote(value)} is invalid: use {quote(go_ip_string(ip))}"
    if isinstance(addr, ipaddress.IPv6Address) and addr.compressed != value:
        return (f"IPv6 address {quote(value)} should be in RFC 5952 canonical format "
                f"({quote(addr.compressed)})")  # fmt: skip
    return None


def cidr_warnings(path: str, value: str) -> list[str]:
    """``validation.GetWarningsForCIDR``: bits past the prefix, a non-standard form, or a
    non-canonical IPv6 prefix."""
    ip_text, slash, bits_text = value.partition("/")
    ip = parse_ip_sloppy(ip_text)
    if ip is None or not slash or not bits_text.isascii() or not bits_text.isdigit():
        return []  # not reached after validation
    addrlen = 32 if isinstance(ip, ipaddress.IPv4Address) else 128
    bits = int(bits_text)
    if bits > addrlen:
        return []
    net = ipaddress.ip_network(f"{ip}/{bits}", strict=False)
    net_text = f"{go_ip_string(net.network_address)}/{bits}"
    out: list[str] = []
    if net.network_address != ip:
        out.append(
            f"{path}: CIDR value {quote(value)} is ambiguous in this context (should be "
            f"{quote(net_text)} or {quote(f'{go_ip_string(ip)}/{addrlen}')}?)"
        )
    addr = _strict(ip_text)
    leading_zero_bits = bits_text != str(bits)
    mapped = isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None
    if addr is None or leading_zero_bits or mapped:
        out.append(f"{path}: non-standard CIDR value {quote(value)} is invalid: use {quote(net_text)}")
    if not out and isinstance(addr, ipaddress.IPv6Address) and f"{addr.compressed}/{bits}" != value:
        out.append(
            f"{path}: IPv6 CIDR value {quote(value)} should be in RFC 5952 canonical format "
            f"({quote(f'{addr.compressed}/{bits}')})"
        )
    return out


def fractional_bytes(path: str, raw: object) -> list[str]:
    """A memory or storage quantity with a fraction of a byte (``MilliValue() % 1000``)."""
    text = _fraction(raw) if isinstance(raw, str) else _fraction_of(raw)
    return [] if text is None else [f"{path}: fractional byte value {quote(text)} is invalid, must be an integer"]


@functools.lru_cache(maxsize=4096)  # a few distinct quantities, on every pod
def _fraction(raw: str) -> str | None:
    return _fraction_of(raw)


def _fraction_of(raw: object) -> str | None:
    """``String()`` of a quantity with a fractional byte; None when whole (or unparsable)."""
    try:
        return None if milli_value(raw) % 1000 == 0 else quantity_string(raw)
    except (ValueError, ArithmeticError):
        return None
