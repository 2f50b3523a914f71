"""Upstream's event-handler tables against reference_impl/scheduler/eventhandlers.py.

Ported (pkg/scheduler/eventhandlers_test.go): ``TestEventHandlers_MoveToActiveOnNominatedNodeUpdate``,
``TestUpdateAssignedPodInCache`` (the cache is keyed by namespace/name, not UID, so the
"different UIDs" row checks that the node holds only the new pod), ``TestAddPod``,
``TestUpdatePod`` and ``TestDeletePod`` (their pod-group rows check the cache's pod-group
state), and in test_upstream_eventhandlers_podgroups.py the (Composite)PodGroup ones. The handlers
run against a real SchedulingQueue (backoff off, as the upstream test) and SchedulerCache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.apiserver.watch import ObjectEvent
from reference_impl.clock import Duration, SimClock
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.eventhandlers import EventHandlers
from reference_impl.scheduler.framework.events import ASSIGNED_POD_DELETE
from reference_impl.scheduler.framework.interface import (
    ClusterEventWithHint,
    QueueingHint,
)
from reference_impl.scheduler.framework.queue import SchedulingQueue
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import PodInfo
from suites.selftest.reference_impl.scheduler.test_upstream_core_queue import FakeQueueFramework

if TYPE_CHECKING:
    from reference_impl.api.resources import ResourceInfo
    from reference_impl.api.watch import WatchEventType
    from reference_impl.scheduler.scheduler import Scheduler

Obj = dict[str, Any]
SCHED = "test-scheduler"


@dataclass
class _Profile:
    scheduler_name: str = SCHED


@dataclass
class _Sched:
    """The parts of Scheduler the handlers touch."""

    queue: SchedulingQueue
    cache: SchedulerCache = field(default_factory=SchedulerCache)
    profile: _Profile = field(default_factory=_Profile)
    features: SchedulerFeatures = field(default_factory=SchedulerFeatures)
    rejected: list[str] = field(default_factory=list)
    waiting: set[str] = field(default_factory=set)  # pods parked at Permit

    def reject_waiting(self, key: str, message: str) -> bool:
        self.rejected.append(key)
        if key in self.waiting:
            self.waiting.discard(key)
            return True
        return False


def _handlers(events: dict[str, list[ClusterEventWithHint]]) -> tuple[EventHandlers, _Sched]:
    q = SchedulingQueue(SimClock(), FakeQueueFramework(events), lambda: None,
                        initial_backoff=Duration(0), max_backoff=Duration(0))
    s = _Sched(q)
    return EventHandlers(cast("Scheduler", s)), s


def _ev(kind: str, obj: Obj, old: Obj | None = None) -> ObjectEvent:
    # The handlers never read ``info``.
    return ObjectEvent(cast("WatchEventType", kind), cast("ResourceInfo", None), obj, old)


# -- TestEventHandlers_MoveToActiveOnNominatedNodeUpdate --------------------------------

HIGH, MID, LOW = 100, 50, 10


def _p(name: str, ns: str, prio: int, nominated: str = "") -> Obj:
    pod = make_pod(name, ns).build()
    pod["spec"].update(priority=prio, schedulerName=SCHED)
    if nominated:
        pod["status"] = {**(pod.get("status") or {}), "nominatedNodeName": nominated}
    return pod


HPP = _p("hpp", "ns1", HIGH)
MPP_NOMINATED = _p("mpp", "ns2", MID, "node1")
SMPP = _p("smpp", "ns3", MID)
LPP = _p("lpp", "ns4", LOW)


def _renominate(pod: Obj, node: str) -> Obj:
    return {**pod, "status": {**(pod.get("status") or {}), "nominatedNodeName": node},
            "metadata": {**pod["metadata"], "resourceVersion": "1"}}


def _delete_hint(pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
    """Schedulable on a delete, but not when a nominated node appears."""
    assert old is not None
    if not (old.get("status") or {}).get("nominatedNodeName"):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


Update = Callable[[EventHandlers], None]


@pytest.mark.parametrize(
    ("update", "want"),
    [
        pytest.param(lambda h: h.on_pod(_ev("MODIFIED", _renominate(MPP_NOMINATED, "node2"), MPP_NOMINATED)),
                     {"lpp", "smpp", "mpp"},
                     id="Update of a nominated node name to a different value should trigger "
                        "rescheduling of lower priority pods"),
        pytest.param(lambda h: h.on_pod(_ev("MODIFIED", _renominate(MPP_NOMINATED, ""), MPP_NOMINATED)),
                     {"lpp", "smpp", "mpp"},
                     id="Removal of a nominated node name should trigger rescheduling of lower "
                        "priority pods"),
        pytest.param(lambda h: h.on_pod(_ev("DELETED", MPP_NOMINATED)), {"lpp", "smpp"},
                     id="Removal of a pod that had nominated node name should trigger rescheduling "
                        "of lower priority pods"),
        pytest.param(lambda h: h.on_pod(_ev("MODIFIED", _renominate(HPP, "node2"), HPP)), set(),
                     id="Addition of a nominated node name to the high priority pod that did not "
                        "have it before shouldn't trigger rescheduling"),
    ],
)
def test_move_to_active_on_nominated_node_update(update: Update, want: set[str]) -> None:
    h, s = _handlers({"fooPlugin1": [ClusterEventWithHint(ASSIGNED_POD_DELETE, _delete_hint)]})
    for pod in (HPP, MPP_NOMINATED, SMPP, LPP):
        s.queue.add(pod)
        pinfo = s.queue.pop()
        assert pinfo is not None
        pinfo.unschedulable_plugins.add("fooPlugin1")
        s.queue.add_unschedulable_if_not_present(pinfo, error=False)
    names = {"hpp": "ns1", "mpp": "ns2", "smpp": "ns3", "lpp": "ns4"}
    assert all(s.queue.where(f"{ns}/{n}") == "unschedulable" for n, ns in names.items())
    update(h)
    moved = {n for n, ns in names.items() if s.queue.where(f"{ns}/{n}") in ("active", "backoff")}
    assert moved == want


# -- TestUpdateAssignedPodInCache -------------------------------------------------------


def _port_pod(uid: str, port: int) -> Obj:
    pod = make_pod("pod").node("node").build()
    pod["metadata"]["uid"] = uid
    pod["spec"]["containers"][0]["ports"] = [{"hostPort": port, "containerPort": port}]
    return pod


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(_port_pod("oldUID", 80), _port_pod("oldUID", 8080),
                     id="pod updated with the same UID"),
        pytest.param(_port_pod("oldUID", 80), _port_pod("newUID", 8080),
                     id="pod updated with different UIDs"),
    ],
)
def test_update_assigned_pod_in_cache(old: Obj, new: Obj) -> None:
    h, s = _handlers({})
    h.on_node(_ev("ADDED", make_node("node").build()))
    h.on_pod(_ev("ADDED", old))
    h.on_pod(_ev("MODIFIED", new, old))
    ni = s.cache.get("node")
    assert ni is not None
    assert [p.pod["metadata"]["uid"] for p in ni.pods.values()] == [new["metadata"]["uid"]]


# -- TestAddPod / TestUpdatePod / TestDeletePod -------------------------------------------
# Pod-group rows check the cache's pod-group state (GenericWorkload on); the informer's
# DeletedFinalStateUnknown tombstones do not occur here.

SUPPORTED, OTHER = SCHED, "other-scheduler"
_TOMBSTONE = pytest.mark.skip(reason="no DeletedFinalStateUnknown tombstones in the simulator")


def _bp(*, sched: str = SUPPORTED, node: str = "", labels: Obj | None = None, rv: str = "",
        deleting: bool = False, group: str = "") -> Obj:
    pod = make_pod("pod1", "ns1").build()
    pod["metadata"]["uid"] = "pod1"
    pod["spec"]["schedulerName"] = sched
    if node:
        pod["spec"]["nodeName"] = node
    if labels:
        pod["metadata"]["labels"] = dict(labels)
    if rv:
        pod["metadata"]["resourceVersion"] = rv
    if deleting:
        pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if group:
        pod["spec"]["schedulingGroup"] = {"podGroupName": group}
    return pod


KEY = "ns1/pod1"
FOO = {"foo": "bar"}


def _setup(initial: Obj | None, assumed: Obj | None, waiting: bool,
           gw: bool = False) -> tuple[EventHandlers, _Sched]:
    h, s = _handlers({})
    s.cache = SchedulerCache(generic_workload=gw)
    for n in ("node1", "node2"):
        h.on_node(_ev("ADDED", make_node(n).build()))
    if assumed is not None:
        if initial is not None and initial["spec"].get("schedulingGroup"):
            s.cache.add_pod_group_member(initial)
        s.cache.assume_pod(PodInfo(assumed), assumed["spec"]["nodeName"])
        if waiting:
            s.waiting.add(KEY)
    elif initial is not None:
        h.on_pod(_ev("ADDED", initial))
    return h, s


def _cached(s: _Sched) -> Obj | None:
    for ni in s.cache.node_infos():
        if KEY in ni.pods:
            return ni.pods[KEY].pod
    return None


def _view(pod: Obj | None) -> tuple[str, Obj, bool] | None:
    """What the rows tell apart: the node, the labels and whether deletion started."""
    if pod is None:
        return None
    meta = pod["metadata"]
    return pod["spec"].get("nodeName", ""), meta.get("labels") or {}, "deletionTimestamp" in meta


def _group_state(s: _Sched) -> tuple[bool, bool, bool] | None:
    """(unscheduled, assumed, assigned) of pod1 in pg1's state; None without a state."""
    state, _ = s.cache.pod_group_states_get("ns1", "pg1")
    if state is None:
        return None
    return "pod1" in state.unscheduled_pods(), "pod1" in state.assumed_pods(), \
        "pod1" in state.assigned_pods()


def _queued(s: _Sched) -> Obj | None:
    found = s.queue._find(KEY)  # noqa: SLF001 - upstream's GetPod
    return found.pod if found is not None else None


UNSCHED, ASSUMED, ASSIGNED = (True, False, False), (False, True, False), (False, False, True)


@pytest.mark.parametrize(
    ("pod", "gw", "in_queue", "in_cache", "group_state"),
    [
        pytest.param(_bp(), False, True, False, None, id="add unscheduled pod"),
        pytest.param(_bp(sched=OTHER), False, False, False, None,
                     id="add unscheduled pod with other scheduler name"),
        pytest.param(_bp(node="node1"), False, False, True, None, id="add scheduled pod"),
        pytest.param(_bp(group="pg1"), False, True, False, None,
                     id="add a pod group member with GenericWorkload disabled"),
        pytest.param(_bp(group="pg1"), True, True, False, UNSCHED,
                     id="add an unscheduled pod group member"),
        pytest.param(_bp(node="node1", group="pg1"), True, False, True, ASSIGNED,
                     id="add a scheduled pod group member"),
    ],
)
def test_add_pod(pod: Obj, gw: bool, in_queue: bool, in_cache: bool,
                 group_state: tuple[bool, bool, bool] | None) -> None:
    h, s = _setup(None, None, False, gw)
    h.on_pod(_ev("ADDED", pod))
    assert (_queued(s) is not None) is in_queue
    assert (_cached(s) is not None) is in_cache
    assert _group_state(s) == group_state


POD = _bp()
UPDATED = _bp(labels=FOO, rv="2")
DELETING = _bp(deleting=True, rv="2")
OTHER_POD, UPDATED_OTHER = _bp(sched=OTHER), _bp(sched=OTHER, labels=FOO, rv="2")
SCHEDULED = _bp(node="node1")
UPDATED_SCHEDULED = _bp(node="node1", labels=FOO, rv="2")
OTHER_SCHEDULED = _bp(sched=OTHER, node="node1")
UPDATED_OTHER_SCHEDULED = _bp(sched=OTHER, node="node1", labels=FOO, rv="2")
SCHEDULED_NODE2 = _bp(node="node2")
PG, PG_LABELS = _bp(group="pg1"), _bp(group="pg1", labels=FOO, rv="2")
PG_SCHED = _bp(group="pg1", node="node1")
PG_SCHED_LABELS = _bp(group="pg1", node="node1", labels=FOO, rv="2")
PG_SCHED_NODE2 = _bp(group="pg1", node="node2")
PG_DELETING = _bp(group="pg1", deleting=True, rv="2")


@pytest.mark.parametrize(
    ("old", "assumed", "new", "waiting", "in_queue", "in_cache", "gw", "group_state"),
    [
        pytest.param(POD, None, UPDATED, False, UPDATED, None, False, None,
                     id="update unscheduled pod"),
        pytest.param(OTHER_POD, None, UPDATED_OTHER, False, None, None, False, None,
                     id="update unscheduled pod with other scheduler name"),
        pytest.param(POD, SCHEDULED, UPDATED, False, None, SCHEDULED, False, None,
                     id="update assumed pod"),
        pytest.param(SCHEDULED, None, UPDATED_SCHEDULED, False, None, UPDATED_SCHEDULED, False,
                     None,
                     id="update scheduled pod"),
        pytest.param(OTHER_SCHEDULED, None, UPDATED_OTHER_SCHEDULED, False, None,
                     UPDATED_OTHER_SCHEDULED, False, None,
                     id="update scheduled pod with other scheduler name"),
        pytest.param(POD, None, SCHEDULED, False, None, SCHEDULED, False, None,
                     id="bind unscheduled pod"),
        pytest.param(OTHER_POD, None, OTHER_SCHEDULED, False, None, OTHER_SCHEDULED, False, None,
                     id="bind unscheduled pod with other scheduler name"),
        pytest.param(POD, SCHEDULED, SCHEDULED, False, None, SCHEDULED, False, None,
                     id="bind assumed pod"),
        pytest.param(POD, SCHEDULED, SCHEDULED_NODE2, False, None, SCHEDULED_NODE2, False, None,
                     id="bind assumed pod to a different node"),
        pytest.param(POD, SCHEDULED, DELETING, False, None, None, False, None,
                     id="update assumed pod with deletion timestamp"),
        pytest.param(POD, SCHEDULED, DELETING, True, None, SCHEDULED, False, None,
                     id="update assumed pod waiting on permit with deletion timestamp"),
        pytest.param(PG, None, PG_LABELS, False, PG_LABELS, None, False, None,
                     id="update pod group member with GenericWorkload disabled"),
        *(pytest.param(*row, True, state, id=name) for name, row, state in (
            ("update unscheduled pod group member, add label",
             (PG, None, PG_LABELS, False, PG_LABELS, None), UNSCHED),
            ("update assumed pod group member, add label",
             (PG, PG_SCHED, PG_LABELS, False, None, PG_SCHED), ASSUMED),
            ("update scheduled pod group member, add label",
             (PG_SCHED, None, PG_SCHED_LABELS, False, None, PG_SCHED_LABELS), ASSIGNED),
            ("bind unscheduled pod group member",
             (PG, None, PG_SCHED, False, None, PG_SCHED), ASSIGNED),
            ("bind assumed pod group member",
             (PG, PG_SCHED, PG_SCHED, False, None, PG_SCHED), ASSIGNED),
            ("bind assumed pod group member to a different node",
             (PG, PG_SCHED, PG_SCHED_NODE2, False, None, PG_SCHED_NODE2), ASSIGNED),
            ("update assumed pod group member with deletion timestamp",
             (PG, PG_SCHED, PG_DELETING, False, None, None), None),
            ("update assumed pod group member waiting on permit with deletion timestamp",
             (PG, PG_SCHED, PG_DELETING, True, None, PG_SCHED), ASSUMED),
        )),
    ],
)
def test_update_pod(
    old: Obj, assumed: Obj | None, new: Obj, waiting: bool, in_queue: Obj | None,
    in_cache: Obj | None, gw: bool, group_state: tuple[bool, bool, bool] | None,
) -> None:
    h, s = _setup(old, assumed, waiting, gw)
    h.on_pod(_ev("MODIFIED", new, old))
    assert _queued(s) == in_queue
    assert _view(_cached(s)) == _view(in_cache)
    if waiting:
        assert KEY not in s.waiting  # rejected at Permit
    assert _group_state(s) == group_state


@pytest.mark.parametrize(
    ("initial", "assumed", "delete", "waiting", "in_cache", "gw", "group_state"),
    [
        pytest.param(POD, None, POD, False, False, False, None, id="delete unscheduled pod"),
        pytest.param(OTHER_POD, None, OTHER_POD, False, False, False, None,
                     id="delete unscheduled pod with other scheduler name"),
        pytest.param(POD, None, POD, False, False, False, None,
                     id="delete unscheduled pod with unknown state",
                     marks=_TOMBSTONE),
        pytest.param(POD, SCHEDULED, POD, False, False, False, None, id="delete assumed pod"),
        pytest.param(SCHEDULED, None, SCHEDULED, False, False, False, None,
                     id="delete scheduled pod"),
        pytest.param(OTHER_SCHEDULED, None, OTHER_SCHEDULED, False, False, False, None,
                     id="delete scheduled pod with other scheduler name"),
        pytest.param(SCHEDULED, None, SCHEDULED, False, False, False, None,
                     id="delete scheduled pod with unknown state", marks=_TOMBSTONE),
        pytest.param(SCHEDULED, None, POD, False, False, False, None,
                     id="delete scheduled pod with unknown older state", marks=_TOMBSTONE),
        pytest.param(PG, None, PG, False, False, False, None,
                     id="delete a pod group member, GenericWorkload disabled"),
        pytest.param(PG, None, PG, False, False, True, None,
                     id="delete an unscheduled pod group member"),
        pytest.param(PG_SCHED, None, PG_SCHED, False, False, True, None,
                     id="delete a scheduled pod group member"),
        pytest.param(PG, PG_SCHED, PG_SCHED, False, False, True, None,
                     id="delete an assumed pod group member"),
        pytest.param(PG, PG_SCHED, PG, True, True, True, ASSUMED,
                     id="delete an assumed pod group member waiting on permit"),
    ],
)
def test_delete_pod(
    initial: Obj, assumed: Obj | None, delete: Obj, waiting: bool, in_cache: bool,
    gw: bool, group_state: tuple[bool, bool, bool] | None,
) -> None:
    h, s = _setup(initial, assumed, waiting, gw)
    h.on_pod(_ev("DELETED", delete))
    assert (_cached(s) is not None) is in_cache
    assert _queued(s) is None
    assert _group_state(s) == group_state
