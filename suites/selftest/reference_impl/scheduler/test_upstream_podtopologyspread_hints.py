"""PodTopologySpread queueing-hint rows ported from upstream
pkg/scheduler/framework/plugins/podtopologyspread/plugin_test.go (v1.37.2):
Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterAssignedPodChange,
Test_isSchedulableAfterTargetPodChange. The hints are the ones ``events_to_register``
returns; the one gate-off row of the last test is run with the gate on (GA), which does
not change its outcome (its constraint sets no Honor policy)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import EventResource, QueueingHint
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import pod_topology_spread as pts
from reference_impl.scheduler.plugins.pod_topology_spread_common import PodTopologySpreadArgs
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    NodeW,
    PodW,
    make_pod,
    sel_exists,
    snapshot,
)

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
FOO, BAR = sel_exists("foo"), sel_exists("bar")
DNS = "DoNotSchedule"


def _hint(resource: EventResource) -> Any:
    pl = pts.new(PodTopologySpreadArgs(defaulting_type="List"), snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, pts.PodTopologySpread)
    return next(r.hint for r in pl.events_to_register() if r.event.resource is resource)


def N(*labels: tuple[str, str], taint: str = "") -> Obj:
    n = NodeW().name("node-a")
    for k, v in labels:
        n.label(k, v)
    o = n.obj()
    if taint:
        o["spec"]["taints"] = [{"key": taint, "value": "bbb", "effect": "NoSchedule"}]
    return o


ZONE = make_pod("p").spread(1, "zone", DNS, FOO).obj()
ZONE_NODE = make_pod("p").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, FOO).obj()
NODES = [
    ("node updates label which matches topologyKey", ZONE, N(("zone", "zone1")), N(("zone", "zone2")), Q),
    ("node that doesn't match topologySpreadConstraints updates non-related label", ZONE, N(("foo", "bar1")),
     N(("foo", "bar2")), SKIP),
    ("node that match topologySpreadConstraints adds non-related label", ZONE_NODE,
     N(("zone", "zone1"), ("node", "node1"), ("foo", "bar")), N(("zone", "zone1"), ("node", "node1")), SKIP),
    ("create node with non-related labels", ZONE, None, N(("foo", "bar")), SKIP),
    ("create node with related labels", ZONE, None, N(("zone", "zone1")), Q),
    ("delete node with non-related labels", ZONE, N(("foo", "bar")), None, SKIP),
    ("delete node with related labels", ZONE, N(("zone", "zone1")), None, Q),
    ("add node with related labels that only match one of topologySpreadConstraints", ZONE_NODE, None,
     N(("zone", "zone1")), SKIP),
    ("add node with related labels that match all topologySpreadConstraints", ZONE_NODE, None,
     N(("zone", "zone1"), ("node", "node1")), Q),
    ("update node with related labels that only match one of topologySpreadConstraints", ZONE_NODE,
     N(("zone", "zone1")), N(("zone", "zone1")), SKIP),
    ("update node with related labels that match all topologySpreadConstraints", ZONE_NODE,
     N(("zone", "zone1"), ("node", "node1")), N(("zone", "zone1"), ("node", "node2")), Q),
    ("update node with different taints that match all topologySpreadConstraints", ZONE_NODE,
     N(("zone", "zone1"), ("node", "node1"), taint="aaa"), N(("zone", "zone1"), ("node", "node1"), taint="ccc"), Q),
    ("update node with different taints that only match one of topologySpreadConstraints", ZONE_NODE,
     N(("node", "node1"), taint="aaa"), N(("node", "node1"), taint="ccc"), SKIP),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), [pytest.param(*r[1:], id=r[0]) for r in NODES])
def test_is_schedulable_after_node_change(pod: Obj, old: Obj | None, new: Obj | None, want: QueueingHint) -> None:
    assert _hint(EventResource.NODE)(pod, old, new) is want


def P2(on: str = "fake-node", ns: str = "", nominated: bool = False, **labels: str) -> Obj:
    w = make_pod("p2").uid("p2").ns(ns).labels(labels)
    if on and not nominated:
        w.node(on)
    p = w.obj()
    if nominated:
        p["status"]["nominatedNodeName"] = on
    return p


FOO_ZONE = make_pod("p").uid("p").label("foo", "").spread(1, "zone", DNS, FOO).obj()
FOO_BAR = make_pod("p").uid("p").label("foo", "").spread(1, "zone", DNS, FOO).spread(1, "node", DNS, BAR).obj()
ASSIGNED = [
    ("add pod with labels match topologySpreadConstraints selector", FOO_ZONE, None, P2(foo=""), Q),
    ("add un-scheduled pod", FOO_ZONE, None, P2("", foo=""), SKIP),
    ("update un-scheduled pod", FOO_ZONE, P2("", bar=""), P2("", foo=""), SKIP),
    ("delete un-scheduled pod", FOO_ZONE, P2("", foo=""), None, SKIP),
    ("add pod with different namespace", FOO_ZONE, None, P2(ns="fake-namespace", foo=""), SKIP),
    ("add pod with labels don't match topologySpreadConstraints selector", FOO_ZONE, None, P2(bar=""), SKIP),
    ("delete pod with labels that match topologySpreadConstraints selector", FOO_ZONE, P2(foo=""), None, Q),
    ("delete nominated pod with labels that don't match topologySpreadConstraints selector", FOO_ZONE,
     P2(nominated=True, bar=""), None, SKIP),
    ("delete nominated pod with labels that match topologySpreadConstraints selector", FOO_ZONE,
     P2(nominated=True, foo=""), None, Q),
    ("delete pod with labels that don't match topologySpreadConstraints selector", FOO_ZONE, P2(bar=""), None, SKIP),
    ("update pod's non-related label", FOO_ZONE, P2(foo="", bar="bar1"), P2(foo="", bar="bar2"), SKIP),
    ("add pod's label that matches topologySpreadConstraints selector", FOO_ZONE, P2(), P2(foo=""), Q),
    ("delete pod label that matches topologySpreadConstraints selector", FOO_ZONE, P2(foo=""), P2(), Q),
    ("change pod's label that matches topologySpreadConstraints selector", FOO_ZONE, P2(foo="foo1"), P2(foo="foo2"),
     SKIP),
    ("change pod's label that doesn't match topologySpreadConstraints selector", FOO_ZONE, P2(foo="", bar="bar1"),
     P2(foo="", bar="bar2"), SKIP),
    ("add pod's label that matches topologySpreadConstraints selector with multi topologySpreadConstraints", FOO_BAR,
     P2(foo=""), P2(foo="", bar="bar2"), Q),
    ("change pod's label that doesn't match topologySpreadConstraints selector with multi topologySpreadConstraints",
     FOO_BAR, P2(foo=""), P2(foo="", baz=""), SKIP),
    ("change pod's label that match topologySpreadConstraints selector with multi topologySpreadConstraints",
     FOO_BAR, P2(foo="", bar=""), P2(foo="", bar="bar2"), SKIP),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), [pytest.param(*r[1:], id=r[0]) for r in ASSIGNED])
def test_is_schedulable_after_assigned_pod_change(pod: Obj, old: Obj | None, new: Obj | None,
                                                  want: QueueingHint) -> None:
    assert _hint(EventResource.ASSIGNED_POD)(pod, old, new) is want


def _target(policy: str) -> Obj:
    return (make_pod("p").uid("p").label("foo", "").spread(1, "zone", DNS, FOO, node_taints_policy=policy)
            .spread(1, "node", DNS, BAR).obj())


def _self(labels: dict[str, str], tolerate: bool = False) -> Obj:
    w: PodW = make_pod("p").uid("p").labels(labels)
    if tolerate:
        w.toleration_go("node.kubernetes.io/unschedulable")
    return w.obj()


TARGET = [
    ("the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has got a new toleration",
     _target("Honor"), _self({"foo": ""}), _self({"foo": ""}, tolerate=True), Q),
    ("the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has got a new toleration",
     _target("Ignore"), _self({"foo": ""}), _self({"foo": ""}, tolerate=True), SKIP),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new label matching the selector of the "
     "constraint", _target("Ignore"), _self({}), _self({"foo": ""}), Q),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label", _target("Ignore"),
     _self({}), _self({"unrelated": ""}), SKIP),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), [pytest.param(*r[1:], id=r[0]) for r in TARGET])
def test_is_schedulable_after_target_pod_change(pod: Obj, old: Obj, new: Obj, want: QueueingHint) -> None:
    assert _hint(EventResource.TARGET_POD)(pod, old, new) is want
