"""Upstream's CompositePodGroup placement algorithm table, row by row.

Ported (schedule_one_podgroup_test.go): ``TestCPGSchedulingPlacementAlgorithm``,
``TestCPGSchedulingPlacementAlgorithm_Scoring`` and ``TestScorePlacementPodGroupAssignments``
(below); ``TestPlacementCycleStateLifecycle`` and its ``_MultiLevel`` are skipped (the
reference has no PlacementCycleState). Upstream's fakePlacementFeasiblePlugin is
``_FirstCompositePlacementInfeasible``. The tree is upstream's: CompositePodGroup
"cpg" over PodGroups pg1 (pod p1) and pg2 (pod p2), nodes node1..node4. Upstream's
fakePlacementPlugin (PlacementGenerate, ordered by name, and PlacementScore, keyed by the
group) replaces the reference framework's placement plugins on a reference Cluster; its
Filter rejecting every node is a nodeSelector no node matches. Upstream's groups are basic;
most rows here make cpg a gang of one child group and pg1, pg2 gangs of one pod, which
leaves each row's outcome unchanged, while "respects pods already scheduled in sibling pod
groups" needs the basic tree (``_run(basic=True)``). Checked: the node each
pod is bound to, or the failure (reason and message) every pod reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from upstream_cpg_harness import (
    FAKE,
    GROUPS,
    NS,
    NoNormalize,
    Obj,
    cluster,
    group_name,
    outcome,
    pod_group,
    table_score,
    use_placement_plugins,
    whole_tree,
)

from reference_impl.api import make_composite_pod_group, make_node, make_pod
from reference_impl.cluster import Cluster
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
)

ERR = Status(Code.ERROR, ("injected error",))

DEFAULT_PLACEMENTS = {
    "cpg": {"placement1": ["node1", "node2"], "placement2": ["node3", "node4"]},
    "pg1": {f"placement{i}": [f"node{i}"] for i in range(1, 5)},
    "pg2": {f"placement{i}": [f"node{i}"] for i in range(1, 5)},
}


@dataclass
class _Fake(NoNormalize):
    """fakePlacementPlugin's generate and score halves, keyed by the group's name."""

    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    generate_status: dict[str, Status] = field(default_factory=dict)
    placements: dict[str, dict[str, list[str]]] = field(default_factory=lambda: DEFAULT_PLACEMENTS)
    # A group without placements of its own is tried on its whole parent placement.
    passthrough: bool = False

    def name(self) -> str:
        return FAKE

    def score_placement(self, group: PodGroupInfo, a: PodGroupAssignments) -> tuple[int, Status]:
        return table_score(self.scores, group, a)


@dataclass
class _Ordered:
    """orderedPlacementPlugin: the fake's placements inside the parent, sorted by name."""

    fake: _Fake

    def name(self) -> str:
        return FAKE + "_Ordered"

    def generate_placements(
        self, group: PodGroupInfo, parent: Placement
    ) -> tuple[list[Placement], Status]:
        if self.fake.passthrough and group_name(group) not in self.fake.placements:
            return [Placement("all", parent.nodes)], OK
        by_name = {ni.name: ni for ni in parent.nodes}
        out = []
        for pname, nodes in sorted(self.fake.placements.get(group_name(group), {}).items()):
            picked = [by_name[n] for n in nodes if n in by_name]
            if picked:
                out.append(Placement(pname, picked))
        return out, self.fake.generate_status.get(group_name(group), OK)


@dataclass
class _Scorer(NoNormalize):
    """One of the scoring tests' fakePlacementPlugins, "FakeScorePlugin[i]"."""

    index: int
    scores: dict[str, dict[str, int]]

    def name(self) -> str:
        return f"FakeScorePlugin[{self.index}]"

    def score_placement(self, group: PodGroupInfo, a: PodGroupAssignments) -> tuple[int, Status]:
        return table_score(self.scores, group, a)


def _run(fake: _Fake, scorers: list[tuple[_Scorer, int]] | None = None,
         reject_all: bool = False, basic: bool = False, feasible: list[Any] | None = None,
         ) -> Cluster:
    """``basic``: upstream's tree as it is (basic groups, a framework without
    PlacementFeasible plugins unless ``feasible`` names some) and its podPerNode Filter
    (one pod fits a node)."""
    c = cluster(lambda i: (make_node(f"node{i}").capacity(pods="1") if basic
                           else make_node(f"node{i}")).build())  # fmt: skip
    if scorers is None:
        use_placement_plugins(c, [_Ordered(fake)], [fake], {FAKE: 1})
    else:
        use_placement_plugins(c, [_Ordered(fake)], [s for s, _ in scorers],
                              {s.name(): w for s, w in scorers})  # fmt: skip
    if basic:
        c.scheduler.framework.placement_feasible = feasible or []
    with whole_tree(c):
        c.apply(make_composite_pod_group("cpg", NS, min_group_count=None if basic else 1))
        for pg, pod in GROUPS:
            c.apply(pod_group(pg, "cpg", None if basic else 1))
            builder = make_pod(pod, NS).pod_group(pg)
            if reject_all:
                builder = builder.node_selector(rejected="true")  # the fake Filter, every node
            c.apply(builder.build())
    return c


CASES = [
    pytest.param(
        _Fake({"cpg": {"placement1": 1, "placement2": 2},
               "pg1": {"placement1": 5, "placement2": 5, "placement3": 1, "placement4": 2},
               "pg2": {"placement1": 5, "placement2": 5, "placement3": 2, "placement4": 1}}),
        False, {"p1": "node4", "p2": "node3"},
        id="respects higher score of parent placement"),
    pytest.param(
        _Fake(generate_status={"cpg": ERR}), False,
        {p: ("SchedulerError", "injected error") for p in ("p1", "p2")},
        id="when generate plugin fails at CPG, returns error"),
    pytest.param(
        _Fake(generate_status={"pg2": ERR}), False,
        {p: ("SchedulerError", "composite pod group evaluation failed due to child error: "
             "injected error") for p in ("p1", "p2")},
        id="when generate plugin fails at PG, returns error"),
]


@pytest.mark.parametrize(("fake", "reject_all", "want"), CASES)
def test_cpg_scheduling_placement_algorithm(
    fake: _Fake, reject_all: bool, want: dict[str, str | tuple[str, str]]
) -> None:
    assert outcome(_run(fake, reject_all=reject_all)) == want


def test_cpg_returns_unschedulable_if_no_pods_got_scheduled() -> None:
    """"returns unschedulable if no pods got scheduled": every node rejects both pods, so
    nothing is bound and both report Unschedulable."""
    c = _run(_Fake(), reject_all=True)
    out = outcome(c)
    assert [v[0] if isinstance(v, tuple) else v for v in out.values()] == [
        "Unschedulable", "Unschedulable"]


def test_cpg_respects_pods_already_scheduled_in_sibling_pod_groups() -> None:
    """"respects pods already scheduled in sibling pod groups": upstream's basic tree is
    placed as one. pg1 takes node1 (its best placement); pg2's best placement is node1 too,
    where p2 no longer fits, and a basic child with no pod placed still counts as feasible,
    so that placement is kept and p2 reports its own Filter failure."""
    fake = _Fake({"cpg": {"placement1": 1},
                  "pg1": {"placement1": 2, "placement2": 1},
                  "pg2": {"placement1": 2, "placement2": 1}})
    out = outcome(_run(fake, basic=True))
    assert out["p1"] == "node1"
    reason, message = out["p2"]
    assert reason == "Unschedulable"
    assert message.startswith("0/1 nodes are available: 1 ")


@dataclass
class _FirstCompositePlacementInfeasible:
    """upstream's fakePlacementFeasiblePlugin with ``{{Unschedulable, ...}}``: the first
    placement evaluated (cpg's placement1) is Unschedulable from its first call; every
    later evaluation succeeds. A placement's evaluation starts at its first call."""

    children: int
    evaluations: int = 0

    def name(self) -> str:
        return "GangScheduling"

    def placement_feasible(
        self, group: Obj, remaining: int, scheduled: int, *, composite: bool = False
    ) -> Status:
        if composite and remaining == self.children and scheduled == 0:
            self.evaluations += 1
        if composite and self.evaluations == 1:
            return Status(Code.UNSCHEDULABLE, ("injected placementFeasible status",))
        return OK


def test_cpg_discards_infeasible_placements() -> None:
    """"discards infeasible placements": cpg's placement1 (node1, node2), though scored
    higher, is infeasible; inside placement2 pg1 takes node4 and pg2 node3 by their
    scores."""
    fake = _Fake({"cpg": {"placement1": 2, "placement2": 1},
                  "pg1": {"placement1": 5, "placement2": 5, "placement3": 1, "placement4": 2},
                  "pg2": {"placement1": 5, "placement2": 5, "placement3": 2, "placement4": 1}})
    feasible = _FirstCompositePlacementInfeasible(children=2)
    out = outcome(_run(fake, basic=True, feasible=[feasible]))
    assert out == {"p1": "node4", "p2": "node3"}
    assert feasible.evaluations >= 2  # placement2 was evaluated after placement1 failed


# -- TestCPGSchedulingPlacementAlgorithm_Scoring ----------------------------------------

# Two weighted plugins score both levels; upstream's child scores are the same in both rows.
_CHILD = {"pg1": {"placement1": 10, "placement2": 5, "placement3": 10, "placement4": 5},
          "pg2": {"placement1": 5, "placement2": 10, "placement3": 5, "placement4": 10}}
SCORING = [
    pytest.param(
        [({"cpg": {"placement1": 50, "placement2": 75}, **_CHILD}, 1),
         ({"cpg": {"placement1": 25, "placement2": 10}, **_CHILD}, 2)],
        {"p1": "node1", "p2": "node2"}, id="respects higher score of root placement1"),
    pytest.param(
        [({"cpg": {"placement1": 75, "placement2": 50}, **_CHILD}, 1),
         ({"cpg": {"placement1": 10, "placement2": 25}, **_CHILD}, 2)],
        {"p1": "node3", "p2": "node4"}, id="respects higher score of root placement2"),
]


@pytest.mark.parametrize(("plugins", "want"), SCORING)
def test_cpg_scheduling_placement_algorithm_scoring(
    plugins: list[tuple[dict[str, dict[str, int]], int]], want: dict[str, str]
) -> None:
    scorers = [(_Scorer(i, scores), weight) for i, (scores, weight) in enumerate(plugins)]
    assert outcome(_run(_Fake(), scorers)) == want


# -- TestScorePlacementPodGroupAssignments ----------------------------------------------
# Upstream injects each placement's per-group results into findBestCompositePodGroupPlacement
# and records what a PlacementScore plugin is handed for the root. Here the same results
# come from real attempts: the root's placements and node labels make exactly the injected
# pods fit (a pod pinned by nodeSelector), and the recorder keeps the root's assignments.


@dataclass
class _Recorder(NoNormalize):
    """fakeAssignmentRecordingPlugin: the root's proposed pod -> node, per placement."""

    root: str
    seen: dict[str, dict[str, str]] = field(default_factory=dict)

    def name(self) -> str:
        return "fake-assignment-recorder"

    def score_placement(self, group: PodGroupInfo, a: PodGroupAssignments) -> tuple[int, Status]:
        if group_name(group) == self.root:
            self.seen[a.placement.name] = {
                p.pod["metadata"]["name"]: node for p, node in a.proposed}
        return 0, OK


@dataclass
class _Tree:
    cpgs: list[tuple[str, int, str]]  # name, minGroupCount, parent
    pgs: list[tuple[str, str]]  # name, parent
    pods: list[tuple[str, str, str]]  # name, group, the node label value it needs ("" any)
    root_placements: dict[str, list[str]]


def _record(
    tree: _Tree, wrap: Callable[[list[Any]], list[Any]] | None = None
) -> dict[str, dict[str, str]]:
    """``wrap``: replaces the profile's PlacementFeasible plugins (given them)."""
    c = cluster(lambda i: make_node(f"node{i}").label("slot", f"n{i}").label(
        "half", "a" if i <= 2 else "b").build())
    root = tree.cpgs[0][0]
    rec = _Recorder(root)
    fake = _Fake(placements={root: tree.root_placements}, passthrough=True)
    use_placement_plugins(c, [_Ordered(fake)], [rec], {rec.name(): 1})
    fw = c.scheduler.framework
    if wrap is not None:
        fw.placement_feasible = wrap(list(fw.placement_feasible))
    with whole_tree(c):
        for name, min_groups, parent in tree.cpgs:
            c.apply(make_composite_pod_group(name, NS, min_group_count=min_groups, parent=parent))
        for name, parent in tree.pgs:
            c.apply(pod_group(name, parent, 1))
        for name, group, where in tree.pods:
            builder = make_pod(name, NS).pod_group(group)
            if where:
                key = "half" if where in ("a", "b") else "slot"
                builder = builder.node_selector(**{key: where})
            c.apply(builder.build())
    return rec.seen


SCORE_ROWS = [
    pytest.param(
        _Tree([("rootcpg", 1, "")], [("pg1", "rootcpg"), ("pg2", "rootcpg")],
              [("p1", "pg1", ""), ("p2", "pg2", "")],
              {"placement1": ["node1"], "placement2": ["node3"]}),
        {"placement1": {"p1": "node1", "p2": "node1"},
         "placement2": {"p1": "node3", "p2": "node3"}},
        id="flat composite pod group with all successful leaves"),
    pytest.param(
        # midcpg2 needs pg2 and pg2b; pg2b fits only in placement2, so in placement1
        # midcpg2 fails although its pg2 was placed: p2 is not scored there.
        _Tree([("rootcpg", 1, ""), ("midcpg1", 1, "rootcpg"), ("midcpg2", 2, "rootcpg")],
              [("pg1", "midcpg1"), ("pg2", "midcpg2"), ("pg2b", "midcpg2")],
              [("p1", "pg1", ""), ("p2", "pg2", ""), ("p2b", "pg2b", "b")],
              {"placement1": ["node1"], "placement2": ["node3"]}),
        {"placement1": {"p1": "node1"},
         "placement2": {"p1": "node3", "p2": "node3", "p2b": "node3"}},
        id="multi-level tree where an intermediate subtree fails"),
    pytest.param(
        _Tree([("rootcpg", 1, "")], [("pg1", "rootcpg"), ("pg3", "rootcpg")],
              [("p1", "pg1", "a"), ("p3", "pg3", "n3"), ("p4", "pg3", "n4")],
              {"placement1": ["node1", "node3"], "placement2": ["node2", "node4"]}),
        {"placement1": {"p1": "node1", "p3": "node3"},
         "placement2": {"p1": "node2", "p4": "node4"}},
        id="leaf pod group with some failed or unassigned pods"),
]


@pytest.mark.parametrize(("tree", "want"), SCORE_ROWS)
def test_score_placement_pod_group_assignments(
    tree: _Tree, want: dict[str, dict[str, str]]
) -> None:
    assert _record(tree) == want


@dataclass
class _ShortCircuit:
    """A PlacementFeasible plugin that, per root placement (counted by the root's first
    call), stops one composite child before any of its children is evaluated."""

    root: str
    stop: dict[int, str]  # root placement (1-based) -> the composite child stopped there
    inner: Any
    evaluations: int = 0

    def name(self) -> str:
        return "GangScheduling"

    def placement_feasible(
        self, group: Obj, remaining: int, scheduled: int, *, composite: bool = False
    ) -> Status:
        name = group["metadata"]["name"]
        if composite and name == self.root and scheduled == 0 and remaining == 2:
            self.evaluations += 1
        if composite and self.stop.get(self.evaluations) == name:
            return Status(Code.UNSCHEDULABLE, ("injected placementFeasible status",))
        st: Status = self.inner.placement_feasible(group, remaining, scheduled, composite=composite)
        return st


def test_score_placement_missing_subtree_result_due_to_short_circuiting() -> None:
    """"missing subtree result due to short-circuiting in PlacementFeasible": rootcpg over
    midcpg1 (pg1: p1) and midcpg2 (pg2: p2); PlacementFeasible stops midcpg2 in placement1
    and midcpg1 in placement2, so each placement scores only the subtree evaluated."""
    tree = _Tree([("rootcpg", 1, ""), ("midcpg1", 1, "rootcpg"), ("midcpg2", 1, "rootcpg")],
                 [("pg1", "midcpg1"), ("pg2", "midcpg2")],
                 [("p1", "pg1", ""), ("p2", "pg2", "")],
                 {"placement1": ["node1"], "placement2": ["node2"]})
    stop = {1: "midcpg2", 2: "midcpg1"}
    assert _record(tree, lambda gang: [_ShortCircuit("rootcpg", stop, gang[0])]) == {"placement1": {"p1": "node1"},
                                       "placement2": {"p2": "node2"}}


# -- TestPlacementCycleStateLifecycle / _MultiLevel -------------------------------------


@pytest.mark.skip(reason="the reference has no PlacementCycleState: Filter, PlacementFeasible "
                  "and PlacementScore plugins get no per-placement state to write or read")
@pytest.mark.parametrize("cpg", [False, True], ids=["CompositePodGroup=false",
                                                     "CompositePodGroup=true"])
def test_placement_cycle_state_lifecycle(cpg: bool) -> None:
    raise AssertionError("unreachable")


@pytest.mark.skip(reason="the reference has no PlacementCycleState / PodGroupCycleState "
                  "hierarchy for plugins to walk")
def test_placement_cycle_state_lifecycle_multi_level() -> None:
    raise AssertionError("unreachable")
