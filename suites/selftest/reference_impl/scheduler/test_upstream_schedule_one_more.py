"""More of upstream's schedule_one_test.go against the reference Scheduler's cycles.

Ported (pkg/scheduler/schedule_one_test.go): ``TestSchedulerMultipleProfilesScheduling``,
``TestSchedulerScheduleOne`` (the rows the
reference can express, one pod not in a pod group), ``TestHandleSchedulingFailureSkipsRecreatedPod``,
``TestSchedulerNoPhantomPodAfterDelete``, ``TestSchedulerFailedSchedulingReasons``,
``TestScheduleOneMarksPodAsProcessedBeforePreBind``,
``TestPreferNominatedNodeFilterCallCounts``, ``TestEvaluateNominatedNode``.
Upstream's ``FailedScheduling`` event is the reference's "Unschedulable" / "SchedulerError"
trace record and PodScheduled=False condition; the error it checks is that condition's
message; its ``NominatingInfo{ModeOverride, ""}`` is a cleared ``status.nominatedNodeName``.
``TestSchedulerWithVolumeBinding`` is in test_upstream_schedule_one_volumes.py. The rest of
the file's unported functions are listed (with why) in ``test_not_ported``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import pytest
from upstream_core_fakes import FakeFilter, FakePermit, MapScore, scheduler
from upstream_schedule_one_env import KEY, FakeReserve, const, env

from reference_impl.api import make_node, make_pod
from reference_impl.clock import Instant, seconds
from reference_impl.scheduler import Profile, Scheduler
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import Diagnosis
from reference_impl.scheduler.framework.interface import (
    OK,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EventResource,
    Plugin,
    Status,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.registry import in_tree_registry
from reference_impl.scheduler.profile import PluginConfig
from reference_impl.scheduler.schedule_one import ScheduleResult

Obj = dict[str, Any]


# -- TestSchedulerScheduleOne --------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    plugins: tuple[Callable[[], Plugin], ...] = ()
    schedule_error: str = ""  # injectSchedulingError
    bind_error: str = ""  # injectBindError
    admit: str = ""  # podToAdmit's plugin
    nominated: str = ""  # the sent pod's status.nominatedNodeName
    want_bound: bool = False  # expectBind
    want_bind_attempt: bool = False
    want_forget: bool = False  # expectForgetPod (the reservation undone)
    want_queue: str = ""  # backoff / unschedulable / "" (neither)
    want_reason: str = ""  # the PodScheduled=False reason ("" = event "Scheduled")
    want_error: str = ""  # the failure's message


# Upstream's test feeds no informer event back into its queue, so the scheduler's own
# PodScheduled=False write cannot requeue the pod there. Here it arrives as the pod's
# general Update, which a plugin registering every event hears (as upstream's queue would):
# the fakes register Node/Add only, keeping the rows' single attempt.
_NODE_ADD = (ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),)


@dataclass
class _Reserve(FakeReserve):
    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return _NODE_ADD


@dataclass
class _Permit(FakePermit):
    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return _NODE_ADD


def _reserve(status: Status) -> Callable[[], Plugin]:
    return lambda: _Reserve(status)


@dataclass
class FakePreBind:
    """``FakePreBindPlugin`` without PreBindPreFlight (the reference has none)."""

    status: Status = OK

    def name(self) -> str:
        return "FakePreBind"

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status:
        return self.status


def _pre_bind(status: Status) -> Callable[[], Plugin]:
    return lambda: FakePreBind(status)


def _permit(status: Status) -> Callable[[], Plugin]:
    return lambda: _Permit("FakePermit", status, seconds(60))


SCHEDULE_ONE = [
    pytest.param(Row(schedule_error="scheduler", want_queue="backoff",
                     want_reason="SchedulerError", want_error="scheduler"),
                 id="schedule pod failed"),
    pytest.param(Row(plugins=(_reserve(Status(Code.ERROR, ("reserve error",))),),
                     want_forget=True, want_queue="backoff", want_reason="SchedulerError",
                     want_error='running Reserve plugin "FakeReserve": reserve error'),
                 id="reserve failed with status code error"),
    pytest.param(Row(plugins=(_reserve(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                              ("rejected on reserve",))),),
                     want_forget=True, want_queue="unschedulable", want_reason="Unschedulable",
                     want_error="0/1 nodes are available: 1 rejected on reserve."),
                 id="reserve failed with status code rejected"),
    pytest.param(Row(plugins=(_permit(Status(Code.ERROR, ("permit error",))),),
                     want_forget=True, want_queue="backoff", want_reason="SchedulerError",
                     want_error='running Permit plugin "FakePermit": permit error'),
                 id="permit failed with status code error"),
    pytest.param(Row(plugins=(_permit(Status(Code.UNSCHEDULABLE, ("rejected on permit",))),),
                     want_forget=True, want_queue="unschedulable", want_reason="Unschedulable",
                     want_error="0/1 nodes are available: 1 rejected on permit."),
                 id="permit failed with status code rejected"),
    pytest.param(Row(plugins=(_permit(Status(Code.WAIT, ("rejected on permit",))),),
                     admit="FakePermit", want_bound=True),
                 id="nominated node name is not set, permit plugin is working, but the feature "
                    "gate NominatedNodeNameForExpectation is disabled"),
    pytest.param(Row(), marks=pytest.mark.skip(
        reason="NominatedNodeNameForExpectation: the reference sets no nominatedNodeName "
               "in the binding cycle"),
                 id="nominated node name is set, permit plugin is working in wait on permit phase"),
    *(pytest.param(Row(), marks=pytest.mark.skip(
        reason="PreBindPreFlight is not modelled by the reference framework"), id=name)
      for name in ("prebindpreflight failed with status code error",
                   "prebindpreflight failed with status code unschedulable",
                   "prebind isn't called and nominated node name isn't set, if preflight returns skip",
                   "prebind is called and nominated node name is set, if preflight returns success")),
    pytest.param(Row(plugins=(_pre_bind(Status(Code.ERROR, ("on PreBind",))),), want_forget=True,
                     want_queue="backoff", want_reason="SchedulerError",
                     want_error='running PreBind plugin "FakePreBind": on PreBind'),
                 id="prebind failed with status code error"),
    pytest.param(Row(), marks=pytest.mark.skip(
        reason="cancelling a pod in PreBind (PodsInPreBind) is not modelled"),
                 id="prebind pod cancelled during prebind (external preemption)"),
    pytest.param(Row(bind_error="binder", want_bind_attempt=True, want_forget=True,
                     want_queue="backoff", want_reason="SchedulerError",
                     want_error='running Bind plugin "DefaultBinder": binder'),
                 id="binding failed"),
    pytest.param(Row(want_bound=True), id="bind assumed pod scheduled"),
    pytest.param(Row(), marks=pytest.mark.skip(
        reason="skipPodSchedule's FailedScheduling event for a deleting pod has no trace "
               "record in the reference (golden traces)"),
                 id="deleting pod"),
    pytest.param(Row(schedule_error="scheduler", nominated="existing-node", want_queue="backoff",
                     want_reason="SchedulerError", want_error="scheduler"),
                 id="pod with existing nominated node name on scheduling error clears nomination"),
]


@pytest.mark.parametrize("row", SCHEDULE_ONE)
def test_scheduler_schedule_one(row: Row, monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = [make() for make in row.plugins]
    e = env(*plugins, bind_error=row.bind_error)
    if row.schedule_error:
        err = ScheduleResult(status=Status(Code.ERROR, (row.schedule_error,)))
        monkeypatch.setattr(e.sched.algorithm, "schedule_pod", lambda *_a, **_k: err)
    e.server.create(make_node("node1").build())
    e.server.create(make_pod("foo", "default").build())
    if row.nominated:
        pod = e.pod()
        e.server.update_status({**pod, "status": {**(pod.get("status") or {}),
                                                  "nominatedNodeName": row.nominated}})
    e.clock.settle()
    if row.admit:
        waiting = e.sched.framework.waiting_pods[KEY]
        waiting.allow(row.admit)
        e.clock.settle()
    pod = e.pod()
    assert pod["spec"].get("nodeName", "") == ("node1" if row.want_bound else "")
    assert e.binder.bound == (["node1"] if row.want_bound or row.want_bind_attempt else [])
    assert not e.sched.cache.is_assumed(KEY)  # bound (confirmed) or forgotten
    for pl in plugins:
        if isinstance(pl, FakeReserve):
            assert pl.unreserved == (1 if row.want_forget else 0)
    assert e.sched.queue.where(KEY) == row.want_queue
    cond = e.condition()
    if not row.want_reason:
        assert e.events() == [("Bound", "node1")]
        return
    assert cond is not None
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", row.want_reason, row.want_error)
    assert e.events() == [(row.want_reason, row.want_error)]
    # NominatingInfo{ModeOverride, ""}: any nomination is cleared.
    assert not (pod.get("status") or {}).get("nominatedNodeName")


# -- TestScheduleOneMarksPodAsProcessedBeforePreBind --------------------------------------

DONE_BEFORE_PRE_BIND = pytest.mark.skip(
    reason="upstream calls SchedulingQueue.Done after WaitOnPermit, before PreBind; the "
           "reference keeps the pod in flight until Bind ends (in flight at the failure handler)")

PROCESSED = [
    pytest.param(_permit(Status(Code.ERROR, ("permit",))), "", "",
                 'running Permit plugin "FakePermit": permit', id="error on permit"),
    pytest.param(_permit(Status(Code.UNSCHEDULABLE, ("on permit",))), "", "",
                 "0/1 nodes are available: 1 on permit.", id="pod rejected on permit"),
    pytest.param(None, "", "", "", marks=pytest.mark.skip(
        reason="WaitOnPermit cannot end in an Error status in the reference (only Allow, "
               "Reject and the timeout)"), id="error on wait on permit"),
    pytest.param(_permit(Status(Code.WAIT)), "wait on permit", "",
                 "0/1 nodes are available: 1 wait on permit.", id="pod rejected on wait on permit"),
    pytest.param(None, "", "", "", marks=DONE_BEFORE_PRE_BIND, id="error prebind pod"),
    pytest.param(None, "", "", "", id="bind assumed pod scheduled"),
    pytest.param(None, "", "scheduler", "scheduler", id="error pod failed scheduling"),
    pytest.param(None, "", "", "", marks=DONE_BEFORE_PRE_BIND,
                 id="error bind forget pod failed scheduling"),
    pytest.param(None, "", "", "", marks=pytest.mark.skip(
        reason="skipPodSchedule's FailedScheduling event has no trace record in the reference"),
                 id="deleting pod"),
]


@pytest.mark.parametrize(("permit", "reject", "schedule_error", "want_error"), PROCESSED)
def test_schedule_one_marks_pod_as_processed_before_pre_bind(
    permit: Callable[[], Plugin] | None, reject: str, schedule_error: str, want_error: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The failure handler runs once, with the pod still in flight, for failures up to
    WaitOnPermit; a pod that binds never reaches it."""
    e = env(*([permit()] if permit is not None else []))
    if schedule_error:
        err = ScheduleResult(status=Status(Code.ERROR, (schedule_error,)))
        monkeypatch.setattr(e.sched.algorithm, "schedule_pod", lambda *_a, **_k: err)
    calls: list[tuple[str, str]] = []
    handle = e.sched._handle_failure  # noqa: SLF001

    def spy(pinfo: Any, status: Status, *args: Any, **kw: Any) -> None:
        calls.append((e.sched.queue.where(pinfo.key), status.message()))
        handle(pinfo, status, *args, **kw)

    monkeypatch.setattr(e.sched, "_handle_failure", spy)
    e.server.create(make_node("node1").build())
    e.server.create(make_pod("foo", "default").build())
    e.clock.settle()
    if reject:
        assert e.sched.queue.where(KEY) == "in-flight"  # at WaitOnPermit
        e.sched.framework.waiting_pods[KEY].reject("FakePermit", reject)
        e.clock.settle()
    if not want_error:
        assert calls == [] and e.pod()["spec"].get("nodeName") == "node1"
        return
    assert calls == [("in-flight", want_error)]


# -- TestHandleSchedulingFailureSkipsRecreatedPod ------------------------------------------


def test_handle_scheduling_failure_skips_recreated_pod(monkeypatch: pytest.MonkeyPatch) -> None:
    """The informer holds a pod of the same name but another UID: no requeue, no patch."""
    e = env()
    monkeypatch.setattr(e.sched.queue, "_on_ready", lambda: None)  # pop by hand, as upstream
    e.server.create(make_pod("foo", "default").build())
    e.clock.settle()
    popped = e.sched.queue.pop()
    assert popped is not None and e.sched.queue.where(KEY) == "in-flight"
    stored = e.pod()
    recreated = {**stored, "metadata": {**stored["metadata"], "uid": "new-uid"}}
    monkeypatch.setattr(e.sched, "_latest", lambda _key: recreated)
    e.sched._handle_failure(popped, Status(Code.UNSCHEDULABLE, ("no fit",)), Diagnosis())  # noqa: SLF001
    assert e.sched.queue.where(KEY) == ""  # neither in flight nor backoffQ / unschedulable
    assert e.pod()["status"] == stored["status"]  # unchanged
    assert e.events() == []


# -- TestSchedulerNoPhantomPodAfterDelete --------------------------------------------------


def _with_port(pod: Obj, port: int) -> Obj:
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": port, "hostPort": port,
                                              "protocol": "TCP"}]
    return pod


def test_scheduler_no_phantom_pod_after_delete() -> None:
    """A deleted pod's host port is free again: the second pod fails, then binds."""
    e = env(extra=(names.NODE_PORTS,))
    e.server.create(make_node("node1").build())
    e.server.create(_with_port(make_pod("first", "default").node("node1").build(), 8080))
    e.clock.settle()
    e.server.create(_with_port(make_pod("bar", "default").build(), 8080))
    e.clock.settle()
    cond = e.condition("bar")
    assert cond is not None and (cond["reason"], cond["message"]) == (
        "Unschedulable",
        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.")
    assert e.sched.queue.where("default/bar") == "unschedulable"
    e.server.delete("v1", "Pod", "first", "default", grace_period_seconds=0)
    e.clock.run_until(Instant(e.clock.now() + seconds(30)))
    e.clock.settle()
    assert e.pod("bar")["spec"].get("nodeName") == "node1"


# -- TestSchedulerFailedSchedulingReasons ---------------------------------------------------


def test_scheduler_failed_scheduling_reasons() -> None:
    """100 too-small nodes: one UnschedulableAndUnresolvable status per node with both
    reasons, from NodeResourcesFit, and a short message (at most 150 characters)."""
    e = env(extra=(names.NODE_RESOURCES_FIT,))
    for i in range(100):
        e.server.create(make_node(f"node{i}").capacity(cpu="2", memory="100", pods="10").build())
    pod = make_pod("bar", "default").req(cpu="4", memory="500").build()
    pod["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "4", "memory": "500"}
    e.clock.settle()
    result = e.sched.algorithm.schedule_pod(CycleState(PodInfo(pod)), pod)
    assert result.fit_error is not None
    d = result.fit_error.diagnosis
    assert result.fit_error.num_all_nodes == 100
    assert d.unschedulable_plugins == {names.NODE_RESOURCES_FIT}
    assert {(s.code, s.reasons, s.plugin) for s in d.node_to_status.statuses.values()} == {
        (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient cpu", "Insufficient memory"),
         names.NODE_RESOURCES_FIT)}
    assert len(d.node_to_status) == 100
    message = result.fit_error.message()
    assert message == "0/100 nodes are available: 100 Insufficient cpu, 100 Insufficient memory."
    assert len(message) <= 150
    e.server.create(pod)
    e.clock.settle()
    cond = e.condition("bar")
    assert cond is not None and (cond["reason"], cond["message"]) == ("Unschedulable", message)


# -- TestSchedulerMultipleProfilesScheduling ----------------------------------------------


@dataclass
class FakeNodeSelector:
    """``fakeNodeSelector``: only the node named in its args passes."""

    node_name: str

    def name(self) -> str:
        return "FakeNodeSelector"

    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status:
        if node_info.name == self.node_name:
            return OK
        return Status(Code.UNSCHEDULABLE)


def test_scheduler_multiple_profiles_scheduling() -> None:
    """Each pod is scheduled by the profile its schedulerName names. The reference runs a
    Scheduler per profile on one control plane; upstream's per-profile ReportingController
    of the Scheduled event has no counterpart (one "scheduler" trace component)."""
    e = env()
    ctx = e.sched.ctx
    for profile_name, node in (("match-node2", "node2"), ("match-node3", "node3")):
        reg = dict(in_tree_registry())
        reg["FakeNodeSelector"] = const(FakeNodeSelector(node))
        plugins = tuple(PluginConfig(n) for n in (
            names.PRIORITY_SORT, "FakeNodeSelector", names.DEFAULT_BINDER))
        Scheduler(ctx, Profile(scheduler_name=profile_name, plugins=plugins), reg).start()
    for node in ("node1", "node2", "node3"):
        e.server.create(make_node(node).build())
    for pod, profile_name in (("pod1", "match-node3"), ("pod2", "match-node2"),
                              ("pod3", "match-node2"), ("pod4", "match-node3")):
        obj = make_pod(pod, "default").build()
        obj["spec"]["schedulerName"] = profile_name
        e.server.create(obj)
    e.clock.settle()
    got = {p: e.pod(p)["spec"].get("nodeName") for p in ("pod1", "pod2", "pod3", "pod4")}
    assert got == {"pod1": "node3", "pod2": "node2", "pod3": "node2", "pod4": "node3"}
    assert e.binder.bound == []  # the default profile's scheduler saw none of them


# -- not ported -----------------------------------------------------------------------------

NOT_PORTED = {
    "TestSchedulerGuaranteeNonNilNodeInSchedulingCycle": "a goroutine race on a nil NodeInfo "
    "(node deleted mid-cycle); the reference cycle is sequential",
    "TestSchedulerBinding": "extenders (binder extenders) are not modelled",
    "TestUpdatePodStatus": "checks the JSON merge patch bytes sent by the client",
    "TestFindNodesThatPassExtenders": "the reference has no extenders",
}


@pytest.mark.parametrize("name", sorted(NOT_PORTED))
def test_not_ported(name: str) -> None:
    pytest.skip(NOT_PORTED[name])


# -- TestPreferNominatedNodeFilterCallCounts / TestEvaluateNominatedNode ------------------


def _nominated(pod: Obj, node: str) -> tuple[Obj, Nominator]:
    """The pod with ``status.nominatedNodeName``, and a nominator that saw it (the reference
    reads a pod's nomination from its nominator, upstream from ``pod.Status``)."""
    pod["status"] = {"nominatedNodeName": node}
    nominator = Nominator(cast(Any, None))
    nominator._track(pod, deleted=False)  # noqa: SLF001 - what the informer handler does
    return pod, nominator


@pytest.mark.parametrize(
    ("nominated", "failed", "want_calls"),
    [
        pytest.param("node1", {}, 1,
                     id="pod has the nominated node set, filter is called only once"),
        pytest.param("", {}, 3, id="pod without the nominated pod, filter is called for each node"),
        pytest.param("node1", {"node1": Code.UNSCHEDULABLE}, 4,
                     id="nominated pod cannot pass the filter, filter is called for each node"),
    ],
)
def test_prefer_nominated_node_filter_call_counts(
    nominated: str, failed: dict[str, Code], want_calls: int
) -> None:
    plugin = FakeFilter(failed)
    sched = scheduler([plugin, MapScore("EqualPrioritizerPlugin")], ["node1", "node2", "node3"])
    pod = make_pod("p", "default").build()
    pod["spec"]["priority"] = 1000  # highPriority
    if nominated:
        pod, sched.nominator = _nominated(pod, nominated)
    _, status = sched._find_nodes_that_fit(  # noqa: SLF001
        CycleState(), pod, sched._cache.node_infos(), Diagnosis())  # noqa: SLF001
    assert status.is_success()
    assert plugin.calls == want_calls


@pytest.mark.parametrize(
    ("nominated", "want"),
    [
        pytest.param("n1", ["n1"], id="When NNN is present in both snapshot and placement, returns node"),
        pytest.param("n2", [], id="When NNN is present in snapshot but not in placement, returns success"),
        # Upstream's error here is only logged by findNodesThatFitPod; the reference has no
        # error to return, only the empty list.
        pytest.param("n3", [], id="When NNN is not present in snapshot, returns error"),
    ],
)
def test_evaluate_nominated_node(nominated: str, want: list[str]) -> None:
    sched = scheduler([], ["n1", "n2"])
    pod, sched.nominator = _nominated(make_pod("p", "default").build(), nominated)
    placement = [ni for ni in sched._cache.node_infos() if ni.name == "n1"]  # noqa: SLF001
    got = sched._evaluate_nominated_node(  # noqa: SLF001
        CycleState(), pod, nominated, Diagnosis(), placement)
    assert [ni.name for ni in got] == want
