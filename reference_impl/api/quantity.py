"""``resource.Quantity`` arithmetic that admission messages need (apimachinery's
``api/resource``): the canonical ``String()``, and ``Value``/``MilliValue`` rounded up.

A quantity keeps the format its suffix implies (decimal SI, binary SI, or a decimal
exponent) and prints in its canonical form: ``"1.5"`` is ``"1500m"``, ``"2000m"`` is
``"2"``, ``"1.5Gi"`` is ``"1536Mi"``.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import MAX_EMAX, MIN_EMIN, ROUND_UP, Context, Decimal
from typing import Final, NamedTuple

from reference_impl.api.meta import parse_quantity

__all__ = [
    "MAX_MILLI_VALUE",
    "Quantity",
    "format_quantity",
    "milli_value",
    "quantity_format",
    "quantity_string",
    "quantity_value",
    "round_away",
    "value",
]

MAX_MILLI_VALUE: Final = (2**63 - 1) // 1000  # resource.MaxMilliValue
_BINARY: Final = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL: Final = {
    -9: "n",
    -6: "u",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
}
_EXPONENT: Final = re.compile(r"[0-9.][eE][-+]?[0-9]+$")
_NANO: Final = Decimal("1e-9")
# Wide enough for any parseable quantity (digits and exponent), where the default 28 digits
# would raise on 1e400 or on many digits before the nanos.
_WIDE: Final = Context(prec=2000, Emax=MAX_EMAX, Emin=MIN_EMIN)


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
    return round_away(v, -9)


def round_away(v: Decimal, exponent: int) -> Decimal:
    """``v`` rounded away from zero to a multiple of 10**exponent (``v`` itself when
    exact). Judged by the exponent, so 1e400 needs no division."""
    own = v.as_tuple().exponent
    if not isinstance(own, int) or own >= exponent:
        return v
    return v.quantize(Decimal(1).scaleb(exponent), ROUND_UP, _WIDE)


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


class Quantity(NamedTuple):
    """A parsed ``resource.Quantity``: its amount and the format its ``String()`` keeps."""

    amount: Decimal
    fmt: str

    @classmethod
    def of(cls, raw: object) -> Quantity:
        """Parse a wire quantity (ValueError when it is not one)."""
        if isinstance(raw, str) and cls is Quantity:
            return _of_text(raw)
        return cls(quantity_value(raw), quantity_format(raw))

    def __str__(self) -> str:
        return format_quantity(self.amount, self.fmt)


@functools.lru_cache(maxsize=4096)  # a few distinct strings, parsed for every object
def _of_text(raw: str) -> Quantity:
    return Quantity(quantity_value(raw), quantity_format(raw))
