"""Completion indexes (``pkg/controller/job/indexed_job_utils.go``).

Index sets are ``orderedIntervals``: sorted, disjoint, non-adjacent ``(first, last)``
pairs. ``completedIndexes`` is their string form ("0-2,5", and "3,4" for a pair).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from reference_impl.controllers.controller_utils import deletion_rank

__all__ = [
    "COMPLETION_INDEX",
    "Intervals",
    "append_duplicated_index_pods_for_removal",
    "calculate_succeeded_indexes",
    "first_pending_indexes",
    "format_indexes",
    "format_intervals",
    "has_index",
    "index_of",
    "merge_intervals",
    "parse_indexes",
    "parse_intervals",
    "total",
    "with_ordered_indexes",
]

COMPLETION_INDEX: Final = "batch.kubernetes.io/job-completion-index"
TRACKING_FINALIZER: Final = "batch.kubernetes.io/job-tracking"

Obj = dict[str, Any]
Intervals = list[tuple[int, int]]


def index_of(pod: Mapping[str, Any]) -> int | None:
    """``getCompletionIndex``: the annotation's index, None when missing, malformed or < 0."""
    raw = ((pod.get("metadata") or {}).get("annotations") or {}).get(COMPLETION_INDEX)
    try:
        i = int(raw) if raw is not None else -1
    except ValueError:
        return None
    return i if i >= 0 else None


def _atoi(text: str) -> int | None:
    """Go's strconv.Atoi: an optional sign and decimal digits, nothing else."""
    body = text[1:] if text[:1] in ("+", "-") else text
    return int(text) if body.isascii() and body.isdigit() else None


def parse_intervals(text: str | None, completions: int) -> Intervals:
    """``parseIndexesFromString``: corrupted parts are skipped, parsing stops at the first
    interval starting at or past ``completions`` and a last index past it is clamped."""
    out: list[list[int]] = []
    for part in (text or "").split(",") if text else []:
        limits = part.split("-")
        first = _atoi(limits[0])
        if first is None:
            continue
        if first >= completions:
            break
        last = first
        if len(limits) > 1:
            parsed = _atoi(limits[1])
            if parsed is None:
                continue
            last = min(parsed, completions - 1)
        if out and out[-1][1] == first - 1:
            out[-1][1] = last
        else:
            out.append([first, last])
    return [(a, b) for a, b in out]


def merge_intervals(old: Sequence[tuple[int, int]], new: Sequence[tuple[int, int]]) -> Intervals:
    """``orderedIntervals.merge``: the union of two ordered interval lists."""
    out: list[list[int]] = []

    def put(iv: tuple[int, int]) -> None:
        if not out or iv[0] > out[-1][1] + 1:
            out.append([iv[0], iv[1]])
        elif out[-1][1] < iv[1]:
            out[-1][1] = iv[1]

    i = j = 0
    while i < len(old) and j < len(new):
        if old[i][0] < new[j][0]:
            put(old[i])
            i += 1
        else:
            put(new[j])
            j += 1
    for iv in [*old[i:], *new[j:]]:
        put(iv)
    return [(a, b) for a, b in out]


def with_ordered_indexes(old: Sequence[tuple[int, int]], indexes: Iterable[int]) -> Intervals:
    """``orderedIntervals.withOrderedIndexes``: add ascending indexes."""
    return merge_intervals(old, [(i, i) for i in indexes])


def total(oi: Sequence[tuple[int, int]]) -> int:
    """``orderedIntervals.total``: how many indexes the intervals hold."""
    return sum(b - a + 1 for a, b in oi)


def has_index(oi: Sequence[tuple[int, int]], ix: int) -> bool:
    """``orderedIntervals.has``."""
    return any(a <= ix <= b for a, b in oi)


def format_intervals(oi: Sequence[tuple[int, int]]) -> str:
    """``orderedIntervals.String``: "a-b" for three or more, "a,b" for a pair."""
    parts: list[str] = []
    for a, b in oi:
        if b == a:
            parts.append(str(a))
        else:
            parts.append(f"{a}{',' if b == a + 1 else '-'}{b}")
    return ",".join(parts)


def parse_indexes(text: str | None, completions: int) -> set[int]:
    """The indexes of ``parse_intervals`` as a set: "0-2,5" into {0, 1, 2, 5}."""
    return {i for a, b in parse_intervals(text, completions) for i in range(a, b + 1)}


def format_indexes(indexes: Iterable[int]) -> str:
    """Format indexes the way upstream writes ``completedIndexes``."""
    return format_intervals(with_ordered_indexes([], sorted(set(indexes))))


def calculate_succeeded_indexes(
    job: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]
) -> tuple[Intervals, Intervals]:
    """``calculateSucceededIndexes``: (from status.completedIndexes, with the succeeded
    pods that still hold the tracking finalizer added)."""
    completions = int(job["spec"].get("completions") or 0)
    prev = parse_intervals((job.get("status") or {}).get("completedIndexes"), completions)
    new: set[int] = set()
    for p in pods:
        ix = index_of(p)
        if (
            (p.get("status") or {}).get("phase") == "Succeeded"
            and ix is not None
            and ix < completions
            and TRACKING_FINALIZER in ((p.get("metadata") or {}).get("finalizers") or [])
        ):
            new.add(ix)
    return prev, with_ordered_indexes(prev, sorted(new))


def first_pending_indexes(
    succeeded: Sequence[tuple[int, int]],
    active: Iterable[Mapping[str, Any]],
    count: int,
    completions: int,
    terminating: Iterable[Mapping[str, Any]] = (),
    failed: Sequence[tuple[int, int]] | None = None,
) -> list[int]:
    """``firstPendingIndexes``: the lowest ``count`` indexes below ``completions`` not
    succeeded, active, terminating (pass them only when podReplacementPolicy is Failed)
    or failed."""
    if count == 0:
        return []
    busy = {i for p in active if (i := index_of(p)) is not None}
    busy |= {i for p in terminating if (i := index_of(p)) is not None}
    taken = with_ordered_indexes(succeeded, sorted(busy))
    if failed is not None:
        taken = merge_intervals(taken, failed)
    out: list[int] = []
    candidate = 0
    for first, last in taken:
        while candidate < completions and len(out) < count and candidate < first:
            out.append(candidate)
            candidate += 1
        candidate = max(candidate, last + 1)
    while candidate < completions and len(out) < count:
        out.append(candidate)
        candidate += 1
    return out


def append_duplicated_index_pods_for_removal(
    rm: list[Obj], left: list[Obj], pods: Sequence[Obj], completions: int
) -> tuple[list[Obj], list[Obj]]:
    """``appendDuplicatedIndexPodsForRemoval``: pods without a valid index or with one
    past ``completions`` go to ``rm``; of pods sharing an index, all but the last in
    ``ActivePods`` order go to ``rm`` and that one to ``left``."""
    ordered = sorted(pods, key=lambda p: -1 if (i := index_of(p)) is None else i)

    def flush(group: list[Obj], ix: int | None) -> None:
        if ix is None:
            rm.extend(group)
        elif len(group) == 1:
            left.append(group[0])
        elif group:
            group = sorted(group, key=deletion_rank)
            rm.extend(group[:-1])
            left.append(group[-1])

    last: int | None = None
    start = looped = 0
    for n, p in enumerate(ordered):
        ix = index_of(p)
        if ix is not None and ix >= completions:
            rm.extend(ordered[n:])  # upstream appends these before the last group
            break
        if ix != last:
            flush(ordered[start:n], last)
            start, last = n, ix
        looped += 1
    flush(ordered[start:looped], last)
    return rm, left
