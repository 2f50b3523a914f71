"""Upstream's DefaultPreemption PostFilter table, row by row.

Ported: ``TestPostFilter`` (plugins/defaultpreemption/default_preemption_test.go). Each
row's nodes, bound pods and PDBs are created through the apiserver of a scheduler-only
control plane; PreFilter runs on the preemptor, then the plugin's ``post_filter`` with the
row's filtered-node statuses. The status (code and message) and the nominated node are
compared. Upstream runs each row with async API calls on and off; the reference binds and
evicts synchronously, so each row runs once.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pdb, make_pod
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import NodeToStatus
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from suites.selftest.reference_impl.scheduler.conftest import Harness, make_harness

Obj = dict[str, Any]
LOW, MID, HIGH, VERY_HIGH = 0, 100, 1000, 10000
ONE_POD = {"pods": "1", "cpu": "0", "memory": "0"}
NODE_RES = {"cpu": "200m", "memory": "400", "pods": "32"}
LARGE_RES = {"cpu": "300m", "memory": "300", "pods": "32"}
SMALL_NODE = {"cpu": "200m", "memory": "200", "pods": "32"}
PDB_KEY = "test.kubernetes.io/is-violating-pdb"
U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
RESIZE_GATE = {"InPlacePodVerticalScalingSchedulerPreemption": True}
DEFERRED = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}


def _pod(name: str, node: str | None = None, prio: int | None = None,
         req: tuple[str, str] | None = None, labels: dict[str, str] | None = None,
         pg: str | None = None) -> Obj:
    b = make_pod(name)
    if prio is not None:
        b = b.set("spec.priority", prio)
    if req is not None:
        b = b.req(cpu=req[0], memory=req[1])
    if node is not None:
        b = b.node(node)
    pod = b.build()
    pod["metadata"]["namespace"] = "default"
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    if pg is not None:
        pod["spec"]["schedulingGroup"] = {"podGroupName": pg}
    return pod


def _ok(node: str, n: int = 1) -> str:
    return f"preemption: found a potential placement for pod on node {node}, preempting {n} victims"


# (name, preemptor, bound pods, nodes (name -> capacity), PDBs (label value, allowed),
#  statuses of the filtered nodes (the others are UnschedulableAndUnresolvable), gates,
#  wanted nominated node (None: no result), wanted code, wanted message)
_Row = tuple[str, Obj, list[Obj], dict[str, dict[str, str]], list[tuple[str, int]],
             dict[str, Code], dict[str, bool], str | None, Code, str]
_ROWS: list[_Row] = [
    ("pod with higher priority can be made schedulable", _pod("p", prio=HIGH),
     [_pod("p1", "node1")], {"node1": ONE_POD}, [], {"node1": U}, {}, "node1", Code.SUCCESS,
     _ok("node1")),
    ("pod with tied priority is still unschedulable", _pod("p"), [_pod("p1", "node1")],
     {"node1": ONE_POD}, [], {"node1": U}, {}, "", U,
     "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."),
    ("preemption should respect filteredNodesStatuses", _pod("p", prio=HIGH),
     [_pod("p1", "node1")], {"node1": ONE_POD}, [], {"node1": UU}, {}, "", U,
     "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ("preemption should respect absent NodeToStatusReader entry meaning "
     "UnschedulableAndUnresolvable", _pod("p", prio=HIGH), [_pod("p1", "node1")],
     {"node1": ONE_POD}, [], {}, {}, "", U,
     "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ("pod can be made schedulable on one node", _pod("p", prio=MID),
     [_pod("p1", "node1", HIGH), _pod("p2", "node2", LOW)],
     {"node1": ONE_POD, "node2": ONE_POD}, [], {"node1": U, "node2": U}, {}, "node2",
     Code.SUCCESS, _ok("node2")),
    ("pod can be made schedulable on minHighestPriority node", _pod("p", prio=VERY_HIGH),
     [_pod("p1", "node1", HIGH, labels={PDB_KEY: "non-violating"}),
      _pod("p2", "node1", LOW, labels={PDB_KEY: "violating"}),
      _pod("p3", "node2", MID, labels={PDB_KEY: "violating"})],
     {"node1": ONE_POD, "node2": ONE_POD}, [("violating", 0), ("non-violating", 2**31 - 1)],
     {"node1": U, "node2": U}, {}, "node2", Code.SUCCESS, _ok("node2")),
    ("no candidate nodes found, no enough resource after removing low priority pods",
     _pod("p", prio=HIGH, req=("300m", "300")), [_pod("p1", "node1"), _pod("p2", "node2")],
     {"node1": NODE_RES, "node2": NODE_RES}, [], {"node1": U, "node2": U}, {}, "", U,
     "preemption: 0/2 nodes are available: 2 Insufficient cpu."),
    ("no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU "
     "resource", _pod("p", prio=HIGH, req=("300m", "300")),
     [_pod("p1", "node1", HIGH), _pod("p2", "node2"), _pod("p3", "node3", HIGH)],
     {"node1": ONE_POD, "node2": NODE_RES, "node3": ONE_POD}, [],
     {"node1": U, "node2": U, "node3": U}, {}, "", U,
     "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found "
     "for incoming pod."),
    ("no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 "
     "nodes don't have enough CPU resource", _pod("p", prio=HIGH, req=("300m", "300")),
     [_pod("p1", "node1"), _pod("p2", "node2")],
     {"node1": NODE_RES, "node2": NODE_RES, "node3": NODE_RES, "node4": NODE_RES}, [],
     {"node1": U, "node2": U, "node4": UU}, {}, "", U,
     "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful "
     "for scheduling."),
    ("pod with SchedulingGroup with GenericWorkload and TAS disabled should preempt",
     _pod("p-with-podgroup", prio=HIGH, pg="foo"), [_pod("p1", "node1")], {"node1": ONE_POD},
     [], {"node1": U}, {"GenericWorkload": False, "TopologyAwareWorkloadScheduling": False},
     "node1", Code.SUCCESS, _ok("node1")),
    ("deferred pod resize preemption success (mitigates double counting)",
     _pod("p", "node1", HIGH, ("200m", "200")), [_pod("p1", "node1", LOW, ("100m", "100"))],
     {"node1": SMALL_NODE}, [], {"node1": U}, RESIZE_GATE, "node1", Code.SUCCESS,
     _ok("node1")),
    ("deferred pod resize preemption fails because victim search is isolated to host node",
     _pod("p", "node1", HIGH, ("200m", "200")), [_pod("p2", "node2", LOW, ("100m", "100"))],
     {"node1": SMALL_NODE, "node2": SMALL_NODE}, [], {"node1": U}, RESIZE_GATE, "", U,
     "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 "
     "Preemption is not helpful for scheduling."),
]
_NONE: tuple[Any, ...] = (_pod("p"), [], {}, [], {}, {}, None, U, "")  # the skipped rows' values
_SKIPPED = [
    pytest.param(*_NONE, id="preemption result filtered out by extenders",
                 marks=pytest.mark.skip(reason="the reference has no scheduler extenders")),
    pytest.param(*_NONE, id="only one node but failed with TestPlugin", marks=pytest.mark.skip(
        reason="no PreFilterExtension RemovePod: the reference recomputes PreFilter state")),
    pytest.param(*_NONE, id="one failed with TestPlugin and the other pass", marks=pytest.mark.skip(
        reason="no PreFilterExtension RemovePod: the reference recomputes PreFilter state")),
    pytest.param(*_NONE, id="deferred pod resize preemption success (bypasses skipped filter plugins)",
                 marks=pytest.mark.skip(
                     reason="needs a custom Filter plugin the registry cannot take")),
]


def _setup(h: Harness, pod: Obj, pods: list[Obj], nodes: dict[str, dict[str, str]],
           pdbs: list[tuple[str, int]]) -> Obj:
    for name, cap in nodes.items():
        h.create(make_node(name).capacity(**cap).build())
    for value, allowed in pdbs:
        h.create(make_pdb(f"{value}-pdb", "default", {PDB_KEY: value}))
        got = h.server.get("policy/v1", "PodDisruptionBudget", f"{value}-pdb", "default")
        h.server.update_status({**got, "status": {**(got.get("status") or {}),
                                                 "disruptionsAllowed": allowed}})
    if pod["spec"].get("nodeName"):
        # A deferred resize: bound with its old requests allocated, the new ones pending.
        h.create(pod)
        got = h.pod(pod["metadata"]["name"])
        c = got["spec"]["containers"][0]
        old = {"cpu": "100m", "memory": "100"}
        h.server.update_status({**got, "status": {
            **(got.get("status") or {}), "conditions": [dict(DEFERRED)],
            "containerStatuses": [{"name": c["name"], "allocatedResources": old,
                                   "resources": {"requests": old}}]}})
        h.clock.settle()
        pod = h.pod(pod["metadata"]["name"])
    h.create(*pods)
    return pod


@pytest.mark.parametrize(
    ("pod", "pods", "nodes", "pdbs", "filtered", "gates", "want_node", "code", "message"),
    [pytest.param(*r[1:], id=r[0]) for r in _ROWS] + _SKIPPED,
)
def test_post_filter(
    pod: Obj, pods: list[Obj], nodes: dict[str, dict[str, str]], pdbs: list[tuple[str, int]],
    filtered: dict[str, Code], gates: dict[str, bool], want_node: str | None, code: Code,
    message: str,
) -> None:
    h = make_harness(gates=gates)
    pod = _setup(h, pod, pods, nodes, pdbs)
    fw = h.scheduler.framework
    plugin = next(p for p in fw.post_filter if isinstance(p, DefaultPreemption))
    state = CycleState()
    _, status, _ = fw.run_pre_filter_plugins(state, pod, fw.snapshot_shared_lister().node_infos())
    assert status.is_success()
    statuses = NodeToStatus()
    for name, c in filtered.items():
        statuses.set(name, Status(c))
    result, got = plugin.post_filter(state, pod, statuses)
    assert (got.code, got.reasons) == (code, (message,))
    assert (result.nominated_node_name if result is not None else None) == want_node
