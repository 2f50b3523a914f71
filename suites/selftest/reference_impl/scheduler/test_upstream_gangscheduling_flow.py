"""Upstream's GangScheduling flow table: its PreEnqueue verdicts, row by row.

Ported: ``TestGangSchedulingFlow`` (plugins/gangscheduling/gangscheduling_test.go), the
PreEnqueue status of each row. Its Permit half has no counterpart: the reference places a
gang all at once in the pod-group cycle (``workload_cycle.py``) rather than holding pods
at Permit. As upstream's test, the plugin's pod-group manager is a cache holding the
row's (Composite)PodGroups and its pods (``AddPodGroupMember``); PreEnqueue counts the
cache's pod-group states. With CompositePodGroup on, it checks the whole tree's quorum
(``checkCPGHierarchyReadiness``) over ``BuildHierarchySnapshotFromPod``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.scheduler.cache_podgroups import PodGroupCache
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins.gang_scheduling import GangScheduling

Obj = dict[str, Any]


def _pod(name: str, pg: str | None) -> Obj:
    pod = make_pod(name).build()
    pod["metadata"]["namespace"] = "ns1"
    if pg is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    return pod


def _pg(name: str, min_count: int | None, parent: str | None = None) -> Obj:
    policy: Obj = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    spec: Obj = {"schedulingPolicy": policy}
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    return {"kind": "PodGroup", "metadata": {"name": name, "namespace": "ns1"}, "spec": spec}


class _Informer:
    def __init__(self, objs: list[Obj]) -> None:
        self._objs = objs

    def get(self, key: str) -> Obj | None:
        return next((o for o in self._objs
                     if f"{o['metadata']['namespace']}/{o['metadata']['name']}" == key), None)

    def items(self) -> list[Obj]:
        return self._objs

    def add_handler(self, handler: object) -> None:
        pass


class _Informers:
    def __init__(self, pods: list[Obj], pgs: list[Obj], cpgs: list[Obj]) -> None:
        self._by_kind = {
            "Pod": _Informer(pods), "PodGroup": _Informer(pgs), "CompositePodGroup": _Informer(cpgs)
        }

    def informer(self, api_version: str, kind: str) -> _Informer:
        return self._by_kind[kind]


@dataclass
class _Ctx:
    informers: _Informers


@dataclass
class _Handle:
    ctx: _Ctx
    cache: PodGroupCache

    def snapshot_shared_lister(self) -> PodGroupCache:
        return self.cache  # frameworkruntime.WithPodGroupManager(cache)


def _cpg(name: str, min_group_count: int | None, parent: str | None = None) -> Obj:
    policy: Obj = {"gang": {"minGroupCount": min_group_count}} if min_group_count else {"basic": {}}
    spec: Obj = {"schedulingPolicy": policy}
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    meta = {"name": name, "namespace": "ns1"}
    return {"kind": "CompositePodGroup", "metadata": meta, "spec": spec}


GANG1, GANG2, BASIC = _pg("pg1", 3), _pg("pg2", 4), _pg("pg3", None)
P1, P2, P3, P4, P5 = (_pod(f"p{i}", g) for i, g in
                      ((1, "pg1"), (2, "pg1"), (3, "pg1"), (4, "pg2"), (5, "pg2")))
NON_GANG, BASIC_POD = _pod("non-gang", None), _pod("basic-pod", "pg3")
CPG_PGS = [_pg("pg1-cpg", 1, "cpg-sub1"), _pg("pg2-cpg", 1, "cpg-sub1"),
           _pg("pg3-cpg", 1, "cpg-sub1"), _pg("pg4-cpg", None, "cpg-sub2"),
           _pg("pg5-cpg", 1, "cpg-sub2"), _pg("pg6-cpg", 1, "cpg-sub3"),
           _pg("pg7-cpg", 1, "cpg-sub3")]
CPGS = [_cpg("cpg-root", 2), _cpg("cpg-sub1", 2, "cpg-root"), _cpg("cpg-sub2", None, "cpg-root"),
        _cpg("cpg-sub3", 2, "cpg-root")]
P1C, P2C, P4C, P6C = (_pod(f"p{i}-cpg", f"pg{i}-cpg") for i in (1, 2, 4, 6))
BASIC_PGS = [_pg("pg-basic-1", 2, "cpg-basic-root"), _pg("pg-basic-2", 2, "cpg-basic-root")]
BASIC_ROOT = [_cpg("cpg-basic-root", None)]
P1_1, P1_2, P2_1 = _pod("p1_1", "pg-basic-1"), _pod("p1_2", "pg-basic-1"), _pod("p2_1", "pg-basic-2")
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
QUORUM = "waiting for minCount pods from a gang to appear in scheduling queue"
ROOT = 'waiting for composite pod group "cpg-root" tree to meet quorum'

# (name, pod, other pods, PodGroups, CompositePodGroups, CompositePodGroup on, wanted
# PreEnqueue reason or None). Upstream adds CompositePodGroups only with the gate on.
Row = tuple[str, Obj, list[Obj], list[Obj], list[Obj], bool, str | None]
_ROWS: list[Row] = []
for _on in (False, True):
    _t = f" (CPG={'true' if _on else 'false'})"
    _ROWS += [
        ("non-gang pod succeeds immediately" + _t, NON_GANG, [], [GANG1, GANG2, BASIC], [], _on,
         None),
        ("basic policy pod succeeds immediately" + _t, BASIC_POD, [], [GANG1, GANG2, BASIC], [],
         _on, None),
        ("gang pod fails PreEnqueue when pod group is not yet created" + _t, P1,
         [P2, P3, P4, P5], [], [], _on,
         "failed to build hierarchy snapshot: pod group object not found in state for "
         "podgroup/ns1/pg1" if _on
         else 'waiting for pods\'s pod group "pg1" to appear in scheduling queue'),
        ("gang pod fails PreEnqueue when quorum is not met" + _t, P1, [P2, P4, P5],
         [GANG1, GANG2], [], _on, QUORUM),
        ("gang pod passes PreEnqueue, but waits at Permit" + _t, P1, [P2, P3, P4, P5],
         [GANG1, GANG2], [], _on, None),
        ("final gang pod arrives at Permit and allows all waiting pods from a gang" + _t, P1,
         [P2, P3, P4, P5], [GANG1, GANG2], [], _on, None),
    ]
    _tree = CPGS if _on else []
    _ROWS += [
        ("CPG Hierarchical Stage 1: No pods, tree not ready" + _t, P1C, [], CPG_PGS, _tree, _on,
         ROOT if _on else None),
        ("CPG Hierarchical Stage 2: Add p6" + (", cpg-sub1 ready but root not ready" if _on else "")
         + _t, P6C, [P1C, P2C], CPG_PGS, _tree, _on, ROOT if _on else None),
        ("CPG Hierarchical Stage 3: Add p4" + (", root becomes ready" if _on else "") + _t, P4C,
         [P1C, P2C, P6C], CPG_PGS, _tree, _on, None),
        # pg-basic-2 has 1 of its 2 pods, yet its pod passes: only the tree's quorum counts.
        ("CPG Basic With Gang Stage 1: pg1 ready, root ready" + _t, P2_1, [P1_1, P1_2], BASIC_PGS,
         BASIC_ROOT if _on else [], _on, None if _on else QUORUM),
        ("CPG Permit Wait: Hierarchical gang waits at permit if gang isn't fully scheduled" + _t,
         P4C, [P1C, P2C, P6C], CPG_PGS, _tree, _on, None),
    ]


@pytest.mark.parametrize(
    ("pod", "others", "pgs", "cpgs", "cpg", "want"), [pytest.param(*r[1:], id=r[0]) for r in _ROWS]
)
def test_gang_scheduling_flow_pre_enqueue(
    pod: Obj, others: list[Obj], pgs: list[Obj], cpgs: list[Obj], cpg: bool, want: str | None
) -> None:
    features = SchedulerFeatures(enable_generic_workload=True, enable_composite_pod_group=cpg)
    informers = _Informers([], pgs, cpgs)
    cache = PodGroupCache(generic_workload=True, composite_pod_group=cpg)
    for pg in pgs:
        cache.add_pod_group(pg)
    for c in cpgs:
        cache.add_composite_pod_group(c)
    for p in [*others, pod]:
        cache.add_pod_group_member(p)
    plugin = GangScheduling(_Handle(_Ctx(informers), cache), features)  # type: ignore[arg-type]
    got = plugin.pre_enqueue(pod)
    if want is None:
        assert got.is_success()
    else:
        assert got == Status(UU, (want,), "GangScheduling")
