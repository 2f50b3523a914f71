"""``matchAttribute`` / ``distinctAttribute`` across the devices of one claim.

Without list-type attributes (``structured/internal/incubating/constraint.go``) values
are scalars: match needs every device to carry the same kind and value, distinct needs
no two of the same kind to be equal, and a list value fails either. With
DRAListTypeAttributes (``experimental``) every value is a set (a scalar is a set of one):
match needs the running intersection to stay non-empty, distinct needs the sets to be
pairwise disjoint; kinds never mix (``1`` and ``"1"`` share nothing), and an empty list
fails. A device without the attribute fails both.

A request's ``derivedAttributes`` (DRADerivedAttributes) shadow the device's own
attribute of the same name for that request's devices; ``lookup`` supplies them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from reference_impl.dra.pools import TypedAttribute

__all__ = ["constraint_attribute", "distinct_ok", "match_ok"]

Obj = dict[str, Any]
Lookup = Callable[[str], TypedAttribute | None]


def constraint_attribute(con: Obj) -> str:
    """The attribute a constraint is about."""
    return str(con.get("matchAttribute") or con.get("distinctAttribute") or "")


def _as_set(v: TypedAttribute, lists: bool) -> frozenset[tuple[str, Any]] | None:
    kind, values, is_list = v
    if (is_list and not lists) or not values:
        return None
    return frozenset((kind, x) for x in values)


def match_ok(values: Iterable[TypedAttribute | None], lists: bool) -> bool:
    """Whether devices with these attribute values satisfy a ``matchAttribute``."""
    common: frozenset[tuple[str, Any]] | None = None
    for v in values:
        s = None if v is None else _as_set(v, lists)
        if s is None:
            return False
        common = s if common is None else common & s
        if not common:
            return False
    return True


def distinct_ok(values: Iterable[TypedAttribute | None], lists: bool) -> bool:
    """Whether devices with these attribute values satisfy a ``distinctAttribute``."""
    seen: frozenset[tuple[str, Any]] = frozenset()
    for v in values:
        s = None if v is None else _as_set(v, lists)
        if s is None or s & seen:
            return False
        seen |= s
    return True
