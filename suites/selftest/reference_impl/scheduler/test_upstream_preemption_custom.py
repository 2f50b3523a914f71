"""Upstream's DefaultPreemption hooks for out-of-tree variants, row by row.

Ported (plugins/defaultpreemption/default_preemption_test.go): ``TestCustomSelection``
(an ``IsEligiblePod`` hook narrows the victims; a group victim must be eligible on every
node it has a pod on) and ``TestCustomOrdering`` (a ``MoreImportantVictim`` hook orders the
reprieve). The reference plugin takes the hooks as ``is_eligible_pod`` and
``more_important_victim``. Each row's objects are created through the apiserver, PreFilter
runs on the preemptor, then every node is dry-run (``select_victims_on_node``), as
upstream's ``DryRunPreemption`` over these few nodes; candidates and victims are compared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.api import make_node, make_pod, make_pod_group
from reference_impl.api.gang_builders import make_composite_pod_group
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from reference_impl.scheduler.plugins.default_preemption_victims import Unit, importance
from suites.selftest.reference_impl.scheduler.conftest import make_harness

Obj = dict[str, Any]
LOW, MID, HIGH = 0, 100, 1000
SMALL, MEDIUM, LARGE = ("100m", "100"), ("200m", "200"), ("300m", "300")
EPOCH, EPOCH1, EPOCH2 = 0, 1, 2  # epochTime, epochTime1, epochTime2: whole seconds, in order
PG_GATES = {"GenericWorkload": True}
CPG_GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True,
             "CompositePodGroup": True}


def _pod(name: str, node: str | None, prio: int, req: tuple[str, str], pg: str = "",
         labels: dict[str, str] | None = None, start: int | None = None) -> Obj:
    b = make_pod(name).set("spec.priority", prio).req(cpu=req[0], memory=req[1])
    if node is not None:
        b = b.node(node)
    pod = b.build()
    pod["metadata"]["namespace"] = "default"
    if pg:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    if start is not None:
        pod["status"] = {"startTime": f"1970-01-01T00:00:0{start}Z"}
    return pod


def _pg(name: str, all_mode: bool = False, parent: str = "") -> Obj:
    pg = make_pod_group(name, "default", disruption="all" if all_mode else "")
    if parent:
        pg["spec"]["parentCompositePodGroupName"] = parent
        pg["spec"]["workloadRef"] = {"workloadName": "wl", "templateName": "member"}
        pg["spec"]["priority"] = LOW
    return pg


def _cpg(name: str) -> Obj:
    cpg = make_composite_pod_group(name, "default")
    cpg["spec"]["disruptionMode"] = {"all": {}}
    cpg["spec"]["priority"] = LOW
    return cpg


def _dry_run(gates: dict[str, bool], nodes: list[str], preemptor: Obj, pods: list[Obj],
             groups: list[Obj], setup: Callable[[DefaultPreemption], None],
             ) -> dict[str, list[str]]:
    """Node -> victim pod names (in the order chosen) of every candidate."""
    h = make_harness(gates=gates)
    for name in nodes:
        h.create(make_node(name).capacity(cpu="500m", memory="500", pods="32").build())
    h.create(*groups)
    for p in pods:
        start = (p.get("status") or {}).get("startTime")
        h.create({**p, "status": {}})
        if start:
            got = h.pod(p["metadata"]["name"])
            h.server.update_status({**got, "status": {**(got.get("status") or {}),
                                                     "startTime": start}})
    h.clock.settle()
    fw = h.scheduler.framework
    plugin = next(p for p in fw.post_filter if isinstance(p, DefaultPreemption))
    setup(plugin)
    lister = fw.snapshot_shared_lister()
    state = CycleState()
    _, st, _ = fw.run_pre_filter_plugins(state, preemptor, lister.node_infos())
    assert st.is_success()
    units = plugin._units(int(preemptor["spec"]["priority"]))  # noqa: SLF001 - the row's input
    out: dict[str, list[str]] = {}
    for ni in sorted(lister.node_infos(), key=lambda n: n.name):
        victims, _, status = plugin.select_victims_on_node(state, preemptor, ni, units)
        if status.is_success() and victims:
            out[ni.name] = [p.pod["metadata"]["name"] for u in victims for p in u.pods]
    return out


# -- TestCustomSelection ----------------------------------------------------------------

Eligible = Callable[[NodeInfo, Unit, Obj], bool]


def victim_labels_are_eligible(key: str, val: str) -> Eligible:
    def hook(ni: NodeInfo, victim: Unit, preemptor: Obj) -> bool:
        return all((p.pod["metadata"].get("labels") or {}).get(key) == val for p in victim.pods)
    return hook


def node_name_is_eligible(name: str) -> Eligible:
    def hook(ni: NodeInfo, victim: Unit, preemptor: Obj) -> bool:
        return ni.name == name
    return hook


def priority_below_threshold_cannot_preempt(min_preempting: int) -> Eligible:
    def hook(ni: NodeInfo, victim: Unit, preemptor: Obj) -> bool:
        return int(preemptor["spec"].get("priority") or 0) >= min_preempting
    return hook


def priority_above_threshold_cannot_be_preempted(max_preemptible: int) -> Eligible:
    def hook(ni: NodeInfo, victim: Unit, preemptor: Obj) -> bool:
        return victim.priority <= max_preemptible
    return hook


YES, NO = {"preemptible": "yes"}, {"preemptible": "no"}
N4, N3, N2 = ["node1", "node2", "node3", "node4"], ["node1", "node2", "node3"], ["node1", "node2"]


def _label_pods() -> list[Obj]:
    return [_pod("v1", "node1", MID, LARGE, labels=NO, start=EPOCH),
            _pod("v2", "node2", MID, LARGE, labels=YES, start=EPOCH),
            _pod("v3", "node3", LOW, LARGE, labels=YES, start=EPOCH),
            _pod("v4", "node4", LOW, LARGE, start=EPOCH)]


def _node_pods(first: tuple[str, str]) -> list[Obj]:
    return [_pod("v1", "node1", HIGH, first, start=EPOCH),
            _pod("v2", "node1", MID, SMALL, start=EPOCH),
            _pod("v3", "node1", LOW, SMALL, start=EPOCH),
            _pod("v4", "node2", MID, LARGE, start=EPOCH),
            _pod("v5", "node3", LOW, LARGE, start=EPOCH)]


def _prio_pods() -> list[Obj]:
    return [_pod("v1", "node1", HIGH, LARGE, start=EPOCH), _pod("v2", "node2", MID, LARGE, start=EPOCH),
            _pod("v3", "node3", LOW, LARGE, start=EPOCH)]


def _pre(name: str, prio: int) -> Obj:
    return _pod(name, None, prio, LARGE)


SELECTION = [
    ("filter for matching pod label: high priority", victim_labels_are_eligible("preemptible", "yes"),
     N4, _pre("p1", HIGH), _label_pods(), [], {}, {"node2": ["v2"], "node3": ["v3"]}),
    ("filter for matching pod label: mid priority", victim_labels_are_eligible("preemptible", "yes"),
     N4, _pre("p2", MID), _label_pods(), [], {}, {"node3": ["v3"]}),
    ("filter for matching pod label: low priority", victim_labels_are_eligible("preemptible", "yes"),
     N4, _pre("p3", LOW), _label_pods(), [], {}, {}),
    ("filter for matching victim node: high priority", node_name_is_eligible("node1"), N3,
     _pre("p3", HIGH), _node_pods(MEDIUM), [], {}, {"node1": ["v2", "v3"]}),
    ("filter for matching victim node: mid priority", node_name_is_eligible("node1"), N3,
     _pre("p3", MID), _node_pods(SMALL), [], {}, {"node1": ["v3"]}),
    ("filter for matching victim node: low priority", node_name_is_eligible("node1"), N3,
     _pre("p3", LOW), _node_pods(SMALL), [], {}, {}),
    ("only pods at or above specified priority can preempted: high priority",
     priority_below_threshold_cannot_preempt(HIGH), N3, _pre("p1", HIGH), _prio_pods(), [], {},
     {"node2": ["v2"], "node3": ["v3"]}),
    ("only pods at or above specified priority can preempted: mid priority",
     priority_below_threshold_cannot_preempt(HIGH), N3, _pre("p2", MID), _prio_pods(), [], {}, {}),
    ("only pods at or below specified priority can be preempted: high priority",
     priority_above_threshold_cannot_be_preempted(MID), N3, _pre("p1", HIGH), _prio_pods(), [], {},
     {"node2": ["v2"], "node3": ["v3"]}),
    ("filter for matching pod group: all affected nodes eligible",
     victim_labels_are_eligible("preemptible", "yes"), N2, _pre("p1", HIGH),
     [_pod("v1", "node1", LOW, LARGE, "pg1", YES, EPOCH),
      _pod("v2", "node2", LOW, LARGE, "pg1", YES, EPOCH)],
     [_pg("pg1", all_mode=True)], PG_GATES, {"node1": ["v1", "v2"], "node2": ["v1", "v2"]}),
    ("filter for matching pod group: one node ineligible rejects entire pod group",
     node_name_is_eligible("node1"), N2, _pre("p1", HIGH),
     [_pod("v1", "node1", LOW, SMALL, "pg1", start=EPOCH),
      _pod("v2", "node2", LOW, SMALL, "pg1", start=EPOCH),
      _pod("v3", "node1", MID, LARGE, start=EPOCH)],
     [_pg("pg1", all_mode=True)], PG_GATES, {"node1": ["v3"]}),
    ("filter for matching composite pod group: all affected nodes eligible",
     victim_labels_are_eligible("preemptible", "yes"), N2, _pre("p1", HIGH),
     [_pod("v1", "node1", LOW, LARGE, "pg1", YES, EPOCH),
      _pod("v2", "node2", LOW, LARGE, "pg2", YES, EPOCH)],
     [_cpg("cpg1"), _pg("pg1", parent="cpg1"), _pg("pg2", parent="cpg1")], CPG_GATES,
     {"node1": ["v1", "v2"], "node2": ["v1", "v2"]}),
    ("filter for matching composite pod group: one node ineligible rejects entire composite pod "
     "group", node_name_is_eligible("node1"), N2, _pre("p1", HIGH),
     [_pod("v1", "node1", LOW, SMALL, "pg1", start=EPOCH),
      _pod("v2", "node2", LOW, SMALL, "pg2", start=EPOCH),
      _pod("v3", "node1", MID, LARGE, start=EPOCH)],
     [_cpg("cpg1"), _pg("pg1", parent="cpg1"), _pg("pg2", parent="cpg1")], CPG_GATES,
     {"node1": ["v3"]}),
]


@pytest.mark.parametrize(
    ("hook", "nodes", "preemptor", "pods", "groups", "gates", "want"),
    [pytest.param(*r[1:], id=r[0]) for r in SELECTION],
)
def test_custom_selection(hook: Eligible, nodes: list[str], preemptor: Obj, pods: list[Obj],
                          groups: list[Obj], gates: dict[str, bool],
                          want: dict[str, list[str]]) -> None:
    def setup(pl: DefaultPreemption) -> None:
        pl.is_eligible_pod = hook

    got = _dry_run(gates, nodes, preemptor, pods, groups, setup)
    assert {n: sorted(v) for n, v in got.items()} == want


# -- TestCustomOrdering -----------------------------------------------------------------

More = Callable[[Unit, Unit], bool]


def _names(u: Unit) -> list[str]:
    return sorted(p.pod["metadata"]["name"] for p in u.pods)


def _default_more(a: Unit, b: Unit) -> bool:
    """``preemption.MoreImportantVictim``: the reference's ``importance`` order."""
    return importance(a) < importance(b)


def order_by_oldest_start_victim(a: Unit, b: Unit) -> bool:
    return a.start < b.start


def order_by_pod_name_victim(a: Unit, b: Unit) -> bool:
    return _names(a)[0] < _names(b)[0]


def order_by_standalone_over_pod_group_victim(a: Unit, b: Unit) -> bool:
    if (a.kind != "Pod") != (b.kind != "Pod"):
        return a.kind == "Pod"
    return _default_more(a, b)


def order_by_smaller_pod_group_over_larger_victim(a: Unit, b: Unit) -> bool:
    if a.kind != "Pod" and b.kind != "Pod" and len(a.pods) != len(b.pods):
        return len(a.pods) < len(b.pods)
    return _default_more(a, b)


def order_by_pod_group_name_victim(a: Unit, b: Unit) -> bool:
    if a.kind != "Pod" and b.kind != "Pod":
        first = min(a.pods, key=lambda p: p.pod["metadata"]["name"]).pod
        second = min(b.pods, key=lambda p: p.pod["metadata"]["name"]).pod
        pg1 = (first["spec"].get("schedulingGroup") or {}).get("podGroupName")
        pg2 = (second["spec"].get("schedulingGroup") or {}).get("podGroupName")
        if pg1 and pg2 and pg1 != pg2:
            return bool(pg1 < pg2)
    return _default_more(a, b)


P2 = _pre("p2", HIGH)
ORDERING = [
    ("select newest pods", order_by_oldest_start_victim, P2,
     [_pod("v1", "node1", LOW, MEDIUM, start=EPOCH2), _pod("v2", "node1", LOW, MEDIUM, start=EPOCH),
      _pod("v3", "node1", LOW, MEDIUM, start=EPOCH1)], [], PG_GATES, ["v3", "v1"]),
    ("select alphabetically-last pods", order_by_pod_name_victim, P2,
     [_pod("foo", "node1", LOW, MEDIUM, start=EPOCH), _pod("bar", "node1", LOW, MEDIUM, start=EPOCH),
      _pod("baz", "node1", MID, MEDIUM, start=EPOCH)], [], PG_GATES, ["baz", "foo"]),
    ("select pod group over standalone pod due to custom ordering",
     order_by_standalone_over_pod_group_victim, P2,
     [_pod("v1", "node1", LOW, MEDIUM, start=EPOCH), _pod("v2", "node1", LOW, SMALL, "pg1", start=EPOCH),
      _pod("v3", "node1", LOW, SMALL, "pg1", start=EPOCH)],
     [_pg("pg1", all_mode=True)], PG_GATES, ["v2", "v3"]),
    ("select larger pod group over smaller pod group due to custom ordering",
     order_by_smaller_pod_group_over_larger_victim, P2,
     [_pod("v1", "node1", LOW, SMALL, "pg-small", start=EPOCH),
      _pod("v2", "node1", LOW, SMALL, "pg-large", start=EPOCH),
      _pod("v3", "node1", LOW, SMALL, "pg-large", start=EPOCH)],
     [_pg("pg-small", all_mode=True), _pg("pg-large", all_mode=True)], PG_GATES, ["v2", "v3"]),
    ("select pod group by name alphabetically due to custom ordering",
     order_by_pod_group_name_victim, P2,
     [_pod("v1", "node1", LOW, MEDIUM, "pg-a", start=EPOCH1),
      _pod("v2", "node1", LOW, MEDIUM, "pg-z", start=EPOCH)],
     [_pg("pg-a", all_mode=True), _pg("pg-z", all_mode=True)], PG_GATES, ["v2"]),
    ("select composite pod group over standalone pod due to custom ordering",
     order_by_standalone_over_pod_group_victim, P2,
     [_pod("v1", "node1", LOW, MEDIUM, start=EPOCH), _pod("v2", "node1", LOW, SMALL, "pg1", start=EPOCH),
      _pod("v3", "node1", LOW, SMALL, "pg2", start=EPOCH)],
     [_cpg("cpg1"), _pg("pg1", parent="cpg1"), _pg("pg2", parent="cpg1")], CPG_GATES, ["v2", "v3"]),
    ("select larger composite pod group over smaller composite pod group due to custom ordering",
     order_by_smaller_pod_group_over_larger_victim, P2,
     [_pod("v1", "node1", LOW, SMALL, "pg-small", start=EPOCH),
      _pod("v2", "node1", LOW, SMALL, "pg-large1", start=EPOCH),
      _pod("v3", "node1", LOW, SMALL, "pg-large2", start=EPOCH)],
     [_cpg("cpg-small"), _cpg("cpg-large"), _pg("pg-small", parent="cpg-small"),
      _pg("pg-large1", parent="cpg-large"), _pg("pg-large2", parent="cpg-large")], CPG_GATES,
     ["v2", "v3"]),
]


@pytest.mark.parametrize(
    ("hook", "preemptor", "pods", "groups", "gates", "want"),
    [pytest.param(*r[1:], id=r[0]) for r in ORDERING],
)
def test_custom_ordering(hook: More, preemptor: Obj, pods: list[Obj], groups: list[Obj],
                         gates: dict[str, bool], want: list[str]) -> None:
    def setup(pl: DefaultPreemption) -> None:
        pl.more_important_victim = hook

    got = _dry_run(gates, ["node1"], preemptor, pods, groups, setup)
    assert list(got) == ["node1"]
    victims = got["node1"]
    if groups:  # upstream: the order within a group is indeterminate (map iteration)
        victims, want = sorted(victims), sorted(want)
    assert victims == want
