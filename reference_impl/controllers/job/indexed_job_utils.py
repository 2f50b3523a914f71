"""Completion indexes (``pkg/controller/job/indexed_job_utils.go``).

``completedIndexes`` is the compressed interval list upstream writes ("0-2,5").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = [
    "COMPLETION_INDEX",
    "format_indexes",
    "index_of",
    "parse_indexes",
]

COMPLETION_INDEX: Final = "batch.kubernetes.io/job-completion-index"


def index_of(pod: Mapping[str, Any]) -> int | None:
    """The pod's completion index from its annotation, or None when missing or malformed."""
    raw = (pod["metadata"].get("annotations") or {}).get(COMPLETION_INDEX)
    try:
        i = int(raw) if raw is not None else -1
    except ValueError:
        return None
    return i if i >= 0 else None


def parse_indexes(text: str | None, completions: int) -> set[int]:
    """Parse "0-2,5" into {0, 1, 2, 5}, dropping indexes ≥ completions."""
    out: set[int] = set()
    for part in (text or "").split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return {i for i in out if i < completions}


def format_indexes(indexes: Iterable[int]) -> str:
    """Format indexes as sorted, compressed intervals."""
    parts: list[str] = []
    run: list[int] = []
    for i in sorted(set(indexes)):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            parts.append(_interval(run))
        run = [i]
    if run:
        parts.append(_interval(run))
    return ",".join(parts)


def _interval(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"
