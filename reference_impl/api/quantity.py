"""``resource.Quantity`` arithmetic that admission messages need (apimachinery's
``api/resource``): the canonical ``String()``, and ``Value``/``MilliValue`` rounded up.

A quantity keeps the format its suffix implies (decimal SI, binary SI, or a decimal
exponent) and prints in its canonical form: ``"1.5"`` is ``"1500m"``, ``"2000m"`` is
``"2"``, ``"1.5Gi"`` is ``"1536Mi"``.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Final

from reference_impl.api.meta import parse_quantity

__all__ = [
    "MAX_MILLI_VALUE",
    "format_quantity",
    "milli_value",
    "quantity_format",
    "quantity_string",
    "quantity_value",
    "value",
]

MAX_MILLI_VALUE: Final = (2**63 - 1) // 1000  # resource.MaxMilliValue
_BINARY: Final = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL: Final = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_EXPONENT: Final = re.compile(r"[0-9.][eE][-+]?[0-9]+$")
_NANO: Final = Decimal("1e-9")


def _decimal_string(v: Decimal, exponent_form: bool) -> str:
    """``AsCanonicalBytes``: an integer mantissa, the exponent a multiple of 3."""
    sign, digits, exp = v.normalize().as_tuple()
    assert isinstance(exp, int)
    mantissa = int("".join(map(str, digits)))
    shift = exp % 3
    mantissa, exp = mantissa * 10**shift, exp - shift
    number = f"{'-' if sign else ''}{mantissa}"
    if exponent_form:
        return number if exp == 0 else f"{number}e{exp}"
    suffix = _DECIMAL.get(exp)
    return number + suffix if suffix is not None else f"{number}e{exp}"


def quantity_format(raw: object) -> str:
    """The format ``ParseQuantity`` infers from the suffix: BinarySI, DecimalSI or
    DecimalExponent."""
    text = str(raw).strip()
    if text.endswith(_BINARY):
        return "BinarySI"
    return "DecimalExponent" if _EXPONENT.search(text) else "DecimalSI"


def quantity_value(raw: object) -> Decimal:
    """The parsed amount; precision below nano rounds away from zero, as parsing does."""
    v = raw if isinstance(raw, Decimal) else parse_quantity(raw)
    return v.quantize(_NANO, ROUND_CEILING if v > 0 else ROUND_FLOOR) if v % _NANO else v


def format_quantity(v: Decimal, fmt: str) -> str:
    """``Quantity.String()`` of amount ``v`` in format ``fmt``."""
    if v == 0:
        return "0"
    if fmt == "BinarySI" and abs(v) >= 1024 and v == v.to_integral_value():
        n, power = int(v), 0
        while power < len(_BINARY) and n % 1024 == 0:
            n, power = n // 1024, power + 1
        return f"{n}{_BINARY[power - 1] if power else ''}"
    # Small or fractional binary quantities print as decimal SI, to lose nothing.
    return _decimal_string(v, fmt == "DecimalExponent")


def quantity_string(raw: object) -> str:
    """``Quantity.String()`` of the quantity written ``raw``."""
    return format_quantity(quantity_value(raw), quantity_format(raw))


def value(raw: object) -> int:
    """``Quantity.Value()``: rounded up to an integer."""
    return math.ceil(quantity_value(raw))


def milli_value(raw: object) -> int:
    """``Quantity.MilliValue()``: thousandths, rounded up."""
    return math.ceil(quantity_value(raw) * 1000)
