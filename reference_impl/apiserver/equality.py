"""``apiequality.Semantic.DeepEqual`` over wire-shape objects."""

from __future__ import annotations

from typing import Any

__all__ = ["semantic"]


def semantic(v: Any) -> Any:
    """``v`` as ``apiequality.Semantic.DeepEqual`` sees it: an empty list is a nil slice.
    (Quantities need no care: the reference stores them in canonical form.)"""
    if isinstance(v, dict):
        return {k: semantic(x) for k, x in v.items() if x != []}
    if isinstance(v, list):
        return [semantic(x) for x in v]
    return v
