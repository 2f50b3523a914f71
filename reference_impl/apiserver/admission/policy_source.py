"""The admission policy plugins' bindings grouped by policy, after apiserver
pkg/admission/plugin/policy/generic policy_source.go ``calculatePolicyData``, recomputed
only when the bindings change (upstream: when an informer event marks the source dirty).

The reference orders what upstream leaves to map order: policies by name, each policy's
bindings by name."""

from __future__ import annotations

from typing import Any

__all__ = ["Grouped", "PolicyBindings", "group_bindings"]

Obj = dict[str, Any]
# (policyName, its bindings), policies by name, bindings by name.
Grouped = list[tuple[str, list[Obj]]]


def group_bindings(bindings: list[Obj]) -> Grouped:
    """``bindings`` grouped by ``spec.policyName``, in the reference's order."""
    by_policy: dict[str, list[Obj]] = {}
    for b in sorted(bindings, key=lambda b: str(b["metadata"].get("name"))):
        by_policy.setdefault(str((b.get("spec") or {}).get("policyName") or ""), []).append(b)
    return [(name, by_policy[name]) for name in sorted(by_policy)]


class PolicyBindings:
    """One plugin's grouped view, kept while the lister answers the same binding objects.

    The apiserver's listers share one object per stored version (``APIServer._shared``),
    so the same objects in the same order mean no binding was written; keeping them here
    keeps them alive, so an identity is never reused by another object. A lister without
    sharing answers fresh objects, and the view is rebuilt every time."""

    __slots__ = ("_bindings", "_grouped")

    def __init__(self) -> None:
        self._bindings: list[Obj] = []
        self._grouped: Grouped = []

    def grouped(self, bindings: list[Obj]) -> Grouped:
        """``group_bindings(bindings)``, memoized; callers must not change the result."""
        same = len(bindings) == len(self._bindings) and all(
            a is b for a, b in zip(bindings, self._bindings, strict=True)
        )
        if not same:
            self._grouped = group_bindings(bindings)
            self._bindings = list(bindings)
        return self._grouped
