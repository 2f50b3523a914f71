"""PodTopologySpread PreFilter-state rows ported from upstream
pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go (v1.37.2):
TestPreFilterState.

Upstream compares its whole preFilterState; the reference keeps the same facts in another
shape, so each row asserts the PreFilter status, every constraint's (maxSkew,
topologyKey, minDomains, nodeAffinityPolicy == Honor, nodeTaintsPolicy == Honor), the
matching-pod count per domain (``TpValueToMatchNum``) and the global minimum (the first
critical path's count; MaxInt32 when no domain exists). Upstream's Services have no
namespace or name; here they are "svc" in "default" (the reference's reading of "").
Rows that switch the NodeInclusionPolicyInPodTopologySpread or
MatchLabelKeysInPodTopologySpread gate off are skipped: the reference models them on."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import pod_topology_spread as pts
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    NodeW,
    SelW,
    make_pod,
    sel_exists,
    snapshot,
)

Obj = dict[str, Any]
FOO, BAR = sel_exists("foo"), sel_exists("bar")
MAX = 2**31 - 1
LIST = PodTopologySpreadArgs(defaulting_type="List")
NODE_INCLUSION_OFF = pytest.mark.skip(reason="NodeInclusionPolicyInPodTopologySpread off is not modelled")
MATCH_LABEL_KEYS_OFF = pytest.mark.skip(reason="MatchLabelKeysInPodTopologySpread off is not modelled")


def service(selector: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "default"},
            "spec": {"selector": selector}}


def args(*constraints: tuple[int, str, str]) -> PodTopologySpreadArgs:
    """``PodTopologySpreadArgs{DefaultConstraints: ..., DefaultingType: List}``."""
    return PodTopologySpreadArgs(
        tuple({"maxSkew": m, "topologyKey": k, "whenUnsatisfiable": w} for m, k, w in constraints), "List")


# (name, pod, nodes, existing pods, objects, args, PreFilter code, constraints, counts, minima)
ROWS: list[Any] = [
    ("clean cluster with one spreadConstraint",
     make_pod().name("p").label("foo", "")
     .spread_go(5, "zone", "DoNotSchedule", SelW().label("foo", "bar").obj(), None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [],
     [], LIST, "SUCCESS", ((5, "zone", 1, True, False), ), ({"zone1": 0, "zone2": 0}, ), (0, )),
    ("normal case with one spreadConstraint",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 3, "zone2": 2}, ), (2, )),
    ("normal case with null label selector",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", None, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 0, "zone2": 0}, ), (0, )),
    ("normal case with one spreadConstraint, on a 3-zone cluster",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj(),
      NodeW().name("node-o").label("zone", "zone3").label("node", "node-o").obj(),
      NodeW().name("node-p").label("zone", "zone3").label("node", "node-p").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 3, "zone2": 2, "zone3": 0}, ), (0, )),
    ("namespace mismatch doesn't count",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").ns("ns1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").ns("ns2").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 2, "zone2": 1}, ), (1, )),
    ("normal case with two spreadConstraints",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y3").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y4").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}, ), (3, 0, )),
    ("soft spreadConstraints should be bypassed",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "ScheduleAnyway", FOO, None, None, None, None)
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "ScheduleAnyway", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y3").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y4").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}, ), (3, 1, )),
    ("different labelSelectors - simple version",
     make_pod().name("p").label("foo", "").label("bar", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}, ), (0, 0, )),
    ("different labelSelectors - complex pods",
     make_pod().name("p").label("foo", "").label("bar", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").label("bar", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").label("bar", "").obj(),
      make_pod().name("p-y3").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y4").node("node-y").label("foo", "").label("bar", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}, ), (3, 0, )),
    ("two spreadConstraints, and with podAffinity",
     make_pod().name("p").label("foo", "").node_affinity_not_in("node", ["node-x"])
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y3").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y4").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}, ), (3, 1, )),
    ("default constraints and a service",
     make_pod().name("p").label("foo", "bar").label("baz", "kar").obj(),
     [],
     [],
     [service({"foo": "bar"})], args((3, "node", "DoNotSchedule"), (2, "node", "ScheduleAnyway"), (5, "rack", "DoNotSchedule")), "SUCCESS", ((3, "node", 1, True, False), (5, "rack", 1, True, False), ), ({}, {}, ), (MAX, MAX, )),
    ("default constraints and a service that doesn't match",
     make_pod().name("p").label("foo", "bar").obj(),
     [],
     [],
     [service({"baz": "kep"})], args((3, "node", "DoNotSchedule")), "SKIP", (), (), ()),
    ("default constraints and a service, but pod has constraints",
     make_pod().name("p").label("foo", "bar").label("baz", "tar")
     .spread_go(1, "zone", "DoNotSchedule", SelW().label("baz", "tar").obj(), None, None, None, None)
     .spread_go(2, "planet", "ScheduleAnyway", SelW().label("fot", "rok").obj(), None, None, None, None).obj(),
     [],
     [],
     [service({"foo": "bar"})], args((2, "node", "DoNotSchedule")), "SUCCESS", ((1, "zone", 1, True, False), ), ({}, ), (MAX, )),
    ("default soft constraints and a service",
     make_pod().name("p").label("foo", "bar").obj(),
     [],
     [],
     [service({"foo": "bar"})], args((2, "node", "ScheduleAnyway")), "SKIP", (), (), ()),
    ("TpKeyToDomainsNum is calculated when MinDomains is enabled",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y3").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y4").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}, ), (3, 0, )),
    pytest.param(
        make_pod().name("p").label("foo", "").node_selector({"foo": ""})
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("node", "node-a").label("foo", "").obj(),
      NodeW().name("node-b").label("node", "node-b").label("foo", "").obj(),
      NodeW().name("node-c").label("node", "node-c").label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, True, False), ), ({"node-a": 1, "node-b": 2}, ), (1, ),
        id="feature gate disabled with NodeAffinityPolicy", marks=NODE_INCLUSION_OFF),
    ("NodeAffinityPolicy honored with labelSelectors",
     make_pod().name("p").label("foo", "").node_selector({"foo": ""})
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("node", "node-a").label("foo", "").obj(),
      NodeW().name("node-b").label("node", "node-b").label("foo", "").obj(),
      NodeW().name("node-c").label("node", "node-c").label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, True, False), ), ({"node-a": 1, "node-b": 2}, ), (1, )),
    ("NodeAffinityPolicy ignored with labelSelectors",
     make_pod().name("p").label("foo", "").node_selector({"foo": ""})
     .spread_go(1, "node", "DoNotSchedule", BAR, None, "Ignore", None, None).obj(),
     [NodeW().name("node-a").label("node", "node-a").label("foo", "").obj(),
      NodeW().name("node-b").label("node", "node-b").label("foo", "").obj(),
      NodeW().name("node-c").label("node", "node-c").label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, False, False), ), ({"node-a": 1, "node-b": 2, "node-c": 0}, ), (0, )),
    ("NodeAffinityPolicy honored with nodeAffinity",
     make_pod().name("p").label("foo", "").node_affinity_in("foo", [""])
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("node", "node-a").label("foo", "").obj(),
      NodeW().name("node-b").label("node", "node-b").label("foo", "").obj(),
      NodeW().name("node-c").label("node", "node-c").label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-b").label("bar", "").obj(),
      make_pod().name("p-e").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, True, False), ), ({"node-a": 1, "node-b": 2}, ), (1, )),
    ("NodeAffinityPolicy ignored with nodeAffinity",
     make_pod().name("p").label("foo", "").node_affinity_in("foo", [""])
     .spread_go(1, "node", "DoNotSchedule", BAR, None, "Ignore", None, None).obj(),
     [NodeW().name("node-a").label("node", "node-a").label("foo", "").obj(),
      NodeW().name("node-b").label("node", "node-b").label("foo", "").obj(),
      NodeW().name("node-c").label("node", "node-c").label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, False, False), ), ({"node-a": 1, "node-b": 2, "node-c": 0}, ), (0, )),
    pytest.param(
        make_pod().name("p").label("foo", "")
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("node", "node-a").obj(),
      NodeW().name("node-b").label("node", "node-b").obj(),
      NodeW().name("node-c").label("node", "node-c").taints_().label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, True, False), ), ({"node-a": 1, "node-b": 2, "node-c": 0}, ), (0, ),
        id="feature gate disabled with NodeTaintsPolicy", marks=NODE_INCLUSION_OFF),
    ("NodeTaintsPolicy ignored",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("node", "node-a").obj(),
      NodeW().name("node-b").label("node", "node-b").obj(),
      NodeW().name("node-c").label("node", "node-c").taints_().label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, True, False), ), ({"node-a": 1, "node-b": 2, "node-c": 0}, ), (0, )),
    ("NodeTaintsPolicy honored",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, "Honor", None).obj(),
     [NodeW().name("node-a").label("node", "node-a").obj(),
      NodeW().name("node-b").label("node", "node-b").obj(),
      NodeW().name("node-c").label("node", "node-c").taints_().label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, True, True), ), ({"node-a": 1, "node-b": 2}, ), (1, )),
    ("NodeTaintsPolicy honored with tolerated taints",
     make_pod().name("p").label("foo", "").toleration_go("node.kubernetes.io/unschedulable")
     .spread_go(1, "node", "DoNotSchedule", BAR, None, None, "Honor", None).obj(),
     [NodeW().name("node-a").label("node", "node-a").obj(),
      NodeW().name("node-b").label("node", "node-b").obj(),
      NodeW().name("node-c").label("node", "node-c").taints_().label("bar", "").obj()],
     [make_pod().name("p-a").node("node-a").label("bar", "").obj(),
      make_pod().name("p-b").node("node-b").label("bar", "").obj(),
      make_pod().name("p-c").node("node-b").label("bar", "").obj(),
      make_pod().name("p-d").node("node-c").obj()],
     [], LIST, "SUCCESS", ((1, "node", 1, True, True), ), ({"node-a": 1, "node-b": 2, "node-c": 0}, ), (0, )),
    ("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
     make_pod().name("p").label("foo", "").node_selector({"foo": ""})
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, "Ignore", None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj()],
     [make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, False, False), ), ({"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}, ), (0, 0, )),
    ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, "Honor", None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").label("foo", "").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").taints_().obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj()],
     [make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-b2").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, True), (1, "node", 1, True, False), ), ({"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}, ), (0, 0, )),
    ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
     make_pod().name("p").label("foo", "").node_selector({"foo": ""})
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "").taints_().obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "node", 1, True, False), ), ({"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}, ), (0, 0, )),
    ("two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
     make_pod().name("p").label("foo", "").node_selector({"foo": ""})
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, "Ignore", None, None)
     .spread_go(1, "node", "DoNotSchedule", FOO, None, None, "Honor", None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").label("foo", "").taints_().obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").label("foo", "").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").label("foo", "").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("foo", "").obj(),
      make_pod().name("p-x2").node("node-x").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, False, False), (1, "node", 1, True, True), ), ({"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}, ), (2, 1, )),
    pytest.param(
        make_pod().name("p").label("foo", "").label("bar", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, ["bar"]).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 3, "zone2": 2}, ), (2, ),
        id="matchLabelKeys ignored when feature gate disabled", marks=MATCH_LABEL_KEYS_OFF),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
     make_pod().name("p").label("foo", "").label("bar", "a")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, ["bar"]).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "").label("bar", "a").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").label("bar", "a").obj(),
      make_pod().name("p-y2").node("node-y").label("bar", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 1, "zone2": 1}, ), (1, )),
    ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
     make_pod().name("p").label("foo", "a")
     .spread_go(1, "zone", "DoNotSchedule", SelW().obj(), None, None, None, ["foo"]).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "a").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "a").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "a").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 3, "zone2": 2}, ), (2, )),
    ("key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", None, None, None, None, ["bar"]).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "a").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "a").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "a").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 0, "zone2": 0}, ), (0, )),
    ("no pod is matched when LabelSelector is nil when feature gate disabled",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", None, None, None, None, ["bar"]).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "a").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "a").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "a").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 0, "zone2": 0}, ), (0, )),
    ("key in matchLabelKeys is ignored when it isn't exist in pod.labels",
     make_pod().name("p").label("foo", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, ["bar"]).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-a2").node("node-a").label("foo", "a").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "a").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "a").obj(),
      make_pod().name("p-y2").node("node-y").label("foo", "a").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), ), ({"zone1": 3, "zone2": 2}, ), (2, )),
    ("two spreadConstraints with the same topologyKey",
     make_pod().name("p").label("foo", "").label("bar", "")
     .spread_go(1, "zone", "DoNotSchedule", FOO, None, None, None, None)
     .spread_go(1, "zone", "DoNotSchedule", BAR, None, None, None, None).obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj(),
      NodeW().name("node-b").label("zone", "zone1").label("node", "node-b").obj(),
      NodeW().name("node-x").label("zone", "zone2").label("node", "node-x").obj(),
      NodeW().name("node-y").label("zone", "zone2").label("node", "node-y").obj()],
     [make_pod().name("p-a1").node("node-a").label("foo", "").label("bar", "").obj(),
      make_pod().name("p-b1").node("node-b").label("foo", "").obj(),
      make_pod().name("p-x1").node("node-x").label("bar", "").obj(),
      make_pod().name("p-y1").node("node-y").label("foo", "").label("bar", "").obj(),
      make_pod().name("p-y2").node("node-y").label("bar", "").obj()],
     [], LIST, "SUCCESS", ((1, "zone", 1, True, False), (1, "zone", 1, True, False), ), ({"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}, ), (1, 1, )),
    ("skip if not specified",
     make_pod().name("p").label("foo", "").obj(),
     [NodeW().name("node-a").label("zone", "zone1").label("node", "node-a").obj()],
     [],
     [], LIST, "SKIP", (), (), ()),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "objs", "plugin_args", "want_code", "want_constraints",
                          "want_counts", "want_minimum"),
                         [pytest.param(*r[1:], id=r[0]) if type(r) is tuple else r for r in ROWS])
def test_pre_filter_state(pod: Obj, nodes: list[Obj], pods: list[Obj], objs: list[Obj],
                          plugin_args: PodTopologySpreadArgs, want_code: str, want_constraints: Any,
                          want_counts: Any, want_minimum: Any) -> None:
    h = snapshot(pods, nodes, objs)
    pl = pts.new(plugin_args, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, pts.PodTopologySpread)
    state = CycleState()
    _, st = pl.pre_filter(state, pod, h.nodes())
    assert st.code.name == want_code
    if not st.is_success():
        return
    got = state.read(pts._PRE_FILTER)  # the state upstream's test reads too
    assert tuple((c.max_skew, c.topology_key, c.min_domains, c.honor_node_affinity, c.honor_node_taints)
                 for c in got.constraints) == want_constraints
    assert got.counts == want_counts
    assert got.minimum == want_minimum
