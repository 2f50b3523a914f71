"""Upstream's workload forest tables against reference_impl/scheduler/framework/workload_forest.py.

Ported (pkg/scheduler/backend/queue/workload_forest_test.go), every row:
``TestWorkloadForest_AddPodGroup``, ``_UpdatePodGroup``, ``_DeletePodGroup``,
``_GetPodGroup``, ``_GetCompositePodGroup``, ``_AddCompositePodGroup``,
``_UpdateCompositePodGroup``, ``_DeleteCompositePodGroup``, ``_GetRootLookupInfoForPod``,
``_GetRootLookupInfoForPodGroup``, ``_GetRootLookupInfoForCPG``, ``_GetLeafPodGroups``,
``_BuildPodGroupInfoForPG`` and ``_BuildPodGroupInfoForCPG``. Objects are compared by
identity where upstream compares the stored pointers; leaves as a set, as upstream's map
by UID; the children sets as sets. Also a check that the scheduler keeps its queue's
forest in step with the (Composite)PodGroup informers and that the composite cycle pops
a hierarchy's PodGroups through it.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_child_pod_group, make_node, make_pod
from reference_impl.api.gang_builders import make_composite_pod_group
from reference_impl.api.scheduling_builders import make_pod_group
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.workload_forest import (
    COMPOSITE_POD_GROUP_KEY_TYPE as CPGT,
)
from reference_impl.scheduler.framework.workload_forest import (
    POD_GROUP_KEY_TYPE as PGT,
)
from reference_impl.scheduler.framework.workload_forest import (
    EntityKey,
    PodGroupInfo,
    QueuedPodGroupInfo,
    WorkloadForest,
    composite_pod_group_key,
    pod_group_key,
)
from reference_impl.scheduler.scheduler import Scheduler

Obj = dict[str, Any]
NS = "ns1"


def _pg(name: str, parent: str = "", min_count: int | None = None) -> Obj:
    pg = make_pod_group(name, NS, min_count=min_count)
    if parent:
        pg["spec"]["parentCompositePodGroupName"] = parent
    return pg


def _cpg(name: str, parent: str = "", min_group_count: int | None = None) -> Obj:
    return make_composite_pod_group(name, NS, parent=parent, min_group_count=min_group_count)


def _forest(pgs: list[Obj], cpgs: list[Obj], *, composite: bool = True, cpgs_first: bool = False) -> WorkloadForest:
    wf = WorkloadForest(composite)
    if cpgs_first:
        for c in cpgs:
            wf.add_composite_pod_group(c)
    for p in pgs:
        wf.add_pod_group(p)
    if not cpgs_first:
        for c in cpgs:
            wf.add_composite_pod_group(c)
    return wf


def PK(name: str) -> EntityKey:  # noqa: N802 - upstream's fwk.PodGroupKey
    return pod_group_key(NS, name)


def CK(name: str) -> EntityKey:  # noqa: N802 - upstream's fwk.CompositePodGroupKey
    return composite_pod_group_key(NS, name)


def _same(got: dict[EntityKey, Obj], want: dict[EntityKey, Obj]) -> None:
    assert got.keys() == want.keys()
    for k, v in want.items():
        assert got[k] is v, k


def _lookup(type_: str, name: str) -> QueuedPodGroupInfo:
    return QueuedPodGroupInfo(PodGroupInfo(NS, name, type_))


# -- TestWorkloadForest_AddPodGroup -------------------------------------------------------

_PG1, _PG2 = _pg("pg1"), _pg("pg2")
_PG3P, _PG4P = _pg("pg3", "cpg1"), _pg("pg4", "cpg1")
_CPG_CHILD = _cpg("cpgChild", "cpg1")


@pytest.mark.parametrize(
    ("composite", "initial_cpgs", "to_add", "want_pgs", "want_children"),
    [
        pytest.param(True, [], [_PG1], {PK("pg1"): _PG1}, {}, id="add single pod group"),
        pytest.param(True, [], [_PG1, _PG2], {PK("pg1"): _PG1, PK("pg2"): _PG2}, {},
                     id="add multiple pod groups"),
        pytest.param(True, [], [_PG3P], {PK("pg3"): _PG3P}, {CK("cpg1"): {PK("pg3")}},
                     id="add pod group with parent, parent not in children"),
        pytest.param(True, [], [_PG3P, _PG4P], {PK("pg3"): _PG3P, PK("pg4"): _PG4P},
                     {CK("cpg1"): {PK("pg3"), PK("pg4")}},
                     id="add pod group with parent, parent already in children"),
        pytest.param(True, [_CPG_CHILD], [_PG3P], {PK("pg3"): _PG3P},
                     {CK("cpg1"): {CK("cpgChild"), PK("pg3")}},
                     id="add pod group with parent, parent already has composite pod group child"),
        pytest.param(False, [], [_PG3P], {PK("pg3"): _PG3P}, {},
                     id="add pod group with parent, feature disabled"),
        pytest.param(True, [], [_PG1, _PG1], {PK("pg1"): _PG1}, {},
                     id="add same pod group again, feature enabled"),
        pytest.param(False, [], [_PG1, _PG1], {PK("pg1"): _PG1}, {},
                     id="add same pod group again, feature disabled"),
        pytest.param(True, [], [_PG3P, _PG3P], {PK("pg3"): _PG3P}, {CK("cpg1"): {PK("pg3")}},
                     id="add same pod group with parent again, feature enabled"),
        pytest.param(False, [], [_PG3P, _PG3P], {PK("pg3"): _PG3P}, {},
                     id="add same pod group with parent again, feature disabled"),
    ],
)
def test_workload_forest_add_pod_group(
    composite: bool, initial_cpgs: list[Obj], to_add: list[Obj],
    want_pgs: dict[EntityKey, Obj], want_children: dict[EntityKey, set[EntityKey]],
) -> None:
    wf = _forest(to_add, initial_cpgs, composite=composite, cpgs_first=True)
    _same(wf.pod_groups, want_pgs)
    assert wf.children == want_children


# -- TestWorkloadForest_UpdatePodGroup ----------------------------------------------------

_UPG1, _UPG1_NEW, _UPG2 = _pg("pg1", min_count=1), _pg("pg1", min_count=2), _pg("pg2", min_count=1)


@pytest.mark.parametrize(
    ("initial", "update", "want"),
    [
        pytest.param([_UPG1], _UPG1_NEW, {PK("pg1"): _UPG1_NEW}, id="update existing pod group"),
        pytest.param([_UPG1], _UPG2, {PK("pg1"): _UPG1, PK("pg2"): _UPG2},
                     id="update non-existent pod group adds it"),
    ],
)
def test_workload_forest_update_pod_group(initial: list[Obj], update: Obj, want: dict[EntityKey, Obj]) -> None:
    wf = _forest(initial, [])
    wf.update_pod_group(update)
    _same(wf.pod_groups, want)


# -- TestWorkloadForest_DeletePodGroup ----------------------------------------------------

_ROOT_CPG1 = _cpg("cpg1")


@pytest.mark.parametrize(
    ("composite", "initial_pgs", "initial_cpgs", "delete", "want_pgs", "want_children"),
    [
        pytest.param(True, [_PG1, _PG2], [], _PG1, {PK("pg2"): _PG2}, {}, id="delete existing pod group"),
        pytest.param(True, [_PG1], [], _PG2, {PK("pg1"): _PG1}, {}, id="delete non-existent pod group is no-op"),
        pytest.param(True, [_PG3P], [], _PG3P, {}, {},
                     id="delete pod group with parent, where parent CPG does not exist in "
                        "compositePodGroups (e.g. was just deleted)"),
        pytest.param(True, [_PG3P], [_ROOT_CPG1], _PG3P, {}, {},
                     id="delete pod group with parent, where parent CPG exists in compositePodGroups"),
        pytest.param(True, [_PG3P, _PG4P], [], _PG3P, {PK("pg4"): _PG4P}, {CK("cpg1"): {PK("pg4")}},
                     id="delete pod group with parent, parent has other pod group children"),
        pytest.param(True, [_PG3P], [_CPG_CHILD], _PG3P, {}, {CK("cpg1"): {CK("cpgChild")}},
                     id="delete pod group with parent, parent has other composite pod group children"),
        pytest.param(False, [_PG3P], [], _PG3P, {}, {}, id="delete pod group with parent, feature disabled"),
    ],
)
def test_workload_forest_delete_pod_group(
    composite: bool, initial_pgs: list[Obj], initial_cpgs: list[Obj], delete: Obj,
    want_pgs: dict[EntityKey, Obj], want_children: dict[EntityKey, set[EntityKey]],
) -> None:
    wf = _forest(initial_pgs, initial_cpgs, composite=composite)
    wf.delete_pod_group(delete)
    _same(wf.pod_groups, want_pgs)
    assert wf.children == want_children


# -- TestWorkloadForest_GetPodGroup / _GetCompositePodGroup ---------------------------------


@pytest.mark.parametrize(
    ("initial", "composite", "want"),
    [
        pytest.param([_PG1], True, _PG1, id="get existing pod group"),
        pytest.param([], True, None, id="get non-existent pod group"),
        pytest.param([_PG1], False, _PG1, id="get existing pod group (CPG=false)"),
        pytest.param([], False, None, id="get non-existent pod group (CPG=false)"),
    ],
)
def test_workload_forest_get_pod_group(initial: list[Obj], composite: bool, want: Obj | None) -> None:
    wf = _forest(initial, [], composite=composite)
    # The lookup is by namespace and name: a copy finds the stored object.
    assert wf.get_pod_group({"metadata": dict(_PG1["metadata"])}) is want


@pytest.mark.parametrize(
    ("initial", "want"),
    [
        pytest.param([_ROOT_CPG1], _ROOT_CPG1, id="get existing composite pod group"),
        pytest.param([], None, id="get non-existent composite pod group"),
    ],
)
def test_workload_forest_get_composite_pod_group(initial: list[Obj], want: Obj | None) -> None:
    wf = _forest([], initial)
    assert wf.get_composite_pod_group({"metadata": dict(_ROOT_CPG1["metadata"])}) is want


# -- TestWorkloadForest_AddCompositePodGroup ----------------------------------------------

_CPG2 = _cpg("cpg2")
_CPG3P, _CPG4P = _cpg("cpg3", "cpg1"), _cpg("cpg4", "cpg1")
_PG_CHILD = _pg("pgChild", "cpg1")


@pytest.mark.parametrize(
    ("initial_pgs", "to_add", "want_cpgs", "want_children"),
    [
        pytest.param([], [_ROOT_CPG1], {CK("cpg1"): _ROOT_CPG1}, {}, id="add single composite pod group"),
        pytest.param([], [_ROOT_CPG1, _CPG2], {CK("cpg1"): _ROOT_CPG1, CK("cpg2"): _CPG2}, {},
                     id="add multiple composite pod groups"),
        pytest.param([], [_CPG3P], {CK("cpg3"): _CPG3P}, {CK("cpg1"): {CK("cpg3")}},
                     id="add composite pod group with parent, parent not in children"),
        pytest.param([], [_CPG3P, _CPG4P], {CK("cpg3"): _CPG3P, CK("cpg4"): _CPG4P},
                     {CK("cpg1"): {CK("cpg3"), CK("cpg4")}},
                     id="add composite pod group with parent, parent already has other composite pod group child"),
        pytest.param([_PG_CHILD], [_CPG3P], {CK("cpg3"): _CPG3P}, {CK("cpg1"): {PK("pgChild"), CK("cpg3")}},
                     id="add composite pod group with parent, parent already has pod group child"),
        pytest.param([], [_ROOT_CPG1, _ROOT_CPG1], {CK("cpg1"): _ROOT_CPG1}, {},
                     id="add same composite pod group again"),
        pytest.param([], [_CPG3P, _CPG3P], {CK("cpg3"): _CPG3P}, {CK("cpg1"): {CK("cpg3")}},
                     id="add same composite pod group with parent again"),
    ],
)
def test_workload_forest_add_composite_pod_group(
    initial_pgs: list[Obj], to_add: list[Obj],
    want_cpgs: dict[EntityKey, Obj], want_children: dict[EntityKey, set[EntityKey]],
) -> None:
    wf = _forest(initial_pgs, to_add)
    _same(wf.composite_pod_groups, want_cpgs)
    assert wf.children == want_children


# -- TestWorkloadForest_UpdateCompositePodGroup -------------------------------------------

_UCPG1, _UCPG1_NEW, _UCPG2 = _cpg("cpg1", min_group_count=1), _cpg("cpg1", min_group_count=2), _cpg("cpg2", min_group_count=1)


@pytest.mark.parametrize(
    ("initial", "update", "want"),
    [
        pytest.param([_UCPG1], _UCPG1_NEW, {CK("cpg1"): _UCPG1_NEW}, id="update existing composite pod group"),
        pytest.param([_UCPG1], _UCPG2, {CK("cpg1"): _UCPG1, CK("cpg2"): _UCPG2},
                     id="update non-existent composite pod group adds it"),
    ],
)
def test_workload_forest_update_composite_pod_group(
    initial: list[Obj], update: Obj, want: dict[EntityKey, Obj]
) -> None:
    wf = _forest([], initial)
    wf.update_composite_pod_group(update)
    _same(wf.composite_pod_groups, want)


# -- TestWorkloadForest_DeleteCompositePodGroup -------------------------------------------

_CPG_MID = _cpg("cpgMid", "cpg1")
_PG_LEAF = _pg("pgLeaf", "cpgMid")


@pytest.mark.parametrize(
    ("initial_pgs", "initial_cpgs", "delete", "want_cpgs", "want_children"),
    [
        pytest.param([], [_ROOT_CPG1], _ROOT_CPG1, {}, {}, id="delete existing composite pod group without parent"),
        pytest.param([], [_CPG3P], _CPG3P, {}, {}, id="delete composite pod group with parent, cleans up children map"),
        pytest.param([_PG_CHILD], [_CPG3P], _CPG3P, {}, {CK("cpg1"): {PK("pgChild")}},
                     id="delete composite pod group with parent, parent has other pod group child"),
        pytest.param([], [_CPG3P, _CPG4P], _CPG3P, {CK("cpg4"): _CPG4P}, {CK("cpg1"): {CK("cpg4")}},
                     id="delete composite pod group with parent, parent has other composite pod group child"),
        pytest.param([_PG_CHILD], [_CPG3P, _CPG4P], _CPG3P, {CK("cpg4"): _CPG4P},
                     {CK("cpg1"): {PK("pgChild"), CK("cpg4")}},
                     id="delete composite pod group with parent, parent has both other pg and cpg children"),
        pytest.param([_PG_LEAF], [_ROOT_CPG1, _CPG_MID], _CPG_MID, {CK("cpg1"): _ROOT_CPG1},
                     {CK("cpgMid"): {PK("pgLeaf")}}, id="delete mid cpg from root-mid-leaf hierarchy"),
        pytest.param([], [_CPG3P], _ROOT_CPG1, {CK("cpg3"): _CPG3P}, {CK("cpg1"): {CK("cpg3")}},
                     id="delete non-existent composite pod group"),
    ],
)
def test_workload_forest_delete_composite_pod_group(
    initial_pgs: list[Obj], initial_cpgs: list[Obj], delete: Obj,
    want_cpgs: dict[EntityKey, Obj], want_children: dict[EntityKey, set[EntityKey]],
) -> None:
    wf = _forest(initial_pgs, initial_cpgs)
    wf.delete_composite_pod_group(delete)
    _same(wf.composite_pod_groups, want_cpgs)
    assert wf.children == want_children


# -- TestWorkloadForest_GetRootLookupInfoForPod -------------------------------------------

_RPG2P = _pg("pg2", "cpg1")


def _pod(name: str, group: str) -> Obj:
    return make_pod(name, NS).pod_group(group).build()


@pytest.mark.parametrize(
    ("pgs", "cpgs", "pod", "composite", "want"),
    [
        pytest.param([_PG1], [], _pod("pod1", "pg1"), True, (PGT, "pg1"),
                     id="pod belongs to existing standalone pod group"),
        pytest.param([_RPG2P], [_ROOT_CPG1], _pod("pod2", "pg2"), True, (CPGT, "cpg1"),
                     id="pod belongs to pod group with parent cpg"),
        pytest.param([_PG1], [], _pod("pod3", "pg3"), True, None, id="pod belongs to non-existent pod group"),
        pytest.param([_PG1], [], _pod("pod1", "pg1"), False, (PGT, "pg1"),
                     id="pod belongs to existing standalone pod group (CPG=false)"),
        pytest.param([_RPG2P], [_ROOT_CPG1], _pod("pod2", "pg2"), False, (PGT, "pg2"),
                     id="pod belongs to pod group with parent cpg (CPG=false)"),
        pytest.param([_PG1], [], _pod("pod3", "pg3"), False, None,
                     id="pod belongs to non-existent pod group (CPG=false)"),
    ],
)
def test_workload_forest_get_root_lookup_info_for_pod(
    pgs: list[Obj], cpgs: list[Obj], pod: Obj, composite: bool, want: tuple[str, str] | None
) -> None:
    wf = _forest(pgs, cpgs, composite=composite)
    got = wf.get_root_lookup_info_for_pod(pod)
    assert got == (_lookup(*want) if want is not None else None)


# -- TestWorkloadForest_GetRootLookupInfoForPodGroup --------------------------------------

_PG3_MISSING = _pg("pg3", "cpg-missing")


@pytest.mark.parametrize(
    ("pgs", "cpgs", "pg", "composite", "want"),
    [
        pytest.param([_PG1], [], _PG1, True, (PGT, "pg1"), id="standalone pod group"),
        pytest.param([_RPG2P], [_ROOT_CPG1], _RPG2P, True, (CPGT, "cpg1"), id="pod group with existing parent cpg"),
        pytest.param([_PG3_MISSING], [], _PG3_MISSING, True, None, id="pod group with non-existent parent cpg"),
        pytest.param([], [], _PG1, True, None, id="non-existent pod group"),
        pytest.param([_PG1], [], _PG1, False, (PGT, "pg1"), id="standalone pod group (CPG=false)"),
        pytest.param([_RPG2P], [_ROOT_CPG1], _RPG2P, False, (PGT, "pg2"),
                     id="pod group with existing parent cpg (CPG=false)"),
        pytest.param([_PG3_MISSING], [], _PG3_MISSING, False, (PGT, "pg3"),
                     id="pod group with non-existent parent cpg (CPG=false)"),
        pytest.param([], [], _PG1, False, None, id="non-existent pod group (CPG=false)"),
    ],
)
def test_workload_forest_get_root_lookup_info_for_pod_group(
    pgs: list[Obj], cpgs: list[Obj], pg: Obj, composite: bool, want: tuple[str, str] | None
) -> None:
    wf = _forest(pgs, cpgs, composite=composite)
    got = wf.get_root_lookup_info_for_pod_group(pg)
    assert got == (_lookup(*want) if want is not None else None)


# -- TestWorkloadForest_GetRootLookupInfoForCPG -------------------------------------------

_CPG2P = _cpg("cpg2", "cpg1")
_CYC3, _CYC4 = _cpg("cpg3", "cpg4"), _cpg("cpg4", "cpg3")


@pytest.mark.parametrize(
    ("cpgs", "cpg", "want"),
    [
        pytest.param([_ROOT_CPG1], _ROOT_CPG1, "cpg1", id="standalone cpg"),
        pytest.param([_ROOT_CPG1, _CPG2P], _CPG2P, "cpg1", id="cpg with parent"),
        pytest.param([_CPG2P], _CPG2P, None, id="cpg with parent missing"),
        pytest.param([_CYC3, _CYC4], _CYC3, None, id="cpg cycle detection"),
    ],
)
def test_workload_forest_get_root_lookup_info_for_cpg(cpgs: list[Obj], cpg: Obj, want: str | None) -> None:
    wf = _forest([], cpgs)
    got = wf.get_root_lookup_info_for_cpg(cpg)
    assert got == (_lookup(CPGT, want) if want is not None else None)
    assert bool(wf.errors) is (cpg is _CYC3)  # only the cycle is reported


# -- TestWorkloadForest_GetLeafPodGroups --------------------------------------------------

_LPG2P, _LPG3P = _pg("pg2", "cpg1"), _pg("pg3", "cpg2")


@pytest.mark.parametrize(
    ("pgs", "cpgs", "root", "composite", "want"),
    [
        pytest.param([_PG1], [], (PGT, "pg1"), True, [_PG1], id="single pod group lookup"),
        pytest.param([_LPG2P], [_ROOT_CPG1], (CPGT, "cpg1"), True, [_LPG2P], id="cpg with direct pod group child"),
        pytest.param([_LPG2P, _LPG3P], [_ROOT_CPG1, _CPG2P], (CPGT, "cpg1"), True, [_LPG2P, _LPG3P],
                     id="cpg with nested pod group child"),
        pytest.param([], [], (CPGT, "missing"), True, [], id="missing root"),
        pytest.param([_PG1], [], (PGT, "pg1"), False, [_PG1], id="single pod group lookup (CPG=false)"),
        pytest.param([_LPG2P], [_ROOT_CPG1], (PGT, "pg2"), False, [_LPG2P],
                     id="pg with direct pod group child lookup (CPG=false)"),
        pytest.param([], [], (CPGT, "missing"), False, [], id="missing root (CPG=false)"),
    ],
)
def test_workload_forest_get_leaf_pod_groups(
    pgs: list[Obj], cpgs: list[Obj], root: tuple[str, str], composite: bool, want: list[Obj]
) -> None:
    wf = _forest(pgs, cpgs, composite=composite)
    got = wf.get_leaf_pod_groups(_lookup(*root))
    assert sorted(map(id, got)) == sorted(map(id, want))


# -- TestWorkloadForest_BuildPodGroupInfoForPG / _BuildPodGroupInfoForCPG -----------------


@pytest.mark.parametrize(
    "composite",
    [
        pytest.param(True, id="build info for existing pod group"),
        pytest.param(False, id="build info for existing pod group (CPG=false)"),
    ],
)
def test_workload_forest_build_pod_group_info_for_pg(composite: bool) -> None:
    wf = _forest([_PG1], [], composite=composite)
    got = wf.build_pod_group_info_for_pg(_PG1, set())
    assert got == PodGroupInfo(NS, "pg1", PGT, pod_group=_PG1, children=[])
    assert got is not None and got.pod_group is _PG1


_BPG1P = _pg("pg1", "cpg1", min_count=2)
_BCPG1 = _cpg("cpg1", min_group_count=1)


@pytest.mark.parametrize(
    ("composite", "want_children"),
    [
        pytest.param(True, [PodGroupInfo(NS, "pg1", PGT, pod_group=_BPG1P, children=[])],
                     id="build info for cpg with child pg"),
        pytest.param(False, [], id="build info for cpg with child pg (CPG=false)"),
    ],
)
def test_workload_forest_build_pod_group_info_for_cpg(composite: bool, want_children: list[PodGroupInfo]) -> None:
    wf = _forest([_BPG1P], [_BCPG1], composite=composite)
    got = wf.build_pod_group_info_for_cpg(_BCPG1, set())
    assert got == PodGroupInfo(NS, "cpg1", CPGT, composite_pod_group=_BCPG1, children=want_children)


# -- the scheduler's queue keeps its forest (eventhandlers.go: SchedulingQueue.*PodGroup) ---

_PG_V, _CPG_V = "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"
_GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}


def _cluster() -> Cluster:
    c = Cluster(_GATES, config=ClusterConfig(nodes=0, runtime_config={_PG_V: "true", _CPG_V: "true"}))
    c.apply(make_node("node").capacity(cpu="8", memory="16Gi", pods="110").build())
    return c


def _member(name: str, group: str) -> Obj:
    return make_pod(name, "default").req(cpu="1").pod_group(group).build()


def _root_of(c: Cluster, pod: Obj) -> tuple[str, str] | None:
    got = c.scheduler.queue.workload_forest.get_root_lookup_info_for_pod(pod)
    return None if got is None else (got.pod_group_info.type, got.pod_group_info.name)


def test_queue_forest_follows_late_parents_and_deletions() -> None:
    # A pod whose root is not observed yet has no root (upstream: incompletePodGroupPods);
    # the root's arrival links the subtree observed before it.
    c = _cluster()
    c.apply(make_child_pod_group("pg1", "default", "cpg-mid", 1, workload="w1"))
    c.apply(make_composite_pod_group("cpg-mid", "default", min_group_count=1, parent="cpg-root", workload="w1"))
    p1 = _member("p1", "pg1")
    c.apply(p1)
    c.settle()
    assert _root_of(c, p1) is None
    assert c.scheduler.queue.where("default/p1") == "incomplete"
    c.apply(make_composite_pod_group("cpg-root", "default", min_group_count=1, workload="w1"))
    c.settle()
    assert _root_of(c, p1) == (CPGT, "cpg-root")
    forest = c.scheduler.queue.workload_forest
    leaves = forest.get_leaf_pod_groups(QueuedPodGroupInfo(PodGroupInfo("default", "cpg-root", CPGT)))
    assert [g["metadata"]["name"] for g in leaves] == ["pg1"]
    assert c.api.get("v1", "Pod", "p1", "default")["spec"].get("nodeName") == "node"
    # A middle CompositePodGroup going away cuts the pod off its root; its child stays
    # linked under its key for when it returns.
    c.delete(_CPG_V, "CompositePodGroup", "cpg-mid", "default")
    c.settle()
    assert _root_of(c, p1) is None
    assert forest.children[composite_pod_group_key("default", "cpg-mid")] == {pod_group_key("default", "pg1")}
    assert forest.get_leaf_pod_groups(QueuedPodGroupInfo(PodGroupInfo("default", "cpg-root", CPGT))) == []


def test_queue_forest_seeded_from_groups_observed_before_start() -> None:
    # A scheduler that starts after the groups exist (a restart) observes them at start.
    c = _cluster()
    c.apply(make_composite_pod_group("cpg-root", "default", min_group_count=1, workload="w1"))
    c.apply(make_child_pod_group("pg1", "default", "cpg-root", 1, workload="w1"))
    c.settle()
    fresh = Scheduler(c.scheduler.ctx)
    assert fresh.queue.workload_forest.pod_groups == {}
    fresh.start()
    assert fresh.queue.workload_forest.get_root_lookup_info_for_pod(_member("p1", "pg1")) == QueuedPodGroupInfo(
        PodGroupInfo("default", "cpg-root", CPGT))
