"""PodTopologySpread PreScore/Score/NormalizeScore rows ported from upstream
pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go (v1.37.2):
TestPodTopologySpreadScore.

PreScore gets the candidate nodes (``nodes``); ``failedNodes`` are in the snapshot only.
Upstream's Service for the system-defaulting row has no namespace (the pods' ""), written
here in "default", the reference's reading of an empty namespace. Notation as in
test_upstream_podtopologyspread."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import NodeScore
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import pod_topology_spread as pts
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from suites.selftest.reference_impl.scheduler.test_upstream_podtopologyspread import P, nodes, pods
from suites.selftest.reference_impl.scheduler.upstream_st_b import PodW, sel_exists, snapshot

Obj = dict[str, Any]
FOO, BAR = sel_exists("foo"), sel_exists("bar")
SA = "ScheduleAnyway"
H = "kubernetes.io/hostname"
SYSTEM_ARGS = PodTopologySpreadArgs(defaulting_type="System")
SVC_FOO = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "default"},
           "spec": {"selector": {"foo": ""}}}


def hosts(*names: str) -> list[Obj]:
    return nodes(*(f"{n}:{H}={n}" for n in names))


def zh(*specs: str) -> list[Obj]:
    """``name=zone`` -> a node with labels zone and hostname."""
    return nodes(*(f"{n}:zone={z},{H}={n}" for n, z in (s.split("=") for s in specs)))


def foo_pods(*specs: str) -> list[Obj]:
    """``name@node`` pods labelled foo=""."""
    return pods(*(f"{s}:foo=" for s in specs))


P2103 = foo_pods("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-d1@node-d", "p-d2@node-d", "p-d3@node-d")
P4321 = foo_pods("p-a1@node-a", "p-a2@node-a", "p-a3@node-a", "p-a4@node-a", "p-b1@node-b", "p-b2@node-b",
                 "p-b3@node-b", "p-c1@node-c", "p-c2@node-c", "p-d1@node-d")
P4213 = foo_pods("p-a1@node-a", "p-a2@node-a", "p-a3@node-a", "p-a4@node-a", "p-b1@node-b", "p-b2@node-b",
                 "p-x1@node-x", "p-y1@node-y", "p-y2@node-y", "p-y3@node-y")
P2211 = foo_pods("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-c1@node-c")
ABCD = hosts("node-a", "node-b", "node-c", "node-d")
NODE_ABC = nodes("node-a:node=node-a,foo=", "node-b:node=node-b,foo=", "node-c:node=node-c")
NODE_ABC_T = nodes("node-a:node=node-a", "node-b:node=node-b", "node-c:node=node-c!")
MIXED = pods("p-a1@node-a:foo=", "p-b1@node-b:foo=,bar=", "p-y1@node-y:foo=", "p-y2@node-y:bar=")
ZH4 = zh("node-a=zone1", "node-b=zone1", "node-x=zone2", "node-y=zone2")
ZH_ABCD = zh("node-a=zone1", "node-b=zone1", "node-c=zone2", "node-d=zone2")
GATE_OFF = pytest.mark.skip(reason="MatchLabelKeysInPodTopologySpread off: the reference models the GA gate on only")

# (name, pod, existing, candidate nodes, failed nodes, objects, want scores by candidate)
ROWS: list[Any] = [
    ("one constraint on node, no existing pods", P("foo").spread(1, H, SA, FOO), [], hosts("node-a", "node-b"), [],
     [], [100, 100]),
    ("one constraint on node, only one node is candidate", P("foo").spread(1, H, SA, FOO),
     foo_pods("p-a1@node-a", "p-a2@node-a", "p-b1@node-b"), hosts("node-a"), hosts("node-b"), [], [100]),
    ("one constraint on node, all nodes have the same number of matching pods", P("foo").spread(1, H, SA, FOO),
     foo_pods("p-a1@node-a", "p-b1@node-b"), hosts("node-a", "node-b"), [], [], [100, 100]),
    ("one constraint on node, all 4 nodes are candidates", P("foo").spread(1, H, SA, FOO), P2103, ABCD, [], [],
     [20, 60, 100, 0]),
    ("one constraint on node, null selector", P("foo").spread(1, H, SA, None), P2103, ABCD, [], [],
     [100, 100, 100, 100]),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=2", P("foo").spread(2, H, SA, FOO), P2103, ABCD,
     [], [], [33, 66, 100, 16]),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=3", P("foo").spread(3, H, SA, FOO), P4321, ABCD,
     [], [], [44, 66, 77, 100]),
    ("system defaulting, nodes don't have zone, pods match service", P("foo"), P4321, ABCD, [], [SVC_FOO],
     [44, 66, 77, 100]),
    ("one constraint on node, 3 out of 4 nodes are candidates", P("foo").spread(1, H, SA, FOO), P4213,
     hosts("node-a", "node-b", "node-x"), hosts("node-y"), [], [33, 83, 100]),
    ("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
     P("foo").spread(1, H, SA, FOO), P4213, nodes(f"node-a:{H}=node-a", "node-b:n=node-b", f"node-x:{H}=node-x"),
     hosts("node-y"), [], [16, 0, 100]),
    ("one constraint on zone, 3 out of 4 nodes are candidates", P("foo").spread(1, "zone", SA, FOO), P4213,
     zh("node-a=zone1", "node-b=zone1", "node-x=zone2"), zh("node-y=zone2"), [], [75, 75, 100]),
    ("two Constraints on zone and node, 2 out of 4 nodes are candidates",
     P("foo").spread(1, "zone", SA, FOO).spread(1, H, SA, FOO),
     foo_pods("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-x1@node-x", "p-x2@node-x", "p-y1@node-y",
              "p-y2@node-y", "p-y3@node-y", "p-y4@node-y"),
     zh("node-a=zone1", "node-x=zone2"), zh("node-b=zone1", "node-y=zone2"), [], [100, 63]),
    ("two Constraints on zone, 2 out of 4 nodes are candidates",
     P("foo", "bar").spread(1, "zone", SA, FOO).spread(1, "zone", SA, BAR),
     pods("p-a1@node-a:foo=,bar=", "p-a2@node-a:foo=", "p-b1@node-b:foo=,bar=", "p-y1@node-y:foo=",
          "p-y2@node-y:foo=,bar=", "p-y3@node-y:foo="),
     nodes("node-a:zone=zone1", "node-x:zone=zone2"), nodes("node-b:zone=zone1", "node-y:zone=zone2"), [],
     [85, 100]),
    ("two Constraints on zone and node, with different labelSelectors",
     P("foo", "bar").spread(1, "zone", SA, FOO).spread(1, H, SA, BAR), MIXED, ZH4, [], [], [60, 20, 100, 60]),
    ("two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
     P("foo", "bar").spread(1, "zone", SA, FOO).spread(1, H, SA, BAR),
     pods("p-b1@node-b:bar=", "p-x1@node-x:foo=", "p-y1@node-y:foo=,bar="), ZH4, [], [], [100, 60, 40, 0]),
    ("two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
     P("foo", "bar").spread(1, "zone", SA, FOO).spread(1, H, SA, BAR), MIXED,
     zh("node-a=zone1", "node-b=zone1", "node-x=zone2"), zh("node-y=zone2"), [], [50, 25, 100]),
    ("existing pods in a different namespace do not count", P("foo").spread(1, H, SA, FOO),
     pods("ns1/p-a1@node-a:foo=", "p-a2@node-a:foo=", "p-b1@node-b:foo=", "p-b2@node-b:foo="),
     hosts("node-a", "node-b"), [], [], [100, 33]),
    ("terminating Pods should be excluded", P("foo").spread(1, H, SA, FOO),
     pods("p-a~@node-a:foo=", "p-b@node-b:foo="), hosts("node-a", "node-b"), [], [], [100, 0]),
    ("minDomains has no effect when ScheduleAnyway", P("foo").spread(2, "node", SA, FOO, min_domains=10),
     foo_pods("p-a1@node-a", "p-a2@node-a", "p-b1@node-b", "p-b2@node-b", "p-c1@node-c"),
     nodes("node-a:node=node-a", "node-b:node=node-b", "node-c:node=node-c"), [], [], [75, 75, 100]),
    ("NodeAffinityPolicy honoed with labelSelectors",
     P("foo").node_selector({"foo": ""}).spread(1, "node", SA, FOO), P2211, NODE_ABC, [], [], [0, 33, 100]),
    ("NodeAffinityPolicy ignored with labelSelectors",
     P("foo").node_selector({"foo": ""}).spread(1, "node", SA, FOO, node_affinity_policy="Ignore"), P2211,
     NODE_ABC, [], [], [66, 100, 100]),
    ("NodeAffinityPolicy honoed with nodeAffinity",
     P("foo").node_affinity_in("foo", [""]).spread(1, "node", SA, FOO), P2211, NODE_ABC, [], [], [0, 33, 100]),
    ("NodeAffinityPolicy ignored with nodeAffinity",
     P("foo").node_affinity_in("foo", [""]).spread(1, "node", SA, FOO, node_affinity_policy="Ignore"), P2211,
     NODE_ABC, [], [], [66, 100, 100]),
    ("NodeTaintsPolicy honored", P("foo").spread(1, "node", SA, FOO, node_taints_policy="Honor"), P2211,
     NODE_ABC_T, [], [], [0, 33, 100]),
    ("NodeTaintsPolicy ignored", P("foo").spread(1, "node", SA, FOO), P2211, NODE_ABC_T, [], [], [66, 100, 100]),
    pytest.param(
        P("foo", "bar", "baz").spread(1, "zone", SA, FOO, match_label_keys=["baz"])
        .spread(1, H, SA, BAR, match_label_keys=["baz"]),
        pods("p-a1@node-a:foo=", "p-b1@node-b:foo=,bar=", "p-y1@node-c:foo=", "p-y2@node-c:bar="), ZH_ABCD, [], [],
        [60, 20, 60, 100], id="matchLabelKeys ignored when feature gate disabled", marks=GATE_OFF),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
     P("foo", "bar").spread(1, "zone", SA, {}, match_label_keys=["foo"]).spread(1, H, SA, {}, match_label_keys=["bar"]),
     pods("p-a1@node-a:foo=", "p-b1@node-b:foo=,bar=", "p-y1@node-c:foo=", "p-y2@node-c:bar="), ZH_ABCD, [], [],
     [60, 20, 60, 100]),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
     P("foo", "bar", "baz").spread(1, "zone", SA, FOO).spread(1, H, SA, BAR, match_label_keys=["baz"]),
     pods("p-a1@node-a:foo=", "p-b1@node-b:foo=,bar=,baz=", "p-c1@node-c:foo=", "p-c2@node-c:bar=",
          "p-d3@node-c:bar=,baz="), ZH_ABCD, [], [], [60, 20, 60, 100]),
]


@pytest.mark.parametrize(("pod", "existing", "cands", "failed", "objs", "want"),
                         [pytest.param(*r[1:], id=r[0]) if type(r) is tuple else r for r in ROWS])
def test_pod_topology_spread_score(pod: PodW, existing: list[Obj], cands: list[Obj], failed: list[Obj],
                                   objs: list[Obj], want: list[int]) -> None:
    h = snapshot(existing, [*cands, *failed], objs)
    pl = pts.new(SYSTEM_ARGS, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, pts.PodTopologySpread)
    p = pod.obj()
    state = CycleState()
    names = [n["metadata"]["name"] for n in cands]
    st = pl.pre_score(state, p, [h.node_info(n) for n in names])
    assert st.is_success(), st
    got = [NodeScore(n, pl.score(state, p, h.node_info(n))[0]) for n in names]
    assert pl.score_extensions().normalize_score(state, p, got).is_success()
    assert [s.score for s in got] == want
