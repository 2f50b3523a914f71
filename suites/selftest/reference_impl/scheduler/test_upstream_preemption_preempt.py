"""Upstream's end-to-end single-pod preemption table, row by row.

Ported: ``TestPreempt`` (plugins/defaultpreemption/default_preemption_test.go): every node
Unschedulable for the preemptor, the plugin picks a node, marks each victim with
DisruptionTarget (reason PreemptionByScheduler, message "<scheduler>: preempting to
accommodate a higher priority pod") and deletes it; a second attempt, nominated and with
no node statuses, preempts nothing more. Upstream runs each row with async preemption and
async API calls on and off; the reference evicts synchronously, so each row runs once.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import NodeToStatus
from reference_impl.scheduler.framework.interface import Code, Status
from reference_impl.scheduler.plugins.default_preemption import DefaultPreemption
from suites.selftest.reference_impl.scheduler.conftest import make_harness

Obj = dict[str, Any]
LOW, MID, HIGH = 0, 100, 1000
SMALL, MEDIUM, LARGE, VERY_LARGE = ("100m", "100"), ("200m", "200"), ("300m", "300"), ("500m", "500")
LABEL_KEYS = ("hostname", "zone", "region")
FOO = {"foo": ""}


def _pod(name: str, node: str | None, prio: int, req: tuple[str, str] | None = None,
         labels: dict[str, str] | None = None, policy: str | None = None) -> Obj:
    b = make_pod(name).set("spec.priority", prio)
    if req is not None:
        b = b.req(cpu=req[0], memory=req[1])
    if node is not None:
        b = b.node(node)
    pod = b.build()
    pod["metadata"]["namespace"] = "default"
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    if policy is not None:
        pod["spec"]["preemptionPolicy"] = policy
    return pod


def _spread(pod: Obj) -> Obj:
    sel = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
    pod["spec"]["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": sel} for key in ("zone", "hostname")]
    return pod


_BASIC = [_pod("p1.1", "node1", LOW, SMALL), _pod("p1.2", "node1", LOW, SMALL),
          _pod("p2.1", "node2", HIGH, LARGE), _pod("p3.1", "node3", MID, MEDIUM)]
_N3 = ["node1", "node2", "node3"]
# (name, preemptor, pods, nodes, wanted nominated node (None: no result), preempted pods)
_ROWS: list[tuple[str, Obj, list[Obj], list[str], str | None, list[str]]] = [
    ("basic preemption logic", _pod("p", None, HIGH, VERY_LARGE, policy="PreemptLowerPriority"),
     _BASIC, _N3, "node1", ["p1.1", "p1.2"]),
    ("preemption for topology spread constraints", _spread(_pod("p", None, HIGH, None, FOO)),
     [_pod("p-a1", "node-a", HIGH, None, FOO), _pod("p-a2", "node-a", HIGH, None, FOO),
      _pod("p-b1", "node-b", LOW, None, FOO), _pod("p-x1", "node-x", HIGH, None, FOO),
      _pod("p-x2", "node-x", HIGH, None, FOO)],
     ["node-a/zone1", "node-b/zone1", "node-x/zone2"], "node-b", ["p-b1"]),
    ("no preempting in pod", _pod("p", None, HIGH, VERY_LARGE, policy="Never"), _BASIC, _N3,
     None, []),
    ("PreemptionPolicy is nil", _pod("p", None, HIGH, VERY_LARGE), _BASIC, _N3, "node1",
     ["p1.1", "p1.2"]),
]
_EXT = "the reference has no scheduler extenders"
_SKIPPED = [
    pytest.param(_pod("p", None, HIGH), [], [], None, [], id=name,
                 marks=pytest.mark.skip(reason=_EXT))
    for name in (
        "Scheduler extenders allow only node1, otherwise node3 would have been chosen",
        "Scheduler extenders do not allow any preemption",
        "One scheduler extender allows only node1, the other returns error but ignorable. Only "
        "node1 would be chosen",
        "One scheduler extender allows only node1, but it is not interested in given pod, "
        "otherwise node1 would have been chosen",
    )
]
MESSAGE = "default-scheduler: preempting to accommodate a higher priority pod"


@pytest.mark.parametrize(
    ("preemptor", "pods", "nodes", "want", "victims"),
    [pytest.param(*r[1:], id=r[0]) for r in _ROWS] + _SKIPPED,
)
def test_preempt(
    preemptor: Obj, pods: list[Obj], nodes: list[str], want: str | None, victims: list[str]
) -> None:
    h = make_harness()
    for spec in nodes:
        parts = spec.split("/")
        b = make_node(parts[0]).capacity(cpu=VERY_LARGE[0], memory=VERY_LARGE[1], pods="32")
        for key, value in zip(LABEL_KEYS, parts, strict=False):
            b = b.label(key, value)
        h.create(b.build())
    h.create(*pods)
    fw = h.scheduler.framework
    plugin = next(p for p in fw.post_filter if isinstance(p, DefaultPreemption))
    state = CycleState()
    _, st, _ = fw.run_pre_filter_plugins(state, preemptor, fw.snapshot_shared_lister().node_infos())
    assert st.is_success()
    statuses = NodeToStatus()
    for spec in nodes:
        statuses.set(spec.split("/")[0], Status(Code.UNSCHEDULABLE))
    result, status = plugin.post_filter(state, preemptor, statuses)
    assert status.is_success() or status.is_rejected()
    got = None if result is None or not result.nominated_node_name else result.nominated_node_name
    assert got == want
    h.clock.settle()
    preempted = []
    for p in h.server.list("v1", "Pod", "default"):
        conds = [c for c in (p.get("status") or {}).get("conditions") or ()
                 if c["type"] == "DisruptionTarget"]
        if conds or p["metadata"].get("deletionTimestamp"):
            assert p["metadata"].get("deletionTimestamp")
            assert [(c["status"], c["reason"], c["message"]) for c in conds] == [
                ("True", "PreemptionByScheduler", MESSAGE)]
            preempted.append(p["metadata"]["name"])
    assert sorted(preempted) == victims
    # Nominated and with its victims terminating, the pod preempts nothing more.
    if got is not None:
        again = {**preemptor, "status": {"nominatedNodeName": got}}
        state = CycleState()
        fw.run_pre_filter_plugins(state, again, fw.snapshot_shared_lister().node_infos())
        result, status = plugin.post_filter(state, again, NodeToStatus())
        assert result is None or not result.nominated_node_name
