"""JSON encoding for stored objects and private copies, with orjson.

orjson is several times faster than the standard library both ways; the store, the
apiserver's private copy of each write body and every watch event go through these. The output is compact, as
Go's ``encoding/json`` writes it. orjson refuses some values: integers beyond 64 bits,
non-string keys and types it does not know. Those fall back to the standard library, so
nothing that encoded before fails now. The fallback's bytes start with a space (valid
JSON), and ``loads`` reads them with the standard library too, because orjson would
turn a big integer into a float.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps", "loads"]

_SORTED = orjson.OPT_SORT_KEYS


def dumps(value: Any, sort_keys: bool = False) -> bytes:
    """``value`` as compact JSON bytes (keys sorted when asked)."""
    try:
        out = orjson.dumps(value, option=_SORTED if sort_keys else None)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return b" " + json.dumps(value, sort_keys=sort_keys, separators=(",", ":")).encode()
    # orjson's bytes keep its whole write buffer (about 8 KiB for a 1.7 KB pod), and stored
    # values live long: an exact-size copy costs under a microsecond.
    return memoryview(out).tobytes()


def loads(data: bytes) -> Any:
    """The value ``dumps`` encoded in ``data``."""
    if data[:1] == b" ":
        return json.loads(data)
    return orjson.loads(data)

