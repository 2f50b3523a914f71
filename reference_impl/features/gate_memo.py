"""Values derived from a gate map alone, built once per map: ``FeatureGates`` is immutable,
so a table that reads only gates (what create-time validation options or drop rules need)
need not be rebuilt on every write."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

from reference_impl.features import FeatureGates

__all__ = ["per_gates"]

T = TypeVar("T")
_KEEP: Final = 64  # gate maps remembered per function (tests build many; a cluster has one)


def per_gates(build: Callable[[FeatureGates], T]) -> Callable[[FeatureGates], T]:
    """``build`` memoized by the identity of its gate map. The map is held with its value,
    so its id cannot be reused by another map while the entry lives."""
    memo: dict[int, tuple[FeatureGates, T]] = {}

    def get(gates: FeatureGates) -> T:
        hit = memo.get(id(gates))
        if hit is not None and hit[0] is gates:
            return hit[1]
        value = build(gates)
        if len(memo) >= _KEEP:
            memo.clear()
        memo[id(gates)] = (gates, value)
        return value

    get.__doc__ = build.__doc__
    return get
