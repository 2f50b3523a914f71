"""The Kubernetes CEL quantity library (``k8s.io/apiserver/pkg/cel/library/quantity.go``),
shared by CRD rules (``customresource.cel_library``) and DRA device selectors
(``reference_impl.dra.cel``): ``quantity(s)``, ``isQuantity(s)`` and the members
``compareTo``, ``isGreaterThan``, ``isLessThan``, ``asInteger``, ``asApproximateFloat``,
``add``, ``sub``, ``sign`` and ``isInteger``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

from celpy import celtypes

from reference_impl.api.meta import parse_quantity

__all__ = ["QUANTITY_FUNCTIONS", "Quantity", "quantity_value"]


class Quantity(celtypes.DoubleType):
    """A Kubernetes ``resource.Quantity`` in CEL; only the helper methods compare it."""

    exact: Decimal

    def __new__(cls, value: Decimal) -> Quantity:
        q = super().__new__(cls, float(value))
        assert isinstance(q, Quantity)
        q.exact = value
        return q


def quantity_value(v: Any) -> Decimal:
    """The exact value of a CEL quantity (TypeError for any other value)."""
    if isinstance(v, Quantity):
        return v.exact
    raise TypeError(f"expected a Quantity, got {type(v).__name__}")


_q = quantity_value


def _quantity(s: Any) -> Quantity:
    try:
        return Quantity(parse_quantity(str(s)))
    except ValueError as e:
        raise ValueError(f"invalid quantity {s!r}: {e}") from None


def _is_quantity(s: Any) -> celtypes.BoolType:
    try:
        parse_quantity(str(s))
    except ValueError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _compare(a: Any, b: Any) -> celtypes.IntType:
    x, y = _q(a), _q(b)
    return celtypes.IntType((x > y) - (x < y))


QUANTITY_FUNCTIONS: Final[dict[str, Any]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "compareTo": _compare,
    "isGreaterThan": lambda a, b: celtypes.BoolType(_q(a) > _q(b)),
    "isLessThan": lambda a, b: celtypes.BoolType(_q(a) < _q(b)),
    "asInteger": lambda a: celtypes.IntType(int(_q(a))),
    "asApproximateFloat": lambda a: celtypes.DoubleType(float(_q(a))),
    "add": lambda a, b: Quantity(_q(a) + _q(b)),
    "sub": lambda a, b: Quantity(_q(a) - _q(b)),
    "sign": lambda a: celtypes.IntType((_q(a) > 0) - (_q(a) < 0)),
    "isInteger": lambda a: celtypes.BoolType(_q(a) == _q(a).to_integral_value()),
}
