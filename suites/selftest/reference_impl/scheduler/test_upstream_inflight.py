"""Upstream's in-flight pod table against the reference SchedulingQueue.

Ported (pkg/scheduler/backend/queue/scheduling_queue_test.go): ``Test_InFlightPods``, its
rows without pod groups. A pod rejected while in flight replays the cluster events the
queue saw since its pop (``determineSchedulingHintForInFlightPod``). The reference has no
PV/PVC/CSINode event resources, so those rows use DRA resources in their place (pvcAdd ->
ResourceClaim/Add, pvAdd -> ResourceSlice/Add, pvUpdate -> ResourceSlice/Update,
csiNodeUpdate -> DeviceClass/Update); only which plugin registered what matters. The
``inFlightEvents`` list is compared without its pod markers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.clock import SimClock
from reference_impl.scheduler.framework.interface import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from reference_impl.scheduler.framework.queue import SchedulingQueue
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from suites.selftest.reference_impl.scheduler.test_upstream_core_queue import FakeQueueFramework

Obj = dict[str, Any]
R, A = EventResource, ActionType

PVC_ADD = ClusterEvent(R.RESOURCE_CLAIM, A.ADD)
PV_ADD = ClusterEvent(R.RESOURCE_SLICE, A.ADD)
PV_UPDATE = ClusterEvent(R.RESOURCE_SLICE, A.UPDATE_OTHER)
CSI_NODE_UPDATE = ClusterEvent(R.DEVICE_CLASS, A.UPDATE_OTHER)
NODE_ADD = ClusterEvent(R.NODE, A.ADD)
ASSIGNED_POD_ADD = ClusterEvent(R.ASSIGNED_POD, A.ADD, "AssignedPodAdd")
UNSCHEDULABLE_TIMEOUT = ClusterEvent(R.WILDCARD, A.ALL, "UnschedulableTimeout")


def _queue_hint(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    return QueueingHint.QUEUE


def _skip_hint(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    return QueueingHint.QUEUE_SKIP


Q, S = _queue_hint, _skip_hint
HintMap = dict[ClusterEvent, list[tuple[str, Callable[[Obj, Obj | None, Obj | None], QueueingHint]]]]


def _queue(hints: HintMap) -> SchedulingQueue:
    by_plugin: dict[str, list[ClusterEventWithHint]] = {}
    for event, regs in hints.items():
        for plugin, fn in regs:
            by_plugin.setdefault(plugin, []).append(ClusterEventWithHint(event, fn))
    return SchedulingQueue(SimClock(), FakeQueueFramework(by_plugin), lambda: None)


POD1, POD2, POD3 = (make_pod(n).build() for n in ("targetpod", "targetpod2", "targetpod3"))


def _lookup(pod: Obj, *unsched: str, pending: tuple[str, ...] = ()) -> QueuedPodInfo:
    """``newQueuedPodInfoForLookup``: a fresh QueuedPodInfo naming its rejectors."""
    return QueuedPodInfo(PodInfo(pod), SimClock().now(), unschedulable_plugins=set(unsched),
                         pending_plugins=set(pending))


class _Run:
    """Replays a row's actions; keeps the popped QueuedPodInfos for callbacks."""

    def __init__(self, q: SchedulingQueue) -> None:
        self.q = q
        self.popped: dict[str, QueuedPodInfo] = {}

    def event(self, ev: ClusterEvent) -> None:
        self.q.move_all_to_active_or_backoff(ev, None, None)

    def pop(self, pod: Obj) -> None:
        pinfo = self.q.pop()
        assert pinfo is not None and pinfo.pod is pod
        self.popped[pod["metadata"]["name"]] = pinfo

    def enqueue(self, pinfo: QueuedPodInfo) -> None:
        self.q.add_unschedulable_if_not_present(pinfo, error=False)


Action = Callable[[_Run], None]


def ev(e: ClusterEvent) -> Action:
    return lambda r: r.event(e)


def pop(p: Obj) -> Action:
    return lambda r: r.pop(p)


def enq(p: Obj, *unsched: str, pending: tuple[str, ...] = ()) -> Action:
    return lambda r: r.enqueue(_lookup(p, *unsched, pending=pending))


def _requeue_popped(name: str, unsched: set[str], pending: set[str]) -> Action:
    def act(r: _Run) -> None:
        pinfo = r.popped[name]
        pinfo.unschedulable_plugins, pinfo.pending_plugins = set(unsched), set(pending)
        r.enqueue(pinfo)
    return act


def _pop_preserves(r: _Run) -> None:
    r.pop(POD1)
    pinfo = r.popped["targetpod"]
    assert pinfo.unschedulable_plugins == {"fooPlugin2"}
    assert pinfo.pending_plugins == {"fooPlugin1"}


_PV_NODE_PVC: HintMap = {PV_ADD: [("fooPlugin1", Q)], NODE_ADD: [("fooPlugin1", Q)],
                         PVC_ADD: [("fooPlugin1", Q)]}
_THREE_PLUGINS: HintMap = {ASSIGNED_POD_ADD: [("fooPlugin3", S), ("fooPlugin2", Q), ("fooPlugin1", Q)]}
Want = tuple[list[Obj], list[ClusterEvent] | None, list[str], list[str], list[str]]


@pytest.mark.parametrize(
    ("hints", "initial", "actions", "want"),
    [
        pytest.param({PV_ADD: [("fooPlugin1", Q)]}, [POD1],
                     [ev(PVC_ADD), pop(POD1), ev(PV_ADD), ev(PV_UPDATE)],
                     ([POD1], [PV_ADD], [], [], []),
                     id="Pod and interested events are registered in inFlightPods/inFlightEvents"),
        pytest.param(_PV_NODE_PVC, [POD1, POD2],
                     [ev(PVC_ADD), pop(POD1), ev(PV_ADD), pop(POD2), ev(NODE_ADD), enq(POD1)],
                     ([POD2], [NODE_ADD], [], ["targetpod"], []),
                     id="Pod, registered in inFlightPods, is enqueued back to backoffQ"),
        pytest.param({**_PV_NODE_PVC, CSI_NODE_UPDATE: [("fooPlugin1", Q)]}, [POD1, POD2],
                     [ev(PVC_ADD), pop(POD1), ev(PV_ADD), pop(POD2), ev(NODE_ADD), enq(POD1),
                      ev(CSI_NODE_UPDATE), enq(POD2)],
                     ([], None, [], ["targetpod", "targetpod2"], []),
                     id="All Pods registered in inFlightPods are enqueued back to activeQ"),
        pytest.param({PV_ADD: [("fooPlugin1", Q)], NODE_ADD: [("fooPlugin1", Q)],
                      ASSIGNED_POD_ADD: [("fooPlugin1", Q)]}, [POD1, POD2, POD3],
                     [ev(PVC_ADD), pop(POD1), ev(PV_ADD), pop(POD2), ev(NODE_ADD), pop(POD3),
                      ev(ASSIGNED_POD_ADD), enq(POD2)],
                     ([POD1, POD3], [PV_ADD, NODE_ADD, ASSIGNED_POD_ADD], [], ["targetpod2"], []),
                     id="One intermediate Pod registered in inFlightPods is enqueued back to activeQ"),
        pytest.param({ASSIGNED_POD_ADD: [("fooPlugin1", S)]}, [POD1],
                     [ev(UNSCHEDULABLE_TIMEOUT), pop(POD1), ev(ASSIGNED_POD_ADD),
                      enq(POD1, "fooPlugin1")],
                     ([], [], [], [], ["targetpod"]),
                     id="events before popping Pod are ignored when Pod is enqueued back to queue"),
        pytest.param({ASSIGNED_POD_ADD: [("fooPlugin1", Q)]}, [POD1],
                     [pop(POD1), ev(ASSIGNED_POD_ADD), enq(POD1)],
                     ([], [], [], ["targetpod"], []),
                     id="pod is enqueued to backoff if no failed plugin"),
        pytest.param({ASSIGNED_POD_ADD: [("fooPlugin1", Q)]}, [POD1],
                     [pop(POD1), ev(NODE_ADD), enq(POD1, "fooPlugin1")],
                     ([], [], [], [], ["targetpod"]),
                     id="pod is enqueued to unschedulable pod pool if no events that can make the "
                        "pod schedulable"),
        pytest.param({ASSIGNED_POD_ADD: [("fooPlugin1", S)]}, [POD1],
                     [pop(POD1), ev(ASSIGNED_POD_ADD), enq(POD1, "fooPlugin1")],
                     ([], [], [], [], ["targetpod"]),
                     id="pod is enqueued to unschedulable pod pool because the failed plugin has a "
                        "hint fn but it returns Skip"),
        pytest.param(_THREE_PLUGINS, [POD1],
                     [pop(POD1), ev(ASSIGNED_POD_ADD),
                      enq(POD1, "fooPlugin2", "fooPlugin3", pending=("fooPlugin1",))],
                     ([], [], ["targetpod"], [], []),
                     id="pod is enqueued to activeQ because the Pending plugins has a hint fn and it "
                        "returns Queue"),
        pytest.param({ASSIGNED_POD_ADD: [("fooPlugin2", S), ("fooPlugin1", Q)]}, [POD1],
                     [pop(POD1), ev(ASSIGNED_POD_ADD), enq(POD1, "fooPlugin1", "fooPlugin2")],
                     ([], [], [], ["targetpod"], []),
                     id="pod is enqueued to backoffQ because the failed plugin has a hint fn and it "
                        "returns Queue"),
        pytest.param(_THREE_PLUGINS, [POD1, POD2],
                     [pop(POD1), ev(NODE_ADD), pop(POD2), ev(ASSIGNED_POD_ADD),
                      _requeue_popped("targetpod", set(), set()),
                      _requeue_popped("targetpod2", {"fooPlugin2", "fooPlugin3"}, {"fooPlugin1"})],
                     ([], [], ["targetpod2"], ["targetpod"], []),
                     id="pod is enqueued to activeQ because the pending plugin has a hint fn and it "
                        "returns Queue for a concurrent event that was received while some other pod "
                        "was in flight"),
        pytest.param({PV_ADD: [("fooPlugin1", Q)]}, [POD1],
                     [pop(POD1), _requeue_popped("targetpod", {"fooPlugin2"}, {"fooPlugin1"}),
                      ev(PV_ADD), _pop_preserves,
                      _requeue_popped("targetpod", {"fooPlugin2"}, {"fooPlugin1"})],
                     ([], [], [], [], ["targetpod"]),
                     id="popped pod preserves UnschedulablePlugins and PendingPlugins"),
        pytest.param({}, [], [], ([], [], [], [], []), marks=pytest.mark.skip(
            reason="adds an in-flight pod to activeQ directly (activeQ.add): no such path here"),
            id="Pop is made twice for the same Pod, but the cleanup still happen correctly"),
    ],
)
def test_in_flight_pods(hints: HintMap, initial: list[Obj], actions: list[Action], want: Want) -> None:
    q = _queue(hints)
    for p in initial:
        q.add(p)
    run = _Run(q)
    for act in actions:
        act(run)
    in_flight, events, active, backoff, pool = want
    assert sorted(q._in_flight) == sorted(f"default/{p['metadata']['name']}" for p in in_flight)  # noqa: SLF001
    if events is not None:
        assert [e[2] for e in q._flight_events] == events  # noqa: SLF001
    names = {w: sorted(p["metadata"]["name"] for p in (POD1, POD2, POD3)
                       if q.where(f"default/{p['metadata']['name']}") == w)
             for w in ("active", "backoff", "unschedulable")}
    assert names == {"active": active, "backoff": backoff, "unschedulable": pool}
