"""A ``resource.Quantity`` as the apiserver writes it back after decoding it.

``ParseQuantity`` keeps the written string when it is already in a canonical-enough form
(its fast path: ``"+1"``, ``"010"``, ``"1E3"``, ``"1100m"`` stay as written), and
``MarshalJSON`` prints that string; otherwise it prints the canonical ``String()``
(``"1000m"`` is ``"1"``, ``0.5`` is ``"500m"``, ``"1.5Gi"`` is ``"1536Mi"``).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Final

from reference_impl.api.quantity import quantity_string

__all__ = ["wire_quantity"]

_PARTS: Final = re.compile(r"^[+-]?0*([0-9]*)(?:\.([0-9]*))?(.*)$")
_DECIMAL_EXP: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_EXP: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_MAX_INT64_FACTORS: Final = 18  # resource.maxInt64Factors
_NANO: Final = -9


def _kept(text: str) -> bool:
    """Whether ``ParseQuantity``'s fast path keeps ``text`` as the quantity's string."""
    m = _PARTS.match(text)
    if m is None:
        return False
    num, denom, suffix = m.group(1) or "0", m.group(2) or "", m.group(3)
    binary = suffix in _BINARY_EXP
    if binary:
        exponent = _BINARY_EXP[suffix]
        if denom:
            return False
        mantissa = 1 << exponent
        # float32(exponent)*3/10, truncated: the digits of precision a binary suffix takes
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        if suffix in _DECIMAL_EXP:
            exponent = _DECIMAL_EXP[suffix]
        elif re.fullmatch(r"[eE][-+]?[0-9]+", suffix):
            exponent = int(suffix[1:])
        else:
            return False
        mantissa = 1
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        scale = exponent
    if precision < 0:
        return False
    scale -= len(denom)
    if scale < _NANO:
        return False
    shifted = num + denom
    value = int(shifted)
    if value * mantissa >= 2**63:
        return False
    if binary:
        return exponent % 10 == 0 and value & 0x07 != 0
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def wire_quantity(raw: object) -> str:
    """What a quantity written ``raw`` (a JSON string or number) reads back as."""
    return _read_back((raw if isinstance(raw, str) else json.dumps(raw)).strip())


@lru_cache(maxsize=4096)
def _read_back(text: str) -> str:
    # Pure in the text, and the same few quantities recur in every pod and node.
    if text == "0" or _kept(text):
        return text
    return quantity_string(text)
