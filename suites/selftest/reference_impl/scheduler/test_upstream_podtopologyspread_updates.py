"""PodTopologySpread PreFilter-state updates ported from upstream
pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go (v1.37.2):
TestPreFilterStateAddPod, TestPreFilterStateRemovePod.

Upstream's AddPod/RemovePod adjust the PreFilter state for a pod added to or removed from
a node (preemption's what-if); the reference recounts instead (``refresh_pre_filter``
after the snapshot changed), so each row changes the snapshot, refreshes and asserts the
constraints, the matching-pod count per domain and the global minimum (MaxInt32 when no
domain exists). Rows with ``enableNodeInclusionPolicy: false`` set no inclusion policy,
which behaves as the (GA) gate on."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import pod_topology_spread as pts
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    NodeW,
    SnapshotHandle,
    make_pod,
    sel_exists,
    snapshot,
)

Obj = dict[str, Any]
FOO, BAR = sel_exists("foo"), sel_exists("bar")
MAX = 2**31 - 1
LIST = PodTopologySpreadArgs(defaulting_type="List")
INCREMENTAL = pytest.mark.skip(
    reason="upstream removes existingPods[0] (on node-a) as if it ran on node-b (deletedPodIdx defaults to 0); "
    "the reference recounts from the snapshot and cannot remove a pod from a node it is not on")


def _state_after(pod: Obj, nodes: list[Obj], pods: list[Obj], change: Any) -> Any:
    h = snapshot(pods, nodes)
    pl = pts.new(LIST, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, pts.PodTopologySpread)
    state = CycleState()
    assert pl.pre_filter(state, pod, h.nodes())[1].is_success()
    change(h)
    pl.refresh_pre_filter(state, pod, h.nodes())
    return state.read(pts._PRE_FILTER)  # the state upstream's test reads too


def _check(got: Any, want_constraints: Any, want_counts: Any, want_minimum: Any) -> None:
    assert tuple((c.max_skew, c.topology_key, c.min_domains, c.honor_node_affinity, c.honor_node_taints)
                 for c in got.constraints) == want_constraints
    assert got.counts == want_counts
    assert got.minimum == want_minimum


def _on(pod: Obj, node_name: str) -> Obj:
    return {**pod, "spec": {**pod["spec"], "nodeName": node_name}}


# (name, preemptor, nodes, existing pods, added pod, node index, constraints, counts, minima)
ADD: list[Any] = [
    ("node a and b both impact current min match",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj()],
     [],
     make_pod().name("p-a1").node("node-a").label("foo", "").obj(), 0,
     ((1, "node", 1, True, False), ), ({"node-a": 1, "node-b": 0}, ), (0, )),
    ("only node a impacts current min match",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj()],
     [make_pod().name("p-b1").node("node-b").label("foo", "").obj()],
     make_pod().name("p-a1").node("node-a").label("foo", "").obj(), 0,
     ((1, "node", 1, True, False), ), ({"node-a": 1, "node-b": 1}, ), (1, )),
    ("add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj()],
     [make_pod().name("p-b1").node("node-b").label("foo", "").obj()],
     make_pod().name("p-a1").ns("ns1").node("node-a").label("foo", "").obj(), 0,
     ((1, "node", 1, True, False), ), ({"node-a": 0, "node-b": 1}, ), (0, )),
    ("add pod on non-critical node won't trigger re-calculation",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj()],
     [make_pod().name("p-b1").node("node-b").label("foo", "").obj()],
     make_pod().name("p-b2").node("node-b").label("foo", "").obj(), 1,
     ((1, "node", 1, True, False), ), ({"node-a": 0, "node-b": 2}, ), (0, )),
    ("node a and x both impact topologyKeyToMinPodsMap on zone and node",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj()],
     [],
     make_pod().name("p-a1").node("node-a").label("foo", "").obj(), 0,
     ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}, ), (0, 0, )),
    ("only node a impacts topologyKeyToMinPodsMap on zone and node",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj()],
     [make_pod().name("p-x1").node("node-x").label("foo", "").obj()],
     make_pod().name("p-a1").node("node-a").label("foo", "").obj(), 0,
     ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}, ), (1, 1, )),
    ("node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj()],
     [make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj()],
     make_pod().name("p-a1").node("node-a").label("foo", "").obj(), 0,
     ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}, ), (1, 1, )),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone",
     make_pod().name("p").label("foo", "").label("bar", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj()],
     [make_pod().name("p-b1").node("node-b").label("foo", "").label("bar", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").label("bar", "").obj(),
      make_pod().name("p-x2").node("node-x").label("bar", "").obj()],
     make_pod().name("p-a1").node("node-a").label("foo", "").obj(), 0,
     ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}, ), (1, 0, )),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both zone and node",
     make_pod().name("p").label("foo", "").label("bar", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj()],
     [make_pod().name("p-b1").node("node-b").label("bar", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").label("bar", "").obj(),
      make_pod().name("p-x2").node("node-x").label("bar", "").obj()],
     make_pod().name("p-a1").node("node-a").label("foo", "").label("bar", "").obj(), 0,
     ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}, ), (1, 1, )),
    ("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled",
     make_pod().name("p").label("foo", "").node_affinity_not_in("foo", ["bar"])
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a2").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(), 0,
     ((1, "zone", 1, True, False), ), ({"zone2": 1}, ), (1, )),
    ("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
     make_pod().name("p").label("foo", "").node_affinity_not_in("foo", ["bar"])
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a2").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(), 0,
     ((1, "zone", 1, True, False), ), ({"zone2": 1}, ), (1, )),
    ("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(), 1,
     ((1, "zone", 1, True, False), ), ({"zone1": 1, "zone2": 2}, ), (1, )),
    ("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(), 1,
     ((1, "zone", 1, True, False), ), ({"zone1": 1, "zone2": 2}, ), (1, )),
    ("add a label selector not matched pod when with NodeInclusionPolicy enabled",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     make_pod().name("p-b1").node("node-b").label("zone", "zone2").obj(), 1,
     ((1, "zone", 1, True, False), ), ({"zone1": 1, "zone2": 1}, ), (1, )),
    ("add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").taints_().obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(), 1,
     ((1, "zone", 1, True, False), ), ({"zone2": 2, "zone1": 1}, ), (1, )),
    ("add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
     make_pod().name("p").label("foo", "").toleration_go("node.kubernetes.io/unschedulable")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").taints_().obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj(), 1,
     ((1, "zone", 1, True, False), ), ({"zone2": 2, "zone1": 1}, ), (1, )),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "added", "node_idx", "want_constraints", "want_counts",
                          "want_minimum"), [pytest.param(*r[1:], id=r[0]) for r in ADD])
def test_pre_filter_state_add_pod(pod: Obj, nodes: list[Obj], pods: list[Obj], added: Obj, node_idx: int,
                                  want_constraints: Any, want_counts: Any, want_minimum: Any) -> None:
    def add(h: SnapshotHandle) -> None:
        h.cache.add_pod(_on(added, nodes[node_idx]["metadata"]["name"]))

    _check(_state_after(pod, nodes, pods, add), want_constraints, want_counts, want_minimum)


# (name, preemptor, nodes, existing pods, (deletedPodIdx, deletedPod), node index, constraints, counts,
#  minima); as upstream, deletedPodIdx picks an existing pod when in range, else deletedPod is used.
REMOVE: list[Any] = [
    ("one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj()],
     (0, None), 0,
     ((1, "zone", 1, True, False), ), ({"zone1": 1, "zone2": 1}, ), (1, )),
    ("one spreadConstraint on node, topologyKeyToMinPodsMap changed",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj()],
     (0, None), 0,
     ((1, "zone", 1, True, False), ), ({"zone1": 1, "zone2": 2}, ), (1, )),
    ("delete an irrelevant pod won't help",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a0").node("node-a").label("bar", "").obj(),
      make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj()],
     (0, None), 0,
     ((1, "zone", 1, True, False), ), ({"zone1": 2, "zone2": 2}, ), (2, )),
    ("delete a non-existing pod won't help",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj()],
     (-1, make_pod().name("p-a0").node("node-a").label("bar", "").obj()), 0,
     ((1, "zone", 1, True, False), ), ({"zone1": 2, "zone2": 2}, ), (2, )),
    ("two spreadConstraints",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj(),
      make_pod().name("p-x2").node("node-x").label("foo", "").obj()],
     (3, None), 2,
     ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}, ), (1, 1, )),
    ("remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled",
     make_pod().name("p").label("foo", "").node_affinity_not_in("foo", ["bar"])
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a2").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     (0, make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj()), 0,
     ((1, "zone", 1, True, False), ), ({"zone2": 1}, ), (1, )),
    ("remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
     make_pod().name("p").label("foo", "").node_affinity_not_in("foo", ["bar"])
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a2").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     (0, make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj()), 0,
     ((1, "zone", 1, True, False), ), ({"zone2": 1}, ), (1, )),
    pytest.param(
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     (0, make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj()), 1,
     ((1, "zone", 1, True, False), ), ({"zone2": 0, "zone1": 1}, ), (0, ),
                 id="remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled", marks=INCREMENTAL),
    pytest.param(
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "bar").obj(),
      NodeW().name("node-b").label("zone", "zone2").label("node", "node-b").label("foo", "").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("zone", "zone1").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").label("zone", "zone2").obj()],
     (0, make_pod().name("p-b1").node("node-b").label("foo", "").label("zone", "zone2").obj()), 1,
     ((1, "zone", 1, True, False), ), ({"zone2": 0, "zone1": 1}, ), (0, ),
                 id="remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled", marks=INCREMENTAL),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "deleted", "node_idx", "want_constraints", "want_counts",
                          "want_minimum"), [pytest.param(*r[1:], id=r[0]) if type(r) is tuple else r for r in REMOVE])
def test_pre_filter_state_remove_pod(pod: Obj, nodes: list[Obj], pods: list[Obj], deleted: Any, node_idx: int,
                                     want_constraints: Any, want_counts: Any, want_minimum: Any) -> None:
    idx, given = deleted
    victim = pods[idx] if 0 <= idx < len(pods) else given

    def remove(h: SnapshotHandle) -> None:
        h.cache.remove_pod(_on(victim, nodes[node_idx]["metadata"]["name"]))

    _check(_state_after(pod, nodes, pods, remove), want_constraints, want_counts, want_minimum)
