"""PodTopologySpread PreScore rows ported from upstream
pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go (v1.37.2):
TestPreScoreSkip, TestPreScoreStateEmptyNodes.

The reference's preScoreState holds the same facts as upstream's: the ScheduleAnyway
constraints (maxSkew, topologyKey, minDomains, nodeAffinityPolicy == Honor,
nodeTaintsPolicy == Honor), the ignored nodes, the per-domain counts of the non-hostname
constraints ({} for hostname ones, counted at Score) and the normalizing weights
``log(domains + 2)``. The nodes are the snapshot and the PreScore candidates at once."""

from __future__ import annotations

import math
from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import pod_topology_spread as pts
from reference_impl.scheduler.plugins import pod_topology_spread_scoring as scoring
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    NodeW,
    PodW,
    SelW,
    make_pod,
    sel_exists,
    snapshot,
)

Obj = dict[str, Any]
FOO, BAR = sel_exists("foo"), sel_exists("bar")
H, Z = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
SA, DNS = "ScheduleAnyway", "DoNotSchedule"
LIST = PodTopologySpreadArgs(defaulting_type="List")
SYSTEM = PodTopologySpreadArgs(defaulting_type="System")


def w(domains: int) -> float:
    """``topologyNormalizingWeight``."""
    return math.log(domains + 2)


def rs_owned(pod: PodW, name: str) -> PodW:
    """``OwnerReference(name, apps/v1 ReplicaSet)``."""
    pod.p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name,
                                             "uid": "uid-" + name, "controller": True}]
    return pod


def replicaset(name: str, selector: Obj) -> Obj:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector}}


def list_args(*constraints: tuple[int, str, str]) -> PodTopologySpreadArgs:
    return PodTopologySpreadArgs(
        tuple({"maxSkew": m, "topologyKey": k, "whenUnsatisfiable": u} for m, k, u in constraints), "List")


def _pre_score(pod: Obj, nodes: list[Obj], objs: list[Obj], args: PodTopologySpreadArgs) -> tuple[str, Any]:
    h = snapshot([], nodes, objs)
    pl = pts.new(args, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, pts.PodTopologySpread)
    state = CycleState()
    st = pl.pre_score(state, pod, h.nodes())
    return st.code.name, state.try_read(scoring._PRE_SCORE)  # the state upstream's test reads too


SKIP_ROWS = [
    ("the pod doesn't have soft topology spread Constraints", make_pod("p").ns("default").obj(),
     [NodeW().name("node-a").label(H, "node-a").obj(), NodeW().name("node-b").label(H, "node-b").obj()], [], LIST),
    ("default constraints and a replicaset that doesn't match",
     rs_owned(make_pod("p").ns("default").label("foo", "bar").label("baz", "sup"), "rs2").obj(),
     [NodeW().name("node-a").label("planet", "mars").obj()], [replicaset("rs1", SelW().exists("tar").obj())],
     list_args((2, "planet", SA))),
]


@pytest.mark.parametrize(("pod", "nodes", "objs", "args"), [pytest.param(*r[1:], id=r[0]) for r in SKIP_ROWS])
def test_pre_score_skip(pod: Obj, nodes: list[Obj], objs: list[Obj], args: PodTopologySpreadArgs) -> None:
    assert _pre_score(pod, nodes, objs, args)[0] == "SKIP"


def zones(*specs: str, extra: dict[str, str] | None = None) -> list[Obj]:
    """``name=zone`` (or a bare name: no zone) -> a node with zone and hostname labels."""
    out = []
    for s in specs:
        name, _, zone = s.partition("=")
        n = NodeW().name(name)
        if zone:
            n.label("zone", zone)
        for k, v in (extra or {}).items():
            if name in ("node-a", "node-b"):
                n.label(k, v)
        out.append(n.label(H, name).obj())
    return out


def tainted_x(nodes: list[Obj]) -> list[Obj]:
    nodes[-1]["spec"]["taints"] = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]
    return nodes


FOO_AB = {"foo": ""}
Z3 = ("node-a=zone1", "node-b=zone1", "node-x=zone2")
RS1 = [replicaset("rs1", FOO)]
# (name, pod, nodes, objects, args, constraints, ignored, counts, weights)
ROWS: list[Any] = [
    ("normal case", make_pod("p").label("foo", "").spread(1, "zone", SA, FOO).spread(1, H, SA, FOO).obj(),
     zones(*Z3), [], LIST, ((1, "zone", 1, True, False), (1, H, 1, True, False)), set(),
     ({"zone1": 0, "zone2": 0}, {}), (w(2), w(3))),
    ("null selector", make_pod("p").label("foo", "").spread(1, "zone", SA, None).obj(), zones(*Z3), [], LIST,
     ((1, "zone", 1, True, False),), set(), ({"zone1": 0, "zone2": 0},), (w(2),)),
    ("node-x doesn't have label zone", make_pod("p").label("foo", "").spread(1, "zone", SA, FOO).spread(1, H, SA, BAR)
     .obj(), zones("node-a=zone1", "node-b=zone1", "node-x"), [], LIST,
     ((1, "zone", 1, True, False), (1, H, 1, True, False)), {"node-x"}, ({"zone1": 0}, {}), (w(1), w(2))),
    ("system default constraints and a replicaset",
     rs_owned(make_pod("p").ns("default").label("foo", "tar").label("baz", "sup"), "rs1").obj(),
     [NodeW().name("node-a").label(H, "node-a").label(Z, "mars").obj(),
      NodeW().name("node-b").label(H, "node-b").label(Z, "mars").obj(),
      NodeW().name("node-c").label(H, "node-c").obj(), NodeW().name("node-d").label(H, "node-d").obj()],
     RS1, SYSTEM, ((3, H, 1, True, False), (5, Z, 1, True, False)), set(), ({}, {"mars": 0, "": 0}), (w(4), w(2))),
    ("default constraints and a replicaset",
     rs_owned(make_pod("p").ns("default").label("foo", "tar").label("baz", "sup"), "rs1").obj(),
     [NodeW().name("node-a").label("rack", "rack1").label(H, "node-a").label("planet", "mars").obj()], RS1,
     list_args((1, H, SA), (2, "rack", DNS), (2, "planet", SA)),
     ((1, H, 1, True, False), (2, "planet", 1, True, False)), set(), ({}, {"mars": 0}), (w(1), w(1))),
    ("default constraints and a replicaset, but pod has constraints",
     rs_owned(make_pod("p").ns("default").label("foo", "bar").label("baz", "sup"), "rs1")
     .spread(1, "zone", DNS, BAR).spread(2, "planet", SA, SelW().label("baz", "sup").obj()).obj(),
     [NodeW().name("node-a").label("planet", "mars").label("galaxy", "andromeda").obj()], RS1,
     list_args((2, "galaxy", SA)), ((2, "planet", 1, True, False),), set(), ({"mars": 0},), (w(1),)),
    ("NodeAffinityPolicy honored with labelSelectors",
     make_pod("p").label("foo", "").node_selector({"foo": ""}).spread(1, "zone", SA, BAR).obj(),
     zones(*Z3, extra=FOO_AB), [], LIST, ((1, "zone", 1, True, False),), set(), ({"zone1": 0, "zone2": 0},),
     (w(2),)),
    ("NodeAffinityPolicy ignored with labelSelectors",
     make_pod("p").label("foo", "").node_selector({"foo": ""})
     .spread(1, "zone", SA, BAR, node_affinity_policy="Ignore").obj(),
     zones(*Z3, extra=FOO_AB), [], LIST, ((1, "zone", 1, False, False),), set(), ({"zone1": 0, "zone2": 0},),
     (w(2),)),
    ("NodeAffinityPolicy honored with nodeAffinity",
     make_pod("p").label("foo", "").node_affinity_in("foo", [""]).spread(1, "zone", SA, BAR).obj(),
     zones(*Z3, extra=FOO_AB), [], LIST, ((1, "zone", 1, True, False),), set(), ({"zone1": 0, "zone2": 0},),
     (w(2),)),
    ("NodeAffinityPolicy ignored with nodeAffinity",
     make_pod("p").label("foo", "").node_affinity_in("foo", [""])
     .spread(1, "zone", SA, BAR, node_affinity_policy="Ignore").obj(),
     zones(*Z3, extra=FOO_AB), [], LIST, ((1, "zone", 1, False, False),), set(), ({"zone1": 0, "zone2": 0},),
     (w(2),)),
    ("NodeTaintsPolicy honored",
     make_pod("p").label("foo", "").spread(1, "zone", SA, BAR, node_taints_policy="Honor").obj(),
     tainted_x(zones(*Z3, extra=FOO_AB)), [], LIST, ((1, "zone", 1, True, True),), set(),
     ({"zone1": 0, "zone2": 0},), (w(2),)),
    ("NodeTaintsPolicy ignored", make_pod("p").label("foo", "").spread(1, "zone", SA, BAR).obj(),
     tainted_x(zones(*Z3, extra=FOO_AB)), [], LIST, ((1, "zone", 1, True, False),), set(),
     ({"zone1": 0, "zone2": 0},), (w(2),)),
]


@pytest.mark.parametrize(("pod", "nodes", "objs", "args", "want_constraints", "want_ignored", "want_counts",
                          "want_weights"), [pytest.param(*r[1:], id=r[0]) for r in ROWS])
def test_pre_score_state_empty_nodes(pod: Obj, nodes: list[Obj], objs: list[Obj], args: PodTopologySpreadArgs,
                                     want_constraints: Any, want_ignored: set[str], want_counts: Any,
                                     want_weights: Any) -> None:
    code, got = _pre_score(pod, nodes, objs, args)
    assert code == "SUCCESS"
    assert tuple((c.max_skew, c.topology_key, c.min_domains, c.honor_node_affinity, c.honor_node_taints)
                 for c in got.constraints) == want_constraints
    assert set(got.ignored) == want_ignored
    assert got.counts == want_counts
    assert got.weights == pytest.approx(want_weights)
