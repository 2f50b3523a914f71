"""Upstream's preemption helper tables against ``default_preemption_victims``.

Ported from pkg/scheduler/framework/preemption: ``TestMoreImportantVictim``,
``TestFilterVictimsWithPDBViolation`` and ``TestGetPodPriority`` (util_test.go),
``TestGetHighestAllAncestor`` (types_test.go) and ``TestGetVictimsOnNode``
(preemption_test.go; a node's victims are the units with a pod on it). The reference has no Victim type of its own:
a ``Unit`` is one, ``importance`` is MoreImportantVictim's order, and GetPodPriority and
getHighestAllAncestor are read off the units ``victim_units`` builds (a unit's priority;
its name is the pod's key, or the kind:key of its ``all`` ancestor). A nil PodGroup lister
is GenericWorkload off, a nil CompositePodGroup lister CompositePodGroup off.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.default_preemption_victims import (
    Unit,
    importance,
    pdb_violations,
    victim_units,
)

Obj = dict[str, Any]
NOW, BEFORE = "1970-01-01T00:16:40Z", "1970-01-01T00:08:20Z"  # Unix 1000 and 500


def _pod(
    name: str = "p",
    *,
    ns: str = "default",
    priority: int | None = None,
    pg: str | None = None,
    labels: dict[str, str] | None = None,
    start: str | None = None,
) -> Obj:
    pod = make_pod(name).build()
    pod["metadata"]["namespace"] = ns
    if labels:
        pod["metadata"]["labels"] = labels
    if priority is not None:
        pod["spec"]["priority"] = priority
    if pg is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    if start is not None:
        pod.setdefault("status", {})["startTime"] = start
    return pod


def _unit(kind: str, prio: int, n: int = 0, start: str | None = None, name: str = "u") -> Unit:
    pg = None if kind == "Pod" else "pg"
    pods = [PodInfo(_pod(f"{name}-{i}", pg=pg, start=start)) for i in range(n)]
    return Unit(name, prio, pods, None, kind)


PG, CPG, POD = "PodGroup", "CompositePodGroup", "Pod"
# (name, vi1, vi2, want)
_MORE = [
    ("vi1 has higher priority", _unit(POD, 20), _unit(POD, 10), True),
    ("vi2 has higher priority", _unit(POD, 10), _unit(POD, 20), False),
    ("vi1 is PG, vi2 is Pod, same priority", _unit(PG, 10, 1), _unit(POD, 10, 1), True),
    ("vi1 is Pod, vi2 is PG, same priority", _unit(POD, 10, 1), _unit(PG, 10, 1), False),
    ("both Pods, vi1 older", _unit(POD, 10, 1, BEFORE), _unit(POD, 10, 1, NOW), True),
    ("both Pods, vi2 older", _unit(POD, 10, 1, NOW), _unit(POD, 10, 1, BEFORE), False),
    ("both PGs, vi1 larger", _unit(PG, 10, 2), _unit(PG, 10, 1), True),
    ("both PGs, vi2 larger", _unit(PG, 10, 1), _unit(PG, 10, 2), False),
    ("both PGs, same size, vi1 older", _unit(PG, 10, 2, BEFORE), _unit(PG, 10, 2, NOW), True),
    ("both PGs, same size, vi2 older", _unit(PG, 10, 2, NOW), _unit(PG, 10, 2, BEFORE), False),
    ("CPG vs Pod, same priority (CPG wins)", _unit(CPG, 10, 1), _unit(POD, 10, 1), True),
    ("Pod vs CPG, same priority (CPG wins)", _unit(POD, 10, 1), _unit(CPG, 10, 1), False),
    ("CPG vs PG, same priority (CPG wins)", _unit(CPG, 10, 1), _unit(PG, 10, 1), True),
    ("PG vs CPG, same priority (CPG wins)", _unit(PG, 10, 1), _unit(CPG, 10, 1), False),
    ("CPG vs PG, PG higher priority (higher priority wins)", _unit(CPG, 10, 1),
     _unit(PG, 20, 1), False),
    ("PG vs CPG, PG higher priority (higher priority wins)", _unit(PG, 20, 1),
     _unit(CPG, 10, 1), True),
    ("CPG vs PG, CPG smaller size, same priority (CPG rank wins over size)", _unit(CPG, 10, 1),
     _unit(PG, 10, 2), True),
    ("CPG vs PG, CPG newer start time, same priority (CPG rank wins over start time)",
     _unit(CPG, 10, 1, NOW), _unit(PG, 10, 1, BEFORE), True),
    ("both CPGs, vi1 larger (larger size wins)", _unit(CPG, 10, 2), _unit(CPG, 10, 1), True),
    ("both CPGs, vi2 larger (larger size wins)", _unit(CPG, 10, 1), _unit(CPG, 10, 2), False),
    ("both CPGs, same size, vi1 older (earlier start time wins)", _unit(CPG, 10, 1, BEFORE),
     _unit(CPG, 10, 1, NOW), True),
    ("both CPGs, same size, vi2 older (earlier start time wins)", _unit(CPG, 10, 1, NOW),
     _unit(CPG, 10, 1, BEFORE), False),
]


@pytest.mark.parametrize(("vi1", "vi2", "want"), [pytest.param(*r[1:], id=r[0]) for r in _MORE])
def test_more_important_victim(vi1: Unit, vi2: Unit, want: bool) -> None:
    # The names are equal, so the reference's last tie-break cannot decide a row.
    assert (importance(vi1) < importance(vi2)) is want


def _pdb(selector: Obj | None, allowed: int, disrupted: tuple[str, ...] = ()) -> Obj:
    status: Obj = {"disruptionsAllowed": allowed}
    if disrupted:
        status["disruptedPods"] = dict.fromkeys(disrupted, NOW)
    return {
        "metadata": {"name": "pdb", "namespace": "default"},
        "spec": {"selector": selector},
        "status": status,
    }


def _vi(name: str, *pods: Obj) -> Unit:
    return Unit(name, 0, [PodInfo(p) for p in pods])


FOO = {"app": "foo"}
NO_MATCH = _vi("viNoPDBMatch", _pod("p1", ns="", labels=FOO))
MATCH = _vi("viMatchPDB", _pod("p1", labels=FOO))
MATCH2 = _vi("viMatchPDB2", _pod("p2", labels=FOO))
GROUP = _vi("viPodGroup", _pod("p1", labels=FOO), _pod("p2", labels=FOO))
MULTI = _vi("viMatchMultiplePDBs", _pod("p1", labels={"app": "foo", "tier": "backend"}))
APP_FOO = {"matchLabels": FOO}

# (name, victims, pdbs, violating name -> count)
_PDB_ROWS: list[tuple[str, list[Unit], list[Obj], dict[str, int]]] = [
    ("no victims, no PDBs", [], [], {}),
    ("victim with no matching PDBs", [NO_MATCH], [_pdb({"matchLabels": {"app": "bar"}}, 0)], {}),
    ("victim matching PDB, adequate DisruptionsAllowed", [MATCH], [_pdb(APP_FOO, 1)], {}),
    ("victim matching PDB, no DisruptionsAllowed", [MATCH], [_pdb(APP_FOO, 0)],
     {"viMatchPDB": 1}),
    ("podgroup victim with multiple pods, all violating", [GROUP], [_pdb(APP_FOO, 0)],
     {"viPodGroup": 2}),
    ("podgroup victim with multiple pods, none violating", [GROUP], [_pdb(APP_FOO, 2)], {}),
    ("multiple victims matching the same PDB", [MATCH, MATCH2], [_pdb(APP_FOO, 1)],
     {"viMatchPDB2": 1}),
    ("pod in DisruptedPods is ignored", [MATCH], [_pdb(APP_FOO, 0, ("p1",))], {}),
    ("PDB with empty selector", [MATCH], [_pdb({}, 0)], {}),
    ("Multiple PDBs", [MULTI], [_pdb(APP_FOO, 1), _pdb({"matchLabels": {"tier": "backend"}}, 0)],
     {"viMatchMultiplePDBs": 1}),
]


@pytest.mark.parametrize(
    ("victims", "pdbs", "want"), [pytest.param(*r[1:], id=r[0]) for r in _PDB_ROWS]
)
def test_filter_victims_with_pdb_violation(
    victims: list[Unit], pdbs: list[Obj], want: dict[str, int]
) -> None:
    got = pdb_violations(victims, pdbs)
    assert got == want
    # The non-violating victims are the rest, in the given order.
    assert [u.name for u in victims if u.name not in got] == [
        u.name for u in victims if u.name not in want
    ]


class _Informer:
    def __init__(self, objs: dict[str, Obj]) -> None:
        self._objs = objs

    def get(self, key: str) -> Obj | None:
        return self._objs.get(key)


class _Informers:
    """The PodGroup and CompositePodGroup listers, by name in namespace default."""

    def __init__(self, pgs: dict[str, Obj], cpgs: dict[str, Obj]) -> None:
        self._by_kind = {
            "PodGroup": _Informer({f"default/{k}": v for k, v in pgs.items()}),
            "CompositePodGroup": _Informer({f"default/{k}": v for k, v in cpgs.items()}),
        }

    def informer(self, api_version: str, kind: str) -> _Informer:
        return self._by_kind[kind]


def _group(name: str, priority: int | None = None, parent: str | None = None,
           mode: str | None = None) -> Obj:
    spec: Obj = {}
    if priority is not None:
        spec["priority"] = priority
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    if mode is not None:
        spec["disruptionMode"] = {mode: {}}
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _only_unit(pod: Obj, pgs: dict[str, Obj] | None, cpgs: dict[str, Obj] | None) -> Unit:
    ni = NodeInfo("node1")
    ni.add_pod(PodInfo(pod))
    units = victim_units(
        _Informers(pgs or {}, cpgs or {}),  # type: ignore[arg-type]
        [ni],
        2**31,
        workload=pgs is not None,
        composite=cpgs is not None,
    )
    assert len(units) == 1
    return units[0]


# (name, pod, PodGroups (None: no lister), CompositePodGroups (None: no lister), priority)
_PRIO_ROWS: list[tuple[str, Obj, dict[str, Obj] | None, dict[str, Obj] | None, int]] = [
    ("pod without PodGroup returns pod priority", _pod("p1", priority=10), None, None, 10),
    ("pod with PodGroup returns PodGroup priority instead of pod priority",
     _pod("p2", priority=10, pg="pg1"), {"pg1": _group("pg1", 50)}, None, 50),
    ("pod with PodGroup but nil PodGroupLister falls back to pod priority",
     _pod("p4", priority=20, pg="pg1"), None, None, 20),
    ("pod with PodGroup but PodGroup not found in lister falls back to pod priority",
     _pod("p5", priority=30, pg="missing-pg"), {}, None, 30),
    ("pod with nil priority and without PodGroup returns zero priority", _pod("p6"), None, None,
     0),
    ("pod with PodGroup and parent CPG, returns CPG priority", _pod("p7", priority=10, pg="pg1"),
     {"pg1": _group("pg1", parent="cpg1")}, {"cpg1": _group("cpg1", 150)}, 150),
    ("pod with PodGroup and grandparent CPG, returns grandparent CPG priority",
     _pod("p8", priority=10, pg="pg1"), {"pg1": _group("pg1", parent="cpg1")},
     {"cpg1": _group("cpg1", parent="cpg2"), "cpg2": _group("cpg2", 250)}, 250),
    ("pod with PodGroup and parent CPG, but nil compositePodGroupLister, falls back to "
     "PodGroup priority", _pod("p9", priority=10, pg="pg1"),
     {"pg1": _group("pg1", 50, "cpg1")}, None, 50),
    ("pod with PodGroup and parent CPG, but parent CPG not found in lister, falls back to "
     "PodGroup priority", _pod("p10", priority=10, pg="pg1"),
     {"pg1": _group("pg1", 50, "cpg1")}, {}, 50),
    ("pod with PodGroup, parent CPG and grandparent CPG, but grandparent CPG not found in "
     "lister, falls back to parent CPG priority", _pod("p11", priority=10, pg="pg1"),
     {"pg1": _group("pg1", 50, "cpg1")}, {"cpg1": _group("cpg1", 150, "missing-cpg2")}, 150),
    ("pod with PodGroup, but PodGroup not found in lister and non-nil "
     "compositePodGroupLister, falls back to pod priority",
     _pod("p12", priority=50, pg="missing-pg"), {}, {}, 50),
]


@pytest.mark.parametrize(
    ("pod", "pgs", "cpgs", "want"), [pytest.param(*r[1:], id=r[0]) for r in _PRIO_ROWS]
)
def test_get_pod_priority(
    pod: Obj, pgs: dict[str, Obj] | None, cpgs: dict[str, Obj] | None, want: int
) -> None:
    assert _only_unit(pod, pgs, cpgs).priority == want


_P1 = _pod("p1")
_P1G = _pod("p1", pg="pg1")
# (name, pod, PodGroups, CompositePodGroups (None: no lister), highest all key or None)
_ALL_ROWS: list[tuple[str, Obj, dict[str, Obj], dict[str, Obj] | None, str | None]] = [
    ("pod without group", _P1, {}, None, None),
    ("pod group missing from the lister", _P1G, {}, None, None),
    ("pod group disruption mode single", _P1G, {"pg1": _group("pg1", mode="single")}, None,
     None),
    ("pod group disruption mode All", _P1G, {"pg1": _group("pg1", mode="all")}, None,
     "PodGroup:default/pg1"),
    ("parent CPG disruption mode All, child PG disruption mode single", _P1G,
     {"pg1": _group("pg1", parent="cpg1", mode="single")}, {"cpg1": _group("cpg1", mode="all")},
     "CompositePodGroup:default/cpg1"),
    ("grandparent CPG disruption mode All, parent CPG disruption mode single, child PG "
     "disruption mode single", _P1G, {"pg1": _group("pg1", parent="cpg1", mode="single")},
     {"cpg1": _group("cpg1", parent="cpg2", mode="single"), "cpg2": _group("cpg2", mode="all")},
     "CompositePodGroup:default/cpg2"),
    ("highest All parent wins (both have disruption mode All)", _P1G,
     {"pg1": _group("pg1", parent="cpg1", mode="all")}, {"cpg1": _group("cpg1", mode="all")},
     "CompositePodGroup:default/cpg1"),
    ("pod group missing from cache lister", _P1G, {}, None, None),
    ("parent CPG missing from cache lister, child PG All returned", _P1G,
     {"pg1": _group("pg1", parent="cpg1", mode="all")}, {}, "PodGroup:default/pg1"),
]


@pytest.mark.parametrize(
    ("pod", "pgs", "cpgs", "want"), [pytest.param(*r[1:], id=r[0]) for r in _ALL_ROWS]
)
def test_get_highest_all_ancestor(
    pod: Obj, pgs: dict[str, Obj], cpgs: dict[str, Obj] | None, want: str | None
) -> None:
    unit = _only_unit(pod, pgs, cpgs)
    assert unit.name == (want or "default/p1")
    assert (unit.group is not None) is (want is not None)


def _gpod(name: str, node: str, prio: int, pg: str | None = None) -> Obj:
    pod = _pod(name, priority=prio, pg=pg)
    pod["spec"]["nodeName"] = node
    return pod


def _grp(name: str, prio: int, mode: str | None = None, parent: str | None = None) -> Obj:
    return _group(name, prio, parent, mode)


MID_, LOW_, HIGH_ = 100, 0, 1000
_TWO = [_gpod("p1", "node1", MID_), _gpod("p2", "node1", LOW_)]
_CPG_PGS = {"pg1": _grp("pg1", LOW_, parent="cpg1"), "pg2": _grp("pg2", LOW_, parent="cpg1")}
_CPG_PODS = [_gpod("p1", "node1", LOW_, "pg1"), _gpod("p2", "node2", LOW_, "pg2")]
# (name, pods, PodGroups (None: GenericWorkload off), CompositePodGroups (None: gate off),
#  victims on node1 as (priority, pod names, their nodes))
_ON_NODE: list[tuple[str, list[Obj], dict[str, Obj] | None, dict[str, Obj] | None,
                     set[tuple[int, str, str]]]] = [
    ("GenericWorkload disabled, two pods on target node", _TWO, None, None,
     {(MID_, "p1", "node1"), (LOW_, "p2", "node1")}),
    ("GenericWorkload enabled, pods with no PodGroup", _TWO, {}, None,
     {(MID_, "p1", "node1"), (LOW_, "p2", "node1")}),
    ("GenericWorkload enabled, pod belonging to PodGroup with disruptionMode All",
     [_gpod("p1", "node1", MID_, "pg1"), _gpod("p2", "node2", MID_, "pg1"),
      _gpod("p3", "node1", LOW_)], {"pg1": _grp("pg1", MID_, "all")}, None,
     {(MID_, "p1,p2", "node1,node2"), (LOW_, "p3", "node1")}),
    ("GenericWorkload enabled, pods belonging to PodGroup with disruptionMode Single",
     [_gpod("p1", "node1", LOW_, "pg1"), _gpod("p2", "node2", LOW_, "pg1"),
      _gpod("p3", "node1", LOW_, "pg1"), _gpod("p4", "node1", LOW_)],
     {"pg1": _grp("pg1", MID_, "single")}, None,
     {(MID_, "p1", "node1"), (MID_, "p3", "node1"), (LOW_, "p4", "node1")}),
    ("GenericWorkload enabled, mixed test with individual pods, PodGroup with DisruptionMode "
     "Single, and PodGroup with DisruptionMode All",
     [_gpod("p-all-1", "node1", HIGH_, "pg-all"), _gpod("p-all-2", "node2", HIGH_, "pg-all"),
      _gpod("p-single-1", "node1", LOW_, "pg-single"),
      _gpod("p-single-2", "node2", LOW_, "pg-single"), _gpod("p-ind", "node1", LOW_)],
     {"pg-all": _grp("pg-all", HIGH_, "all"), "pg-single": _grp("pg-single", MID_, "single")},
     None, {(HIGH_, "p-all-1,p-all-2", "node1,node2"), (MID_, "p-single-1", "node1"),
            (LOW_, "p-ind", "node1")}),
    ("CPG enabled, DisruptionModeAll on root CPG", _CPG_PODS, _CPG_PGS,
     {"cpg1": _grp("cpg1", MID_, "all")}, {(MID_, "p1,p2", "node1,node2")}),
    ("CPG enabled, DisruptionModeSingle on root CPG", _CPG_PODS, _CPG_PGS,
     {"cpg1": _grp("cpg1", MID_, "single")}, {(MID_, "p1", "node1")}),
    ("CPG disabled, fallback to PodGroup", _CPG_PODS,
     {"pg1": _grp("pg1", LOW_, "single", "cpg1"), "pg2": _grp("pg2", LOW_, "single", "cpg1")},
     None, {(LOW_, "p1", "node1")}),
]


@pytest.mark.parametrize(
    ("pods", "pgs", "cpgs", "want"), [pytest.param(*r[1:], id=r[0]) for r in _ON_NODE]
)
def test_get_victims_on_node(
    pods: list[Obj], pgs: dict[str, Obj] | None, cpgs: dict[str, Obj] | None,
    want: set[tuple[int, str, str]],
) -> None:
    nodes = {n: NodeInfo(n) for n in ("node1", "node2")}
    for p in pods:
        nodes[p["spec"]["nodeName"]].add_pod(PodInfo(p))
    units = victim_units(
        _Informers(pgs or {}, cpgs or {}),  # type: ignore[arg-type]
        nodes.values(),
        2**31,  # GetVictimsOnNode lists every pod; the priority check comes later
        workload=pgs is not None,
        composite=cpgs is not None,
    )
    got = {
        (u.priority, ",".join(sorted(p.pod["metadata"]["name"] for p in u.pods)),
         ",".join(sorted({p.node_name for p in u.pods})))
        for u in units if any(p.node_name == "node1" for p in u.pods)
    }
    assert got == want
