"""The composite pod-group cycle's handling of skipped pods and placement results.

Follows upstream's ``scheduleOnePodGroup`` (schedule_one_podgroup.go: ``skipPodGroupPodSchedule``
for every entity), ``findBestCompositePodGroupPlacement`` / ``findBestPodGroupPlacement``
(a PlacementScore failure is the algorithm's result) and
``compositePodGroupSchedulingDefaultAlgorithm`` (only a child's Error fails the tree; an
Unschedulable child just does not count). The tree: CompositePodGroup "cpg" over PodGroups
pg1 (pod p1) and pg2 (pod p2), nodes node1..node4; cpg is tried on node pairs, a PodGroup
on single nodes.
"""

from __future__ import annotations

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
    use_placement_plugins,
    whole_tree,
)

from reference_impl.api import condition, make_composite_pod_group, make_pod
from reference_impl.cluster import Cluster
from reference_impl.scheduler.framework.interface import OK, Code, Status
from reference_impl.scheduler.framework.placement import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
)
from reference_impl.scheduler.framework.types import PodInfo
from reference_impl.scheduler.group_placement import GroupPlacer
from reference_impl.scheduler.scheduler import Scheduler

SCORE_ERR = 'running PlacementScore plugins: plugin "FakePlacementPlugin" failed with: boom'
CHILD_ERR = "composite pod group evaluation failed due to child error: "


@dataclass
class _Fake(NoNormalize):
    """Generates node pairs for cpg and one placement per node for a PodGroup; scoring
    fails with ``code`` for the groups in ``fail`` on a placement holding node2."""

    fail: set[str] = field(default_factory=set)
    code: Code = Code.ERROR

    def name(self) -> str:
        return FAKE

    def generate_placements(
        self, group: PodGroupInfo, parent: Placement
    ) -> tuple[list[Placement], Status]:
        nodes = sorted(parent.nodes, key=lambda ni: ni.name)
        size = 2 if group_name(group) == "cpg" else 1  # cpg: node pairs; a PodGroup: one node
        chunks = [nodes[i:i + size] for i in range(0, len(nodes), size)]
        return [Placement("-".join(ni.name for ni in ch), ch) for ch in chunks], OK

    def score_placement(self, group: PodGroupInfo, a: PodGroupAssignments) -> tuple[int, Status]:
        if group_name(group) in self.fail and "node2" in a.placement.name:
            return 0, Status(self.code, ("boom",))
        return 1, OK


def _run(fake: _Fake, *, basic: bool = False, assumed: str = "") -> Cluster:
    """``basic``: basic groups under a basic composite; else gangs of one under a gang
    composite of one child (of both with ``assumed``). ``assumed``: a pod already assumed
    on node3 while still queued (an update requeued it during the cycle that assumed it)."""
    c = cluster()
    use_placement_plugins(c, [fake], [fake], {FAKE: 1})
    groups = None if basic else 2 if assumed else 1
    with whole_tree(c):
        c.apply(make_composite_pod_group("cpg", NS, min_group_count=groups))
        for pg, pod in GROUPS:
            c.apply(pod_group(pg, "cpg", None if basic else 1))
            c.apply(make_pod(pod, NS).pod_group(pg).build())
            if pod == assumed:
                info = PodInfo(c.api.get("v1", "Pod", pod, NS))
                assert c.scheduler.cache.assume_pod(info, "node3") == ""
    return c


@pytest.mark.parametrize("assumed", ["p1", "p2"])
def test_assumed_member_is_skipped(assumed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """skipPodGroupPodSchedule: a member already assumed leaves the attempt (it is not
    placed again); its sibling still schedules and binds."""
    tried: list[str] = []
    real = Scheduler._permit_and_bind  # noqa: SLF001

    def permit_and_bind(self: Scheduler, state: Any, pinfo: Any, node: str) -> None:
        tried.append(pinfo.key)
        real(self, state, pinfo, node)

    monkeypatch.setattr(Scheduler, "_permit_and_bind", permit_and_bind)
    c = _run(_Fake(), assumed=assumed)
    other = "p2" if assumed == "p1" else "p1"
    assert tried == [f"{NS}/{other}"]
    assert c.scheduler.cache.assumed_node(f"{NS}/{assumed}") == "node3"
    # Nor is it reported or requeued as a failure of this attempt.
    assert condition(c.api.get("v1", "Pod", assumed, NS), "PodScheduled") is None
    assert isinstance(outcome(c)[other], str)


def test_score_failure_at_composite_is_the_result() -> None:
    """findBestCompositePodGroupPlacement: cpg's PlacementScore Error fails the attempt with
    that status (not the first candidate)."""
    out = outcome(_run(_Fake({"cpg"})))
    assert out == {p: ("SchedulerError", SCORE_ERR) for p in ("p1", "p2")}


@pytest.mark.parametrize("basic", [False, True], ids=["gang", "basic"])
def test_score_failure_at_child_fails_tree(basic: bool) -> None:
    """findBestPodGroupPlacement inside the composite: a child's Error is a child error."""
    out = outcome(_run(_Fake({"pg2"}), basic=basic))
    assert out == {p: ("SchedulerError", CHILD_ERR + SCORE_ERR) for p in ("p1", "p2")}


def test_unschedulable_basic_child_does_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """An Unschedulable result of a basic child's findBestPodGroupPlacement is passed
    through, not turned into an error: the child does not count, its sibling binds."""
    real = GroupPlacer.best

    def best(
        self: GroupPlacer, group: Obj, *args: Any, **kw: Any
    ) -> tuple[int, Status]:
        if group["metadata"]["name"] == "pg2":
            return 0, Status(Code.UNSCHEDULABLE, ("no placement",), FAKE)
        return real(self, group, *args, **kw)

    monkeypatch.setattr(GroupPlacer, "best", best)
    out = outcome(_run(_Fake(), basic=True))
    assert isinstance(out["p1"], str)
    assert isinstance(out["p2"], tuple) and out["p2"][0] == "Unschedulable"
