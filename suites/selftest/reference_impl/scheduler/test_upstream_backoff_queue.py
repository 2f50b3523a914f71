"""backoffQ rows ported from upstream pkg/scheduler/backend/queue/backoff_queue_test.go
(v1.37.2): TestBackoffQueue_popAllBackoffCompleted and TestBackoffQueueOrdering
(TestBackoffQueue_getBackoffTime and TestBackoffQueue_calculateBackoffDuration are in
test_upstream_core_queue.py).

The reference models SchedulerPopFromBackoffQ on (its default): the variants with the gate
off are skipped. Pods enter the reference's backoffQ as upstream's ``backoffQueue.add``
files them: with no rejecting (or pending) plugin a pod counts as errored.
"""

from __future__ import annotations

import pytest

from reference_impl.api import make_pod
from reference_impl.clock import Instant, SimClock, seconds
from reference_impl.scheduler.framework.queue import (
    ORDERING_WINDOW,
    SchedulingQueue,
    align_to_window,
)
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from suites.selftest.reference_impl.scheduler.test_upstream_core_queue import FakeQueueFramework

GATE_OFF = pytest.mark.skip(reason="SchedulerPopFromBackoffQ off is not modelled (the reference has it on)")
NOW = Instant(seconds(1_000) + 345_678_901)  # upstream's fake clock starts at time.Now()


def _pinfo(name: str, timestamp: int, *, unschedulable: int = 0, errors: int = 0, priority: int = 0) -> QueuedPodInfo:
    pod = make_pod(name, "default").build()
    pod["spec"]["priority"] = priority
    p = QueuedPodInfo(PodInfo(pod), Instant(timestamp))
    p.unschedulable_count, p.consecutive_errors = unschedulable, errors
    if unschedulable:
        p.attempts, p.unschedulable_plugins = 1, {"plugin"}
    return p


def _add(q: SchedulingQueue, p: QueuedPodInfo) -> None:
    """``backoffQueue.add``: the error heap when no plugin rejected the pod."""
    if not p.unschedulable_plugins and not p.pending_plugins:
        q._errored.add(p.key)  # noqa: SLF001 - the reference keeps one heap and marks errors
    q._push_backoff(p)  # noqa: SLF001


def _pop_names(now: Instant, pods: list[QueuedPodInfo]) -> tuple[list[str], int]:
    q = SchedulingQueue(SimClock(now), FakeQueueFramework(), lambda: None)
    for p in pods:
        _add(q, p)
    got = [p.info.pod["metadata"]["name"] for p in q.pop_all_backoff_completed()]
    return got, q.counts()["backoff"]


def _pop_all_pods() -> dict[str, QueuedPodInfo]:
    return {
        "pod0": _pinfo("pod0", NOW - seconds(2), unschedulable=1),
        "pod1": _pinfo("pod1", NOW + seconds(1), unschedulable=1),
        "pod2": _pinfo("pod2", NOW - seconds(2), errors=1),
        "pod3": _pinfo("pod3", NOW + seconds(1), errors=1),
    }


POP_ALL = [
    ("Both queues empty, no pods moved to activeQ", [], []),
    ("Pods only in backoffQ, some pods moved to activeQ", ["pod0", "pod1"], ["pod0"]),
    ("Pods only in errorBackoffQ, some pods moved to activeQ", ["pod2", "pod3"], ["pod2"]),
    ("Pods in both queues, some pods moved to activeQ", ["pod0", "pod1", "pod2", "pod3"], ["pod0", "pod2"]),
    ("Pods in both queues, all pods moved to activeQ", ["pod0", "pod2"], ["pod0", "pod2"]),
    ("Pods in both queues, no pods moved to activeQ", ["pod1", "pod3"], []),
]


@pytest.mark.parametrize(("in_backoff", "want"), [
    pytest.param(b, w, id=f"{n} popFromBackoffQEnabled({gate})", marks=() if gate else GATE_OFF)
    for n, b, w in POP_ALL for gate in (True, False)
])
def test_pop_all_backoff_completed(in_backoff: list[str], want: list[str]) -> None:
    """TestBackoffQueue_popAllBackoffCompleted: those rejected, then those that errored."""
    pods = _pop_all_pods()
    got, left = _pop_names(NOW, [pods[n] for n in in_backoff])
    assert got == want
    assert left == len(in_backoff) - len(want)


def test_backoff_queue_ordering_by_priority_within_a_window() -> None:
    """TestBackoffQueueOrdering, "Pods with the same window are ordered by priority if
    PopFromBackoffQ is enabled": the clock on a window boundary; pod1's 1s backoff ends
    at that boundary, so it is still backing off; pod2, pod3 and pod4 share the previous
    window (priority first, then the earlier timestamp)."""
    now = align_to_window(NOW)
    pods = [
        _pinfo("pod0", now, unschedulable=1, priority=1),
        _pinfo("pod1", now - seconds(1), unschedulable=1, priority=1),
        _pinfo("pod2", now - seconds(2) + 1_000_000, unschedulable=1, priority=2),
        _pinfo("pod3", now - seconds(2), unschedulable=1, priority=1),
        _pinfo("pod4", now - seconds(2), unschedulable=1, priority=2),
        _pinfo("pod5", now - seconds(3), unschedulable=1, priority=1),
    ]
    assert _pop_names(now, pods)[0] == ["pod5", "pod4", "pod2", "pod3"]
    assert ORDERING_WINDOW == seconds(1)


@GATE_OFF
def test_backoff_queue_ordering_gate_off() -> None:
    """TestBackoffQueueOrdering, "Pods priority doesn't matter if PopFromBackoffQ is
    disabled": ["pod5", "pod3", "pod4", "pod2"]."""
