"""Upstream's pod-group helper tables against the reference's counterparts.

Ported (plugins/helper/podgroup_test.go):
- ``TestMatchingSchedulingGroup``: upstream's ``MatchingSchedulingGroup`` is, in the
  reference, equality of ``gang_scheduling.group_key`` (namespace/podGroupName, None for a
  pod without a group), the key preemption and the pod-group cycle group pods by.
- ``TestGetPodGroupStates``: ``podgroup_tree.pod_group_states`` over the informers
  (``InformerHierarchy``, what the composite cycle hands TopologyPlacement and
  PodGroupPodsCount), wrapped, as upstream wraps the snapshot, in a lister failing for the
  row's faulty entity keys: the leaves found and the number of errors.
- ``TestGetPodGroupStates_EarlyBreak`` (an iterator stopping after its consumer breaks)
  has no counterpart: the reference returns a list.

Also ported here (backend/queue/workload_forest_test.go):
``TestWorkloadForest_GetLeafPodGroups``, against ``podgroup_tree.leaf_pod_groups`` (the
whole file runs against the queue's own forest, whose walk the composite cycle pops a
hierarchy's members with, in test_upstream_workload_forest.py). Backend/queue/pod_group_member_pods_test.go
and ``TestUnschedulablePodGroups_Unified`` (unschedulable_entities_test.go) have no
counterpart: the reference's queue holds pods only, and its pod-group cycle pulls a
group's members from the gang plugin's index (``WorkloadCycle._take_members``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.api.gang_builders import make_composite_pod_group
from reference_impl.api.scheduling_builders import make_pod_group
from reference_impl.scheduler.composite_cycle import CPG_VERSION, CompositeCycle
from reference_impl.scheduler.framework.workload_forest import WorkloadForest
from reference_impl.scheduler.plugins.gang_scheduling import POD_GROUP_VERSION, group_key
from reference_impl.scheduler.plugins.podgroup_tree import (
    CPG,
    PG,
    HierarchyError,
    InformerHierarchy,
    leaf_pod_groups,
    pod_group_states,
)

Obj = dict[str, Any]
NS = "test"


def _pod(name: str, ns: str, group: str | None) -> Obj:
    b = make_pod(name)
    if group is not None:
        b = b.pod_group(group)
    pod = b.build()
    pod["metadata"]["namespace"] = ns
    return pod


def _matching(p1: Obj, p2: Obj) -> bool:
    return group_key(p1) is not None and group_key(p1) == group_key(p2)


@pytest.mark.parametrize(
    ("pod1", "pod2", "want"),
    [
        pytest.param(("pod1", "test", "name"), ("pod1", "test", "name"), True,
                     id="same pod with schedulingGroup"),
        pytest.param(("pod1", "test", "name"), ("pod2", "test", "name"), True,
                     id="different pods, same schedulingGroup"),
        pytest.param(("pod1", "test", None), ("pod1", "test", None), False,
                     id="same pod but no schedulingGroup"),
        pytest.param(("pod1", "test", "name"), ("pod2", "test", None), False,
                     id="different pods, only one with schedulingGroup"),
        pytest.param(("pod1", "test1", "name"), ("pod2", "test2", "name"), False,
                     id="same schedulingGroup but different namespaces"),
        pytest.param(("pod1", "test", "name1"), ("pod2", "test", "name2"), False,
                     id="same namespace but different pod group"),
    ],
)
def test_matching_scheduling_group(
    pod1: tuple[str, str, str | None], pod2: tuple[str, str, str | None], want: bool
) -> None:
    p1, p2 = _pod(*pod1), _pod(*pod2)
    assert _matching(p1, p2) is want
    assert _matching(p2, p1) is want


# -- TestGetPodGroupStates ----------------------------------------------------------------


class _Store:
    def __init__(self, objs: list[Obj]) -> None:
        self._objs = objs

    def items(self) -> list[Obj]:
        return list(self._objs)

    def get(self, key: str) -> Obj | None:
        return next((o for o in self._objs
                     if f"{o['metadata']['namespace']}/{o['metadata']['name']}" == key), None)


def _informers(pgs: list[Obj], cpgs: list[Obj]) -> SimpleNamespace:
    stores = {(POD_GROUP_VERSION, "PodGroup"): _Store(pgs), (CPG_VERSION, "CompositePodGroup"): _Store(cpgs)}
    return SimpleNamespace(informer=lambda api, kind: stores[(api, kind)])


def _cycle(pgs: list[Obj], cpgs: list[Obj]) -> CompositeCycle:
    # The composite cycle's walks read the scheduler's informers and its queue's forest.
    forest = WorkloadForest(True)
    for obj in pgs:
        forest.add_pod_group(obj)
    for obj in cpgs:
        forest.add_composite_pod_group(obj)
    s = SimpleNamespace(ctx=SimpleNamespace(informers=_informers(pgs, cpgs)),
                        queue=SimpleNamespace(workload_forest=forest))
    return CompositeCycle(SimpleNamespace(_s=s))  # type: ignore[arg-type]


class _FaultyLister:
    """Upstream's fakeSharedLister: a ``Get`` of a faulty entity key fails."""

    def __init__(self, inner: InformerHierarchy, faulty: set[tuple[str, str]]) -> None:
        self._inner, self._faulty = inner, faulty

    def pod_group_state(self, ns: str, name: str) -> Obj:
        if (PG, name) in self._faulty:
            raise HierarchyError(f"pod group {ns}/{name} not found")
        return self._inner.pod_group_state(ns, name)

    def composite_children(self, ns: str, name: str) -> list[tuple[str, str]]:
        if (CPG, name) in self._faulty:
            raise HierarchyError(f"composite pod group {ns}/{name} not found")
        return self._inner.composite_children(ns, name)


def _pg(name: str, parent: str = "") -> Obj:
    pg = make_pod_group(name, NS)
    if parent:
        pg["spec"]["parentCompositePodGroupName"] = parent
    return pg


def _cpg(name: str, parent: str = "") -> Obj:
    return make_composite_pod_group(name, NS, parent=parent)


_DEEP_PGS = [_pg("pg-root", "cpg-root"), _pg("pg1", "cpg1"), _pg("pg2.1", "cpg2.1"),
             _pg("pg2.2", "cpg2.2")]
_DEEP_CPGS = [_cpg("cpg-root"), _cpg("cpg1", "cpg-root"), _cpg("cpg2.1", "cpg1"),
              _cpg("cpg3", "cpg2.1"), _cpg("cpg4", "cpg3"), _cpg("cpg2.2", "cpg1")]
_MIDS = [_cpg("cpg-root"), _cpg("cpg-mid1", "cpg-root"), _cpg("cpg-mid2", "cpg-root")]


@pytest.mark.parametrize(
    ("pgs", "cpgs", "root", "faulty", "want_errs"),
    [
        pytest.param([_pg("pg1")], [], (PG, "pg1"), set(), 0, id="root is PodGroup"),
        pytest.param([_pg("pg1", "cpg-root"), _pg("pg2", "cpg-root")], [_cpg("cpg-root")],
                     (CPG, "cpg-root"), set(), 0, id="root is CompositePodGroup"),
        pytest.param([], [_cpg("cpg-root")], (CPG, "cpg-root"), set(), 0,
                     id="root is CompositePodGroup and has no leaves"),
        pytest.param([_pg("pg-leaf", "cpg-mid2")], _MIDS, (CPG, "cpg-root"),
                     {(CPG, "cpg-mid1")}, 1,
                     id="root is CompositePodGroup and one entity key is missing"),
        pytest.param([], _MIDS, (CPG, "cpg-root"), {(CPG, "cpg-mid1"), (CPG, "cpg-mid2")}, 2,
                     id="root is CompositePodGroup and multiple entity keys are missing"),
        pytest.param([], [], (PG, "non-existent"), set(), 1,
                     id="there's no root matching the entity key"),
        pytest.param(_DEEP_PGS, _DEEP_CPGS, (CPG, "cpg-root"), set(), 1,
                     id="cpg tree exceeds the max depth"),
    ],
)
def test_get_pod_group_states(
    pgs: list[Obj], cpgs: list[Obj], root: tuple[str, str], faulty: set[tuple[str, str]],
    want_errs: int,
) -> None:
    lister = _FaultyLister(InformerHierarchy(_informers(pgs, cpgs)), faulty)
    got = pod_group_states(lister, root[0], NS, root[1])
    # Every row's PodGroups are leaves the walk reaches (upstream: one pod per PodGroup).
    assert {g["metadata"]["name"] for g, _ in got if g is not None} == {
        p["metadata"]["name"] for p in pgs
    }
    assert len([e for g, e in got if g is None]) == want_errs


def test_get_pod_group_states_messages() -> None:
    # The errors' text: the depth guard names the entity at depth 4, the lister its own.
    deep = pod_group_states(InformerHierarchy(_informers(_DEEP_PGS, _DEEP_CPGS)), CPG, NS, "cpg-root")
    assert [e for _, e in deep if e] == [
        "exceeded maximum hierarchy depth at compositepodgroup/test/cpg4"
    ]
    missing = pod_group_states(InformerHierarchy(_informers([], [])), PG, NS, "non-existent")
    assert missing == [(None, "pod group state not found for pod group test/non-existent")]
    # A parent named by a child but not created yet still has children (a cache placeholder).
    orphan = InformerHierarchy(_informers([_pg("pg1", "cpg-x")], []))
    assert [g["metadata"]["name"] for g, _ in pod_group_states(orphan, CPG, NS, "cpg-x") if g] == ["pg1"]


def test_subtree_stays_in_its_namespace() -> None:
    # GetPodGroupStates looks children up under the root's namespace.
    other = make_pod_group("elsewhere", "other")
    other["spec"]["parentCompositePodGroupName"] = "cpg-root"
    cycle = _cycle([_pg("pg1", "cpg-root"), other], [_cpg("cpg-root")])
    got = CompositeCycle._subtree_groups(cycle, NS, "cpg-root")  # noqa: SLF001
    assert [g["metadata"]["name"] for g in got] == ["pg1"]


def test_subtree_walk_has_no_depth_limit() -> None:
    # getLeafPodGroups (the queue pops the whole hierarchy) walks past depth 4, unlike
    # GetPodGroupStates, breadth first; a cycle ends it.
    got = CompositeCycle._subtree_groups(_cycle(_DEEP_PGS + [_pg("pg5", "cpg4")], _DEEP_CPGS), NS, "cpg-root")  # noqa: SLF001
    assert [g["metadata"]["name"] for g in got] == ["pg-root", "pg1", "pg2.1", "pg2.2", "pg5"]
    loop = _cycle([_pg("pg1", "a")], [_cpg("a", "b"), _cpg("b", "a")])
    assert [g["metadata"]["name"] for g in CompositeCycle._subtree_groups(loop, NS, "a")] == ["pg1"]  # noqa: SLF001


# -- TestWorkloadForest_GetLeafPodGroups --------------------------------------------------

_NS1 = "ns1"


def _ns1(obj: Obj) -> Obj:
    obj["metadata"]["namespace"] = _NS1
    return obj


_PG1 = _ns1(_pg("pg1"))
_PG2, _PG3 = _ns1(_pg("pg2", "cpg1")), _ns1(_pg("pg3", "cpg2"))
_CPG1, _CPG2 = _ns1(_cpg("cpg1")), _ns1(_cpg("cpg2", "cpg1"))


@pytest.mark.parametrize(
    ("pgs", "cpgs", "root", "composite", "want"),
    [
        pytest.param([_PG1], [], (PG, "pg1"), True, {"pg1"}, id="single pod group lookup"),
        pytest.param([_PG2], [_CPG1], (CPG, "cpg1"), True, {"pg2"},
                     id="cpg with direct pod group child"),
        pytest.param([_PG2, _PG3], [_CPG1, _CPG2], (CPG, "cpg1"), True, {"pg2", "pg3"},
                     id="cpg with nested pod group child"),
        pytest.param([], [], (CPG, "missing"), True, set(), id="missing root"),
        pytest.param([_PG1], [], (PG, "pg1"), False, {"pg1"},
                     id="single pod group lookup (CPG=false)"),
        pytest.param([_PG2], [_CPG1], (PG, "pg2"), False, {"pg2"},
                     id="pg with direct pod group child lookup (CPG=false)"),
        pytest.param([], [], (CPG, "missing"), False, set(), id="missing root (CPG=false)"),
    ],
)
def test_workload_forest_get_leaf_pod_groups(
    pgs: list[Obj], cpgs: list[Obj], root: tuple[str, str], composite: bool, want: set[str]
) -> None:
    lister = InformerHierarchy(_informers(pgs, cpgs))
    got = leaf_pod_groups(lister, root[0], _NS1, root[1], composite=composite)
    assert {g["metadata"]["name"] for g in got} == want
