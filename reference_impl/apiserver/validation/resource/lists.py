"""``validateSlice``, ``validateSet`` and ``validateMap`` of upstream's resource validation:
a size limit that short-circuits (DoS protection), per-item checks and duplicates."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from reference_impl.apiserver.validation import field as f
from reference_impl.errors import Cause

__all__ = ["as_dict", "as_list", "validate_map", "validate_set", "validate_slice"]

Item = Callable[[Any, str], list[Cause]]


def as_list(v: Any) -> list[Any]:
    """A JSON list field as a list (null or absent: empty)."""
    return v if isinstance(v, list) else []


def as_dict(v: Any) -> dict[str, Any]:
    """A JSON object as a dict (null, absent, or a null list item: empty, as Go's zero value)."""
    return v if isinstance(v, dict) else {}


def validate_slice(items: list[Any], limit: int, check: Item | None, path: str) -> list[Cause]:
    if 0 <= limit < len(items):
        return [f.too_many(path, len(items), limit)]
    out: list[Cause] = []
    for i, item in enumerate(items):
        out += check(item, f"{path}[{i}]") if check else []
    return out


def validate_set(items: list[Any], limit: int, check: Item | None, key: Callable[[Any], Hashable],
                 path: str, shown: Callable[[Any], Any] | None = None) -> list[Cause]:
    """As ``validate_slice``, then a Duplicate at ``path[i]`` for each repeated key; the
    message shows ``shown(item)`` (upstream prints the key, or the whole item when the
    declarative ``unique=map`` rule reports it)."""
    if 0 <= limit < len(items):
        return [f.too_many(path, len(items), limit)]
    out = validate_slice(items, -1, check, path)
    seen: set[Hashable] = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            out.append(f.duplicate(f"{path}[{i}]", shown(item) if shown else k))
        seen.add(k)
    return out


def validate_map(m: Mapping[str, Any], limit: int, check_key: Callable[[str, str], list[Cause]],
                 check: Item | None, path: str, truncate: int = 96) -> list[Cause]:
    """Keys are checked at ``path`` itself, values at ``path[key]`` (long keys truncated)."""
    if 0 <= limit < len(m):
        return [f.too_many(path, len(m), limit)]
    out: list[Cause] = []
    for k in sorted(m):
        out += check_key(k, path)
        out += check(m[k], f"{path}[{_truncate(k, truncate)}]") if check else []
    return out


def _truncate(s: str, n: int) -> str:
    n = max(n, 16)
    if len(s) <= n:
        return s
    rest = n - 3
    return s[: (rest + 1) // 2] + "..." + s[len(s) - rest // 2:]
