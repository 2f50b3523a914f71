"""Upstream's pod-group placement algorithm table, row by row.

Ported: ``TestPodGroupSchedulingPlacementAlgorithm`` and
``TestPodGroupSchedulingPlacementAlgorithm_Scoring`` (schedule_one_podgroup_test.go), run
on the reference's ``GroupPlacer.place`` (``group_placement.py``). Upstream's
fakePlacementPlugin is the Filter, PlacementGenerate (wrapped to order its placements by
name, as "<name>_Ordered") and PlacementScore plugin; here the generate and score halves
are real placement plugins in a stub framework (the fake is also its PlacementFeasible
plugin where a row injects codes, as fakePlacementFeasiblePlugin), and the filter half is the stub's
per-pod algorithm (first node of the placement whose filter status passes), so what runs
for real is the reference's own part: candidates, one attempt per candidate with
rollback, the best score, and how failures and errors come out. The group is a basic
one (minimum 1), one pod "foo", nodes node1 and node2. Upstream runs each row with
CompositePodGroup off and on; nothing here reads that gate.
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
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
)
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo
from reference_impl.scheduler.group_placement import GroupAttempt, GroupPlacer
from reference_impl.scheduler.schedule_one import ScheduleResult

Obj = dict[str, Any]
FAKE = "FakePlacementPlugin"
ERR = Status(Code.ERROR, ("error for test",))
UNSCHED = Status(Code.UNSCHEDULABLE)


@dataclass
class _Fake:
    """fakePlacementPlugin: placements (name -> nodes) and their scores."""

    placements: dict[str, list[str]] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)
    generate_status: Status = OK
    score_status: dict[str, Status] = field(default_factory=dict)
    filter_status: dict[str, Status] = field(default_factory=dict)
    # fakePlacementFeasiblePlugin's codes: per placement, one per evaluated pod.
    feasible: list[list[Code]] = field(default_factory=list)
    placements_seen: int = 0

    def name(self) -> str:
        return FAKE

    def placement_feasible(
        self, group: Obj, remaining: int, scheduled: int, *, composite: bool = False
    ) -> Status:
        evaluated = 1 - remaining  # one pod, "foo"
        if evaluated == 0:
            self.placements_seen += 1
        codes = self.feasible[self.placements_seen - 1:self.placements_seen] or [[]]
        if evaluated < len(codes[0]) and codes[0][evaluated] is not Code.SUCCESS:
            return Status(codes[0][evaluated], ("injected placementFeasible status",))
        return OK

    def score_placement(self, group: PodGroupInfo, a: PodGroupAssignments) -> tuple[int, Status]:
        return self.scores.get(a.placement.name, 0), self.score_status.get(a.placement.name, OK)

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        return None  # PlacementScoreExtensions returns nil


@dataclass
class _Ordered:
    """orderedPlacementPlugin: the fake's placements sorted by name."""

    fake: _Fake

    def name(self) -> str:
        return FAKE + "_Ordered"

    def generate_placements(self, group: PodGroupInfo, parent: Placement) -> tuple[list[Placement], Status]:
        by_name = {ni.name: ni for ni in parent.nodes}
        out = []
        for name, nodes in sorted(self.fake.placements.items()):
            picked = [by_name[n] for n in nodes if n in by_name]
            if picked:
                out.append(Placement(name, picked))
        return out, self.fake.generate_status


class _Algorithm:
    """The per-pod algorithm with the fake's Filter: the first passing node, or its error."""

    def __init__(self, fake: _Fake, cache: SchedulerCache) -> None:
        self._fake, self._cache = fake, cache

    def schedule_pod(self, state: CycleState, pod: Obj, nodes: Sequence[NodeInfo] | None,
                     signature: object) -> ScheduleResult:
        for ni in nodes if nodes is not None else self._cache.node_infos():
            status = self._fake.filter_status.get(ni.name, OK)
            if status.code is Code.ERROR:
                msg = f'running "{FAKE}" filter plugin: {status.message()}'
                return ScheduleResult(status=Status(Code.ERROR, (msg,), FAKE))
            if status.is_success():
                return ScheduleResult(node_name=ni.name, evaluated_nodes=1, feasible_nodes=1)
        return ScheduleResult(status=Status(Code.UNSCHEDULABLE, ("0/1 nodes are available:",), FAKE))


@dataclass
class _Scorer:
    """A scoring-only fakePlacementPlugin, "FakeScorePlugin[i]"."""

    index: int
    scores: dict[str, int]

    def name(self) -> str:
        return f"FakeScorePlugin[{self.index}]"

    def score_placement(self, group: PodGroupInfo, a: PodGroupAssignments) -> tuple[int, Status]:
        return self.scores.get(a.placement.name, 0), OK

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        return None


class _Framework:
    def __init__(self, fake: _Fake, scorers: Sequence[tuple[_Scorer, int]] = ()) -> None:
        self.placement_generate = [_Ordered(fake)]
        self.placement_feasible = [fake] if fake.feasible else []
        self.placement_score: list[_Fake | _Scorer] = [fake] if not scorers else []
        self.weights = {FAKE: 1}
        for pl, weight in scorers:
            self.placement_score.append(pl)
            self.weights[pl.name()] = weight

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Obj, node: str) -> Status:
        return OK

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Obj, node: str) -> None:
        pass


class _Sched:
    def __init__(self, fake: _Fake, scorers: Sequence[tuple[_Scorer, int]] = ()) -> None:
        self.features = SchedulerFeatures(enable_generic_workload=True,
                                          enable_topology_aware_workload_scheduling=True)
        self.cache = SchedulerCache()
        for name in ("node1", "node2"):
            self.cache.add_node(make_node(name).build())
        self.framework = _Framework(fake, scorers)
        self.algorithm = _Algorithm(fake, self.cache)


def _place(
    fake: _Fake, scorers: Sequence[tuple[_Scorer, int]] = ()
) -> tuple[_Sched, GroupAttempt | None, GroupAttempt | None]:
    sched = _Sched(fake, scorers)
    pod = make_pod("foo").build()
    pod["spec"]["schedulingGroup"] = {"podGroupName": "pg"}
    pinfo = QueuedPodInfo(PodInfo(pod), Instant(0))
    pg = {"metadata": {"name": "pg", "namespace": "default"}, "spec": {}}
    best, failed = GroupPlacer(sched).place([pinfo], pg, [], 1)  # type: ignore[arg-type]
    return sched, best, failed


TWO = {"placement1": ["node1"], "placement2": ["node2"]}
WU = [[Code.WAIT, Code.UNSCHEDULABLE], [Code.WAIT, Code.UNSCHEDULABLE]]
WS_WU = [[Code.WAIT, Code.SUCCESS], [Code.WAIT, Code.UNSCHEDULABLE]]
ZERO_OF_TWO = ("pod group is unschedulable, 0/2 placements are available, first placement "
               "status: injected placementFeasible status")

CASES = [
    pytest.param(_Fake(TWO, {"placement1": 2, "placement2": 1}), "node1", None,
                 id="respects higher score of placement1"),
    pytest.param(_Fake(TWO, {"placement1": 1, "placement2": 2}), "node2", None,
                 id="respects higher score of placement2"),
    pytest.param(_Fake(), "", None, id="when no placements are generated, returns unschedulable"),
    pytest.param(_Fake(TWO, {"placement1": 1, "placement2": 2},
                       filter_status={"node1": UNSCHED, "node2": UNSCHED}, feasible=WU), "", None,
                 id="when all placements are infeasible, returns unschedulable"),
    pytest.param(_Fake(TWO, {"placement1": 1, "placement2": 2}, feasible=WU), "", None,
                 id="when all placements are infeasible, but pods are feasible, returns unschedulable"),
    pytest.param(_Fake(TWO, {"placement1": 1}, filter_status={"node2": UNSCHED}, feasible=WS_WU),
                 "node1", None, id="filters out infeasible placements"),
    pytest.param(_Fake(TWO, {"placement1": 1, "placement2": 2}, feasible=WS_WU), "node1", None,
                 id="filters out infeasible placements with feasible pods"),
    pytest.param(_Fake(generate_status=ERR), "", "error for test",
                 id="when generate plugin fails, returns error"),
    pytest.param(_Fake(TWO, {"placement1": 1}, score_status={"placement2": ERR}), "",
                 'running PlacementScore plugins: plugin "FakePlacementPlugin" failed with: '
                 "error for test", id="when score plugin fails, returns error"),
    pytest.param(_Fake({"placement1": ["node1"]}, {"placement1": 1},
                       filter_status={"node1": ERR}), "",
                 'failed to schedule other pod from a pod group: running "FakePlacementPlugin" '
                 "filter plugin: error for test",
                 id="when a placement evaluation errors, returns error"),
]


@pytest.mark.parametrize(("fake", "want_node", "want_error"), CASES)
def test_pod_group_scheduling_placement_algorithm(
    fake: _Fake, want_node: str, want_error: str | None
) -> None:
    sched, best, failed = _place(fake)
    if want_node:
        assert best is not None and failed is None
        assert [node for _, _, node in best.placed] == [want_node]
        assert sched.cache.is_assumed("default/foo")  # the winner stays assumed
        return
    assert best is None and failed is not None
    assert not sched.cache.is_assumed("default/foo")  # every try was rolled back
    if want_error is None:
        assert failed.error is None  # Unschedulable: the gang's usual failure path
        if fake.feasible:  # the rows whose expected status upstream spells out
            assert (failed.status.code, failed.status.message()) == (
                Code.UNSCHEDULABLE, ZERO_OF_TWO)
            # podResults: the first placement's, "foo" on node1 (or its FitError there).
            first_fit = fake.filter_status.get("node1", OK).is_success()
            assert [n for _, _, n in failed.placed] == (["node1"] if first_fit else [])
            assert [st.code for _, st in failed.failed] == ([] if first_fit else [Code.UNSCHEDULABLE])
    else:
        assert failed.error is not None and failed.error.code is Code.ERROR
        assert failed.error.message() == want_error


def test_no_placements_generated_status() -> None:
    """The generator runner's status for that row: Unschedulable from the ordered plugin."""
    sched = _Sched(_Fake())
    pg = {"metadata": {"name": "pg", "namespace": "default"}, "spec": {}}
    _, status = GroupPlacer(sched).candidates(pg, [])  # type: ignore[arg-type]
    assert (status.code, status.message(), status.plugin) == (
        Code.UNSCHEDULABLE, "no feasible placements found", FAKE + "_Ordered")


@pytest.mark.parametrize(
    ("plugins", "want_node"),
    [
        pytest.param([({"placement1": 50, "placement2": 75}, 1),
                      ({"placement1": 25, "placement2": 10}, 2)], "node1",
                     id="respects higher score of placement1"),
        pytest.param([({"placement1": 75, "placement2": 50}, 1),
                      ({"placement1": 10, "placement2": 25}, 2)], "node2",
                     id="respects higher score of placement2"),
    ],
)
def test_pod_group_scheduling_placement_algorithm_scoring(
    plugins: list[tuple[dict[str, int], int]], want_node: str
) -> None:
    """Weighted sums over several PlacementScore plugins pick the placement."""
    scorers = [(_Scorer(i, scores), weight) for i, (scores, weight) in enumerate(plugins)]
    _, best, _ = _place(_Fake(TWO), scorers)
    assert best is not None
    assert [node for _, _, node in best.placed] == [want_node]
