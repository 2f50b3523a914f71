"""Upstream's per-node victim selection, row by row, on the running default profile.

Ported: ``TestSelectVictimsOnNode`` (plugins/defaultpreemption/default_preemption_test.go).
Upstream registers NodeResourcesFit (plus InterPodAffinity or PodTopologySpread where a row
names them) and a no-op FakeFilter; the reference's default profile holds them all, and
nothing else in it rejects these pods. Each row's objects are created through the
apiserver, PreFilter runs on the preemptor, then ``select_victims_on_node`` on the main
node; the victims' pod names, their PDB violations and the status code are compared.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pdb, make_pod, make_pod_group
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from suites.selftest.reference_impl.scheduler.conftest import make_harness

Obj = dict[str, Any]
LOW, MID, HIGH, VERY_HIGH = 0, 100, 1000, 10000
SMALL, MEDIUM, LARGE = ("100m", "100"), ("200m", "200"), ("300m", "300")
LABEL_KEYS = ("hostname", "zone", "region")


def _pod(name: str, node: str | None, prio: int, req: tuple[str, str] | None = None,
         pg: str | None = None, labels: dict[str, str] | None = None) -> Obj:
    b = make_pod(name).set("spec.priority", prio)
    if req is not None:
        b = b.req(cpu=req[0], memory=req[1])
    if node is not None:
        b = b.node(node)
    pod = b.build()
    pod["metadata"]["namespace"] = "default"
    if pg is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    return pod


def _pg(name: str, prio: int, mode: str) -> Obj:
    pg = make_pod_group(name, "default", disruption=mode)
    pg["spec"]["priority"] = prio
    return pg


def _anti_affinity(pod: Obj) -> Obj:
    term = {"labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
            "topologyKey": "zone"}
    pod["spec"]["affinity"] = {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return pod


def _spread(pod: Obj) -> Obj:
    pod["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}}]
    return pod


FOO = {"app": "foo"}
PREEMPTOR = _pod("p", None, HIGH, LARGE)
# (name, nodes, main node, init pods, preemptor, PDBs allowing 0 disruptions of app=foo,
#  pod groups, GenericWorkload, expected victims, expected violations, expected code)
_ROWS: list[tuple[str, list[str], str, list[Obj], Obj, bool, list[Obj], bool, set[str], int,
                  Code]] = [
    ("Basic: Preempt single lower priority pod", ["node1"], "node1",
     [_pod("victim", "node1", LOW, LARGE)], PREEMPTOR, False, [], False, {"victim"}, 0,
     Code.SUCCESS),
    ("Priority: Prefer lower priority victim", ["node1"], "node1",
     [_pod("high-prio", "node1", HIGH, SMALL), _pod("mid-prio", "node1", MID, SMALL),
      _pod("low-prio", "node1", LOW, SMALL)], PREEMPTOR, False, [], False, {"low-prio"}, 0,
     Code.SUCCESS),
    ("PDB: Prefer non-violating victim with higher priority over violating victim with lower "
     "priority", ["node1"], "node1",
     [_pod("victim-pdb", "node1", LOW, MEDIUM, labels=FOO),
      _pod("victim-no-pdb", "node1", MID, MEDIUM)], PREEMPTOR, True, [], False,
     {"victim-no-pdb"}, 0, Code.SUCCESS),
    ("PDB: Prefer lower prioirity pod for preemption, when preemption without pdb violation is "
     "not possible", ["node1"], "node1",
     [_pod("v1", "node1", LOW, MEDIUM, labels=FOO), _pod("v2", "node1", MID, MEDIUM, labels=FOO)],
     PREEMPTOR, True, [], False, {"v1"}, 1, Code.SUCCESS),
    ("Workload Aware: Atomic preemption of PodGroup", ["node1"], "node1",
     [_pod("g1-1", "node1", LOW, SMALL, "pg1"), _pod("g1-2", "node1", LOW, MEDIUM, "pg1")],
     PREEMPTOR, False, [_pg("pg1", LOW, "all")], True, {"g1-1", "g1-2"}, 0, Code.SUCCESS),
    ("Workload Aware: prefer single pod over podGroup for preemption candidate", ["node1"],
     "node1",
     [_pod("p1", "node1", LOW, SMALL), _pod("g1-1", "node1", LOW, SMALL, "pg1"),
      _pod("g1-2", "node1", LOW, SMALL, "pg1")], PREEMPTOR, False, [_pg("pg1", LOW, "all")],
     True, {"p1"}, 0, Code.SUCCESS),
    ("Workload Aware: preempt lower priority pod group instead of higher priority single pod",
     ["node1"], "node1",
     [_pod("p1", "node1", HIGH, MEDIUM), _pod("g1-1", "node1", LOW, MEDIUM, "pg1")],
     _pod("p", None, VERY_HIGH, LARGE), False, [_pg("pg1", LOW, "all")], True, {"g1-1"}, 0,
     Code.SUCCESS),
    ("Workload Aware: preempt lower priority single pod instead of higher priority pod group",
     ["node1"], "node1",
     [_pod("p1", "node1", LOW, MEDIUM), _pod("g1-1", "node1", HIGH, MEDIUM, "pg1")],
     _pod("p", None, VERY_HIGH, LARGE), False, [_pg("pg1", HIGH, "all")], True, {"p1"}, 0,
     Code.SUCCESS),
    ("Workload Aware: PDB: PodGroup as victim with 2 PDB violations", ["node1"], "node1",
     [_pod("g1-1", "node1", LOW, MEDIUM, "pg1", FOO), _pod("g1-2", "node1", LOW, MEDIUM, "pg1", FOO)],
     PREEMPTOR, True, [_pg("pg1", LOW, "all")], True, {"g1-1", "g1-2"}, 2, Code.SUCCESS),
    ("Workload Aware: PDB: Prefer non-violating PodGroup over lower-priority violating PodGroup "
     "(DisruptionModeAll)", ["node1"], "node1",
     [_pod("g1-1", "node1", LOW, MEDIUM, "pg-violating", FOO),
      _pod("g2-1", "node1", MID, MEDIUM, "pg-non-violating")], PREEMPTOR, True,
     [_pg("pg-violating", LOW, "all"), _pg("pg-non-violating", MID, "all")], True, {"g2-1"}, 0,
     Code.SUCCESS),
    ("Workload Aware: PDB: Prefer non-violating PodGroup over lower-priority violating PodGroup "
     "(DisruptionModeSingle)", ["node1"], "node1",
     [_pod("g1-1", "node1", LOW, MEDIUM, "pg-violating", FOO),
      _pod("g2-1", "node1", MID, MEDIUM, "pg-non-violating")], PREEMPTOR, True,
     [_pg("pg-violating", LOW, "single"), _pg("pg-non-violating", MID, "single")], True,
     {"g2-1"}, 0, Code.SUCCESS),
    ("Failure: Cannot preempt the victim with higher priority", ["node1"], "node1",
     [_pod("victim", "node1", HIGH)], _pod("p", None, MID), False, [], False, set(), 0,
     Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    ("Failure: Cannot preempt if node is empty", ["node1"], "node1", [], _pod("p", None, MID),
     False, [], False, set(), 0, Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    ("Cross-node PodGroup: zone anti-affinity blocks reprieve via PreFilterExtension on node-a",
     ["node-a/zone1", "node-b/zone1"], "node-a",
     [_pod("pod-x", "node-a", LOW, pg="pg1"), _pod("pod-y", "node-b", LOW, pg="pg1",
                                                   labels={"foo": ""})],
     _anti_affinity(_pod("p", None, HIGH)), False, [_pg("pg1", LOW, "all")], True,
     {"pod-x", "pod-y"}, 0, Code.SUCCESS),
    ("Cross-node PodGroup: zone anti-affinity blocks reprieve via PreFilterExtension on node-b",
     ["node-a/zone1", "node-b/zone1"], "node-b",
     [_pod("pod-x", "node-a", LOW, pg="pg1"), _pod("pod-y", "node-b", LOW, pg="pg1",
                                                   labels={"foo": ""})],
     _anti_affinity(_pod("p", None, HIGH)), False, [_pg("pg1", LOW, "all")], True,
     {"pod-x", "pod-y"}, 0, Code.SUCCESS),
    ("Cross-node PodGroup: zone anti-affinity reprieve succeeds when remote pod lacks "
     "constraint label (negative control)", ["node-a/zone1", "node-b/zone1"], "node-a",
     [_pod("pod-x", "node-a", LOW, pg="pg1"), _pod("pod-y", "node-b", LOW, pg="pg1")],
     _anti_affinity(_pod("p", None, HIGH)), False, [_pg("pg1", LOW, "all")], True, set(), 0,
     Code.SUCCESS),
    ("Cross-node PodGroup: topology spread blocks reprieve via PreFilterExtension on node-a",
     ["node-a/zone1", "node-b/zone1", "node-c/zone2"], "node-a",
     [_pod("pod-a", "node-a", LOW, pg="pg1", labels={"foo": ""}),
      _pod("pod-b", "node-b", LOW, pg="pg1", labels={"foo": ""}),
      _pod("pod-c", "node-c", VERY_HIGH, labels={"foo": ""})],
     _spread(_pod("p", None, HIGH, labels={"foo": ""})), False, [_pg("pg1", LOW, "all")], True,
     {"pod-a", "pod-b"}, 0, Code.SUCCESS),
    ("Cross-node PodGroup: topology spread blocks reprieve via PreFilterExtension on node-c",
     ["node-a/zone1", "node-b/zone1", "node-c/zone2"], "node-c",
     [_pod("pod-a", "node-a", LOW, pg="pg1", labels={"foo": ""}),
      _pod("pod-b", "node-b", LOW, pg="pg1", labels={"foo": ""}),
      _pod("pod-c", "node-c", VERY_HIGH, labels={"foo": ""})],
     _spread(_pod("p", None, HIGH, labels={"foo": ""})), False, [_pg("pg1", LOW, "all")], True,
     set(), 0, Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    ("Cross-node PodGroup: whole pod group across multiple nodes expected to be preempted",
     ["node-a", "node-b"], "node-a",
     [_pod("pod-a", "node-a", LOW, LARGE, "pg1"), _pod("pod-b", "node-b", LOW, LARGE, "pg1")],
     PREEMPTOR, False, [_pg("pg1", LOW, "all")], True, {"pod-a", "pod-b"}, 0, Code.SUCCESS),
]


@pytest.mark.parametrize(
    ("nodes", "main", "pods", "preemptor", "pdb", "pgs", "workload", "want", "violations",
     "code"),
    [pytest.param(*r[1:], id=r[0]) for r in _ROWS],
)
def test_select_victims_on_node(
    nodes: list[str], main: str, pods: list[Obj], preemptor: Obj, pdb: bool, pgs: list[Obj],
    workload: bool, want: set[str], violations: int, code: Code,
) -> None:
    h = make_harness(gates={"GenericWorkload": workload})
    for spec in nodes:
        parts = spec.split("/")
        b = make_node(parts[0]).capacity(cpu="500m", memory="500", pods="32")
        for key, value in zip(LABEL_KEYS, parts, strict=False):
            b = b.label(key, value)
        h.create(b.build())
    h.create(*pgs)
    if pdb:
        h.create(make_pdb("pdb", "default", FOO))
        pdb_obj = h.server.get("policy/v1", "PodDisruptionBudget", "pdb", "default")
        h.server.update_status({**pdb_obj, "status": {**(pdb_obj.get("status") or {}),
                                                     "disruptionsAllowed": 0}})
    h.create(*pods)
    fw = h.scheduler.framework
    plugin = next(p for p in fw.post_filter if isinstance(p, DefaultPreemption))
    lister = fw.snapshot_shared_lister()
    state = CycleState()
    _, status, _ = fw.run_pre_filter_plugins(state, preemptor, lister.node_infos())
    assert status.is_success()
    ni = lister.get(main)
    assert ni is not None
    units = plugin._units(int(preemptor["spec"]["priority"]))  # noqa: SLF001 - the row's input
    victims, got_violations, got = plugin.select_victims_on_node(state, preemptor, ni, units)
    assert got.code is code
    if code is Code.SUCCESS:
        assert {p.pod["metadata"]["name"] for u in victims for p in u.pods} == want
        assert got_violations == violations
