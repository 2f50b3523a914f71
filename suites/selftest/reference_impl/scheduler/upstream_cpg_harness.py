"""Shared scaffolding of the CompositePodGroup placement tests
(``test_upstream_podgroup_cpg_placement.py``, ``test_composite_cycle_results.py``), after
upstream's schedule_one_podgroup_test.go setup: a reference Cluster with the gates and
API versions CompositePodGroup needs, nodes node1..node4, fake placement plugins put in
place of the framework's, and the tree applied while the scheduler is held, so it
arrives whole (as upstream pops it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from reference_impl.api import condition, make_node, make_pod_group
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.interface import OK, Status
from reference_impl.scheduler.framework.placement import PodGroupAssignments, PodGroupInfo

Obj = dict[str, Any]
RUNTIME = {"scheduling.k8s.io/v1beta1": "true", "scheduling.k8s.io/v1alpha3": "true"}
GATES = {
    "GenericWorkload": True,
    "TopologyAwareWorkloadScheduling": True,
    "CompositePodGroup": True,
}
NS = "default"
FAKE = "FakePlacementPlugin"
# Upstream's tree: CompositePodGroup "cpg" over PodGroups pg1 (pod p1) and pg2 (pod p2).
GROUPS = (("pg1", "p1"), ("pg2", "p2"))


def group_name(group: PodGroupInfo) -> str:
    return str(group.pod_group["metadata"]["name"])


def cluster(node: Callable[[int], Obj] | None = None) -> Cluster:
    """A settled Cluster with nodes node1..node4 (``node(i)``: node i's object)."""
    c = Cluster(GATES, config=ClusterConfig(nodes=0, runtime_config=RUNTIME))
    for i in range(1, 5):
        c.apply(node(i) if node is not None else make_node(f"node{i}").build())
    c.settle()
    return c


def use_placement_plugins(
    c: Cluster, generate: list[Any], score: list[Any], weights: dict[str, int]
) -> None:
    """Replace the framework's PlacementGenerate and PlacementScore plugins."""
    fw = c.scheduler.framework
    fw.placement_generate = generate
    fw.placement_score = score
    fw.weights = {**fw.weights, **weights}


@contextmanager
def whole_tree(c: Cluster) -> Iterator[None]:
    """Hold the scheduler while the body applies the tree, then schedule and settle."""
    c.scheduler._armed = True  # noqa: SLF001 - the tree arrives whole, as upstream pops it
    yield
    c.scheduler._armed = False  # noqa: SLF001
    c.scheduler._kick()  # noqa: SLF001
    c.settle()


def pod_group(name: str, parent: str, min_count: int | None) -> Obj:
    """A PodGroup of workload wl's template t, child of the CompositePodGroup ``parent``."""
    obj = make_pod_group(name, NS, min_count=min_count)
    obj["spec"]["parentCompositePodGroupName"] = parent
    obj["spec"]["workloadRef"] = {"workloadName": "wl", "templateName": "t"}
    return obj


def outcome(c: Cluster) -> dict[str, str | tuple[str, str]]:
    """Each of p1, p2: its node, or its PodScheduled=False (reason, message)."""
    out: dict[str, str | tuple[str, str]] = {}
    for _, name in GROUPS:
        pod = c.api.get("v1", "Pod", name, NS)
        cond = condition(pod, "PodScheduled") or {}
        out[name] = pod["spec"].get("nodeName") or (cond.get("reason", ""), cond.get("message", ""))
    return out


def table_score(
    scores: dict[str, dict[str, int]], group: PodGroupInfo, a: PodGroupAssignments
) -> tuple[int, Status]:
    """fakePlacementPlugin's ScorePlacement: the score listed for (group, placement), else 0."""
    return scores.get(group_name(group), {}).get(a.placement.name, 0), OK


class NoNormalize:
    """Upstream's fakes' PlacementScoreExtensions: nil, so scores are taken as they are."""

    def normalize_placement_scores(self, group: PodGroupInfo, scores: list[int]) -> Status | None:
        return None
