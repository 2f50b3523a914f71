"""InterPodAffinity queueing-hint rows ported from upstream
pkg/scheduler/framework/plugins/interpodaffinity/plugin_test.go (v1.37.2):
Test_isSchedulableAfterAssignedPodChange, Test_isSchedulableAfterTargetPodUpdateLabel,
Test_isSchedulableAfterNodeChange. The hints are the ones ``events_to_register`` returns."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.interface import EventResource, QueueingHint
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import inter_pod_affinity as ipa
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    NodeW,
    PodW,
    make_pod,
    sel_exists,
    sel_in,
    sel_labels,
    snapshot,
)

Obj = dict[str, Any]
Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def _hint(resource: EventResource) -> Any:
    pl = ipa.new(None, snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, ipa.InterPodAffinity)
    return next(r.hint for r in pl.events_to_register() if r.event.resource is resource)


def P() -> PodW:
    return make_pod("p").uid("p")


def other(on: str = "fake-node", **labels: str) -> Obj:
    w = make_pod("other").uid("other").labels(labels)
    if on:
        w.node(on)
    return w.obj()


def nominated(**labels: str) -> Obj:
    p = make_pod("other").labels(labels).obj()
    p["status"]["nominatedNodeName"] = "fake-node"
    return p


SVC = sel_in("service", "securityscan", "value2")
AFF = P().affinity("region", SVC).obj()
ANTI = P().anti("region", SVC).obj()
AFF2 = P().affinity("hostname", sel_exists("aaa")).affinity("hostname", sel_exists("bbb")).obj()
ANTI2 = P().anti("region", sel_in("service", "securityscan")).anti("region", sel_in("app", "web")).obj()
ANTI_OWNER = make_pod("other").node("fake-node").anti("region", SVC).obj()

ASSIGNED = [
    ("add a pod which matches the pod affinity", AFF, None, other(service="securityscan"), Q),
    ("add an un-scheduled pod", AFF, None, other("", service="securityscan"), SKIP),
    ("add a pod which doesn't match the pod affinity", AFF, None, other(aaa="a"), SKIP),
    ("update a pod from non-match to match pod affinity", AFF, other(aaa="a"), other(service="securityscan"), Q),
    ("the updating pod matches target pod's affinity both before and after label changes", AFF,
     other(service="value2"), other(service="securityscan"), SKIP),
    ("update an un-scheduled pod", AFF, other("", aaa="a"), other("", service="securityscan"), SKIP),
    ("update a pod from match to non-match the pod affinity", AFF, other(service="securityscan"), other(aaa="a"),
     SKIP),
    ("update a pod from match to non-match pod's affinity - multiple terms case", AFF2, other(aaa="a"),
     other(service="securityscan"), SKIP),
    ("update a pod from non-match to match pod's affinity - multiple terms case", AFF2, other(aaa="a"),
     other(aaa="", bbb=""), Q),
    ("modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity", ANTI,
     other(service="securityscan"), other(service="aaaa"), Q),
    ("modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity", ANTI,
     other(service="bbb"), other(service="securityscan"), SKIP),
    ("delete a pod which doesn't match pod's anti-affinity", ANTI, other(aaa="a"), None, SKIP),
    ("delete a pod which matches pod's anti-affinity", ANTI, other(service="securityscan"), None, Q),
    ("delete a pod with anti-affinity that matches pending pod", make_pod("p").label("service", "securityscan").obj(),
     ANTI_OWNER, None, Q),
    ("delete a pod with anti-affinity that doesn't match pending pod", make_pod("p").label("service", "foo").obj(),
     ANTI_OWNER, None, SKIP),
    ("delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't match pending "
     "pod", make_pod("p").anti("region", SVC).label("service", "foo").obj(),
     make_pod("other").node("fake-node").anti("region", SVC).label("service", "foo").obj(), None, SKIP),
    ("delete a nominated pod which doesn't match pod's anti-affinity", make_pod("p").anti("region", SVC).obj(),
     nominated(aaa="a"), None, SKIP),
    ("delete a nominated pod which matches pod's anti-affinity", make_pod("p").anti("region", SVC).obj(),
     nominated(service="securityscan"), None, Q),
    ("modify pod label to change it from matching only one of target pod's anti-affinity terms to matching none",
     ANTI2, other(service="securityscan", app="bar"), other(service="foo", app="bar"), Q),
    ("modify pod label but it still matches one of target pod's anti-affinity terms", ANTI2,
     other(service="securityscan", app="bar"), other(service="foo", app="web"), SKIP),
    ("delete a pod which matches only one of target pod's anti-affinity terms", ANTI2, other(service="securityscan"),
     None, Q),
    ("delete a pod with anti-affinity that matches pending pod on only one term",
     make_pod("p").label("service", "securityscan").obj(),
     make_pod("other").node("fake-node").uid("other").anti("region", sel_in("service", "securityscan"))
     .anti("region", sel_in("app", "web")).obj(), None, Q),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), [pytest.param(*r[1:], id=r[0]) for r in ASSIGNED])
def test_is_schedulable_after_assigned_pod_change(pod: Obj, old: Obj | None, new: Obj | None,
                                                  want: QueueingHint) -> None:
    assert _hint(EventResource.ASSIGNED_POD)(pod, old, new) is want


def test_is_schedulable_after_target_pod_update_label() -> None:
    """Any label change of the pod itself requeues it (no hint: always QUEUE)."""
    pl = ipa.new(None, snapshot([], []), SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, ipa.InterPodAffinity)
    regs = [r for r in pl.events_to_register() if r.event.resource is EventResource.TARGET_POD]
    assert regs and all(r.hint is None for r in regs)


def N(**labels: str) -> Obj:
    n = NodeW().name("node-a")
    for k, v in labels.items():
        n.label(k, v)
    return n.obj()


ZONE_AFF = make_pod("p").affinity("zone", SVC).obj()
ZONE_ANTI = make_pod("p").anti("zone", sel_labels(another="label")).obj()
NODES = [
    ("add a new node with matched pod affinity topologyKey", ZONE_AFF, None, N(zone="zone1"), Q),
    ("add a new node without matched topologyKey", make_pod("p").affinity("region", SVC).obj(), None, N(zone="zone1"),
     SKIP),
    ("update node label but not topologyKey", ZONE_AFF, N(aaa="a"), N(aaa="b"), SKIP),
    ("update node label that isn't related to the pod affinity", ZONE_AFF, N(zone="zone1"),
     N(zone="zone1", **{"unrelated-label": "unrelated"}), SKIP),
    ("update node with different affinity topologyKey value", ZONE_AFF, N(zone="zone1"), N(zone="zone2"), Q),
    ("update node to have the affinity topology label", ZONE_AFF, N(aaa="a"), N(zone="zone1"), Q),
    ("add a new node with matched pod anti-affinity topologyKey", ZONE_ANTI, None, N(zone="zone1"), Q),
    ("add a new node without matched pod anti-affinity topologyKey", ZONE_ANTI, None, N(), Q),
    ("update node label that isn't related to the pod anti-affinity", ZONE_ANTI, N(zone="zone1"),
     N(zone="zone1", **{"unrelated-label": "unrelated"}), SKIP),
    ("update node with different anti-affinity topologyKey value", ZONE_ANTI, N(zone="zone1"), N(zone="zone2"), Q),
    ("update node to have the anti-affinity topology label", ZONE_ANTI, N(aaa="a"), N(zone="zone1"), SKIP),
    ("update node label not to have anti-affinity topology label", ZONE_ANTI, N(zone="zone1"), N(aaa="a"), Q),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), [pytest.param(*r[1:], id=r[0]) for r in NODES])
def test_is_schedulable_after_node_change(pod: Obj, old: Obj | None, new: Obj | None, want: QueueingHint) -> None:
    assert _hint(EventResource.NODE)(pod, old, new) is want
