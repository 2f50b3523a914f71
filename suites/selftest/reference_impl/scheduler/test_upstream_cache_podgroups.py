"""Upstream's pod-group cache tables against reference_impl/scheduler/cache_podgroups.py.

Ported (pkg/scheduler/backend/cache/cache_test.go): ``Test_AddPodGroupMember``,
``Test_UpdatePodGroupMember``, ``Test_RemovePodGroupMember``, ``Test_AddPodGroup``,
``Test_UpdatePodGroup``, ``Test_RemovePodGroup``, ``TestUpdatePodGroupStateSnapshot``,
``TestBindingPodGroupMember``, ``TestForgetPodGroupMember``, ``TestAssumePodGroupMember``,
``TestPodGroupPodOperations``, ``Test_AddCompositePodGroup`` and
``Test_RemoveCompositePodGroup``; tables run per ``cpgEnabled`` as upstream's subtests.
Not ported: ``Test_BuildHierarchySnapshotFromPod`` and ``TestCache_GetRootKeyForGroup``
(GangScheduling walks the hierarchy over the informers, ``podgroup_tree.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.api import make_composite_pod_group, make_pod, make_pod_group
from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.types import PodInfo
from reference_impl.scheduler.framework.workload_forest import (
    EntityKey,
    composite_pod_group_key,
    pod_group_key,
)
from reference_impl.scheduler.podgroupstate import PodGroupState, PodGroupStateSnapshot, pod_uid

Obj = dict[str, Any]
CPG = (True, False)


def _pod(ns: str, name: str, uid: str = "", group: str = "", node: str = "",
         labels: Obj | None = None) -> Obj:
    """``st.MakePod()``: a pod always carries ``spec.nodeName`` ("" when unassigned)."""
    b = make_pod(name, ns)
    if group:
        b = b.pod_group(group)
    pod = b.build()
    pod["spec"]["nodeName"] = node
    if uid:
        pod["metadata"]["uid"] = uid
    if labels:
        pod["metadata"]["labels"] = dict(labels)
    return pod


def _pg(ns: str, name: str, parent: str = "", min_count: int | None = None) -> Obj:
    pg = make_pod_group(name, ns, min_count=min_count)
    if parent:
        pg["spec"]["parentCompositePodGroupName"] = parent
    return pg


def _cpg(ns: str, name: str, parent: str = "") -> Obj:
    return make_composite_pod_group(name, ns, parent=parent)


def _ids(rows: list[tuple[Any, ...]]) -> list[Any]:
    """Each row once per cpgEnabled, named as upstream's subtests."""
    return [pytest.param(*row[1:], cpg, id=f"{row[0]}, cpgEnabled={cpg}")
            for row in rows for cpg in CPG]


def _state(cache: SchedulerCache, ns: str, name: str) -> PodGroupState:
    state, err = cache.pod_group_states_get(ns, name)
    assert state is not None, err
    return state


def _assume(cache: SchedulerCache, pod: Obj) -> str:
    """``AssumePod(pod)``: the pod carries its node in spec.nodeName."""
    return cache.assume_pod(PodInfo(pod), pod["spec"]["nodeName"])


def _key(pod: Obj) -> str:
    return f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"


# -- Test_AddPodGroupMember -------------------------------------------------------------

NO_GROUP = _pod("namespace", "non-workload-pod")
UNSCHED_MEMBER = _pod("namespace", "unscheduled-pod", group="pg")
ASSIGNED_MEMBER = _pod("namespace", "assigned-pod", group="pg", node="node1")
PG_NS = _pg("namespace", "pg")


@pytest.mark.parametrize(("init_pg", "pod", "gw", "in_unscheduled", "in_assigned", "cpg"), _ids([
    ("add pod group member with GenericWorkload disabled should be no-op",
     None, UNSCHED_MEMBER, False, False, False),
    ("add pod with no pod group name", None, NO_GROUP, True, False, False),
    ("add unscheduled pod group member", None, UNSCHED_MEMBER, True, True, False),
    ("add assigned pod group member", None, ASSIGNED_MEMBER, True, False, True),
    ("add assigned pod group member when state already exists (from PodGroup object)",
     PG_NS, ASSIGNED_MEMBER, True, False, True),
]))
def test_add_pod_group_member(init_pg: Obj | None, pod: Obj, gw: bool, in_unscheduled: bool,
                              in_assigned: bool, cpg: bool) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    if init_pg is not None:
        cache.add_pod_group(init_pg)
    cache.add_pod_group_member(pod)
    group = pod["spec"].get("schedulingGroup")
    if not gw or group is None:
        assert not cache.pod_group_states
        return
    state = _state(cache, "namespace", group["podGroupName"])
    assert (pod["metadata"]["name"] in state.unscheduled_pods()) is in_unscheduled
    assert (pod_uid(pod) in state.assigned_pods()) is in_assigned


# -- Test_UpdatePodGroupMember ----------------------------------------------------------

U_POD = _pod("namespace", "unscheduled-pod", "pod1", "pg")
U_POD_LABELS = _pod("namespace", "unscheduled-pod", "pod1", "pg", labels={"foo": "bar"})
A_POD = _pod("namespace", "assigned-pod", "pod2", "pg", node="node")
NG_POD = _pod("namespace", "no-pod-group-pod", "pod3")
NG_POD_LABELS = _pod("namespace", "no-pod-group-pod", "pod3", labels={"foo": "bar"})


@pytest.mark.parametrize(
    ("old", "new", "gw", "in_assumed", "in_unscheduled", "in_assigned", "cpg"), _ids([
        ("update a pod group member with GenericWorkload disabled should be a no-op",
         U_POD, U_POD_LABELS, False, False, False, False),
        ("update a pod with no pod group name", NG_POD, NG_POD_LABELS, True, False, False, False),
        ("update a pod group member, add label", U_POD, U_POD_LABELS, True, False, True, False),
        ("update an unscheduled pod group member, set NodeName", U_POD, A_POD, True, False,
         False, True),
    ]))
def test_update_pod_group_member(old: Obj, new: Obj, gw: bool, in_assumed: bool,
                                 in_unscheduled: bool, in_assigned: bool, cpg: bool) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    cache.add_pod_group_member(old)
    cache.update_pod_group_member(old, new)
    group = new["spec"].get("schedulingGroup")
    if not gw or group is None:
        assert not cache.pod_group_states
        return
    state = _state(cache, "namespace", group["podGroupName"])
    uid = pod_uid(new)
    assert (new["metadata"]["name"] in state.unscheduled_pods()) is in_unscheduled
    assert (uid in state.assigned_pods()) is in_assigned
    assert (uid in state.assumed_pods()) is in_assumed
    assert state.all_pods_map[uid] == new


# -- Test_RemovePodGroupMember ----------------------------------------------------------

R_POD1 = _pod("namespace", "unscheduled-pod", "pod1", "pg")
R_POD2 = _pod("namespace", "assigned-pod", "pod2", "pg", node="node")


@pytest.mark.parametrize(("init_pods", "init_pg", "delete", "want_count", "gw", "cpg"), _ids([
    ("remove a pod from a group with multiple pods", [R_POD1, R_POD2], None, R_POD1, 1, True),
    ("remove a last pod from a group", [R_POD1], None, R_POD1, 0, True),
    ("remove a last pod from a group when PodGroup object still exists shouldn't remove the "
     "state", [R_POD1], PG_NS, R_POD1, 1, True),
    ("remove a non-existent pod from a group should be a no-op", [], None, R_POD1, 0, True),
    ("remove a pod with GenericWorkload disabled should be a no-op", [R_POD1], None, R_POD1, 0,
     False),
]))
def test_remove_pod_group_member(init_pods: list[Obj], init_pg: Obj | None, delete: Obj,
                                 want_count: int, gw: bool, cpg: bool) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    if init_pg is not None:
        cache.add_pod_group(init_pg)
    for pod in init_pods:
        cache.add_pod_group_member(pod)
    cache.remove_pod_group_member(delete)
    assert len(cache.pod_group_states) == want_count
    if want_count:
        assert pod_uid(delete) not in _state(cache, "namespace", "pg").all_pods()


# -- Test_AddPodGroup / Test_RemovePodGroup ---------------------------------------------

PG = _pg("ns", "pg")
PG_POD = _pod("ns", "pod1", group="pg")
PG1, PG2 = _pg("ns1", "pg1"), _pg("ns1", "pg2")
PG3P, PG4P = _pg("ns1", "pg3", "cpg1"), _pg("ns1", "pg4", "cpg1")
CPG_CHILD = _cpg("ns1", "cpgChild", "cpg1")
CPG1_KEY = composite_pod_group_key("ns1", "cpg1")
K = pod_group_key
CK = composite_pod_group_key


def _pod_groups(cache: SchedulerCache) -> dict[EntityKey, Obj]:
    return {k: s.pod_group for k, s in cache.pod_group_states.items() if s.pod_group is not None}


def _children(cache: SchedulerCache) -> dict[EntityKey, set[EntityKey]]:
    return {k: set(s.children) for k, s in cache.composite_pod_group_states.items() if s.children}


@pytest.mark.parametrize(
    ("gw", "cpg", "init_pod", "init_cpgs", "add", "want_pgs", "want_children"),
    [
        pytest.param(False, True, None, [], [PG], {}, {},
                     id="add pod group with GenericWorkload disabled should be no-op"),
        pytest.param(True, True, None, [], [PG], {K("ns", "pg"): PG}, {}, id="add pod group"),
        pytest.param(True, True, PG_POD, [], [PG], {K("ns", "pg"): PG}, {},
                     id="add pod group when state already exists (from pod group members)"),
        pytest.param(True, True, None, [], [PG1], {K("ns1", "pg1"): PG1}, {},
                     id="add single pod group (hierarchical)"),
        pytest.param(True, True, None, [], [PG1, PG2], {K("ns1", "pg1"): PG1, K("ns1", "pg2"): PG2},
                     {}, id="add multiple pod groups (hierarchical)"),
        pytest.param(True, True, None, [], [PG3P], {K("ns1", "pg3"): PG3P},
                     {CPG1_KEY: {K("ns1", "pg3")}}, id="add pod group with parent"),
        pytest.param(True, True, None, [], [PG3P, PG4P],
                     {K("ns1", "pg3"): PG3P, K("ns1", "pg4"): PG4P},
                     {CPG1_KEY: {K("ns1", "pg3"), K("ns1", "pg4")}},
                     id="add pod group with parent, parent already in children"),
        pytest.param(True, True, None, [CPG_CHILD], [PG3P], {K("ns1", "pg3"): PG3P},
                     {CPG1_KEY: {CK("ns1", "cpgChild"), K("ns1", "pg3")}},
                     id="add pod group with parent, parent already has composite pod group child"),
        pytest.param(True, False, None, [], [PG3P], {K("ns1", "pg3"): PG3P}, {},
                     id="add pod group with parent when CompositePodGroup disabled"),
    ],
)
def test_add_pod_group(gw: bool, cpg: bool, init_pod: Obj | None, init_cpgs: list[Obj],
                       add: list[Obj], want_pgs: dict[EntityKey, Obj],
                       want_children: dict[EntityKey, set[EntityKey]]) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    if init_pod is not None:
        cache.add_pod_group_member(init_pod)
    for c in init_cpgs:
        cache.add_composite_pod_group(c)
    for pg in add:
        cache.add_pod_group(pg)
    if not gw:
        assert not cache.pod_group_states
        return
    assert _pod_groups(cache) == want_pgs
    assert _children(cache) == want_children


OLD_PG, NEW_PG = _pg("ns", "pg", min_count=1), _pg("ns", "pg", min_count=2)


@pytest.mark.parametrize(("gw", "want", "cpg"), _ids([
    ("update pod group with GenericWorkload disabled should be no-op", False, None),
    ("update pod group with GenericWorkload enabled", True, NEW_PG),
]))
def test_update_pod_group(gw: bool, want: Obj | None, cpg: bool) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    cache.add_pod_group(OLD_PG)
    cache.update_pod_group(OLD_PG, NEW_PG)
    got, err = cache.pod_groups_get("ns", "pg")
    assert got == want
    assert bool(err) is (want is None)


@pytest.mark.parametrize(
    ("gw", "cpg", "init_pod", "init_pgs", "init_cpgs", "delete", "state_exists", "pods",
     "want_pgs", "want_children"),
    [
        pytest.param(False, True, None, [], [], PG, None, 0, None, None,
                     id="remove pod group with GenericWorkload disabled should be no-op"),
        pytest.param(True, True, None, [PG], [], PG, False, 0, None, None,
                     id="remove pod group with GenericWorkload enabled"),
        pytest.param(True, True, PG_POD, [PG], [], PG, True, 1, None, None,
                     id="remove pod group when it still has pod members"),
        pytest.param(True, True, None, [PG3P, PG4P], [], PG3P, None, 0, {K("ns1", "pg4"): PG4P},
                     {CPG1_KEY: {K("ns1", "pg4")}},
                     id="delete pod group with parent, parent has other pod group children"),
        pytest.param(True, True, None, [PG3P], [CPG_CHILD], PG3P, None, 0, {},
                     {CPG1_KEY: {CK("ns1", "cpgChild")}},
                     id="delete pod group with parent, parent has other composite pod group "
                        "children"),
    ],
)
def test_remove_pod_group(
    gw: bool, cpg: bool, init_pod: Obj | None, init_pgs: list[Obj], init_cpgs: list[Obj],
    delete: Obj, state_exists: bool | None, pods: int, want_pgs: dict[EntityKey, Obj] | None,
    want_children: dict[EntityKey, set[EntityKey]] | None,
) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    if init_pod is not None:
        cache.add_pod_group_member(init_pod)
    for c in init_cpgs:
        cache.add_composite_pod_group(c)
    for pg in init_pgs:
        cache.add_pod_group(pg)
    cache.remove_pod_group(delete)
    ns, name = delete["metadata"]["namespace"], delete["metadata"]["name"]
    got, err = cache.pod_groups_get(ns, name)
    assert got is None and err
    if state_exists is not None:
        state = cache.pod_group_states.get(K(ns, name))
        assert (state is not None) is state_exists
        if state is not None:
            assert state.pod_group is None
            assert state.all_pods_count() == pods
    if want_pgs is not None:
        assert _pod_groups(cache) == want_pgs
        assert _children(cache) == want_children


# -- TestUpdatePodGroupStateSnapshot ----------------------------------------------------

S1 = _pod("ns", "pod1", "uid1", "pg1")
S2 = _pod("ns", "pod2", "uid2", "pg1")
S3 = _pod("ns", "pod3", "uid3", "pg2")
Op = Callable[[SchedulerCache], None]


def _adds(*pods: Obj) -> Op:
    def run(c: SchedulerCache) -> None:
        for p in pods:
            c.add_pod_group_member(p)
    return run


def _expected(pods: list[Obj]) -> View:
    """``createPodGroupStates``, as (all UIDs, unscheduled UIDs) per key."""
    out: dict[EntityKey, PodGroupStateSnapshot] = {}
    for pod in pods:
        key = K(pod["metadata"]["namespace"], pod["spec"]["schedulingGroup"]["podGroupName"])
        out.setdefault(key, PodGroupStateSnapshot()).add_pod(pod)
    return _view(out)


View = dict[EntityKey, tuple[list[str], list[str]]]


def _view(snap: dict[EntityKey, PodGroupStateSnapshot]) -> View:
    return {k: (sorted(s.all_pods()), sorted(s.unscheduled)) for k, s in snap.items()}


def _remove(pod: Obj) -> Op:
    return lambda c: c.remove_pod_group_member(pod)


def _then(*ops: Op) -> Op:
    def run(c: SchedulerCache) -> None:
        for op in ops:
            op(c)
    return run


@pytest.mark.parametrize(("setup", "action", "want", "cpg"), _ids([
    ("add a pod group member and update snapshot", None, _adds(S1), [S1]),
    ("add a pod with different pod group and update snapshot", _adds(S1), _adds(S3), [S1, S3]),
    ("remove a last pod group member and update snapshot", _adds(S1, S3), _remove(S1), [S3]),
    ("add a pod to a recently deleted pod group and update snapshot",
     _then(_adds(S1, S3), _remove(S1)), _adds(S2), [S2, S3]),
]))
def test_update_pod_group_state_snapshot(setup: Op | None, action: Op, want: list[Obj],
                                         cpg: bool) -> None:
    cache = SchedulerCache(generic_workload=True, composite_pod_group=cpg)
    snapshot: dict[EntityKey, PodGroupStateSnapshot] = {}
    if setup is not None:
        setup(cache)
        cache.update_pod_group_state_snapshot(snapshot)
    before = {k: s.generation for k, s in cache.pod_group_states.items()}
    kept = dict(snapshot)
    action(cache)
    cache.update_pod_group_state_snapshot(snapshot)
    for key, snap in snapshot.items():
        live = cache.pod_group_states.get(key)
        if live is None:
            continue
        if live.generation > before.get(key, 0):
            assert snap.generation > before.get(key, 0)
        else:
            assert snap is kept[key]  # unchanged: not copied again
    assert _view(snapshot) == _expected(want)


# -- TestBindingPodGroupMember ----------------------------------------------------------

B_POD = _pod("namespace", "pod1", "pod1-uid", "pg")
B_BOUND = _pod("namespace", "pod1", "pod1-uid", "pg", node="node1")


@pytest.mark.parametrize(("assumed",), [
    pytest.param(None, id="bind unscheduled pod group member"),
    pytest.param(B_BOUND, id="bind assumed pod group member"),
])
def test_binding_pod_group_member(assumed: Obj | None) -> None:
    cache = SchedulerCache(generic_workload=True)
    cache.add_pod_group_member(B_POD)
    if assumed is not None:
        assert _assume(cache, assumed) == ""
    assert cache.add_pod(B_BOUND) == ""
    state = _state(cache, "namespace", "pg")
    assert "pod1-uid" in state.assigned_pods()
    assert "pod1-uid" not in state.assumed_pods()
    assert "pod1" not in state.unscheduled_pods()


# -- TestForgetPodGroupMember / TestAssumePodGroupMember --------------------------------

F_POD = _pod("test-ns", "pod-0", "uid-0", "pg")
F_ON_NODE = _pod("test-ns", "pod-0", "uid-0", "pg", node="node-1")


@pytest.mark.parametrize(("pod", "gw", "in_assigned", "in_unscheduled", "cpg"), _ids([
    ("forget pod group member with GenericWorkload disabled", F_POD, False, False, False),
    ("add pod group member without NodeName, then call assume and forget", F_POD, True, False,
     True),
    ("add pod group member with NodeName, then call assume and forget", F_ON_NODE, True, True,
     False),
]))
def test_forget_pod_group_member(pod: Obj, gw: bool, in_assigned: bool, in_unscheduled: bool,
                                 cpg: bool) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    cache.add_pod_group_member(pod)
    assert _assume(cache, F_ON_NODE) == ""
    assert cache.forget_pod(_key(F_ON_NODE), "node-1") == ""
    if not gw:
        assert not cache.pod_group_states
        return
    state = _state(cache, "test-ns", "pg")
    assert "uid-0" not in state.assumed_pods()
    assert ("uid-0" in state.assigned_pods()) is in_assigned
    assert ("pod-0" in state.unscheduled_pods()) is in_unscheduled


@pytest.mark.parametrize(("pod", "gw", "in_assumed", "in_assigned", "cpg"), _ids([
    ("assume a pod group member with GenericWorkload disabled", F_POD, False, False, False),
    ("add pod group member without NodeName, then call assume", F_POD, True, True, False),
    ("add pod group member with NodeName, then call assume", F_ON_NODE, True, False, True),
]))
def test_assume_pod_group_member(pod: Obj, gw: bool, in_assumed: bool, in_assigned: bool,
                                 cpg: bool) -> None:
    cache = SchedulerCache(generic_workload=gw, composite_pod_group=cpg)
    cache.add_pod_group_member(pod)
    assert _assume(cache, F_ON_NODE) == ""
    if not gw:
        assert not cache.pod_group_states
        return
    state = _state(cache, "test-ns", "pg")
    assert ("uid-0" in state.assigned_pods()) is in_assigned
    assert ("uid-0" in state.assumed_pods()) is in_assumed


# -- TestPodGroupPodOperations ----------------------------------------------------------

def _add(c: SchedulerCache) -> None:
    assert c.add_pod(F_POD) == ""


def _assume_f(c: SchedulerCache) -> None:
    assert _assume(c, F_POD) == ""


def _forget(c: SchedulerCache) -> None:
    assert c.forget_pod(_key(F_POD), "") == ""


def _remove_pod(c: SchedulerCache) -> None:
    assert c.remove_pod(F_POD) == ""


@pytest.mark.parametrize(("gw", "setup", "op", "want"), [
    pytest.param(False, None, _add, (0, 0, 0, 0), id="AddPod with GenericWorkload disabled"),
    pytest.param(True, None, _add, (1, 0, 1, 0), id="AddPod with GenericWorkload enabled"),
    pytest.param(False, None, _assume_f, (0, 0, 0, 0),
                 id="AssumePod with GenericWorkload disabled"),
    pytest.param(True, None, _assume_f, (1, 0, 0, 1), id="AssumePod with GenericWorkload enabled"),
    pytest.param(False, _assume_f, _forget, (1, 0, 0, 1),
                 id="ForgetPod with GenericWorkload disabled"),
    pytest.param(True, _assume_f, _forget, (1, 0, 1, 0),
                 id="ForgetPod with GenericWorkload enabled"),
    pytest.param(False, _add, _remove_pod, (1, 0, 1, 0),
                 id="RemovePod with GenericWorkload disabled"),
    pytest.param(True, _add, _remove_pod, (0, 0, 0, 0),
                 id="RemovePod with GenericWorkload enabled"),
])
def test_pod_group_pod_operations(gw: bool, setup: Op | None, op: Op,
                                  want: tuple[int, int, int, int]) -> None:
    """(states, assigned, unscheduled, assumed) after ``op``; the gate is on for ``setup``."""
    cache = SchedulerCache(generic_workload=True)
    if setup is not None:
        setup(cache)
    cache.generic_workload_enabled = gw
    op(cache)
    count = len(cache.pod_group_states)
    if count == 0:
        assert want[0] == 0
        return
    cache.generic_workload_enabled = True
    state = _state(cache, "test-ns", "pg")
    got = (count, len(state.assigned_pods()), len(state.unscheduled_pods()),
           len(state.assumed_pods()))
    assert got == want


# -- Test_AddCompositePodGroup / Test_RemoveCompositePodGroup ---------------------------

CPG1, CPG2 = _cpg("ns1", "cpg1"), _cpg("ns1", "cpg2")
CPG3P, CPG4P = _cpg("ns1", "cpg3", "cpg1"), _cpg("ns1", "cpg4", "cpg1")
PG_CHILD = _pg("ns1", "pgChild", "cpg1")
CPG_MID = _cpg("ns1", "cpgMid", "cpg1")
PG_LEAF = _pg("ns1", "pgLeaf", "cpgMid")


def _cpgs(cache: SchedulerCache) -> dict[EntityKey, Obj]:
    return {k: s.composite_pod_group for k, s in cache.composite_pod_group_states.items()
            if s.composite_pod_group is not None}


@pytest.mark.parametrize(("init_pgs", "add", "want_cpgs", "want_children"), [
    pytest.param([], [CPG1, CPG2], {CK("ns1", "cpg1"): CPG1, CK("ns1", "cpg2"): CPG2}, {},
                 id="add multiple composite pod groups"),
    pytest.param([], [CPG3P, CPG4P], {CK("ns1", "cpg3"): CPG3P, CK("ns1", "cpg4"): CPG4P},
                 {CPG1_KEY: {CK("ns1", "cpg3"), CK("ns1", "cpg4")}},
                 id="add composite pod group with parent, parent already has other composite pod "
                    "group child"),
    pytest.param([PG_CHILD], [CPG3P], {CK("ns1", "cpg3"): CPG3P},
                 {CPG1_KEY: {K("ns1", "pgChild"), CK("ns1", "cpg3")}},
                 id="add composite pod group with parent, parent already has pod group child"),
])
def test_add_composite_pod_group(init_pgs: list[Obj], add: list[Obj],
                                 want_cpgs: dict[EntityKey, Obj],
                                 want_children: dict[EntityKey, set[EntityKey]]) -> None:
    cache = SchedulerCache(generic_workload=True, composite_pod_group=True)
    for pg in init_pgs:
        cache.add_pod_group(pg)
    for c in add:
        cache.add_composite_pod_group(c)
    assert _cpgs(cache) == want_cpgs
    assert _children(cache) == want_children


@pytest.mark.parametrize(("init_pgs", "init_cpgs", "delete", "want_cpgs", "want_children"), [
    pytest.param([], [CPG3P], CPG3P, {}, {},
                 id="delete composite pod group with parent, cleans up children map"),
    pytest.param([PG_CHILD], [CPG3P, CPG4P], CPG3P, {CK("ns1", "cpg4"): CPG4P},
                 {CPG1_KEY: {K("ns1", "pgChild"), CK("ns1", "cpg4")}},
                 id="delete composite pod group with parent, parent has both other pg and cpg "
                    "children"),
    pytest.param([PG_LEAF], [CPG1, CPG_MID], CPG_MID, {CPG1_KEY: CPG1},
                 {CK("ns1", "cpgMid"): {K("ns1", "pgLeaf")}},
                 id="delete mid cpg from root-mid-leaf hierarchy"),
])
def test_remove_composite_pod_group(init_pgs: list[Obj], init_cpgs: list[Obj], delete: Obj,
                                    want_cpgs: dict[EntityKey, Obj],
                                    want_children: dict[EntityKey, set[EntityKey]]) -> None:
    cache = SchedulerCache(generic_workload=True, composite_pod_group=True)
    for pg in init_pgs:
        cache.add_pod_group(pg)
    for c in init_cpgs:
        cache.add_composite_pod_group(c)
    cache.remove_composite_pod_group(delete)
    assert _cpgs(cache) == want_cpgs
    assert _children(cache) == want_children
