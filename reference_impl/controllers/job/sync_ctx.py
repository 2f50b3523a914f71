"""What one Job sync knows (``job_controller.go`` ``syncJobCtx``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reference_impl.controllers.job import conditions as jc
from reference_impl.controllers.job.backoff import BackoffRecord
from reference_impl.controllers.job.indexed_job_utils import Intervals
from reference_impl.errors import ApiError

__all__ = ["SyncCtx"]

Obj = dict[str, Any]


@dataclass(slots=True)
class SyncCtx:
    """The pods as listed at the start of the sync and the counters derived from them;
    ``active``, ``ready`` and ``terminating`` follow this sync's own deletions and
    creations, as upstream counts them, rather than a re-list."""

    job: Obj
    status: Obj
    pods: list[Obj]
    active_pods: list[Obj]
    active: int
    ready: int
    terminating: int
    succeeded: int = 0
    failed: int = 0
    indexed: bool = False
    prev_succeeded_indexes: Intervals = field(default_factory=list)
    succeeded_indexes: Intervals = field(default_factory=list)
    finished: jc.FinishedCondition | None = None
    backoff: BackoffRecord = field(default_factory=BackoffRecord)
    # backoffLimitPerIndex (per_index.evaluate): None without it
    failed_indexes: Intervals | None = None
    delayed: dict[int, Obj] = field(default_factory=dict)  # podsWithDelayedDeletionPerIndex
    errors: list[ApiError] = field(default_factory=list)  # pod writes that failed
    key: str = ""  # the Job's queue key
    # expectedRmFinalizers: pods whose finalizer removal is in flight; counted already
    expected_rm_finalizers: set[str] = field(default_factory=set)
