"""PodTopologySpread Filter rows ported from upstream
pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go (v1.37.2):
TestSingleConstraint, TestMultipleConstraints, TestPreFilterDisabled.

Upstream checks only each node's status code. Its rows with
``enableNodeInclusionPolicy: false`` set no inclusion policy, so they behave as with the
(GA) gate on, the only state the reference models. Compact notation: a node is
``"name:k=v,k=v"`` (a trailing ``!`` adds the ``node.kubernetes.io/unschedulable``
NoSchedule taint); an existing pod is ``"[ns/]name@node:k=v,..."`` (``~`` after the
name: terminating)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import pod_topology_spread as pts
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    PodW,
    make_pod,
    node,
    sel_exists,
    snapshot,
)

Obj = dict[str, Any]
FOO, BAR = sel_exists("foo"), sel_exists("bar")
DNS = "DoNotSchedule"
S, U, UU = "SUCCESS", "UNSCHEDULABLE", "UNSCHEDULABLE_AND_UNRESOLVABLE"
TAINT = {"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}
LIST_ARGS = PodTopologySpreadArgs(defaulting_type="List")


def _labels(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in text.split(",")) if text else {}


def nodes(*specs: str) -> list[Obj]:
    out = []
    for spec in specs:
        tainted = spec.endswith("!")
        name, _, labels = spec.rstrip("!").partition(":")
        out.append(node(name, _labels(labels), [TAINT] if tainted else ()))
    return out


def pods(*specs: str) -> list[Obj]:
    out = []
    for spec in specs:
        head, _, labels = spec.partition(":")
        who, _, on = head.partition("@")
        ns, _, name = who.rpartition("/")
        w = make_pod(name.rstrip("~")).ns(ns).node(on).labels(_labels(labels))
        if name.endswith("~"):
            w.terminating()
        out.append(w.obj())
    return out


def P(*labels: str) -> PodW:
    return make_pod("p").labels({k: "" for k in labels})


ZONE4 = nodes("node-a:zone=zone1,node=node-a", "node-b:zone=zone1,node=node-b",
              "node-x:zone=zone2,node=node-x", "node-y:zone=zone2,node=node-y")
SPREAD_2103 = pods("p-a1@node-a:foo=", "p-a2@node-a:foo=", "p-b1@node-b:foo=", "p-y1@node-y:foo=",
                   "p-y2@node-y:foo=", "p-y3@node-y:foo=")
ABC = nodes("node-a:node=node-a", "node-b:node=node-b", "node-c:node=node-c")
POD_22_1 = pods("p-a1@node-a:foo=", "p-a2@node-a:foo=", "p-b1@node-b:foo=", "p-b2@node-b:foo=",
                "p-c1@node-c:foo=")
POD_2_1 = pods("p-b1@node-a:foo=", "p-b2@node-b:foo=", "p-y1@node-y:foo=")
FOO4 = nodes("node-a:node=node-a,foo=", "node-b:node=node-b,foo=", "node-x:node=node-x,foo=", "node-y:node=node-y")
FOO4_T = nodes("node-a:node=node-a,foo=", "node-b:node=node-b,foo=", "node-x:node=node-x,foo=",
               "node-y:node=node-y!")

SINGLE: list[Any] = [
    ("no existing pods", P("foo").spread(1, "zone", DNS, FOO), ZONE4, [], [S, S, S, S]),
    ("no existing pods, incoming pod doesn't match itself", P("foo").spread(1, "zone", DNS, BAR), ZONE4, [],
     [S, S, S, S]),
    ("existing pods in a different namespace do not count", P("foo").spread(1, "zone", DNS, FOO), ZONE4,
     pods("ns1/p-a1@node-a:foo=", "ns2/p-b1@node-a:foo=", "p-x1@node-x:foo=", "p-y1@node-y:foo="), [S, S, U, U]),
    ("existing pods do not match null selector", P("foo").spread(1, "zone", DNS, None), ZONE4,
     pods("p-x1@node-x:foo=", "p-y1@node-y:foo="), [S, S, S, S]),
    ("pods spread across zones as 3/3, all nodes fit", P("foo").spread(1, "zone", DNS, FOO), ZONE4, SPREAD_2103,
     [S, S, S, S]),
    ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", P("foo").spread(1, "zone", DNS, FOO),
     nodes("node-a:zone=zone1,node=node-a", "node-b:zon=zone1,node=node-b", "node-x:zone=zone2,node=node-x",
           "node-y:zone=zone2,node=node-y"),
     pods("p-a1@node-a:foo=", "p-b1@node-b:foo=", "p-x1@node-x:foo=", "p-y1@node-y:foo="), [S, UU, U, U]),
    ("pod cannot be scheduled as all nodes don't have label 'rack'", P("foo").spread(1, "rack", DNS, FOO),
     nodes("node-a:zone=zone1,node=node-a", "node-x:zone=zone2,node=node-x"), [], [UU, UU]),
    ("pods spread across nodes as 2/1/0/3, only node-x fits", P("foo").spread(1, "node", DNS, FOO), ZONE4,
     SPREAD_2103, [U, U, S, U]),
    ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit", P("foo").spread(2, "node", DNS, FOO),
     ZONE4, SPREAD_2103, [U, S, S, U]),
    ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself", P("bar").spread(1, "node", DNS, FOO),
     ZONE4, SPREAD_2103, [U, S, S, U]),
    ("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
     P("foo").node_affinity_in("node", ["node-a", "node-y"]).spread(1, "node", DNS, FOO), ZONE4, SPREAD_2103,
     [S, S, S, U]),
    ("terminating Pods should be excluded", P("foo").spread(1, "node", DNS, FOO),
     nodes("node-a:node=node-a", "node-b:node=node-b"), pods("p-a~@node-a:foo=", "p-b@node-b:foo="), [S, U]),
    ("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
     P("foo").node_affinity_not_in("node", ["node-b"]).spread(1, "zone", DNS, FOO), ZONE4,
     pods("p-b1@node-b:foo=", "p-b2@node-b:foo=", "p-y1@node-y:foo="), [S, S, U, U]),
    ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
     P("foo").spread(2, "node", DNS, FOO, min_domains=4), ABC, POD_22_1, [U, U, S]),
    ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
     P("foo").spread(2, "node", DNS, FOO, min_domains=2), ABC, POD_22_1, [S, S, S]),
    ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
     P("foo").spread(2, "zone", DNS, FOO, min_domains=3), ZONE4, POD_2_1, [U, U, S, S]),
    ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
     P("foo").spread(2, "zone", DNS, FOO, min_domains=1), ZONE4, POD_2_1, [S, S, S, S]),
    ("NodeAffinityPolicy honored with labelSelectors",
     P("foo").node_selector({"foo": ""}).spread(1, "node", DNS, FOO), FOO4, POD_2_1, [U, U, S, S]),
    ("NodeAffinityPolicy ignored with labelSelectors",
     P("foo").node_selector({"foo": ""}).spread(1, "node", DNS, FOO, node_affinity_policy="Ignore"), FOO4, POD_2_1,
     [U, U, S, U]),
    ("NodeAffinityPolicy honored with nodeAffinity",
     P("foo").node_affinity_in("foo", [""]).spread(1, "node", DNS, FOO), FOO4, POD_2_1, [U, U, S, S]),
    ("NodeAffinityPolicy ignored with labelSelectors",
     P("foo").node_affinity_in("foo", [""]).spread(1, "node", DNS, FOO, node_affinity_policy="Ignore"), FOO4,
     POD_2_1, [U, U, S, U]),
    ("NodeTaintsPolicy honored", P("foo").spread(1, "node", DNS, FOO, node_taints_policy="Honor"), FOO4_T, POD_2_1,
     [U, U, S, S]),
    ("NodeTaintsPolicy ignored", P("foo").spread(1, "node", DNS, FOO), FOO4_T, POD_2_1, [U, U, S, U]),
]

MULTI: list[Any] = [
    ("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
     P("foo").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, FOO), ZONE4, SPREAD_2103, [U, U, S, U]),
    ("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
     P("foo").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, FOO), ZONE4,
     [*SPREAD_2103, *pods("p-y4@node-y:foo=")], [U, U, U, U]),
    ("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
     P("foo", "bar").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, BAR), ZONE4,
     pods("p-a1@node-a:foo=", "p-y1@node-y:bar="), [U, U, S, U]),
    ("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
     P("foo", "bar").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, BAR), ZONE4,
     pods("p-a1@node-a:foo=", "p-x1@node-x:bar=", "p-y1@node-y:bar="), [U, U, U, U]),
    ("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
     P("foo", "bar").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, BAR), ZONE4,
     pods("p-a1@node-a:foo=", "p-a2@node-a:foo=,bar=", "p-y1@node-y:foo=", "p-y2@node-y:foo=,bar=",
          "p-y3@node-y:foo="), [U, S, U, U]),
    ("Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
     P("bar").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, BAR), ZONE4,
     pods("p-a1@node-a:foo=", "p-x1@node-x:bar=", "p-y1@node-y:bar="), [S, S, U, U]),
    ("two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
     P("foo").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, FOO),
     nodes("node-a:zone=zone1,node=node-a", "node-b:zone=zone1,node=node-b", "node-x:zone=zone2",
           "node-y:zone=zone2,node=node-y"),
     pods("p-a1@node-a:foo=", "p-y3@node-y:foo="), [U, S, UU, U]),
    ("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
     P("foo").node_selector({"foo": ""}).spread(1, "zone", DNS, FOO)
     .spread(1, "node", DNS, FOO, node_affinity_policy="Ignore"),
     nodes("node-a:zone=zone1,node=node-a,foo=", "node-b:zone=zone1,node=node-b,foo=",
           "node-x:zone=zone2,node=node-x,foo=", "node-y:zone=zone2,node=node-y"),
     pods("p-a1@node-a:foo=", "p-b1@node-b:foo=", "p-y1@node-y:foo="), [U, U, S, U]),
    ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
     P("foo").spread(1, "zone", DNS, FOO, node_taints_policy="Honor").spread(1, "node", DNS, FOO),
     nodes("node-a:zone=zone1,node=node-a,foo=", "node-b:zone=zone1,node=node-b,foo=",
           "node-x:zone=zone2,node=node-x,foo=", "node-y:zone=zone2,node=node-y!"),
     pods("p-a1@node-a:foo=", "p-b1@node-b:foo=", "p-y1@node-y:foo="), [U, U, S, U]),
    ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
     P("foo").node_selector({"foo": ""}).spread(1, "zone", DNS, FOO).spread(1, "node", DNS, FOO),
     nodes("node-a:zone=zone1,node=node-a,foo=", "node-b:zone=zone1,node=node-b",
           "node-x:zone=zone2,node=node-x,foo=", "node-y:zone=zone2,node=node-y,foo=!"),
     pods("p-a1@node-a:foo=", "p-b1@node-b:foo=", "p-y1@node-y:foo="), [U, S, S, U]),
    ("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
     P("foo").node_selector({"foo": ""}).spread(1, "zone", DNS, FOO, node_taints_policy="Honor")
     .spread(1, "node", DNS, FOO, node_affinity_policy="Ignore"),
     nodes("node-a:zone=zone1,node=node-a,foo=", "node-b:zone=zone1,node=node-b",
           "node-x:zone=zone2,node=node-x,foo=", "node-y:zone=zone2,node=node-y,foo=!"),
     pods("p-a1@node-a:foo=", "p-b1@node-b:foo=", "p-y1@node-y:foo="), [U, U, S, U]),
    ("two Constraints on zone, spreads = [3/3, 2/1]",
     P("foo", "bar").spread(1, "zone", DNS, BAR).spread(1, "zone", DNS, FOO), ZONE4,
     pods("p-a1@node-a:foo=,bar=", "p-a2@node-a:foo=", "p-b1@node-b:foo=,bar=", "p-y1@node-y:foo=",
          "p-y2@node-y:foo=,bar=", "p-y3@node-y:foo="), [U, U, S, S]),
    ("two Constraints on zone, spreads = [3/4, 2/1]",
     P("foo", "bar").spread(1, "zone", DNS, BAR).spread(1, "zone", DNS, FOO), ZONE4,
     pods("p-a1@node-a:foo=,bar=", "p-a2@node-a:foo=", "p-b1@node-b:foo=,bar=", "p-y1@node-y:foo=",
          "p-y2@node-y:foo=,bar=", "p-y3@node-y:foo=", "p-y4@node-y:foo="), [U, U, U, U]),
]


def _codes(pod: PodW, ns: list[Obj], existing: list[Obj]) -> list[str]:
    h = snapshot(existing, ns)
    pl = pts.new(LIST_ARGS, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, pts.PodTopologySpread)
    state = CycleState()
    p = pod.obj()
    _, s = pl.pre_filter(state, p, h.nodes())
    assert s.is_success(), s
    return [pl.filter(state, p, h.node_info(n["metadata"]["name"])).code.name for n in ns]


@pytest.mark.parametrize(("pod", "ns", "existing", "want"), [pytest.param(*r[1:], id=r[0]) for r in SINGLE])
def test_single_constraint(pod: PodW, ns: list[Obj], existing: list[Obj], want: list[str]) -> None:
    assert _codes(pod, ns, existing) == want


@pytest.mark.parametrize(("pod", "ns", "existing", "want"), [pytest.param(*r[1:], id=r[0]) for r in MULTI])
def test_multiple_constraints(pod: PodW, ns: list[Obj], existing: list[Obj], want: list[str]) -> None:
    assert _codes(pod, ns, existing) == want


def test_pre_filter_disabled() -> None:
    """Filter without PreFilter's state is an error (``fwk.AsStatus(fwk.ErrNotFound)``)."""
    h = snapshot([], [node("n")])
    pl = pts.new(LIST_ARGS, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, pts.PodTopologySpread)
    with pytest.raises(KeyError):
        pl.filter(CycleState(), make_pod().obj(), h.node_info("n"))
