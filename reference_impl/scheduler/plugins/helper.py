"""Models plugins/helper/normalize_score.go and taint.go; node selector matching
(component-helpers' nodeaffinity) lives in ``reference_impl.api.node_affinity`` and is
re-exported here.
"""

from __future__ import annotations

from typing import Any

from reference_impl.api.node_affinity import (
    CompiledTerm,
    NodeSelector,
    aggregate,
    compile_terms,
    go_int64,
)
from reference_impl.scheduler.framework.interface import OK, NodeScore, Status

__all__ = [
    "CompiledTerm",
    "NodeSelector",
    "aggregate",
    "compile_terms",
    "default_normalize_score",
    "do_not_schedule_taints_filter",
    "go_int64",
]


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> Status:
    """Scale scores so the highest becomes ``max_priority``; ``reverse`` flips them."""
    top = max((s.score for s in scores), default=0)
    for s in scores:
        if top == 0:
            s.score = max_priority if reverse else 0
            continue
        value = max_priority * s.score // top
        s.score = max_priority - value if reverse else value
    return OK


def do_not_schedule_taints_filter(taint: dict[str, Any]) -> bool:
    """``DoNotScheduleTaintsFilterFunc``: the taints that keep a pod off a node, those with
    the NoSchedule or NoExecute effect (PreferNoSchedule only scores)."""
    return taint.get("effect") in ("NoSchedule", "NoExecute")
