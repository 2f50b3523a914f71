"""Models k8s.io/component-helpers/scheduling/corev1 taint helpers and v1 ToleratesTaint.

Taints and tolerations are parsed once per node and per pod into frozen values, so the
Filter hot path compares tuples instead of walking manifests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["Taint", "Toleration", "find_untolerated", "parse_taints", "parse_tolerations"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Taint:
    """A node taint: ``key=value:effect``."""

    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class Toleration:
    """A pod toleration; an empty key with Exists tolerates everything."""

    key: str
    operator: str
    value: str
    effect: str
    compare: bool = False  # TaintTolerationComparisonOperators: Gt and Lt may match

    def tolerates(self, taint: Taint) -> bool:
        """``Toleration.ToleratesTaint``: effect, key and value (per operator) match."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        op = self.operator
        if op in ("", "Equal"):  # an empty key with Equal is rejected by validation
            return self.value == taint.value
        if op == "Exists":
            return True
        if op in ("Gt", "Lt") and self.compare:
            return _compare(self.value, taint.value, op)
        return False  # unknown operators, and Gt/Lt with the gate off, match nothing


def _decimal(value: str) -> int | None:
    # content.IsDecimalInteger: optional "-", no leading zeros, digits only.
    digits = value[1:] if value.startswith("-") else value
    if not digits.isascii() or not digits.isdigit() or (digits[0] == "0" and value != "0"):
        return None
    n = int(value)
    return n if -(2**63) <= n < 2**63 else None  # strconv.ParseInt(v, 10, 64)


def _compare(toleration: str, taint: str, op: str) -> bool:
    """``compareNumericValues``: the taint's value against the toleration's threshold."""
    want, have = _decimal(toleration), _decimal(taint)
    if want is None or have is None:
        return False
    return have < want if op == "Lt" else have > want


def parse_taints(node: Obj) -> tuple[Taint, ...]:
    """The node's spec.taints as values, in spec order."""
    raw = (node.get("spec") or {}).get("taints") or ()
    return tuple(Taint(t["key"], t.get("value") or "", t["effect"]) for t in raw)


def parse_tolerations(pod: Obj, compare: bool = False) -> tuple[Toleration, ...]:
    """The pod's spec.tolerations as values; ``compare`` enables Gt/Lt."""
    raw = (pod.get("spec") or {}).get("tolerations") or ()
    if not raw:
        return ()
    fields = tuple(
        (t.get("key") or "", t.get("operator") or "Equal", t.get("value") or "",
         t.get("effect") or "", compare)
        for t in raw
    )  # fmt: skip
    try:
        return _tolerations(fields)
    except TypeError:  # an unhashable (invalid) field: parse it unshared
        return tuple(Toleration(*f) for f in fields)


# Most pods carry the same few tolerations (admission's not-ready/unreachable defaults);
# the values are frozen, so pods share one tuple rather than every pod holding its own
# long-lived copies for the cyclic collector to walk.
@lru_cache(maxsize=1024)
def _tolerations(fields: tuple[tuple[str, str, str, str, bool], ...]) -> tuple[Toleration, ...]:
    return tuple(Toleration(*f) for f in fields)


def tolerated(taint: Taint, tolerations: Iterable[Toleration]) -> bool:
    """Whether any toleration tolerates ``taint``."""
    return any(t.tolerates(taint) for t in tolerations)


def find_untolerated(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: frozenset[str]
) -> Taint | None:
    """The first taint with an effect in ``effects`` that no toleration tolerates."""
    for taint in taints:
        if taint.effect in effects and not tolerated(taint, tolerations):
            return taint
    return None
