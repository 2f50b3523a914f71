"""Upstream's DefaultPreemption dry run, row by row.

Ported: ``TestDryRunPreemption`` (plugins/defaultpreemption/default_preemption_test.go):
the candidate nodes of one preemptor, each with its victims (by name) and PDB violations.
The reference dry-runs every node (upstream's candidate limits only bite with more nodes
than these rows have), so the candidates are the nodes ``select_victims_on_node`` finds
victims on. Upstream counts Filter calls through a fake plugin; the reference has no such
hook, so those counts are not compared. Start times ``epochTime1..6`` (nanoseconds) become
whole seconds, in the same order.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pdb, make_pod
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from suites.selftest.reference_impl.scheduler.conftest import make_harness

Obj = dict[str, Any]
LOW, MID, HIGH = 0, 100, 1000
SMALL, MEDIUM, LARGE, VERY_LARGE = ("100m", "100"), ("200m", "200"), ("300m", "300"), ("500m", "500")
LABEL_KEYS = ("hostname", "zone", "region")
FOO = {"foo": ""}


def _pod(name: str, node: str | None, prio: int, req: tuple[str, str] | None = None,
         labels: dict[str, str] | None = None, start: int | None = None) -> Obj:
    b = make_pod(name).set("spec.priority", prio)
    if req is not None:
        b = b.req(cpu=req[0], memory=req[1])
    if node is not None:
        b = b.node(node)
    pod = b.build()
    pod["metadata"]["namespace"] = "default"
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    if start is not None:
        pod["status"] = {"startTime": f"1970-01-01T00:00:0{start}Z"}
    return pod


def _exists(key: str) -> Obj:
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


def _anti_affinity(pod: Obj) -> Obj:
    term = {"labelSelector": _exists("foo"), "topologyKey": "hostname"}
    pod["spec"]["affinity"] = {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return pod


def _spread(pod: Obj) -> Obj:
    pod["spec"]["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": _exists("foo")} for key in ("zone", "hostname")]
    return pod


P_LARGE = _pod("p", None, HIGH, LARGE)
P_VERY_LARGE = _pod("p", None, HIGH, VERY_LARGE)
APP = {"app": "foo"}
_PDB_PODS = [_pod(f"p1.{i}", "node1", MID, MEDIUM, APP) for i in (1, 2, 3)]
# (name, nodes, preemptor, init pods, PDB (allowed, disruptedPods) or None,
#  candidates: node -> (victim names, PDB violations))
_ROWS: list[tuple[str, list[str], Obj, list[Obj], tuple[int, list[str]] | None,
                  dict[str, tuple[list[str], int]]]] = [
    ("a pod that fits on both nodes when lower priority pods are preempted", ["node1", "node2"],
     P_LARGE, [_pod("p1", "node1", MID, LARGE), _pod("p2", "node2", MID, LARGE)], None,
     {"node1": (["p1"], 0), "node2": (["p2"], 0)}),
    ("a pod that would fit on the nodes, but other pods running are higher priority, no "
     "preemption would happen", ["node1", "node2"], _pod("p", None, LOW, LARGE),
     [_pod("p1", "node1", MID, LARGE), _pod("p2", "node2", MID, LARGE)], None, {}),
    ("medium priority pod is preempted, but lower priority one stays as it is small",
     ["node1", "node2"], P_LARGE,
     [_pod("p1.1", "node1", LOW, SMALL), _pod("p1.2", "node1", MID, LARGE),
      _pod("p2", "node2", MID, LARGE)], None, {"node1": (["p1.2"], 0), "node2": (["p2"], 0)}),
    ("mixed priority pods are preempted", ["node1", "node2"], P_LARGE,
     [_pod("p1.1", "node1", MID, SMALL), _pod("p1.2", "node1", LOW, SMALL),
      _pod("p1.3", "node1", MID, MEDIUM), _pod("p1.4", "node1", HIGH, SMALL),
      _pod("p2", "node2", HIGH, LARGE)], None, {"node1": (["p1.2", "p1.3"], 0)}),
    ("mixed priority pods are preempted, pick later StartTime one when priorities are equal",
     ["node1", "node2"], P_LARGE,
     [_pod("p1.1", "node1", LOW, SMALL, start=5), _pod("p1.2", "node1", LOW, SMALL, start=4),
      _pod("p1.3", "node1", MID, MEDIUM, start=3), _pod("p1.4", "node1", HIGH, SMALL, start=2),
      _pod("p2", "node2", HIGH, LARGE, start=1)], None, {"node1": (["p1.1", "p1.3"], 0)}),
    ("pod with anti-affinity is preempted", ["node1", "node2"],
     _pod("p", None, HIGH, SMALL, FOO),
     [_anti_affinity(_pod("p1.1", "node1", LOW, SMALL, FOO)), _pod("p1.2", "node1", MID, SMALL),
      _pod("p1.3", "node1", HIGH, SMALL), _pod("p2", "node2", HIGH, SMALL)], None,
     {"node1": (["p1.1"], 0)}),
    ("preemption to resolve pod topology spread filter failure",
     ["node-a/zone1", "node-b/zone1", "node-x/zone2"], _spread(_pod("p", None, HIGH, None, FOO)),
     [_pod("pod-a1", "node-a", MID, None, FOO), _pod("pod-a2", "node-a", LOW, None, FOO),
      _pod("pod-b1", "node-b", LOW, None, FOO), _pod("pod-x1", "node-x", HIGH, None, FOO),
      _pod("pod-x2", "node-x", HIGH, None, FOO)], None,
     {"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)}),
    ("preemption with violation of same pdb", ["node1"], P_VERY_LARGE, _PDB_PODS[:2], (1, []),
     {"node1": (["p1.1", "p1.2"], 1)}),
    ("preemption with violation of the pdb with pod whose eviction was processed, the victim "
     "doesn't belong to DisruptedPods", ["node1"], P_VERY_LARGE, _PDB_PODS[:2], (1, ["p2"]),
     {"node1": (["p1.1", "p1.2"], 1)}),
    ("preemption with violation of the pdb with pod whose eviction was processed, the victim "
     "belongs to DisruptedPods", ["node1"], P_VERY_LARGE, _PDB_PODS[:2], (1, ["p1.2"]),
     {"node1": (["p1.1", "p1.2"], 0)}),
    ("preemption with violation of the pdb with pod whose eviction was processed, the victim "
     "which belongs to DisruptedPods is treated as 'nonViolating'", ["node1"], P_VERY_LARGE,
     _PDB_PODS, (1, ["p1.3"]), {"node1": (["p1.1", "p1.2", "p1.3"], 1)}),
]
_FAKE = "needs upstream's fake Filter plugins (False/True/Match/FakeFilter), not in the registry"
_ARGS = "DefaultPreemptionArgs' candidate limits are not modelled: every node is dry-run"
_DRA = "NodeAllocatableResourceClaimStatuses (DRANodeAllocatableResources) are not modelled"
_SKIPPED = [
    pytest.param([], P_LARGE, [], None, {}, id=name, marks=pytest.mark.skip(reason=why))
    for name, why in (
        ("a pod that does not fit on any node", _FAKE),
        ("a pod that fits with no preemption", _FAKE),
        ("a pod that fits on one node with no preemption", _FAKE),
        ("get Unschedulable in the preemption phase when the filter plugins filtering the nodes",
         _FAKE),
        ("all nodes are possible candidates, but DefaultPreemptionArgs limits to 2", _ARGS),
        ("some nodes are not possible candidates, DefaultPreemptionArgs limits to 2", _ARGS),
        ("preemption offset across multiple scheduling cycles and wrap around", _ARGS),
        ("preemption looks past numCandidates until a non-PDB violating node is found", _ARGS),
        ("Preemption with DRA Node Allocatable: victim pod has DRA, preemptor does not", _DRA),
        ("Preemption with DRA Node Allocatable: victim pod has DRA but feature gate is disabled",
         _DRA),
        ("Preemption with DRA Node Allocatable: two victims, one with DRA is evicted, standard "
         "one is reprieved", _DRA),
    )
]


@pytest.mark.parametrize(
    ("nodes", "preemptor", "pods", "pdb", "want"),
    [pytest.param(*r[1:], id=r[0]) for r in _ROWS] + _SKIPPED,
)
def test_dry_run_preemption(
    nodes: list[str], preemptor: Obj, pods: list[Obj], pdb: tuple[int, list[str]] | None,
    want: dict[str, tuple[list[str], int]],
) -> None:
    h = make_harness()
    for spec in nodes:
        parts = spec.split("/")
        b = make_node(parts[0]).capacity(cpu=VERY_LARGE[0], memory=VERY_LARGE[1], pods="32")
        for key, value in zip(LABEL_KEYS, parts, strict=False):
            b = b.label(key, value)
        h.create(b.build())
    if pdb is not None:
        h.create(make_pdb("pdb", "default", APP))
        obj = h.server.get("policy/v1", "PodDisruptionBudget", "pdb", "default")
        status: Obj = {"disruptionsAllowed": pdb[0]}
        if pdb[1]:
            status["disruptedPods"] = dict.fromkeys(pdb[1], "2026-09-01T00:00:00Z")
        h.server.update_status({**obj, "status": {**(obj.get("status") or {}), **status}})
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
    lister = fw.snapshot_shared_lister()
    state = CycleState()
    _, st, _ = fw.run_pre_filter_plugins(state, preemptor, lister.node_infos())
    assert st.is_success()
    units = plugin._units(int(preemptor["spec"]["priority"]))  # noqa: SLF001 - the row's input
    got_candidates: dict[str, tuple[list[str], int]] = {}
    for ni in sorted(lister.node_infos(), key=lambda n: n.name):
        victims, violations, status_ = plugin.select_victims_on_node(state, preemptor, ni, units)
        if status_.is_success() and victims:
            names = sorted(p.pod["metadata"]["name"] for u in victims for p in u.pods)
            got_candidates[ni.name] = (names, violations)
    assert got_candidates == want
