"""More of upstream's scheduling-queue tables against the reference SchedulingQueue.

Ported (pkg/scheduler/backend/queue/scheduling_queue_test.go): ``TestPriorityQueue_Update``
(the nominator is not the queue's here, so ``wantAddedToNominated`` is not checked),
``TestPriorityQueue_UpdateWhenInflight``, ``TestMoveAllToActiveOrBackoffQueue_PreEnqueueChecks``,
``TestPriorityQueue_Delete`` (no unschedulable-reason metrics here), ``TestPop``,
``TestPriorityQueue_AddUnschedulablePodIfNotPresent``, ``TestRecentlyTriedPodsGoBack``,
``TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod`` and
``TestHighPriorityFlushUnschedulableEntitiesLeftover``. The TargetPod update event carries
the hints, as ``framework.EventTargetPodUpdate`` in upstream's QueueingHintMap.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.clock import Instant, SimClock, seconds
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
from reference_impl.scheduler.framework.queue import (
    INITIAL_BACKOFF,
    MAX_BACKOFF,
    MAX_IN_UNSCHEDULABLE_PODS,
    SchedulingQueue,
)
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from suites.selftest.reference_impl.scheduler.test_upstream_core_queue import FakeQueueFramework

Obj = dict[str, Any]
TARGET_POD_UPDATE = ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE)


def _queue_hint(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    return QueueingHint.QUEUE


def _skip_hint(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    return QueueingHint.QUEUE_SKIP


def _new_queue(events: dict[str, list[ClusterEventWithHint]]) -> tuple[SchedulingQueue, SimClock]:
    clock = SimClock()
    return SchedulingQueue(clock, FakeQueueFramework(events, deny_label="deny"), lambda: None), clock


def _pod(name: str, prio: int, *, labels: Obj | None = None, nominated: str = "") -> Obj:
    pod = make_pod(name, "ns1").build()
    pod["spec"]["priority"] = prio
    pod["metadata"]["annotations"] = {}
    if labels:
        pod["metadata"]["labels"] = dict(labels)
    if nominated:
        pod["status"] = {**(pod.get("status") or {}), "nominatedNodeName": nominated}
    return pod


def _annotated(pod: Obj, value: str) -> Obj:
    meta = {**pod["metadata"], "annotations": {**pod["metadata"]["annotations"], "foo": value}}
    return {**pod, "metadata": meta}


def _gated(pod: Obj) -> Obj:
    return {**pod, "metadata": {**pod["metadata"], "labels": {"deny": "true"}}}


HIGH = _pod("hpp", 1000)
HIGH_NOMINATED = _pod("hpp", 1000, nominated="node1")
MED = _pod("mpp", 100)

Prepare = Callable[[SchedulingQueue, SimClock], tuple[Obj, Obj]]


def _in_pool(q: SchedulingQueue, pod: Obj, plugin: str, count: int) -> None:
    pinfo = QueuedPodInfo(PodInfo(pod), q._clock.now(), unschedulable_count=count,  # noqa: SLF001
                          unschedulable_plugins={plugin})
    q._unschedulable[pinfo.key] = pinfo  # noqa: SLF001 - upstream adds to the pool directly


def _not_in_queue(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    return MED, _annotated(MED, "test")


def _gated_not_in_queue(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    return _gated(MED), _annotated(_gated(MED), "test")


def _nominated(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    return HIGH, HIGH_NOMINATED


def _gated_nominated(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    return _gated(HIGH), _gated(HIGH_NOMINATED)


def _in_active(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    q.add(HIGH)
    return HIGH, HIGH


def _in_backoff(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    q._push_backoff(QueuedPodInfo(PodInfo(MED), c.now()))  # noqa: SLF001
    return MED, MED


def _pool_backing_off(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    _in_pool(q, MED, "queuePlugin", 1)
    return MED, _annotated(MED, "test")


def _pool_backoff_expired(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    _in_pool(q, MED, "queuePlugin", 1)
    c.run_until(Instant(c.now() + MAX_BACKOFF))
    return MED, _annotated(MED, "test1")


def _pool_skip(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    _in_pool(q, MED, "skipPlugin", 0)
    return MED, _annotated(MED, "test1")


def _in_flight(q: SchedulingQueue, c: SimClock) -> tuple[Obj, Obj]:
    q.add(MED)
    popped = q.pop()
    assert popped is not None and popped.pod is MED
    return MED, _annotated(MED, "bar")


@pytest.mark.parametrize(
    ("prepare", "want"),
    [
        pytest.param(_not_in_queue, "active", id="Update pod that didn't exist in the queue"),
        pytest.param(_gated_not_in_queue, "gated", id="Update gated pod that didn't exist in the queue"),
        pytest.param(_nominated, "active",
                     id="Update non-existent highPriorityPodInfo and add a nominatedNodeName to it"),
        pytest.param(_gated_nominated, "gated",
                     id="Update non-existent gated highPriorityPodInfo and add a nominatedNodeName to it"),
        pytest.param(_in_active, "active",
                     id="When updating a pod that is already in activeQ, the pod should remain in "
                        "activeQ after Update()"),
        pytest.param(_in_backoff, "backoff",
                     id="When updating a pod that is in backoff queue and is still backing off, it "
                        "will be updated in backoff queue"),
        pytest.param(_pool_backing_off, "backoff",
                     id="when updating a pod in unschedulableEntities, if its backoff timer has not "
                        "yet expired, it moves to backoffQ"),
        pytest.param(_pool_backoff_expired, "active",
                     id="when updating a pod in unschedulableEntities, if its backoff timer has "
                        "expired, it moves to activeQ"),
        pytest.param(_pool_skip, "unschedulable",
                     id="when updating a pod in unschedulableEntities, if the scheduling hint returns "
                        "QueueSkip, it remains in unschedulableEntities"),
        pytest.param(_in_flight, "in-flight",
                     id="when updating a pod which is in flightPods, the pod will not be added to any "
                        "queue"),
    ],
)
def test_priority_queue_update(prepare: Prepare, want: str) -> None:
    q, c = _new_queue({
        "queuePlugin": [ClusterEventWithHint(TARGET_POD_UPDATE, _queue_hint)],
        "skipPlugin": [ClusterEventWithHint(TARGET_POD_UPDATE, _skip_hint)],
    })
    old, new = prepare(q, c)
    q.update(old, new, pod_update_events(EventResource.TARGET_POD, old, new))
    key = f"ns1/{new['metadata']['name']}"
    assert q.where(key) == want
    if want != "in-flight":
        found = q._find(key)  # noqa: SLF001
        assert found is not None and found.pod == new


def test_priority_queue_update_when_inflight() -> None:
    """An update received in flight that a rejector's hint accepts sends the pod to backoffQ."""
    q, _ = _new_queue({"fakePlugin": [ClusterEventWithHint(TARGET_POD_UPDATE, _queue_hint)]})
    pod = make_pod("test-pod", "test-ns").build()
    q.add(pod)
    pinfo = q.pop()
    assert pinfo is not None and pinfo.pod is pod
    updated = {**pod, "spec": {**pod["spec"],
                               "tolerations": [{"key": "foo", "effect": "NoSchedule"}]}}
    q.update(pod, updated, pod_update_events(EventResource.TARGET_POD, pod, updated))
    pinfo.unschedulable_plugins.add("fakePlugin")
    q.add_unschedulable_if_not_present(pinfo, error=False)
    assert q.where("test-ns/test-pod") == "backoff"
    found = q._find("test-ns/test-pod")  # noqa: SLF001
    assert found is not None and found.pod == updated


# -- TestMoveAllToActiveOrBackoffQueue_PreEnqueueChecks ---------------------------------

UNSCHEDULABLE_TIMEOUT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout")
# No PersistentVolume resource here: any event no plugin registered for will do.
PV_ADD = ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD)
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)


def _never(pod: Obj) -> bool:
    raise AssertionError("preCheck shouldn't be called")


def _prio(pod: Obj) -> int:
    return int(pod["spec"]["priority"])


@pytest.mark.parametrize(
    ("event", "precheck", "want"),
    [
        pytest.param(UNSCHEDULABLE_TIMEOUT, None, {"p0", "p1", "p2", "p3", "p4"},
                     id="nil PreEnqueueCheck"),
        pytest.param(UNSCHEDULABLE_TIMEOUT, lambda p: _prio(p) >= 2, {"p2", "p3", "p4"},
                     id="move Pods with priority greater than 2"),
        pytest.param(UNSCHEDULABLE_TIMEOUT, lambda p: _prio(p) % 2 == 0 and _prio(p) >= 2,
                     {"p2", "p4"}, id="move Pods with even priority and greater than 2"),
        pytest.param(UNSCHEDULABLE_TIMEOUT, lambda p: _prio(p) % 2 == 0 and _prio(p) < 0, set(),
                     id="move Pods with even and negative priority"),
        pytest.param(PV_ADD, _never, set(),
                     id="preCheck isn't called if the event is not interested by any plugins"),
    ],
)
def test_move_all_pre_enqueue_checks(
    event: ClusterEvent, precheck: Callable[[Obj], bool] | None, want: set[str]
) -> None:
    q, _ = _new_queue({})
    for i in range(5):
        q.add(_pod(f"p{i}", i))
        pinfo = q.pop()
        assert pinfo is not None
        pinfo.unschedulable_plugins = {"plugin"}
        q.add_unschedulable_if_not_present(pinfo, error=False)
    q.move_all_to_active_or_backoff(event, None, None, precheck)
    moved = {f"p{i}" for i in range(5) if q.where(f"ns1/p{i}") in ("active", "backoff")}
    assert moved == want


# -- TestPriorityQueue_Delete (the unschedulable-reason metrics are not modelled) -------

Op = Callable[[SchedulingQueue, QueuedPodInfo], None]


def _op_add(q: SchedulingQueue, p: QueuedPodInfo) -> None:
    q.add(p.pod)


def _op_unschedulable(q: SchedulingQueue, p: QueuedPodInfo) -> None:
    q.add(p.pod)
    popped = q.pop()
    assert popped is not None and popped.pod is p.pod
    popped.unschedulable_plugins = set(p.unschedulable_plugins)
    popped.pending_plugins = set(p.pending_plugins)
    q.add_unschedulable_if_not_present(popped, error=False)


def _op_backoff(q: SchedulingQueue, p: QueuedPodInfo) -> None:
    """No known rejecting plugin: the pod always goes to backoffQ."""
    q.add(p.pod)
    popped = q.pop()
    assert popped is not None and popped.pod is p.pod
    popped.unschedulable_count += 1
    q.add_unschedulable_if_not_present(popped, error=False)


def _qpi(name: str, unsched: Collection[str], pending: Collection[str] = ()) -> QueuedPodInfo:
    pod = make_pod(name, "ns1").build()
    return QueuedPodInfo(PodInfo(pod), Instant(0), unschedulable_plugins=set(unsched),
                         pending_plugins=set(pending))


P1 = _qpi("pod1", {"fakePlugin"}, {"fakePendingPlugin"})
P2 = _qpi("pod2", {"fakePlugin2"})
NOMINATED = QueuedPodInfo(PodInfo(HIGH_NOMINATED), Instant(0))


@pytest.mark.parametrize(
    ("ops", "operands", "delete", "absent", "present"),
    [
        pytest.param([_op_add, _op_add], [P1, P2], P1, [P1], [P2], id="Delete pod from activeQ"),
        pytest.param([_op_backoff, _op_add], [P1, P2], P1, [P1], [P2], id="Delete pod from backoffQ"),
        pytest.param([_op_unschedulable, _op_unschedulable], [P1, P2], P1, [P1], [P2],
                     id="Delete pod from unschedulablePods"),
        pytest.param([_op_add], [NOMINATED], NOMINATED, [NOMINATED], [],
                     id="Delete nominated pod from activeQ"),
        pytest.param([_op_unschedulable], [P1], P2, [P2], [P1], id="Delete non-existing pod"),
    ],
)
def test_priority_queue_delete(
    ops: list[Op], operands: list[QueuedPodInfo], delete: QueuedPodInfo,
    absent: list[QueuedPodInfo], present: list[QueuedPodInfo],
) -> None:
    q, _ = _new_queue({})
    for op, p in zip(ops, operands, strict=True):
        op(q, p)
    if ops[0] is _op_backoff:
        assert q.where(P1.key) == "backoff"
    q.delete(delete.pod)
    assert all(q.where(p.key) == "" for p in absent)
    assert all(q.where(p.key) in ("active", "backoff", "unschedulable") for p in present)


# -- TestPop / TestPriorityQueue_AddUnschedulablePodIfNotPresent -------------------------


def test_pop_preserves_pending_plugins() -> None:
    q, _ = _new_queue({"fooPlugin1": [ClusterEventWithHint(PV_ADD, _queue_hint)]})
    pod = make_pod("targetpod").build()
    q.add(pod)
    popped = q.pop()
    assert popped is not None
    popped.pending_plugins = {"fooPlugin1"}  # a Pending plugin's QUEUE skips the backoff
    q.add_unschedulable_if_not_present(popped, error=False)
    q.move_all_to_active_or_backoff(PV_ADD, None, None)
    again = q.pop()
    assert again is not None and again.pod is pod
    assert again.pending_plugins == {"fooPlugin1"}


def test_add_unschedulable_pod_if_not_present() -> None:
    """No event during the cycle: the rejected pod goes to the pool, not activeQ."""
    q, _ = _new_queue({})
    up = _pod("up", 0, nominated="node1")
    q.add(up)
    popped = q.pop()
    assert popped is not None and popped.pod is up
    q.add(HIGH_NOMINATED)
    popped.unschedulable_plugins = {"plugin"}
    q.add_unschedulable_if_not_present(popped, error=False)
    nxt = q.pop()
    assert nxt is not None and nxt.pod is HIGH_NOMINATED
    assert q.where("ns1/up") == "unschedulable"


# -- TestRecentlyTriedPodsGoBack, TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod,
# -- TestHighPriorityFlushUnschedulableEntitiesLeftover ---------------------------------


def _step(c: SimClock, d: int) -> None:
    c.run_until(Instant(c.now() + d))


def _reject(q: SchedulingQueue, pinfo: QueuedPodInfo, plugin: str) -> None:
    pinfo.unschedulable_plugins = {plugin}
    q.add_unschedulable_if_not_present(pinfo, error=False)


def test_recently_tried_pods_go_back() -> None:
    q, c = _new_queue({})
    for i in range(5):
        q.add(_pod(f"test-pod-{i}", 1000, nominated="node1"))
    _step(c, seconds(0.000001))
    p1 = q.pop()
    assert p1 is not None
    _reject(q, p1, "plugin")
    _step(c, MAX_BACKOFF)
    q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
    popped = [q.pop() for _ in range(5)]
    assert [p is p1 for p in popped] == [False] * 4 + [True]


def test_pod_failed_scheduling_multiple_times_does_not_block_newer_pod() -> None:
    q, c = _new_queue({})
    unsched = _pod("test-pod-unscheduled", 1000, nominated="node1")
    q.add(unsched)
    first = q.pop()
    assert first is not None
    _reject(q, first, "plugin")
    _step(c, INITIAL_BACKOFF + seconds(1))
    q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
    again = q.pop()
    assert again is not None and again.pod is unsched
    newer = _pod("test-newer-pod", 1000, nominated="node1")
    q.add(newer)
    _reject(q, again, "plugin")
    _step(c, INITIAL_BACKOFF + seconds(1))
    q.move_all_to_active_or_backoff(UNSCHEDULABLE_TIMEOUT, None, None)
    nxt = q.pop()
    assert nxt is not None and nxt.pod is newer


def test_high_priority_flush_unschedulable_entities_leftover() -> None:
    q, c = _new_queue({"fakePlugin": [ClusterEventWithHint(NODE_ADD, _queue_hint)]})
    high = _pod("test-highpod", 1000, nominated="node1")
    mid = _pod("test-midpod", 100, nominated="node1")
    q.add(high)
    ph = q.pop()
    q.add(mid)
    pm = q.pop()
    assert ph is not None and ph.pod is high and pm is not None and pm.pod is mid
    _reject(q, ph, "fakePlugin")
    _reject(q, pm, "fakePlugin")
    _step(c, MAX_IN_UNSCHEDULABLE_PODS + seconds(1))  # the leftover flush runs on the clock
    first, second = q.pop(), q.pop()
    assert first is not None and first.pod is high
    assert second is not None and second.pod is mid


# -- TestPriorityQueue_moveToActiveQ (SchedulerPopFromBackoffQ on, as modelled) -------


@dataclass
class _AllowFramework(FakeQueueFramework):
    """Upstream's ``preEnqueuePlugin{allowlists}``: a pod needs one listed label per plugin."""

    allowlists: list[list[str]] | None = None

    def run_pre_enqueue_plugins(self, pod: Obj) -> Status:
        labels = pod["metadata"].get("labels") or {}
        for allow in self.allowlists or ():
            if not any(a in labels for a in allow):
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                              ("pod label not in allowlists",), "preEnqueuePlugin")
        return OK


_GATE_OFF = pytest.mark.skip(reason="SchedulerPopFromBackoffQ is modelled on only")
_NO_ACTIVATE = pytest.mark.skip(reason="the reference queue has no Activate (ForceActivate)")


@pytest.mark.parametrize(
    ("allowlists", "label", "how", "want_success"),
    [
        pytest.param(None, "p", "add", True, id="no plugins registered popFromBackoffQEnabled(true)"),
        pytest.param([[], []], "p", "add", False,
                     id="preEnqueue plugin registered, pod name not in allowlists "
                        "popFromBackoffQEnabled(true)"),
        pytest.param([["foo", "bar"], ["foo"]], "bar", "add", False,
                     id="preEnqueue plugin registered, pod failed one preEnqueue plugin "
                        "popFromBackoffQEnabled(true)"),
        pytest.param([["foo", "bar"], ["foo"]], "bar", "backoff", False, marks=_GATE_OFF,
                     id="preEnqueue plugin registered, preEnqueue rejects the pod, even if it is "
                        "after backoff popFromBackoffQEnabled(false)"),
        pytest.param([["foo", "bar"], ["foo"]], "bar", "backoff", True,
                     id="preEnqueue plugin registered, pod would fail one preEnqueue plugin, but it "
                        "is moved from backoffQ after completing backoff, so preEnqueue is not "
                        "executed popFromBackoffQEnabled(true)"),
        pytest.param([["foo", "bar"], ["foo"]], "bar", "activate", False, marks=_NO_ACTIVATE,
                     id="preEnqueue plugin registered, pod failed one preEnqueue plugin when "
                        "activated from unschedulableEntities popFromBackoffQEnabled(true)"),
        pytest.param([["foo", "bar"], ["foo"]], "bar", "activate", True, marks=_NO_ACTIVATE,
                     id="preEnqueue plugin registered, pod would fail one preEnqueue plugin, but was "
                        "activated from backoffQ, so preEnqueue is not executed "
                        "popFromBackoffQEnabled(true)"),
        pytest.param([["foo", "bar"], ["bar"]], "bar", "add", True,
                     id="preEnqueue plugin registered, pod passed all preEnqueue plugins "
                        "popFromBackoffQEnabled(true)"),
    ],
)
def test_priority_queue_move_to_active_q(
    allowlists: list[list[str]] | None, label: str, how: str, want_success: bool
) -> None:
    clock = SimClock()
    q = SchedulingQueue(clock, _AllowFramework({}, allowlists=allowlists), lambda: None,
                        initial_backoff=seconds(30), max_backoff=seconds(60))
    pod = make_pod(label, "ns1").build()
    pod["metadata"]["labels"] = {label: ""}
    key = f"ns1/{label}"
    if how == "add":
        q.add(pod)
    else:
        q._push_backoff(QueuedPodInfo(PodInfo(pod), clock.now()))  # noqa: SLF001
        clock.run_until(Instant(clock.now() + seconds(1)))  # completes the (empty) backoff
    assert (q.where(key) == "active") is want_success
    want_pool = 0 if want_success else 1
    assert q.counts().get("unschedulable", 0) + q.counts().get("gated", 0) == want_pool
    clone = {**pod, "metadata": {**pod["metadata"], "annotations": {"foo": ""}}}
    q.update(pod, clone, pod_update_events(EventResource.TARGET_POD, pod, clone))
    assert q.counts().get("unschedulable", 0) + q.counts().get("gated", 0) == want_pool


# -- TestPriorityQueue_MoveAllToActiveOrBackoffQueue ---------------------------------------


def _cycle(q: SchedulingQueue, pod: Obj) -> QueuedPodInfo:
    q.add(pod)
    pinfo = q.pop()
    assert pinfo is not None and pinfo.pod is pod
    return pinfo


def test_priority_queue_move_all_to_active_or_backoff_queue() -> None:
    q, c = _new_queue({"fooPlugin": [ClusterEventWithHint(NODE_ADD, _queue_hint)]})
    up, hp = _pod("up", 0, nominated="node1"), _pod("hpp", 1000)
    hpp1, hpp2 = _pod("hpp1", 1000), _pod("hpp2", 1000)
    _reject(q, _cycle(q, up), "fooPlugin")
    _reject(q, _cycle(q, hp), "fooPlugin")
    lone = _cycle(q, hpp1)
    lone.unschedulable_count += 1
    q.add_unschedulable_if_not_present(lone, error=False)  # no rejector: backoffQ
    _reject(q, _cycle(q, hpp2), "barPlugin")
    q.move_all_to_active_or_backoff(NODE_ADD, None, None)  # up and hpp: backoffQ
    q.add(MED)
    assert q.counts()["active"] == 1
    med = q.pop()
    assert med is not None and med.pod is MED
    assert q.counts()["backoff"] == 3  # hpp2 is not moved
    _step(c, MAX_BACKOFF)
    again = {p.pod["metadata"]["name"]: p for p in (q.pop(), q.pop(), q.pop()) if p is not None}
    assert sorted(again) == ["hpp", "hpp1", "up"]
    _reject(q, again["up"], "fooPlugin")
    _reject(q, again["hpp"], "fooPlugin")
    again["hpp1"].unschedulable_plugins = set()
    q.add_unschedulable_if_not_present(again["hpp1"], error=False)
    q.add(MED)
    assert [q.where(f"ns1/{n}") for n in ("up", "hpp", "hpp2", "hpp1")] == [
        "unschedulable", "unschedulable", "unschedulable", "backoff"]
    assert q.counts()["active"] == 1
    _step(c, MAX_BACKOFF)  # hpp1 completes its backoff and is flushed to activeQ
    q.move_all_to_active_or_backoff(NODE_ADD, None, None)
    assert q.counts() == {"active": 4, "backoff": 0, "unschedulable": 1, "gated": 0}
