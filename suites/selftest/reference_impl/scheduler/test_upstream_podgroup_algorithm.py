"""Upstream's pod-group scheduling algorithm table, row by row, and its early stop.

Ported: ``TestPodGroupSchedulingAlgorithm`` (schedule_one_podgroup_test.go), run on the
reference's ``GroupPlacer.place`` (``group_placement.py``). Upstream's fakePodGroupPlugin
is the Filter (a status per pod, one node "node1"), here the stub's per-pod algorithm;
its fakePlacementFeasiblePlugin answers a code per evaluated pod of each placement (Success
where the list runs out), here a PlacementFeasible plugin in the stub framework read by the
reference's runner. Each row runs with TopologyAwareWorkloadScheduling off and on (the
CompositePodGroup gate changes nothing here). What is checked is upstream's: the group's
status code and which pods were evaluated, with what code (a member's FitError is
Unschedulable, whatever its filter said). ``need`` is 0 so that, as upstream, only the
PlacementFeasible verdict and "some pod was scheduled" decide.

And the algorithm half of ``TestPodGroupCycle_FillsPodResultsOnFewerResults``: a member's
Filter error ends the attempt with fewer results than members (the submission half is in
test_upstream_podgroup_submit.py). Also the real GangScheduling PlacementFeasible in that
loop: the attempt stops once
``minCount`` can no longer be met, with upstream's message, and the members never tried
are left out of the attempt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.clock import Instant
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo
from reference_impl.scheduler.group_placement import PG_UNSCHEDULABLE, GroupAttempt, GroupPlacer
from reference_impl.scheduler.plugins.gang_scheduling import GangScheduling
from reference_impl.scheduler.schedule_one import ScheduleResult

Obj = dict[str, Any]
S, W, U, E = Code.SUCCESS, Code.WAIT, Code.UNSCHEDULABLE, Code.ERROR
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
INJECTED = "injected placementFeasible status"


@dataclass
class _Feasible:
    """fakePlacementFeasiblePlugin: codes per placement, one per evaluated pod."""

    codes: list[list[Code]]
    total: int = 3
    placements: int = 0

    def name(self) -> str:
        return "GangScheduling"

    def placement_feasible(
        self, group: Obj, remaining: int, scheduled: int, *, composite: bool = False
    ) -> Status:
        if not self.codes:
            return OK
        evaluated = self.total - remaining
        if evaluated == 0:
            self.placements += 1
        index = self.placements - 1
        if index < len(self.codes) and evaluated < len(self.codes[index]):
            code = self.codes[index][evaluated]
            return OK if code is S else Status(code, (INJECTED,))
        return OK


class _Algorithm:
    """The per-pod algorithm with fakePodGroupPlugin's Filter on the placement's nodes."""

    def __init__(self, filters: dict[str, Code | None], cache: SchedulerCache) -> None:
        self._filters, self._cache = filters, cache

    def schedule_pod(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo] | None,
                     signature: object) -> ScheduleResult:
        code = self._filters.get(pod["metadata"]["name"], U)
        node = next(iter(nodes if nodes is not None else self._cache.node_infos()))
        if code is None:
            return ScheduleResult(node_name=node.name, evaluated_nodes=1, feasible_nodes=1)
        if code is E:
            why = f'running "FakePodGroupPlugin" filter plugin: filter error for {pod["metadata"]["name"]}'
            return ScheduleResult(status=Status(E, (why,), "FakePodGroupPlugin"))
        return ScheduleResult(status=Status(code, ("0/1 nodes are available:",), "FakePodGroupPlugin"))


@dataclass
class _Framework:
    placement_feasible: list[Any] = field(default_factory=list)
    placement_generate: list[Any] = field(default_factory=list)
    placement_score: list[Any] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Obj, node: str) -> Status:
        return OK

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Obj, node: str) -> None:
        pass


class _Sched:
    def __init__(self, filters: dict[str, Code | None], feasible: list[Any], tas: bool) -> None:
        self.features = SchedulerFeatures(enable_generic_workload=True,
                                          enable_topology_aware_workload_scheduling=tas)
        self.cache = SchedulerCache()
        self.cache.add_node(make_node("node1").build())
        self.framework = _Framework(feasible)
        self.algorithm = _Algorithm(filters, self.cache)


def _pinfos(n: int = 3) -> list[QueuedPodInfo]:
    out = []
    for i in range(1, n + 1):
        pod = make_pod(f"p{i}").build()
        pod["spec"]["schedulingGroup"] = {"podGroupName": "pg"}
        out.append(QueuedPodInfo(PodInfo(pod), Instant(0)))
    return out


PG: Obj = {"metadata": {"name": "pg", "namespace": "default"}, "spec": {}}
ALL_FIT: dict[str, Code | None] = {"p1": None, "p2": None, "p3": None}

# (filter per pod, PlacementFeasible codes, group code, evaluated pod -> code)
ROWS = [
    pytest.param(ALL_FIT, [], S, {"p1": S, "p2": S, "p3": S}, id="All pods feasible"),
    pytest.param(ALL_FIT, [S, S, S, S], S, {"p1": S, "p2": S, "p3": S},
                 id="All pods feasible, podGroup already meeting quorum before any pod is evaluated"),
    pytest.param(ALL_FIT, [W, W, W, S], S, {"p1": S, "p2": S, "p3": S},
                 id="All pods feasible, podGroup schedulable with 3 schedulable pods"),
    pytest.param(ALL_FIT, [W, W, W, W], U, {"p1": S, "p2": S, "p3": S},
                 id="All pods feasible, podGroup waiting"),
    pytest.param(ALL_FIT, [W, U], U, {"p1": S}, id="All pods feasible, podGroup unschedulable"),
    pytest.param(ALL_FIT, [W, W, U], U, {"p1": S, "p2": S},
                 id="All pods feasible, podGroup unschedulable with 2 pods"),
    pytest.param({"p1": U, "p2": None, "p3": None}, [W, W, W, S], S, {"p1": U, "p2": S, "p3": S},
                 id="PodGroup schedulable with 2 schedulable pods"),
    pytest.param({"p1": UU, "p2": U, "p3": U}, [W, S, S, S], U, {"p1": U, "p2": U, "p3": U},
                 id="All pods unschedulable"),
    pytest.param({"p1": None, "p2": E, "p3": None}, [], E, {"p1": S, "p2": E},
                 id="Any filter returned Error"),
    pytest.param(ALL_FIT, [W, S, E], E, {"p1": S, "p2": S},
                 id="Any placementFeasible returned Error"),
    pytest.param(ALL_FIT, [U], U, {}, id="First placementFeasible call returned Unschedulable"),
    pytest.param(ALL_FIT, [E], E, {}, id="First placementFeasible call returned Error"),
]


def _group_code(best: GroupAttempt | None, failed: GroupAttempt | None) -> Code:
    if best is not None:
        return best.status.code
    assert failed is not None
    return Code.ERROR if failed.error is not None else failed.status.code


@pytest.mark.parametrize("tas", [False, True], ids=["TAS=false", "TAS=true"])
@pytest.mark.parametrize(("filters", "codes", "want_group", "want_pods"), ROWS)
def test_pod_group_scheduling_algorithm(
    filters: dict[str, Code | None], codes: list[Code], want_group: Code,
    want_pods: dict[str, Code], tas: bool,
) -> None:
    sched = _Sched(filters, [_Feasible([codes] if codes else [])], tas)
    best, failed = GroupPlacer(sched).place(_pinfos(), PG, [], 0)  # type: ignore[arg-type]
    assert _group_code(best, failed) is want_group
    att = best if best is not None else failed
    assert att is not None
    got = {p.pod["metadata"]["name"]: S for _, p, _ in att.placed}
    got |= {p.pod["metadata"]["name"]: st.code for p, st in att.failed}
    assert got == want_pods
    hosts = {p.pod["metadata"]["name"]: node for _, p, node in att.placed}
    assert set(hosts.values()) <= {"node1"}  # SuggestedHost of each feasible pod
    # The pods not evaluated are exactly the ones the attempt skipped.
    assert {p.pod["metadata"]["name"] for p in att.skipped} == {"p1", "p2", "p3"} - set(got)


# -- the real GangScheduling PlacementFeasible in the loop -----------------------------


def _gang(min_count: int) -> Obj:
    return {"metadata": {"name": "pg", "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}}}


def _real(filters: dict[str, Code | None], tas: bool = False) -> _Sched:
    gang = GangScheduling.__new__(GangScheduling)  # placement_feasible reads nothing else
    return _Sched(filters, [gang], tas)


@pytest.mark.parametrize(
    ("filters", "min_count", "bound", "want_msg", "want_evaluated"),
    [
        # p1 fails: 0 scheduled + 2 remaining < 3 -> stop before p2.
        pytest.param({"p1": U, "p2": None, "p3": None}, 3, 0,
                     "minCount (3) cannot be satisfied: 0 scheduled, 2 remaining", ["p1"],
                     id="first member fails, the rest are never tried"),
        pytest.param({"p1": None, "p2": None, "p3": U}, 3, 0,
                     "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining",
                     ["p1", "p2", "p3"], id="last member fails"),
        pytest.param({"p1": None, "p2": U, "p3": None}, 4, 1,
                     "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining", ["p1", "p2"],
                     id="bound members count as scheduled"),
    ],
)
def test_gang_attempt_stops_once_min_count_cannot_be_met(
    filters: dict[str, Code | None], min_count: int, bound: int, want_msg: str,
    want_evaluated: list[str],
) -> None:
    sched = _real(filters)
    need = min_count - bound
    best, failed = GroupPlacer(sched).place(  # type: ignore[arg-type]
        _pinfos(), _gang(min_count), ["node1"] * bound, need)
    assert best is None and failed is not None and failed.error is None
    assert (failed.status.code, failed.status.message(), failed.status.plugin) == (
        Code.UNSCHEDULABLE, want_msg, "GangScheduling")
    evaluated = sorted([p.pod["metadata"]["name"] for _, p, _ in failed.placed]
                       + [p.pod["metadata"]["name"] for p, _ in failed.failed])
    assert evaluated == want_evaluated
    assert not sched.cache.is_assumed("default/p1")  # rolled back


def test_gang_too_few_members_is_unschedulable_before_any_pod() -> None:
    """The first PlacementFeasible call: the group status wraps errPodGroupUnschedulable."""
    sched = _real(ALL_FIT)
    best, failed = GroupPlacer(sched).place(_pinfos(2), _gang(3), [], 3)  # type: ignore[arg-type]
    assert best is None and failed is not None
    assert failed.status.message() == (
        f"{PG_UNSCHEDULABLE}, minCount (3) cannot be satisfied: 0 scheduled, 2 remaining")
    assert not failed.placed and not failed.failed and len(failed.skipped) == 2


def test_gang_with_topology_placements_reports_the_first_placement() -> None:
    """podGroupSchedulingPlacementAlgorithm: "0/N placements are available, first placement
    status: " and that result's error (its message; errPodGroupUnschedulable alone where the
    status wraps it)."""
    sched = _real({"p1": U, "p2": None, "p3": None}, tas=True)
    best, failed = GroupPlacer(sched).place(_pinfos(), _gang(3), [], 3)  # type: ignore[arg-type]
    assert best is None and failed is not None
    assert failed.status.message() == (
        f"{PG_UNSCHEDULABLE}, 0/1 placements are available, first placement status: "
        "minCount (3) cannot be satisfied: 0 scheduled, 2 remaining")
    sched = _real(ALL_FIT, tas=True)
    _, failed = GroupPlacer(sched).place(_pinfos(2), _gang(3), [], 3)  # type: ignore[arg-type]
    assert failed is not None
    assert failed.status.message() == (
        f"{PG_UNSCHEDULABLE}, 0/1 placements are available, first placement status: "
        f"{PG_UNSCHEDULABLE}")


def test_fills_pod_results_on_fewer_results_algorithm() -> None:
    """p2's Filter errors: two results (p1 feasible, p2 its error), p3 never tried, and the
    group's error wraps p2's."""
    sched = _Sched({"p1": None, "p2": E, "p3": None}, [], tas=False)
    best, failed = GroupPlacer(sched).place(_pinfos(), PG, [], 0)  # type: ignore[arg-type]
    assert best is None and failed is not None and failed.error is not None
    assert failed.error.message() == ('failed to schedule other pod from a pod group: running '
                                      '"FakePodGroupPlugin" filter plugin: filter error for p2')
    assert [p.pod["metadata"]["name"] for _, p, _ in failed.placed] == ["p1"]
    assert [(p.pod["metadata"]["name"], st.message()) for p, st in failed.failed] == [
        ("p2", 'running "FakePodGroupPlugin" filter plugin: filter error for p2')]
    assert [p.pod["metadata"]["name"] for p in failed.skipped] == ["p3"]


@pytest.mark.parametrize(
    ("reserve", "want_error"),
    [
        pytest.param(Status(E, ('running Reserve plugin "R": boom',), "R"),
                     'failed to schedule other pod from a pod group: running Reserve plugin "R": boom',
                     id="a Reserve error ends the attempt as a Filter error does"),
        pytest.param(Status(U, ("no room",), "R"), None,
                     id="a Reserve rejection is that pod's own failure"),
    ],
)
def test_reserve_failure_of_a_member(reserve: Status, want_error: str | None) -> None:
    """podGroupPodSchedulingAlgorithm: assumeAndReserve's status is the pod's; one neither
    success nor rejected stops the group with an error, like Filter's."""
    sched = _Sched(ALL_FIT, [], tas=False)
    sched.framework.run_reserve_plugins_reserve = (  # type: ignore[method-assign]
        lambda state, pod, node: reserve if pod["metadata"]["name"] == "p2" else OK)
    best, failed = GroupPlacer(sched).place(_pinfos(), PG, [], 3)  # type: ignore[arg-type]
    assert best is None and failed is not None
    assert [(p.pod["metadata"]["name"], st) for p, st in failed.failed] == [("p2", reserve)]
    if want_error is None:
        assert failed.error is None and not failed.skipped
    else:
        assert failed.error is not None and failed.error.message() == want_error
        assert [p.pod["metadata"]["name"] for p in failed.skipped] == ["p3"]
