"""Upstream's hierarchy tables for the scheduler cache, row by row.

Ported from pkg/scheduler/backend/cache: ``Test_BuildHierarchySnapshotFromPod`` and
``TestCache_GetRootKeyForGroup`` (cache_test.go), ``TestSnapshot_BuildHierarchySnapshotFromPod``
and ``TestSnapshot_GetRootKeyForGroup`` (snapshot_test.go), against ``cache_hierarchy``.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.scheduler.cache_hierarchy import HierarchySnapshot
from reference_impl.scheduler.cache_podgroups import PodGroupCache
from reference_impl.scheduler.framework.workload_forest import (
    EntityKey,
    composite_pod_group_key,
    pod_group_key,
)
from reference_impl.scheduler.plugins.podgroup_tree import HierarchyError
from reference_impl.scheduler.podgroupstate import CompositePodGroupState, PodGroupState

Obj = dict[str, Any]
NS = "ns1"


def _pod(name: str, pg: str | None = None) -> Obj:
    pod = make_pod(name).build()
    pod["metadata"].update(namespace=NS, uid=name)
    if pg is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    return pod


def _obj(kind: str, name: str, parent: str | None = None) -> Obj:
    spec: Obj = {"schedulingPolicy": {"basic": {}}}
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    return {"kind": kind, "metadata": {"name": name, "namespace": NS}, "spec": spec}


def _pg(name: str, parent: str | None = None) -> Obj:
    return _obj("PodGroup", name, parent)


def _cpg(name: str, parent: str | None = None) -> Obj:
    return _obj("CompositePodGroup", name, parent)


PG, CPG = pod_group_key, composite_pod_group_key
_CYCLE = [_cpg("cycle1", "cycle2"), _cpg("cycle2", "cycle1")]
# (name, pod, PodGroups, CompositePodGroups, GenericWorkload, CompositePodGroup, error,
# PodGroup keys, CompositePodGroup keys)
_BUILD = [
    ("pod without scheduling group", _pod("p0"), [], [], True, False, True, [], []),
    ("pod with scheduling group but no pod group in cache", _pod("p1", "pg1"), [], [], True,
     False, True, [], []),
    ("simple pod group", _pod("p1", "pg1"), [_pg("pg1")], [], True, False, False,
     [PG(NS, "pg1")], []),
    ("pod group with parent CPG", _pod("p2", "pg2"), [_pg("pg2", "cpg1")], [_cpg("cpg1")], True,
     True, False, [PG(NS, "pg2")], [CPG(NS, "cpg1")]),
    ("pod group with parent CPG hierarchy", _pod("p3", "pg3"), [_pg("pg3", "cpg2")],
     [_cpg("cpg2", "cpg3"), _cpg("cpg3")], True, True, False, [PG(NS, "pg3")],
     [CPG(NS, "cpg2"), CPG(NS, "cpg3")]),
    ("cycle detection in hierarchy", _pod("pCycle", "pgCycle"), [_pg("pgCycle", "cycle1")],
     _CYCLE, True, True, True, [], []),
    ("pod group with parent CPG but feature disabled", _pod("p2", "pg2"), [_pg("pg2", "cpg1")],
     [_cpg("cpg1")], True, False, False, [PG(NS, "pg2")], []),
]


@pytest.mark.parametrize(
    ("pod", "pgs", "cpgs", "gw", "cpg", "want_err", "want_pgs", "want_cpgs"),
    [pytest.param(*r[1:], id=str(r[0])) for r in _BUILD],
)
def test_build_hierarchy_snapshot_from_pod(
    pod: Obj, pgs: list[Obj], cpgs: list[Obj], gw: bool, cpg: bool, want_err: bool,
    want_pgs: list[EntityKey], want_cpgs: list[EntityKey],
) -> None:
    cache = PodGroupCache(generic_workload=gw, composite_pod_group=cpg)
    for pg in pgs:
        cache.add_pod_group(pg)
    for c in cpgs:
        cache.add_composite_pod_group(c)
    if want_err:
        with pytest.raises(HierarchyError):
            cache.build_hierarchy_snapshot_from_pod(pod)
        return
    snap = cache.build_hierarchy_snapshot_from_pod(pod)
    assert sorted(map(str, snap.pod_group_states)) == sorted(map(str, want_pgs))
    assert sorted(map(str, snap.composite_pod_group_states)) == sorted(map(str, want_cpgs))


def test_snapshot_build_hierarchy_snapshot_from_pod() -> None:
    """``TestSnapshot_BuildHierarchySnapshotFromPod``: a snapshot answers with itself."""
    snap = HierarchySnapshot(True, True)
    assert snap.build_hierarchy_snapshot_from_pod(_pod("p1", "pg1")) is snap


def _root_key_states(states: PodGroupCache) -> PodGroupCache:
    """``setupCacheForRootKeyTest`` / ``setupSnapshotForRootKeyTest``: states set directly."""
    def pg_state(pg: Obj) -> PodGroupState:
        st = PodGroupState()
        st.pod_group = pg
        return st

    def cpg_state(cpg: Obj) -> CompositePodGroupState:
        st = CompositePodGroupState()
        st.composite_pod_group = cpg
        return st

    for pg in (_pg("pg1", "cpg1"), _pg("pg_cycle", "cpg_cycle_1"),
               _pg("pg_missing_parent", "non-existent")):
        states.pod_group_states[PG(NS, pg["metadata"]["name"])] = pg_state(pg)
    for c in (_cpg("cpg1", "cpg2"), _cpg("cpg2"), _cpg("cpg_cycle_1", "cpg_cycle_2"),
              _cpg("cpg_cycle_2", "cpg_cycle_1")):
        states.composite_pod_group_states[CPG(NS, c["metadata"]["name"])] = cpg_state(c)
    return states


_POD_KEY = EntityKey("pod", NS, "pod1")
# (name, CompositePodGroup gate, key, root or None, ok, error)
_ROOT_COMMON = [
    ("from pg to root (GW=true, CPG=true)", True, PG(NS, "pg1"), CPG(NS, "cpg2"), True, False),
    ("from cpg to root (GW=true, CPG=true)", True, CPG(NS, "cpg1"), CPG(NS, "cpg2"), True, False),
    ("from root (GW=true, CPG=true)", True, CPG(NS, "cpg2"), CPG(NS, "cpg2"), True, False),
    ("from pg (with parent set), compositePodGroup disabled", False, PG(NS, "pg1"),
     PG(NS, "pg1"), True, False),
    ("missing intermediate", True, PG(NS, "pg_missing_parent"), None, False, False),
    ("cycle detected", True, PG(NS, "pg_cycle"), None, False, True),
]
_ROOT_SNAPSHOT_ONLY = [
    ("from cpg, compositePodGroup disabled", False, CPG(NS, "cpg1"), CPG(NS, "cpg2"), True,
     False),
    ("pod key type is not supported", True, _POD_KEY, None, False, True),
]
Row = tuple[str, bool, EntityKey, EntityKey | None, bool, bool]


def _check_root(states: PodGroupCache, key: EntityKey, want: EntityKey | None, ok: bool,
                err: bool) -> None:
    if err:
        with pytest.raises(HierarchyError):
            states.get_root_key_for_group(key)
        return
    assert states.get_root_key_for_group(key) == (want, ok)


@pytest.mark.parametrize(
    ("cpg", "key", "want", "ok", "err"), [pytest.param(*r[1:], id=r[0]) for r in _ROOT_COMMON]
)
def test_cache_get_root_key_for_group(
    cpg: bool, key: EntityKey, want: EntityKey | None, ok: bool, err: bool
) -> None:
    _check_root(_root_key_states(PodGroupCache(True, cpg)), key, want, ok, err)


@pytest.mark.parametrize(
    ("cpg", "key", "want", "ok", "err"),
    [pytest.param(*r[1:], id=r[0]) for r in (*_ROOT_COMMON, *_ROOT_SNAPSHOT_ONLY)],
)
def test_snapshot_get_root_key_for_group(
    cpg: bool, key: EntityKey, want: EntityKey | None, ok: bool, err: bool
) -> None:
    _check_root(_root_key_states(HierarchySnapshot(True, cpg)), key, want, ok, err)
