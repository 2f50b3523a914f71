"""``field.Error`` constructors (``apimachinery/pkg/util/validation/field``): the reason
each error type maps to in ``metav1.StatusCause`` and the message ``ErrorBody`` prints."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from reference_impl.errors import Cause

__all__ = [
    "OMIT",
    "duplicate",
    "forbidden",
    "invalid",
    "not_supported",
    "required",
    "too_long",
    "too_many",
]


class _Omit:
    """``field.omitValue``: the message names no value."""


OMIT: Any = _Omit()


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _body(kind: str, value: Any, detail: str) -> str:
    s = kind if value is OMIT else f"{kind}: {_value(value)}"
    return f"{s}: {detail}" if detail else s


def required(path: str, detail: str = "") -> Cause:
    """``field.Required``."""
    return Cause(
        path, "FieldValueRequired", f"Required value: {detail}" if detail else "Required value"
    )


def forbidden(path: str, detail: str = "") -> Cause:
    """``field.Forbidden``."""
    return Cause(path, "FieldValueForbidden", f"Forbidden: {detail}" if detail else "Forbidden")


def invalid(path: str, value: Any, detail: str) -> Cause:
    """``field.Invalid``."""
    return Cause(path, "FieldValueInvalid", _body("Invalid value", value, detail))


def duplicate(path: str, value: Any) -> Cause:
    """``field.Duplicate``."""
    return Cause(path, "FieldValueDuplicate", _body("Duplicate value", value, ""))


def not_supported(path: str, value: Any, supported: Iterable[str]) -> Cause:
    """``field.NotSupported``: the supported values quoted, in the order given."""
    detail = "supported values: " + ", ".join(json.dumps(s) for s in supported)
    return Cause(path, "FieldValueNotSupported", _body("Unsupported value", value, detail))


def too_many(path: str, actual: int, maximum: int) -> Cause:
    """``field.TooMany``."""
    noun = "item" if maximum == 1 else "items"
    return Cause(
        path, "FieldValueTooMany", _body("Too many", actual, f"must have at most {maximum} {noun}")
    )


def too_long(path: str, maximum: int, unit: str = "bytes") -> Cause:
    """``field.TooLong`` (``TooLongCharacters`` with unit "characters")."""
    return Cause(path, "FieldValueTooLong", f"Too long: may not be more than {maximum} {unit}")
