"""``k8s.io/apimachinery/pkg/util/validation/field``: typed field errors.

Each constructor returns the ``Cause`` the apiserver puts in ``details.causes``: the
reason (``FieldValueInvalid``...), the path and ``ErrorBody()`` as the message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from reference_impl.errors import Cause

__all__ = [
    "duplicate", "forbidden", "invalid", "not_supported", "quote", "required", "too_long",
    "too_many", "value_string",
]


def quote(s: str) -> str:
    """Go's ``strconv.Quote`` for the common cases (JSON escaping is the same there)."""
    return json.dumps(s, ensure_ascii=False)


def value_string(v: Any) -> str:
    """How ``ErrorBody`` prints a bad value: strings quoted, scalars bare, the rest as JSON."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, (int, float)):
        return str(v)
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _detail(s: str, detail: str) -> str:
    return f"{s}: {detail}" if detail else s


def required(path: str, detail: str = "") -> Cause:
    return Cause(path, "FieldValueRequired", _detail("Required value", detail))


def invalid(path: str, value: Any, detail: str) -> Cause:
    return Cause(path, "FieldValueInvalid", _detail(f"Invalid value: {value_string(value)}", detail))


def not_supported(path: str, value: Any, valid: Iterable[str]) -> Cause:
    detail = "supported values: " + ", ".join(quote(v) for v in valid)
    return Cause(path, "FieldValueNotSupported",
                 _detail(f"Unsupported value: {value_string(value)}", detail))


def forbidden(path: str, detail: str) -> Cause:
    return Cause(path, "FieldValueForbidden", _detail("Forbidden", detail))


def duplicate(path: str, value: Any) -> Cause:
    return Cause(path, "FieldValueDuplicate", f"Duplicate value: {value_string(value)}")


def too_long(path: str, limit: int, unit: str = "bytes") -> Cause:
    unit = unit.rstrip("s") if limit == 1 else unit
    return Cause(path, "FieldValueTooLong", f"Too long: may not be more than {limit} {unit}")


def too_many(path: str, n: int, limit: int) -> Cause:
    items = "item" if limit == 1 else "items"
    return Cause(path, "FieldValueTooMany", f"Too many: {n}: must have at most {limit} {items}")
