"""Upstream's scheduling-queue tables against the reference SchedulingQueue.

Ported (pkg/scheduler/backend/queue): ``Test_isPodWorthRequeuing``,
``TestBackoffQueue_calculateBackoffDuration``, ``TestBackoffQueue_getBackoffTime`` (no
cached expiry here), ``TestBackOffFlow`` (the SchedulerPopFromBackoffQ-on variant: the
reference models only that state; more backoffQ rows in test_upstream_backoff_queue.py),
``Test_queuedPodInfo_gatedSetUponCreationAndUnsetUponUpdate``,
``TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint``,
``TestPriorityQueue_AddUnschedulablePodIfNotPresent_Backoff`` and ``TestHighPriorityBackoff``;
plus the activeQ order of ``TestPriorityQueue_Pop``, the error/rejection counts of
``AddUnschedulablePodIfNotPresent`` and the unschedulable-pool timeout
(``flushUnschedulablePodsLeftover``, podMaxInUnschedulablePodsDuration = 5 minutes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.clock import Duration, Instant, SimClock, seconds
from reference_impl.scheduler.framework.events import pod_update_events
from reference_impl.scheduler.framework.interface import (
    OK,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EventResource,
    QueueingHint,
    Status,
)
from reference_impl.scheduler.framework.queue import SchedulingQueue, backoff_duration
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from reference_impl.scheduler.plugins import queue_sort, scheduling_gates

Obj = dict[str, Any]
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
UNSCHEDULABLE_TIMEOUT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout")


@dataclass
class FakeQueueFramework:
    """PrioritySort, a SchedulingGates-like PreEnqueue (with optional allow and deny
    labels), and per-plugin registrations."""

    events: dict[str, list[ClusterEventWithHint]] = field(default_factory=dict)
    allow_label: str = ""  # upstream's preEnqueuePlugin{allowlists}: pods need this label
    deny_label: str = ""  # upstream's denyingPreEnqueuePlugin{denylists}: pods must lack it

    def __post_init__(self) -> None:
        self._sort = queue_sort.new(None, None, SchedulerFeatures())  # type: ignore[arg-type]

    def queue_sort_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return bool(getattr(self._sort, "less")(a, b))  # noqa: B009 - the QueueSort plugin

    def run_pre_enqueue_plugins(self, pod: Obj) -> Status:
        gates = pod["spec"].get("schedulingGates")
        if gates:
            names = " ".join(g["name"] for g in gates)
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          (f"waiting for scheduling gates: [{names}]",), "SchedulingGates")
        labels = pod["metadata"].get("labels") or {}
        if self.allow_label and self.allow_label not in labels:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("not allowed",), self.allow_label)
        if self.deny_label and self.deny_label in labels:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("denied",), "denyingPreEnqueuePlugin")
        return OK

    def events_for(self, plugin: str) -> Sequence[ClusterEventWithHint]:
        return self.events.get(plugin, [])

    def plugins_interested_in(self, event: ClusterEvent) -> frozenset[str]:
        return frozenset(n for n, regs in self.events.items() if any(r.event.matches(event) for r in regs))


def _queue(events: dict[str, list[ClusterEventWithHint]] | None = None) -> tuple[SchedulingQueue, SimClock]:
    clock = SimClock()
    return SchedulingQueue(clock, FakeQueueFramework(events or {}), lambda: None), clock


# -- Test_isPodWorthRequeuing ---------------------------------------------------------

SKIP_, AFTER_BACKOFF, IMMEDIATELY = None, False, True


class Hints:
    """Counts the hint calls, as the upstream test's ``count``."""

    def __init__(self) -> None:
        self.count = 0

    def queue(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        self.count += 1
        return QueueingHint.QUEUE

    def skip(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        self.count += 1
        return QueueingHint.QUEUE_SKIP

    def err(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        self.count += 1
        raise RuntimeError("unexpected error")


Reg = tuple[str, ClusterEvent, str]  # plugin, event, hint kind


def _hint_table(h: Hints, regs: list[Reg]) -> dict[str, list[ClusterEventWithHint]]:
    table: dict[str, list[ClusterEventWithHint]] = {}
    fns: dict[str, Callable[[Obj, Obj | None, Obj | None], QueueingHint]] = {
        "queue": h.queue, "skip": h.skip, "err": h.err}
    for plugin, event, kind in regs:
        table.setdefault(plugin, []).append(ClusterEventWithHint(event, fns[kind]))
    return table


NODE_LABEL = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
NODE_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE)
ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)


@pytest.mark.parametrize(
    ("unsched", "pending", "event", "regs", "want", "want_count"),
    [
        pytest.param({"fooPlugin1"}, set(), NODE_ADD, [("fooPlugin1", ASSIGNED_POD_ADD, "queue")],
                     SKIP_, 0, id="return Queue when no queueing hint function is registered for the event"),
        pytest.param({"fooPlugin1"}, set(), NODE_ADD, [("fooPlugin1", NODE_ADD, "err")], AFTER_BACKOFF, 1,
                     id="Treat the event as Queue when QueueHintFn returns error"),
        pytest.param({"fooPlugin1"}, set(), UNSCHEDULABLE_TIMEOUT, [], AFTER_BACKOFF, 0,
                     id="return Queue when the event is wildcard"),
        pytest.param({"fooPlugin1", "fooPlugin3"}, {"fooPlugin2"}, NODE_ADD,
                     [("fooPlugin1", NODE_ADD, "queue"), ("fooPlugin2", NODE_ADD, "queue"),
                      ("fooPlugin3", NODE_ADD, "queue"), ("fooPlugin4", NODE_ADD, "err")],
                     IMMEDIATELY, 2, id="interprets Queue from the Pending plugin as queueImmediately"),
        pytest.param({"fooPlugin1", "fooPlugin2"}, set(), NODE_ADD,
                     [("fooPlugin1", NODE_ADD, "skip"), ("fooPlugin2", NODE_ADD, "queue")],
                     AFTER_BACKOFF, 2, id="interprets Queue from the Unschedulable plugin as queueAfterBackoff"),
        pytest.param({"fooPlugin1", "fooPlugin2"}, set(), NODE_ADD,
                     [("fooPlugin1", NODE_ADD, "skip"), ("fooPlugin2", NODE_ADD, "skip"),
                      ("fooPlugin3", NODE_ADD, "queue")],
                     SKIP_, 2, id="Queueing hint function that isn't from the plugin in "
                                  "UnschedulablePlugins/PendingPlugins is ignored"),
        pytest.param({"fooPlugin1", "fooPlugin2"}, set(), NODE_LABEL,
                     [("fooPlugin1", NODE_LABEL, "queue"), ("fooPlugin2", NODE_LABEL, "queue"),
                      ("fooPlugin1", NODE_UPDATE, "queue"), ("fooPlugin1", NODE_ADD, "queue")],
                     AFTER_BACKOFF, 1, id="If event is specific Node update event, queueing hint "
                                          "function for NodeUpdate/UpdateNodeLabel is also executed"),
        pytest.param({"fooPlugin1"}, set(), NODE_ADD,
                     [("fooPlugin1", ClusterEvent(EventResource.WILDCARD, ActionType.ADD), "queue")],
                     AFTER_BACKOFF, 1, id="If event with '*' Resource, queueing hint function for "
                                          "specified Resource is also executed"),
        pytest.param({"fooPlugin1"}, set(),
                     ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT),
                     [("fooPlugin1", ClusterEvent(EventResource.WILDCARD, ActionType.ALL), "queue")],
                     AFTER_BACKOFF, 1, id="If event is a wildcard one, queueing hint function for "
                                          "all kinds of events is executed"),
        pytest.param(set(), set(), NODE_ADD, [], AFTER_BACKOFF, 0, marks=pytest.mark.skip(
            reason="the reference has no ForceActivate event (no Activate API)"),
            id="return Queue when the event is wildcard and the wildcard targets the pod to be "
               "requeued right now"),
        pytest.param(set(), set(), NODE_ADD, [], SKIP_, 0, marks=pytest.mark.skip(
            reason="the reference has no ForceActivate event (no Activate API)"),
            id="return Skip when the event is wildcard, but the wildcard targets a different pod"),
    ],
)
def test_is_pod_worth_requeuing(
    unsched: set[str], pending: set[str], event: ClusterEvent, regs: list[Reg], want: bool | None,
    want_count: int,
) -> None:
    h = Hints()
    q, clock = _queue(_hint_table(h, regs))
    pinfo = QueuedPodInfo(PodInfo(make_pod("pod1", "ns1").build()), clock.now())
    pinfo.unschedulable_plugins = set(unsched)
    pinfo.pending_plugins = set(pending)
    new = {"metadata": {"name": "node"}} if event.resource is EventResource.NODE else None
    assert q._worth_requeuing(pinfo, event, None, new) is want
    assert h.count == want_count


# -- backoff --------------------------------------------------------------------------

MAX_INT32, MAX_INT64 = 2**31 - 1, 2**63 - 1


@pytest.mark.parametrize(
    ("initial", "maximum", "count", "size", "want"),
    [
        pytest.param(1, 32, 0, 1, 0, id="no backoff"),
        pytest.param(3, 1000, 5, 1, 48, id="normal"),
        pytest.param(1, 32, 16, 1, 32, id="hitting max backoff duration"),
        pytest.param(1, MAX_INT32, 32, 1, MAX_INT32, id="overflow_32bit"),
        pytest.param(1, MAX_INT64, 64, 1, MAX_INT64, id="overflow_64bit"),
        pytest.param(1, 32, 7, 10, 64, id="larger entity size"),
        pytest.param(1, 32, 16, 10, 101, id="hitting max backoff duration with larger entity size"),
    ],
)
def test_calculate_backoff_duration(initial: int, maximum: int, count: int, size: int, want: int) -> None:
    assert backoff_duration(count, Duration(initial), Duration(maximum), size) == want


@pytest.mark.parametrize(
    ("initial", "maximum", "unschedulable", "errors", "want"),
    [
        pytest.param(seconds(1), seconds(32), 0, 0, None, id="no backoff"),
        pytest.param(seconds(1), seconds(32), 16, 0, seconds(32), id="backoff by UnschedulableCount"),
        pytest.param(seconds(1), seconds(32), 5, 16, seconds(32),
                     id="backoff is calculated with ConsecutiveErrorsCount"),
        pytest.param(Duration(0), Duration(0), 16, 0, None, id="zero maxBackoffDuration means no backoff"),
        pytest.param(seconds(1), seconds(32), 0, 0, 0, marks=pytest.mark.skip(
            reason="no cached BackoffExpiration in the reference (computed from the counts)"),
            id="backoff is returned from the cache"),
    ],
)
def test_get_backoff_time(
    initial: Duration, maximum: Duration, unschedulable: int, errors: int, want: int | None
) -> None:
    """The backoff expiry, from the pod's (window-aligned, as upstream's) timestamp; None
    is upstream's zero time (no backoff)."""
    clock = SimClock()
    q = SchedulingQueue(clock, FakeQueueFramework(), lambda: None,
                        initial_backoff=initial, max_backoff=maximum)
    pinfo = QueuedPodInfo(PodInfo(make_pod("p", "default").build()), Instant(seconds(1_000)))
    pinfo.unschedulable_count, pinfo.consecutive_errors = unschedulable, errors
    assert q._backoff_expiry(pinfo) == (None if want is None else seconds(1_000) + want)


def test_errors_reset_by_a_rejection() -> None:
    """``AddUnschedulablePodIfNotPresent``: an error counts apart (backoff restarts at 1s),
    a rejection resets that count and adds to the rejections."""
    q, clock = _queue()
    q.add(make_pod("p", "default").build())
    for _ in range(3):  # three rejections: 4s
        pinfo = q.pop()
        assert pinfo is not None
        pinfo.unschedulable_plugins = {"foo"}
        q.add_unschedulable_if_not_present(pinfo, error=False)
        q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
        clock.run_until(Instant(clock.now() + seconds(10)))
    pinfo = q.pop()
    assert pinfo is not None
    q.add_unschedulable_if_not_present(pinfo, error=True)  # one error: 1s
    assert (pinfo.unschedulable_count, pinfo.consecutive_errors) == (3, 1)
    assert q._backoff_expiry(pinfo) == clock.now() + seconds(1)
    clock.run_until(Instant(clock.now() + seconds(2)))  # complete in the window after the expiry
    pinfo = q.pop()
    assert pinfo is not None
    q.add_unschedulable_if_not_present(pinfo, error=False)  # a rejection again: 8s
    assert (pinfo.unschedulable_count, pinfo.consecutive_errors) == (4, 0)
    assert q._backoff_expiry(pinfo) == clock.now() + seconds(8)


def test_backoff_flow() -> None:
    """``TestBackOffFlow`` (SchedulerPopFromBackoffQ on; the reference models no other
    state): 1s doubling to 10s per attempt, the expiry truncated to the 1s ordering window,
    so the backoff rounded up to it is the step's; the pod is still backing off one window
    later and leaves backoffQ after that backoff. The clock starts off a window boundary,
    as upstream's time.Now() does."""
    clock = SimClock(Instant(seconds(100) + 123_456_789))
    q = SchedulingQueue(clock, FakeQueueFramework({}), lambda: None)
    pod = make_pod("test-pod", "test-ns").build()
    key = "test-ns/test-pod"
    q.add(pod)
    for i, want in enumerate([1, 2, 4, 8, 10, 10, 10]):
        start = clock.now()
        pinfo = q.pop()
        assert pinfo is not None and pinfo.attempts == i + 1
        pinfo.unschedulable_plugins.add("unsched-plugin")
        q.add_unschedulable_if_not_present(pinfo, error=False)
        q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
        assert q.where(key) == "backoff"
        expiry = q._backoff_expiry(pinfo)
        assert expiry is not None
        backoff = (expiry - start) // seconds(1) * seconds(1) + seconds(1)
        assert backoff == seconds(want)
        clock.run_until(Instant(clock.now() + seconds(1)))
        assert q.where(key) == "backoff"
        clock.run_until(Instant(clock.now() + backoff))
        assert q.where(key) == "active"


# -- activeQ order, gated pods, the unschedulable timeout -------------------------------


def _prio(name: str, priority: int) -> Obj:
    pod = make_pod(name, "default").build()
    pod["spec"]["priority"] = priority
    return pod


def test_active_queue_pops_by_priority_then_arrival() -> None:
    """``TestPriorityQueue_Pop``/PrioritySort: higher priority first, then FIFO."""
    q, clock = _queue()
    q.add(_prio("low", 1))
    clock.run_until(Instant(clock.now() + seconds(1)))
    q.add(_prio("high-late", 100))
    q.add(_prio("mid", 50))
    clock.run_until(Instant(clock.now() + seconds(1)))
    q.add(_prio("high-later", 100))
    order = []
    while (p := q.pop()) is not None:
        order.append(p.pod["metadata"]["name"])
    assert order == ["high-late", "high-later", "mid", "low"]


def test_gated_set_upon_creation_and_unset_upon_update() -> None:
    """``Test_queuedPodInfo_gatedSetUponCreationAndUnsetUponUpdate``: Update derives the
    pod's events and asks the gating plugin's hint (SchedulingGates' registration)."""
    gates = scheduling_gates.SchedulingGates()
    q, _ = _queue({"SchedulingGates": list(gates.events_to_register())})
    gated = make_pod("p", "default").scheduling_gate("foo").build()
    q.add(gated)
    assert q.where("default/p") == "gated"
    ungated = make_pod("p", "default").build()
    q.update(gated, ungated, pod_update_events(EventResource.TARGET_POD, gated, ungated))
    assert q.where("default/p") == "active"


def test_unschedulable_pods_leftover_flush_after_max_duration() -> None:
    """``flushUnschedulablePodsLeftover``: a pod left in the pool longer than
    podMaxInUnschedulablePodsDuration (5 minutes) is retried; one pooled less long stays."""
    q, clock = _queue()
    q.add(make_pod("old", "default").build())
    old = q.pop()
    assert old is not None
    old.unschedulable_plugins.add("fooPlugin")
    q.add_unschedulable_if_not_present(old, error=False)
    clock.run_until(Instant(clock.now() + seconds(60)))
    q.add(make_pod("new", "default").build())
    new = q.pop()
    assert new is not None
    new.unschedulable_plugins.add("fooPlugin")
    q.add_unschedulable_if_not_present(new, error=False)
    clock.run_until(Instant(clock.now() + seconds(239)))
    assert q.where("default/old") == "unschedulable"
    clock.run_until(Instant(clock.now() + seconds(2)))  # old: 5m1s pooled, new: 4m1s
    assert q.where("default/old") in ("active", "backoff")
    assert q.where("default/new") == "unschedulable"


# -- TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint --------------------

UNSCHEDULED_POD_UPDATE = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE)


@pytest.mark.parametrize(
    ("labelled", "unsched", "pending", "gating", "hint", "wait", "event", "want"),
    [
        pytest.param(True, set(), {"foo"}, "", "queue", 0, NODE_ADD, "active",
                     id="Queue queues pod to activeQ"),
        pytest.param(True, {"foo"}, set(), "", "queue", 0, NODE_ADD, "backoff",
                     id="Queue queues pod to backoffQ if Pod is backing off"),
        pytest.param(True, {"foo"}, set(), "", "queue", 2, NODE_ADD, "active",
                     id="Queue queues pod to activeQ if Pod is not backing off"),
        pytest.param(True, {"foo"}, set(), "", "skip", 0, NODE_ADD, "unschedulable",
                     id="Skip queues pod to unschedulableEntities"),
        pytest.param(True, {"foo"}, set(), "", "err", 0, UNSCHEDULABLE_TIMEOUT, "backoff",
                     id="Queue queues pod to backoffQ if Pod is not gated and the event is wildcard"),
        pytest.param(True, set(), set(), "foo", "err", 0, UNSCHEDULABLE_TIMEOUT, "backoff",
                     id="Queue queues pod to backoffQ when Pod is no longer gated and the event is wildcard"),
        pytest.param(False, set(), set(), "foo", "err", 0, UNSCHEDULABLE_TIMEOUT, "gated",
                     id="Queue queues pod to unschedulableQ when Pod is gated and the event is wildcard"),
        pytest.param(True, set(), set(), "SchedulingGates", "err", 0, NODE_ADD, "gated",
                     id="QueueHintFunction is not called when Pod is gated by the plugin that isn't "
                        "interested in the event"),
        pytest.param(True, set(), set(), "foo", "queue", 0, NODE_ADD, "backoff",
                     id="QueueHintFunction is called when Pod is gated by the plugin that is "
                        "interested in the event"),
    ],
)
def test_move_all_to_active_or_backoff_with_queueing_hint(
    labelled: bool, unsched: set[str], pending: set[str], gating: str, hint: str, wait: int,
    event: ClusterEvent, want: str,
) -> None:
    h = Hints()
    events = _hint_table(h, [("foo", NODE_ADD, hint), ("SchedulingGates", UNSCHEDULED_POD_UPDATE, "queue")])
    clock = SimClock()
    q = SchedulingQueue(clock, FakeQueueFramework(events, allow_label="foo"), lambda: None)
    builder = make_pod("pod1", "ns1")
    pod = (builder.label("foo", "bar") if labelled else builder).build()
    q.add(pod)
    pinfo = q.pop()
    if pinfo is not None:  # admitted: one failed attempt, then back to the pool
        pinfo.unschedulable_plugins = set(unsched)
        pinfo.pending_plugins = set(pending)
        if gating:  # setQueuedPodInfoGated
            pinfo.gating_plugin = gating
            pinfo.unschedulable_plugins = {gating}
        q.add_unschedulable_if_not_present(pinfo, error=False)
    clock.run_until(Instant(clock.now() + seconds(wait)))
    q.move_all_to_active_or_backoff(event, None, {"metadata": {"name": "node"}})
    assert q.where("ns1/pod1") == want
    if hint == "err":
        assert h.count == 0  # the hint must not run: wildcard event, or a gate not interested


def test_add_unschedulable_pod_if_not_present_backoff() -> None:
    """A move request while the pods were in flight sends them to backoffQ, not the pool."""
    q, _ = _queue()
    for i in range(10):
        q.add(_prio(f"pod{i}", i))
    popped = [q.pop() for _ in range(9)]
    assert [p.pod["metadata"]["name"] for p in popped if p] == [f"pod{i}" for i in range(9, 0, -1)]
    q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
    first = q.pop()
    assert first is not None and first.pod["metadata"]["name"] == "pod0"
    for p in popped:
        assert p is not None
        p.unschedulable_plugins.add("plugin")
        q.add_unschedulable_if_not_present(p, error=False)
    assert all(q.where(f"default/pod{i}") == "backoff" for i in range(1, 10))


def test_high_priority_backoff() -> None:
    """A high-priority pod backing off does not block a lower one in activeQ."""
    q, _ = _queue()
    q.add(_prio("test-midpod", 100))
    q.add(_prio("test-highpod", 1000))
    high = q.pop()
    assert high is not None and high.pod["metadata"]["name"] == "test-highpod"
    high.unschedulable_plugins.add("fooPlugin")
    q.add_unschedulable_if_not_present(high, error=False)
    q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
    nxt = q.pop()
    assert nxt is not None and nxt.pod["metadata"]["name"] == "test-midpod"
    assert q.where("default/test-highpod") == "backoff"
