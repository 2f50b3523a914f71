"""Upstream's submission of a rejected pod group, row by row, and its messages end to end.

Ported: the rejected and error rows of ``TestSubmitPodGroupAlgorithmResult`` and the
submission half of ``TestPodGroupCycle_FillsPodResultsOnFewerResults``
(schedule_one_podgroup_test.go). Upstream injects the algorithm's result (a status per pod
and the group's) into ``submitPodGroupAlgorithmResult``; here the same result is a
``GroupAttempt`` handed to ``WorkloadCycle.submit_unschedulable`` (an Unschedulable group)
or ``_fail_with_error`` (an Error group) of a reference Cluster whose pods stay pending (it
has no node). Checked: each member's PodScheduled=False condition (reason and message,
what upstream's FailureHandler gets) and the PodGroup's PodGroupInitiallyScheduled
condition. Rows that bind pods, or hand the submission a result missing pods, are skipped
(see ``SKIPPED``).

Also end to end (a gang on real nodes, the pod-group cycle and its preemption):
the condition message is the group status's (GangScheduling's "minCount (N) cannot be
satisfied: S scheduled, R remaining") with the PodGroupPostFilter status appended
(``applyPodGroupPostFilterResult``), and each member reports its own status, the group's
status, or "pod group is unschedulable, " and the group's message.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import condition, make_node, make_pod, make_pod_group, make_priority_class
from reference_impl.clock import Instant
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from reference_impl.scheduler.group_placement import PG_UNSCHEDULABLE, GroupAttempt
from reference_impl.scheduler.podgroup_rules import INITIALLY_SCHEDULED

Obj = dict[str, Any]
PG_V = "scheduling.k8s.io/v1beta1"
RUNTIME = {PG_V: "true"}
U = Status(Code.UNSCHEDULABLE)
SCHEDULED = {"status": "True", "reason": "Scheduled", "message": "All pods scheduled"}


def _cluster(existing: Obj | None) -> tuple[Cluster, list[QueuedPodInfo], Obj]:
    c = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    pg = make_pod_group("pg", "default")
    c.apply(pg)
    if existing is not None:
        stored = c.api.get(PG_V, "PodGroup", "pg", "default")
        c.api.update_status({**stored, "status": {"conditions": [
            {**existing, "type": INITIALLY_SCHEDULED, "lastTransitionTime": "2026-01-01T00:00:00Z"}
        ]}})
    pinfos = []
    for name in ("p1", "p2", "p3"):
        c.apply(make_pod(name, "default").pod_group("pg").build())
        pinfos.append(QueuedPodInfo(PodInfo(c.api.get("v1", "Pod", name, "default")), Instant(0)))
    c.settle()
    return c, pinfos, c.api.get(PG_V, "PodGroup", "pg", "default")


def _attempt(pinfos: list[QueuedPodInfo], results: dict[str, Status | None]) -> GroupAttempt:
    """podResultsByPodName: None = evaluated feasible (SuggestedHost node1)."""
    att = GroupAttempt()
    for p in pinfos:
        st = results[p.pod["metadata"]["name"]]
        if st is None:
            att.placed.append((CycleState(p.info), p, "node1"))
        else:
            att.failed.append((p, st))
    return att


def _pod_scheduled(c: Cluster, name: str) -> tuple[str, str]:
    cond = condition(c.api.get("v1", "Pod", name, "default"), "PodScheduled") or {}
    return cond.get("reason", ""), cond.get("message", "")


def _group_condition(c: Cluster) -> Obj:
    cond = condition(c.api.get(PG_V, "PodGroup", "pg", "default"), INITIALLY_SCHEDULED) or {}
    return {k: cond.get(k) for k in ("status", "reason", "message")}


FEASIBLE: dict[str, Status | None] = {"p1": None, "p2": None, "p3": None}
ALL_U: dict[str, Status | None] = {"p1": U, "p2": U, "p3": U}
GANG_MSG = "not enough capacity for the gang"
CPU_MSG = "0/3 nodes are available: insufficient cpu"

# (existing condition, results, group status, waiting on preemption, pod -> (reason,
# message), expected PodGroup condition)
REJECTED = [
    pytest.param(None, FEASIBLE, Status(Code.UNSCHEDULABLE, (GANG_MSG,)), False,
                 {p: ("Unschedulable", f"{PG_UNSCHEDULABLE}, {GANG_MSG}") for p in FEASIBLE},
                 {"status": "False", "reason": "Unschedulable", "message": GANG_MSG},
                 id="All pods feasible, but podGroup unschedulable"),
    pytest.param(None, ALL_U, Status(Code.UNSCHEDULABLE, (CPU_MSG,)), False,
                 {p: ("Unschedulable", "") for p in ALL_U},
                 {"status": "False", "reason": "Unschedulable", "message": CPU_MSG},
                 id="All pods unschedulable"),
    pytest.param(None, ALL_U, Status(Code.UNSCHEDULABLE, (CPU_MSG,)), False,
                 {p: ("Unschedulable", "") for p in ALL_U},
                 {"status": "False", "reason": "Unschedulable", "message": CPU_MSG},
                 id="All pods unschedulable with nil nominatingInfo"),
    pytest.param(None, ALL_U, Status(Code.UNSCHEDULABLE, ("node affinity mismatch",)), False,
                 {p: ("Unschedulable", "") for p in ALL_U},
                 {"status": "False", "reason": "Unschedulable", "message": "node affinity mismatch"},
                 id="Unschedulable for the entire pod group"),
    pytest.param(SCHEDULED, ALL_U, Status(Code.UNSCHEDULABLE, ("extra pods could not be placed",)),
                 False, {p: ("Unschedulable", "") for p in ALL_U}, SCHEDULED,
                 id="Already Scheduled, rejected cycle does not regress condition"),
    pytest.param(None, {"p1": None, "p2": U, "p3": U},
                 Status(Code.UNSCHEDULABLE, ("waiting on preemption",)), True,
                 {"p1": ("Unschedulable", "waiting on preemption"), "p2": ("Unschedulable", ""),
                  "p3": ("Unschedulable", "")},
                 {"status": "False", "reason": "Unschedulable", "message": "waiting on preemption"},
                 id="PodGroup waiting on preemption uses nominating info instead of suggested "
                    "host for successfully evaluated pods"),
]


@pytest.mark.parametrize(("existing", "results", "status", "waiting", "want_pods", "want_cond"),
                         REJECTED)
def test_submit_rejected_pod_group(
    existing: Obj | None, results: dict[str, Status | None], status: Status, waiting: bool,
    want_pods: dict[str, tuple[str, str]], want_cond: Obj,
) -> None:
    c, pinfos, pg = _cluster(existing)
    c.scheduler.workload.submit_unschedulable(
        pinfos, pg, _attempt(pinfos, results), status, status, waiting)
    c.settle()
    assert {p: _pod_scheduled(c, p) for p in want_pods} == want_pods
    assert _group_condition(c) == want_cond


ERR = Status(Code.ERROR, ("plugin returned error",))
ERRORED = [
    pytest.param(None, {"p1": None, "p2": ERR, "p3": ERR}, "plugin returned error",
                 {p: ("SchedulerError", "plugin returned error") for p in FEASIBLE},
                 {"status": "False", "reason": "SchedulerError", "message": "plugin returned error"},
                 id="Error for one pod"),
    pytest.param(SCHEDULED, {"p1": None, "p2": Status(Code.ERROR), "p3": Status(Code.ERROR)}, "",
                 {p: ("SchedulerError", "") for p in FEASIBLE}, SCHEDULED,
                 id="Already Scheduled, error cycle does not regress condition"),
]


@pytest.mark.parametrize(("existing", "results", "err", "want_pods", "want_cond"), ERRORED)
def test_submit_errored_pod_group(
    existing: Obj | None, results: dict[str, Status | None], err: str,
    want_pods: dict[str, tuple[str, str]], want_cond: Obj,
) -> None:
    c, pinfos, pg = _cluster(existing)
    c.scheduler.workload._fail_with_error(pinfos, pg, err, _attempt(pinfos, results))  # noqa: SLF001
    c.settle()
    assert {p: _pod_scheduled(c, p) for p in want_pods} == want_pods
    assert _group_condition(c) == want_cond


def test_fills_pod_results_on_fewer_results() -> None:
    """``TestPodGroupCycle_FillsPodResultsOnFewerResults``: the attempt ended at p2's error
    (p3 has no result); every member is failed, p2 with its own error, p1 and p3 with the
    group's."""
    c, pinfos, pg = _cluster(None)
    own = 'running "FakePodGroupPlugin" filter plugin: filter error for p2'
    group = f"failed to schedule other pod from a pod group: {own}"
    att = _attempt(pinfos[:2], {"p1": None, "p2": Status(Code.ERROR, (own,), "FakePodGroupPlugin")})
    att.error = Status(Code.ERROR, (group,))
    att.skipped = pinfos[2:]
    c.scheduler.workload._fail_with_error(pinfos, pg, group, att)  # noqa: SLF001
    c.settle()
    assert {p: _pod_scheduled(c, p) for p in ("p1", "p2", "p3")} == {
        "p1": ("SchedulerError", group), "p2": ("SchedulerError", own),
        "p3": ("SchedulerError", group)}


SKIPPED = [
    pytest.param(id="All pods feasible"),
    pytest.param(id="One unschedulable"),
    pytest.param(id="Already Scheduled, successful cycle keeps condition"),
    pytest.param(id="Different number of pods in result and queue, should fail all queue pods"),
]


@pytest.mark.skip(reason="the success rows bind inside schedule_group (no separate submission "
                  "to inject into; the conformance gang suites cover it), and the reference's "
                  "attempt always accounts for every member")
@pytest.mark.parametrize("row", [0, 1, 2, 3], ids=[p.id for p in SKIPPED])
def test_submit_rows_without_counterpart(row: int) -> None:
    raise AssertionError("skipped")


# -- end to end ----------------------------------------------------------------------


def _gang_cluster(victims: bool) -> Cluster:
    c = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    c.apply(make_priority_class("low", 10))
    c.apply(make_priority_class("high", 1000))
    for i in range(2):
        c.apply(make_node(f"n{i}").capacity(cpu="1", memory="8Gi", pods="10").build())
        if victims:
            c.apply(make_pod(f"v{i}", "default").req(cpu="1").priority_class("low").build())
    c.settle()
    return c


def _first_messages(c: Cluster, members: list[str]) -> tuple[list[str], dict[str, str]]:
    """The PodGroup condition messages in order, and each member's first PodScheduled=False
    message, as the informers saw them."""
    group_msgs: list[str] = []
    pod_msgs: dict[str, str] = {}

    def on_group(ev: Any) -> None:
        cond = condition(ev.obj, INITIALLY_SCHEDULED)
        if cond is not None and (not group_msgs or group_msgs[-1] != cond["message"]):
            group_msgs.append(cond["message"])

    def on_pod(ev: Any) -> None:
        name = ev.obj["metadata"]["name"]
        cond = condition(ev.obj, "PodScheduled")
        if name in members and cond is not None and cond["status"] == "False":
            pod_msgs.setdefault(name, cond["message"])

    c.scheduler.ctx.informers.informer(PG_V, "PodGroup").add_handler(on_group)
    c.scheduler.ctx.informers.informer("v1", "Pod").add_handler(on_pod)
    return group_msgs, pod_msgs


def test_gang_without_victims_reports_min_count_and_preemption() -> None:
    """Room for 2 of a gang of 3: g0 and g1 fit, g2 does not; nothing to preempt."""
    c = _gang_cluster(victims=False)
    members = ["g0", "g1", "g2"]
    group_msgs, pod_msgs = _first_messages(c, members)
    c.apply(make_pod_group("pg", "default", min_count=3))
    for name in members:
        c.apply(make_pod(name, "default").req(cpu="1").pod_group("pg").build())
    c.settle()
    want = ("minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: "
            "No preemption victims found for incoming preemptor")
    assert group_msgs[0] == want
    assert pod_msgs == {
        "g0": f"{PG_UNSCHEDULABLE}, {want}",
        "g1": f"{PG_UNSCHEDULABLE}, {want}",
        "g2": "0/2 nodes are available: 2 Insufficient cpu.",
    }


def test_gang_waiting_on_preemption_stops_early() -> None:
    """Both nodes full of low-priority pods: g0 fails, so 0 scheduled + 1 remaining < 2 ends
    the attempt; g1 is never tried and reports the group status as the algorithm left it;
    the condition carries the preemption's outcome."""
    c = _gang_cluster(victims=True)
    members = ["g0", "g1"]
    group_msgs, pod_msgs = _first_messages(c, members)
    c.apply(make_pod_group("pg", "default", min_count=2, priority_class="high"))
    for name in members:
        c.apply(make_pod(name, "default").req(cpu="1").priority_class("high").pod_group("pg")
                .build())
    c.settle()
    stop = "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining"
    assert group_msgs[0] == (
        f"{stop}, pod group preemption: found a placement for podgroup, preempting 2 victims")
    assert pod_msgs == {"g0": "0/2 nodes are available: 2 Insufficient cpu.", "g1": stop}
    assert _group_condition(c)["status"] == "True"  # a later attempt binds the gang
