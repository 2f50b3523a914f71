"""``IsValidIP`` and ``IsValidCIDR`` of ``apimachinery/pkg/util/validation/ip.go`` (the strict
forms: parsed sloppily, then no leading zeros, no IPv4-mapped address, canonical text)."""

from __future__ import annotations

import ipaddress
import re
from typing import Final

__all__ = [
    "cidr_errors",
    "cidr_family",
    "go_ip_string",
    "ip_errors",
    "parse_cidr_errors",
    "parse_ip_sloppy",
    "strict_ip_errors",
]

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_V4: Final = re.compile(r"\d+(\.\d+){3}\Z")
_IP_MSG: Final = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
_CIDR_MSG: Final = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def parse_ip_sloppy(value: str) -> IP | None:
    """``netutils.ParseIPSloppy``: IPv4 octets may carry leading zeros (read as decimal)."""
    if _V4.match(value):
        octets = [int(o) for o in value.split(".")]
        return ipaddress.IPv4Address(".".join(map(str, octets))) if max(octets) < 256 else None
    if "%" in value or not value or not value.isascii():
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def go_ip_string(addr: IP) -> str:
    """``net.IP.String``: an IPv4-mapped IPv6 address prints as IPv4."""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return str(addr.ipv4_mapped)
    return addr.compressed


def strict_ip_errors(value: str, addr: IP) -> list[str]:
    """The strict checks of ``value``, which parsed sloppily as ``addr``: no leading zeros,
    no IPv4-mapped address (``IsValidIP`` and ``IsValidIPForLegacyField`` share them)."""
    errs: list[str] = []
    try:
        ipaddress.ip_address(value)
    except ValueError:
        errs.append("must not have leading 0s")
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        errs.append("must not be an IPv4-mapped IPv6 address")
    return errs


def ip_errors(value: str) -> list[str]:
    """``IsValidIP``'s reasons."""
    addr = parse_ip_sloppy(value)
    if addr is None:
        return [_IP_MSG]
    if errs := strict_ip_errors(value, addr):
        return errs
    canonical = go_ip_string(addr)
    return [] if value == canonical else [f'must be in canonical form ("{canonical}")']


def _parse_cidr_sloppy(value: str) -> tuple[IP, int] | None:
    ip, slash, bits = value.partition("/")
    addr = parse_ip_sloppy(ip)
    if addr is None or not slash or not bits.isdigit() or not bits.isascii():
        return None
    limit = 32 if isinstance(addr, ipaddress.IPv4Address) else 128
    return (addr, int(bits)) if int(bits) <= limit else None


def cidr_family(value: str) -> int | None:
    """``netutils.IPFamilyOfCIDRString``: the family of the address ``value`` names (an
    IPv4-mapped IPv6 address is IPv4); None when it does not parse as a CIDR."""
    parsed = _parse_cidr_sloppy(value)
    if parsed is None:
        return None
    addr = parsed[0]
    return 4 if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped else addr.version


def _parse_cidr(value: str) -> tuple[tuple[IP, int] | None, list[str]]:
    # parseCIDR with strict validation: parsed sloppily, then at most one of no leading
    # zeros, no IPv4-mapped address, no bits past the prefix, in that order.
    parsed = _parse_cidr_sloppy(value)
    if parsed is None:
        return None, [_CIDR_MSG]
    addr, bits = parsed
    ip = value.partition("/")[0]
    limit = 32 if isinstance(addr, ipaddress.IPv4Address) else 128
    if ip != str(parse_ip_sloppy(ip)) and _V4.match(ip) or value.partition("/")[2] != str(bits):
        return parsed, ["must not have leading 0s in IP or prefix length"]
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return parsed, ["must not have an IPv4-mapped IPv6 address"]
    if int(addr) & ((1 << (limit - bits)) - 1):
        return parsed, ["must not have bits set beyond the prefix length"]
    return parsed, []


def parse_cidr_errors(value: str) -> list[str]:
    """``parseCIDR``'s strict reasons (``IsValidCIDRForLegacyField`` with strict
    validation; ``IsValidCIDR`` adds the canonical form)."""
    return _parse_cidr(value)[1]


def cidr_errors(value: str) -> list[str]:
    """``IsValidCIDR``'s reasons."""
    parsed, errs = _parse_cidr(value)
    if errs or parsed is None:
        return errs
    canonical = f"{go_ip_string(parsed[0])}/{parsed[1]}"
    return [] if value == canonical else [f'must be in canonical form ("{canonical}")']
