"""The Kubernetes CEL quantity library (``k8s.io/apiserver/pkg/cel/library/quantity.go``),
shared by CRD rules (``customresource.cel_library``) and DRA device selectors
(``reference_impl.dra.cel``): ``quantity(s)``, ``isQuantity(s)`` and the members
``compareTo``, ``isGreaterThan``, ``isLessThan``, ``asInteger``, ``asApproximateFloat``,
``add``, ``sub``, ``sign`` and ``isInteger``."""

from __future__ import annotations

from decimal import Context, Decimal
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


_INT64: Final = (-(2**63), 2**63 - 1)
# inf.Dec arithmetic is exact; Decimal's default 28 digits would round big quantities.
_EXACT: Final = Context(prec=1000)


def _as_int64(a: Any) -> int | None:
    """``Quantity.AsInt64``: the value when it is whole and fits an int64, else None."""
    v = _q(a)
    if v != v.to_integral_value():
        return None
    i = int(v)
    return i if _INT64[0] <= i <= _INT64[1] else None


def _as_integer(a: Any) -> celtypes.IntType:
    i = _as_int64(a)
    if i is None:
        raise ValueError("cannot convert value to integer")
    return celtypes.IntType(i)


def _operand(b: Any) -> Decimal:
    """``add``/``sub`` take a quantity or an int (``quantityAddInt``, ``quantitySubInt``)."""
    if isinstance(b, int) and not isinstance(b, bool):
        return Decimal(int(b))
    return _q(b)


def _compare(a: Any, b: Any) -> celtypes.IntType:
    x, y = _q(a), _q(b)
    return celtypes.IntType((x > y) - (x < y))


QUANTITY_FUNCTIONS: Final[dict[str, Any]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "compareTo": _compare,
    "isGreaterThan": lambda a, b: celtypes.BoolType(_q(a) > _q(b)),
    "isLessThan": lambda a, b: celtypes.BoolType(_q(a) < _q(b)),
    "asInteger": _as_integer,
    "asApproximateFloat": lambda a: celtypes.DoubleType(float(_q(a))),
    "add": lambda a, b: Quantity(_EXACT.add(_q(a), _operand(b))),
    "sub": lambda a, b: Quantity(_EXACT.subtract(_q(a), _operand(b))),
    "sign": lambda a: celtypes.IntType((_q(a) > 0) - (_q(a) < 0)),
    "isInteger": lambda a: celtypes.BoolType(_as_int64(a) is not None),
}
