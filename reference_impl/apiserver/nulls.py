"""JSON ``null`` as Go's decoder reads it into typed objects: an absent field.

A null field is dropped; a null list item becomes the item type's zero value (``{}`` in
a list of objects, ``""`` in a list of strings, ``0`` in a list of numbers), so
validation reports it as upstream does instead of a component tripping over ``None``.
``RawExtension`` payloads (opaque ``parameters``, device status ``data``) keep their
JSON as sent.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["NULL_AS_ABSENT_GROUPS", "drop_nulls"]

# The API groups decoded this way (the others keep their nulls, for now, as before).
NULL_AS_ABSENT_GROUPS: Final = frozenset({"resource.k8s.io"})
_RAW: Final = frozenset({"parameters", "data"})
# Map-typed fields: a null entry is the value type's zero value, not an absent key.
_MAPS: Final[dict[str, Any]] = {"attributes": {}, "capacity": {}, "counters": {},
                                "labels": "", "annotations": ""}


def _zero(siblings: list[Any]) -> Any:
    kinds = {type(s) for s in siblings if s is not None}
    if kinds <= {str}:
        return "" if kinds else {}
    if kinds <= {int, float}:
        return 0
    return {}


def drop_nulls(value: Any) -> Any:
    """``value`` with nulls read as absent (in place for dicts and lists; returns it)."""
    if isinstance(value, dict):
        for k in [k for k, v in value.items() if v is None]:
            del value[k]
        for k, v in value.items():
            if k in _MAPS and isinstance(v, dict):
                for entry in [e for e, x in v.items() if x is None]:
                    v[entry] = type(_MAPS[k])()
            if k not in _RAW:
                drop_nulls(v)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if v is None:
                value[i] = _zero(value)
            else:
                drop_nulls(v)
    return value
