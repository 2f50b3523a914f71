"""Request ``derivedAttributes`` (DRADerivedAttributes, alpha in 1.37).

After ``lookupAttribute`` in ``structured/internal/experimental``: when a request defines a
derived attribute with the name a constraint asks about, its CEL expression is evaluated
on the device (once per device and expression) and the value stands in for the device's
own attribute of that name. It must be a bool, int, string or semver, or a list of one of them;
any other type, or a runtime error, aborts the allocation (upstream: "surfacing
evaluation errors immediately prevents silent topology matching failures").
"""

from __future__ import annotations

from typing import Any, Final

from celpy import celtypes

from reference_impl.dra.candidates import AllocationError
from reference_impl.dra.cel import CELError, compile_selector
from reference_impl.dra.cel_semver import Semver
from reference_impl.dra.features import Features
from reference_impl.dra.pools import DeviceID, DeviceInfo, TypedAttribute

__all__ = ["DerivedAttributes", "to_attribute"]

Obj = dict[str, Any]
_NONE: Final = ("", (), False)  # "this request derives no such attribute"


def _kind(v: Any) -> tuple[str, Any] | None:
    # BoolType subclasses int: test it first.
    if isinstance(v, celtypes.BoolType):
        return "bool", bool(v)
    if isinstance(v, celtypes.IntType | celtypes.UintType):
        return "int", int(v)
    if isinstance(v, celtypes.StringType):
        return "string", str(v)
    if isinstance(v, Semver):  # as upstream, its blang String() form
        return "version", str(v)
    return None


def to_attribute(value: Any) -> TypedAttribute | None:
    """A CEL value as a typed attribute; None when its type is not allowed."""
    if isinstance(value, celtypes.ListType):
        items = [_kind(x) for x in value]
        kinds = {k[0] for k in items if k is not None}
        if any(k is None for k in items) or len(kinds) > 1:
            return None
        kind = kinds.pop() if kinds else "string"
        return kind, tuple(k[1] for k in items if k is not None), True
    one = _kind(value)
    return None if one is None else (one[0], (one[1],), False)


class DerivedAttributes:
    """Evaluates requests' derived attributes for one allocation (cached per device)."""

    NONE: Final[TypedAttribute] = _NONE

    def __init__(self, features: Features) -> None:
        self._on = features.derived_attributes
        self._lists = features.list_type_attributes
        self._cache: dict[tuple[DeviceID, str], TypedAttribute] = {}

    def lookup(self, spec: Obj, device: DeviceInfo, name: str) -> TypedAttribute | None:
        """The derived value of ``name`` for ``device`` under request ``spec``, or NONE."""
        if not self._on:
            return _NONE
        expr = next((str(d.get("expression", "")) for d in spec.get("derivedAttributes") or ()
                     if d.get("name") == name), None)
        if expr is None:
            return _NONE
        key = (device.id, expr)
        hit = self._cache.get(key)
        if hit is None:
            where = f"derived attribute {name} on device {'/'.join(device.id)}"
            try:
                value = compile_selector(expr, self._lists).evaluate(device.activation)
            except CELError as e:
                raise AllocationError(f"evaluate {where} failed: {e}") from None
            attr = to_attribute(value)
            if attr is None:
                raise AllocationError(
                    f"evaluate {where} failed: must be a bool, int, string, semver or a list of them, "
                    f"got {type(value).__name__}")
            hit = self._cache[key] = attr
        return hit
