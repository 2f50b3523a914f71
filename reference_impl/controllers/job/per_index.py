"""Backoff limit per index (``pkg/controller/job/indexed_job_utils.go``, KEP-3850).

With ``spec.backoffLimitPerIndex`` each index of an Indexed Job has its own failure budget.
Every pod carries ``batch.kubernetes.io/job-index-failure-count`` (and, for failures a pod
failure policy ignored, ``...-index-ignored-failure-count``); a replacement pod gets its
predecessor's counts plus one. An index whose failed pod used up the budget (or matched a
FailIndex rule) is listed in ``status.failedIndexes`` and never retried. The last failed pod
of a pending index keeps its tracking finalizer until its replacement exists, so the count
can be copied over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from reference_impl.clock import Duration, Instant
from reference_impl.controllers.controller_utils import is_pod_active
from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job import pod_failure_policy as pfp
from reference_impl.controllers.job.backoff import (
    DEFAULT_BACKOFF,
    MAX_BACKOFF,
    finished_time,
    remaining_for_failures,
)
from reference_impl.controllers.job.indexed_job_utils import (
    index_of,
    parse_indexes,
    total,
    with_ordered_indexes,
)
from reference_impl.controllers.job.sync_ctx import SyncCtx
from reference_impl.controllers.job.tracking import has_tracking_finalizer, is_pod_failed

__all__ = [
    "INDEX_FAILURE_COUNT",
    "INDEX_IGNORED_FAILURE_COUNT",
    "calculate_failed_indexes",
    "creatable_indexes",
    "evaluate",
    "has_backoff_limit_per_index",
    "index_failure_count",
    "is_index_failed",
    "new_index_failure_counts",
    "pods_with_delayed_deletion",
    "remaining_time_per_index",
]

Obj = dict[str, Any]
INDEX_FAILURE_COUNT: Final = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT: Final = "batch.kubernetes.io/job-index-ignored-failure-count"
_MAX_INT32: Final = 2**31 - 1
MAX_FAILED_INDEXES_EXCEEDED: Final = "MaxFailedIndexesExceeded"
FAILED_INDEXES: Final = "FailedIndexes"


def has_backoff_limit_per_index(job: Mapping[str, Any]) -> bool:
    """``hasBackoffLimitPerIndex``."""
    return job["spec"].get("backoffLimitPerIndex") is not None


def _int32(value: Any) -> int:
    """``parseInt32``: 0 for anything unparsable, negative or beyond int32."""
    try:
        v = int(str(value))
    except ValueError:
        return 0
    return v if 0 <= v <= _MAX_INT32 else 0


def _annotation(pod: Mapping[str, Any], key: str) -> int:
    raw = ((pod.get("metadata") or {}).get("annotations") or {}).get(key)
    return 0 if raw is None else _int32(raw)


def index_failure_count(pod: Mapping[str, Any]) -> int:
    """``getIndexFailureCount``."""
    return _annotation(pod, INDEX_FAILURE_COUNT)


def _absolute_failure_count(pod: Mapping[str, Any]) -> int:
    """``getIndexAbsoluteFailureCount``: counted plus ignored failures."""
    return _annotation(pod, INDEX_FAILURE_COUNT) + _annotation(pod, INDEX_IGNORED_FAILURE_COUNT)


def is_index_failed(job: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``isIndexFailed``: the pod failed by a FailIndex rule, or a counted failure with the
    index's budget used up."""
    counted = False
    if is_pod_failed(pod, job):
        policy = job["spec"].get("podFailurePolicy")
        if policy is not None:
            _, counted, action = pfp.match_pod_failure_policy(policy, pod)
            if action == pfp.FAIL_INDEX:
                return True
        else:
            counted = True
    return counted and index_failure_count(pod) >= int(job["spec"]["backoffLimitPerIndex"])


def _valid_index(pod: Mapping[str, Any], completions: int) -> int | None:
    ix = index_of(pod)
    return ix if ix is not None and ix < completions else None


def calculate_failed_indexes(
    job: Mapping[str, Any], status: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]
) -> set[int]:
    """``calculateFailedIndexes``: ``status.failedIndexes`` plus indexes newly failed by a
    pod that still has its tracking finalizer."""
    completions = int(job["spec"].get("completions") or 0)
    out = parse_indexes(status.get("failedIndexes"), completions)
    for p in pods:
        ix = _valid_index(p, completions)
        if ix is not None and has_tracking_finalizer(p) and is_index_failed(job, p):
            out.add(ix)
    return out


def pods_with_delayed_deletion(
    job: Mapping[str, Any],
    pods: Iterable[Obj],
    succeeded: set[int],
    failed: set[int],
    expected_rm: Iterable[str] = (),
) -> dict[int, Obj]:
    """``getPodsWithDelayedDeletionPerIndex``: per pending index, its latest failed pod
    (highest absolute failure count, then latest finish) still holding the finalizer."""
    pods = list(pods)
    completions = int(job["spec"].get("completions") or 0)
    active = {index_of(p) for p in pods if is_pod_active(p)}
    skip = set(expected_rm)
    out: dict[int, Obj] = {}
    for p in pods:
        if not has_tracking_finalizer(p) or p["metadata"].get("uid") in skip:
            continue
        ix = _valid_index(p, completions)
        if ix is None or not is_pod_failed(p, job):
            continue
        if ix in succeeded or ix in failed or ix in active:
            continue
        last = out.get(ix)
        if last is None or (
            _absolute_failure_count(last) <= _absolute_failure_count(p)
            and finished_time(p) >= finished_time(last)
        ):
            out[ix] = p
    return out


def evaluate(ctx: SyncCtx) -> None:
    """``syncJob``'s backoffLimitPerIndex step, after ``ctx.succeeded_indexes`` is known:
    record the failed indexes and the held pods, and fail the Job when too many indexes
    failed (maxFailedIndexes) or every index has either succeeded or failed."""
    job = ctx.job
    if not ctx.indexed or not has_backoff_limit_per_index(job):
        return
    failed = calculate_failed_indexes(job, ctx.status, ctx.pods)
    ctx.failed_indexes = with_ordered_indexes([], sorted(failed))
    if ctx.finished is None:
        limit = job["spec"].get("maxFailedIndexes")
        completions = int(job["spec"].get("completions") or 0)
        if limit is not None and len(failed) > int(limit):
            msg = "Job has exceeded the specified maximal number of failed indexes"
            ctx.finished = jc.failed(MAX_FAILED_INDEXES_EXCEEDED, msg)
        elif failed and len(failed) + total(ctx.succeeded_indexes) >= completions:
            ctx.finished = jc.failed(FAILED_INDEXES, "Job has failed indexes")
    succeeded = {i for a, b in ctx.succeeded_indexes for i in range(a, b + 1)}
    ctx.delayed = pods_with_delayed_deletion(job, ctx.pods, succeeded, failed)


def new_index_failure_counts(job: Mapping[str, Any], replaced: Mapping[str, Any] | None) -> tuple[int, int]:
    """``getNewIndexFailureCounts``: (failures, ignored failures) for a replacement pod."""
    if replaced is None:
        return 0, 0
    count = _annotation(replaced, INDEX_FAILURE_COUNT)
    ignored = _annotation(replaced, INDEX_IGNORED_FAILURE_COUNT)
    if pfp.counts_failure(job, replaced):
        count += 1
    else:
        ignored += 1
    return count, ignored


def add_index_failure_count_annotation(
    pod: Obj, job: Mapping[str, Any], replaced: Mapping[str, Any] | None
) -> None:
    """``addIndexFailureCountAnnotation`` on a new pod's manifest."""
    count, ignored = new_index_failure_counts(job, replaced)
    annotations = pod["metadata"].setdefault("annotations", {})
    annotations[INDEX_FAILURE_COUNT] = str(count)
    if ignored > 0:
        annotations[INDEX_IGNORED_FAILURE_COUNT] = str(ignored)


def remaining_time_per_index(
    now: Instant,
    last_failed: Mapping[str, Any] | None,
    *,
    default: Duration = DEFAULT_BACKOFF,
    maximum: Duration = MAX_BACKOFF,
) -> Duration:
    """``getRemainingTimePerIndex``: the index's back-off from its last failed pod, whose
    counted and ignored failures (plus its own) set the delay."""
    if last_failed is None:
        return Duration(0)
    failures = _absolute_failure_count(last_failed) + 1
    last = finished_time(last_failed)
    return remaining_for_failures(failures, last, now, default=default, maximum=maximum)


def creatable_indexes(
    now: Instant, indexes: Iterable[int], delayed: Mapping[int, Obj]
) -> tuple[list[int], Duration]:
    """``getPodCreationInfoForIndependentIndexes``: the indexes out of back-off now; when
    none is, the shortest wait."""
    ready: list[int] = []
    wait: Duration | None = None
    for ix in indexes:
        left = remaining_time_per_index(now, delayed.get(ix))
        if left == 0:
            ready.append(ix)
        elif wait is None or left < wait:
            wait = left
    if ready:
        return ready, Duration(0)
    return ready, wait if wait is not None else Duration(0)
