"""Upstream's DefaultPreemption node choice, row by row, through a running scheduler.

Ported: ``TestSelectBestCandidate`` (plugins/defaultpreemption/default_preemption_test.go),
which dry-runs preemption with NodeResourcesFit and checks the node SelectCandidate picks
(``pickOneNodeForPreemption``). Here each row's nodes and bound pods are created, the
preemptor is created, and the node it is nominated to is the pick. Upstream's start times
``epochTime1..6`` are Unix 0 plus 1..6 nanoseconds; the apiserver keeps whole seconds, so
they become 1..6 seconds (only their order matters).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_node, make_pod
from suites.selftest.reference_impl.scheduler.conftest import Harness, make_harness

Obj = dict[str, Any]
NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL, MEDIUM, LARGE, VERY_LARGE = ("100m", "100"), ("200m", "200"), ("300m", "300"), ("500m", "500")
EPOCH = [f"1970-01-01T00:00:0{i}Z" for i in range(7)]  # epochTime, epochTime1..6

# A bound pod: (name, node, priority, requests, start time)
Bound = tuple[str, str, int, tuple[str, str], str]


def _bound(h: Harness, name: str, node: str, prio: int, req: tuple[str, str], start: str) -> None:
    h.create(make_pod(name).req(cpu=req[0], memory=req[1]).node(node)
             .set("spec.priority", prio).build())
    pod = h.pod(name)
    h.server.update_status({**pod, "status": {**(pod.get("status") or {}), "startTime": start}})
    h.clock.settle()


def _nominated(nodes: list[str], pods: list[Bound], prio: int, req: tuple[str, str]) -> str:
    """Run the row; the node the preemptor "p" is nominated to (or bound to)."""
    h = make_harness()
    for n in nodes:
        h.create(make_node(n).capacity(cpu=VERY_LARGE[0], memory=VERY_LARGE[1], pods="32").build())
    for b in pods:
        _bound(h, *b)
    h.create(make_pod("p").req(cpu=req[0], memory=req[1]).set("spec.priority", prio).build())
    h.advance(1)
    pod = h.pod("p")
    return str(pod["spec"].get("nodeName") or (pod.get("status") or {}).get("nominatedNodeName"))


E0 = EPOCH[0]
_ROWS: list[tuple[str, list[str], int, tuple[str, str], list[Bound], list[str]]] = [
    ("a pod that fits on both nodes when lower priority pods are preempted", ["node1", "node2"],
     HIGH, LARGE, [("p1", "node1", MID, LARGE, E0), ("p2", "node2", MID, LARGE, E0)],
     ["node1", "node2"]),
    ("node with min highest priority pod is picked", ["node1", "node2", "node3"], HIGH,
     VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, E0), ("p1.2", "node1", MID, LARGE, E0),
      ("p2.1", "node2", MID, MEDIUM, E0), ("p2.2", "node2", LOW, MEDIUM, E0),
      ("p3.1", "node3", LOW, MEDIUM, E0), ("p3.2", "node3", LOW, MEDIUM, E0)], ["node3"]),
    ("when highest priorities are the same, minimum sum of priorities is picked",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, E0), ("p1.2", "node1", MID, LARGE, E0),
      ("p2.1", "node2", MID, LARGE, E0), ("p2.2", "node2", LOW, MEDIUM, E0),
      ("p3.1", "node3", MID, MEDIUM, E0), ("p3.2", "node3", MID, MEDIUM, E0)], ["node2"]),
    ("when highest priority and sum are the same, minimum number of pods is picked",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, SMALL, E0), ("p1.2", "node1", NEG, SMALL, E0),
      ("p1.3", "node1", MID, SMALL, E0), ("p1.4", "node1", NEG, SMALL, E0),
      ("p2.1", "node2", MID, LARGE, E0), ("p2.2", "node2", NEG, MEDIUM, E0),
      ("p3.1", "node3", MID, MEDIUM, E0), ("p3.2", "node3", NEG, SMALL, E0),
      ("p3.3", "node3", LOW, SMALL, E0)], ["node2"]),
    ("sum of adjusted priorities is considered", ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, SMALL, E0), ("p1.2", "node1", NEG, SMALL, E0),
      ("p1.3", "node1", NEG, SMALL, E0), ("p2.1", "node2", MID, LARGE, E0),
      ("p2.2", "node2", NEG, MEDIUM, E0), ("p3.1", "node3", MID, MEDIUM, E0),
      ("p3.2", "node3", NEG, SMALL, E0), ("p3.3", "node3", LOW, SMALL, E0)], ["node2"]),
    ("non-overlapping lowest high priority, sum priorities, and number of pods",
     ["node1", "node2", "node3", "node4"], VERY_HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, SMALL, E0), ("p1.2", "node1", LOW, SMALL, E0),
      ("p1.3", "node1", LOW, SMALL, E0), ("p2.1", "node2", HIGH, LARGE, E0),
      ("p3.1", "node3", MID, MEDIUM, E0), ("p3.2", "node3", LOW, SMALL, E0),
      ("p3.3", "node3", LOW, SMALL, E0), ("p3.4", "node3", LOW, MEDIUM, E0),
      ("p4.1", "node4", MID, MEDIUM, E0), ("p4.2", "node4", MID, SMALL, E0),
      ("p4.3", "node4", MID, SMALL, E0), ("p4.4", "node4", NEG, SMALL, E0)], ["node1"]),
    ("same priority, same number of victims, different start time for each node's pod",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, EPOCH[2]), ("p1.2", "node1", MID, MEDIUM, EPOCH[2]),
      ("p2.1", "node2", MID, MEDIUM, EPOCH[3]), ("p2.2", "node2", MID, MEDIUM, EPOCH[3]),
      ("p3.1", "node3", MID, MEDIUM, EPOCH[1]), ("p3.2", "node3", MID, MEDIUM, EPOCH[1])],
     ["node2"]),
    ("same priority, same number of victims, different start time for all pods",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", MID, MEDIUM, EPOCH[4]), ("p1.2", "node1", MID, MEDIUM, EPOCH[2]),
      ("p2.1", "node2", MID, MEDIUM, EPOCH[5]), ("p2.2", "node2", MID, MEDIUM, EPOCH[1]),
      ("p3.1", "node3", MID, MEDIUM, EPOCH[3]), ("p3.2", "node3", MID, MEDIUM, EPOCH[6])],
     ["node3"]),
    ("different priority, same number of victims, different start time for all pods",
     ["node1", "node2", "node3"], HIGH, VERY_LARGE,
     [("p1.1", "node1", LOW, MEDIUM, EPOCH[4]), ("p1.2", "node1", MID, MEDIUM, EPOCH[2]),
      ("p2.1", "node2", MID, MEDIUM, EPOCH[6]), ("p2.2", "node2", LOW, MEDIUM, EPOCH[1]),
      ("p3.1", "node3", LOW, MEDIUM, EPOCH[3]), ("p3.2", "node3", MID, MEDIUM, EPOCH[5])],
     ["node2"]),
]


@pytest.mark.parametrize(
    ("nodes", "prio", "req", "pods", "expected"), [pytest.param(*r[1:], id=r[0]) for r in _ROWS]
)
def test_select_best_candidate(
    nodes: list[str], prio: int, req: tuple[str, str], pods: list[Bound], expected: list[str]
) -> None:
    assert _nominated(nodes, pods, prio, req) in expected
