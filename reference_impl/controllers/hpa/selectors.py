"""Which HPAs select which pods (``hpa_selector_store.go``).

An HPA is registered with a selector that selects nothing when it is first seen, and
gets its target's selector at each reconcile; pods selected by two HPAs make both
report ``ScalingActive=False/AmbiguousSelector``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reference_impl.api.meta import Selector, selector_from_label_selector

__all__ = ["HPASelectors"]

Obj = dict[str, Any]


class HPASelectors:
    """HPA key ("ns/name") -> the selector of its target's pods."""

    def __init__(self) -> None:
        self._by_key: dict[str, Selector] = {}

    def put_if_absent(self, key: str) -> None:
        """``PutIfAbsent(..., labels.Nothing())`` from enqueueHPA."""
        self._by_key.setdefault(key, Selector(nothing=True))

    def put_if_present(self, key: str, sel: Selector | Mapping[str, Any] | None) -> bool:
        """Record the target's selector (parsed from its Scale, or a LabelSelector); False
        when the HPA was deleted meanwhile."""
        if key not in self._by_key:
            return False
        self._by_key[key] = sel if isinstance(sel, Selector) else selector_from_label_selector(sel)
        return True

    def delete(self, key: str) -> None:
        """The HPA is gone."""
        self._by_key.pop(key, None)

    def matching(self, namespace: str, pods: Iterable[Obj], limit: int = 2) -> list[str]:
        """``HPAsMatchingPods``: up to ``limit`` HPAs of ``namespace`` selecting any pod
        (sorted, where upstream's order is a map's)."""
        found: set[str] = set()
        prefix = f"{namespace}/"
        for pod in pods:
            labels = pod["metadata"].get("labels") or {}
            for key in sorted(self._by_key):
                if key.startswith(prefix) and self._by_key[key].matches(labels):
                    found.add(key)
                    if len(found) >= limit:
                        return sorted(found)
        return sorted(found)
