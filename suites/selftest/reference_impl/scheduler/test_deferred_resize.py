"""The scheduler around a deferred in-place resize (KEP-5836), after upstream v1.37.2:
the profile (applyDeferredPodScheduling), the plugins that skip such pods
(TestScheduler_DeferredResizePluginSkipping), NodeResourcesFit's delta (the "mitigates
double counting" preemption case), the queue handlers, the failure handler
(TestHandleSchedulingFailureForDeferredResizePod) and AssumePod refusing a cached pod."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_node, make_pod, make_pod_group
from reference_impl.features import FeatureGates
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.diagnosis import NodeToStatus
from reference_impl.scheduler.framework.events import node_update_events, pod_update_events
from reference_impl.scheduler.framework.interface import (
    OK,
    ActionType,
    Code,
    EventResource,
    QueueingHint,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
)
from reference_impl.scheduler.profile import default_profile
from suites.selftest.reference_impl.scheduler.conftest import Harness, HarnessFactory

Obj = dict[str, Any]
GATE = {"InPlacePodVerticalScalingSchedulerPreemption": True}
DEFERRED = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}


def _deferred(pod: Obj, allocated_cpu: str | None = None) -> Obj:
    status: Obj = {"conditions": [dict(DEFERRED)]}
    if allocated_cpu is not None:
        name = pod["spec"]["containers"][0]["name"]
        old = {"cpu": allocated_cpu}
        status["containerStatuses"] = [
            {"name": name, "allocatedResources": old, "resources": {"requests": old}}
        ]
    return {**pod, "status": status}


def _bound(h: Harness, name: str, node: str, cpu: str, priority: int) -> Obj:
    h.create(make_pod(name).req(cpu=cpu).node(node).set("spec.priority", priority).build())
    return h.pod(name)


def _defer(h: Harness, name: str, allocated_cpu: str) -> None:
    h.server.update_status(_deferred(h.pod(name), allocated_cpu))
    h.clock.settle()


def _alive(h: Harness) -> set[str]:
    return {
        p["metadata"]["name"]
        for p in h.server.list("v1", "Pod", "default")
        if not p["metadata"].get("deletionTimestamp")
    }


# -- the profile --------------------------------------------------------------------


def test_the_gate_puts_the_plugin_right_before_node_resources_fit() -> None:
    on = [p.name for p in default_profile(FeatureGates(GATE)).plugins]
    assert on[on.index(names.NODE_RESOURCES_FIT) - 1] == names.DEFERRED_POD_SCHEDULING
    off = [p.name for p in default_profile(FeatureGates()).plugins]
    assert names.DEFERRED_POD_SCHEDULING not in off


# -- which plugins run ----------------------------------------------------------------

IRRELEVANT = {
    names.NODE_AFFINITY, names.POD_TOPOLOGY_SPREAD, names.NODE_VOLUME_LIMITS, names.NODE_PORTS,
    names.VOLUME_BINDING, names.VOLUME_ZONE, names.VOLUME_RESTRICTIONS,
    names.INTER_POD_AFFINITY, names.NODE_DECLARED_FEATURES, names.DYNAMIC_RESOURCES,
    names.TAINT_TOLERATION, names.NODE_UNSCHEDULABLE,
}
RELEVANT = {names.NODE_NAME, names.NODE_RESOURCES_FIT, names.DEFERRED_POD_SCHEDULING}


def _skipped(h: Harness, pod: Obj) -> set[str]:
    state = CycleState()
    fw = h.scheduler.framework
    result, status, _ = fw.run_pre_filter_plugins(state, pod, h.scheduler.cache.node_infos())
    assert status.is_success()
    assert result is not None and result.node_names == {"node1"}  # NodeName narrows
    return set(state.skip_filter_plugins)


def test_a_deferred_pod_skips_every_plugin_upstream_skips_and_no_other(
    harness_factory: HarnessFactory,
) -> None:
    h = harness_factory(gates=GATE)
    h.create(make_node("node1").build())
    pod = _deferred(make_pod("pod1").namespace("default").node("node1").build())
    skipped = _skipped(h, pod)
    assert IRRELEVANT <= skipped
    assert not RELEVANT & skipped


def test_without_the_gate_a_deferred_pod_is_filtered_as_any_other(
    harness_factory: HarnessFactory,
) -> None:
    h = harness_factory()
    h.create(make_node("node1").build())
    pod = _deferred(make_pod("pod1").namespace("default").node("node1").build())
    skipped = _skipped(h, pod)
    assert names.TAINT_TOLERATION not in skipped and names.NODE_UNSCHEDULABLE not in skipped


# -- NodeResourcesFit -----------------------------------------------------------------


def _fit_status(gate: bool, *others: Obj) -> Code:
    node = make_node("node1").capacity(cpu="200m", memory="200").build()
    ni = NodeInfo("node1", node)
    cached = make_pod("p").namespace("default").node("node1").req(cpu="100m", memory="100").build()
    for p in (cached, *others):
        ni.add_pod(PodInfo(p))
    pod = _deferred(
        make_pod("p").namespace("default").node("node1").req(cpu="200m", memory="200").build()
    )
    fit = NodeResourcesFit(NodeResourcesFitArgs(), None, resize_preemption=gate)
    state = CycleState()
    fit.pre_filter(state, pod, [ni])
    return fit.filter(state, pod, ni).code


def test_fit_counts_only_what_a_deferred_pod_adds_to_its_cached_self() -> None:
    victim = make_pod("p1").namespace("default").node("node1").req(cpu="100m", memory="100")
    assert _fit_status(True, victim.build()) is Code.UNSCHEDULABLE
    assert _fit_status(True) is OK.code  # the victim gone: 100m more fits in 100m left
    assert _fit_status(False) is Code.UNSCHEDULABLE  # the whole 200m again, double counted


def test_fit_hints_for_a_deferred_pod_look_at_its_own_node_only() -> None:
    fit = NodeResourcesFit(NodeResourcesFitArgs(), None, resize_preemption=True)
    pod = _deferred(make_pod("p").node("node1").req(cpu="1").build())
    here = make_pod("o").node("node1").req(cpu="1").build()
    there = make_pod("o").node("node2").req(cpu="1").build()
    hints = {r.event: r.hint for r in fit.events_to_register()}
    delete = next(e for e in hints if e.action & ActionType.DELETE)
    up = next(e for e in hints if e.resource is EventResource.ASSIGNED_POD
              and e.action == ActionType.UPDATE_POD_SCALE_UP)
    freed, grew = hints[delete], hints[up]
    assert freed is not None and grew is not None
    assert freed(pod, there, None) is QueueingHint.QUEUE_SKIP
    assert freed(pod, here, None) is QueueingHint.QUEUE
    assert grew(pod, here, here) is QueueingHint.QUEUE
    assert grew(pod, there, there) is QueueingHint.QUEUE_SKIP


def test_update_events_name_scale_ups_and_preemption_policy_changes() -> None:
    small = make_pod("p").node("n").req(cpu="1").build()
    big = make_pod("p").node("n").req(cpu="2").build()
    actions = {e.action for e in pod_update_events(EventResource.ASSIGNED_POD, small, big)}
    assert ActionType.UPDATE_POD_SCALE_UP in actions
    assert ActionType.UPDATE_POD_SCALE_DOWN not in actions
    node = make_node("n").build()
    off = {**node, "spec": {"podPreemptionPolicy": {"disableResizePreemption": ["x"]}}}
    events = node_update_events(off, node)
    assert [e.action for e in events] == [ActionType.UPDATE_NODE_PREEMPTION_POLICY]


# -- the queue and the cycle ----------------------------------------------------------


def test_a_bound_pod_is_queued_exactly_while_its_resize_is_deferred(
    harness_factory: HarnessFactory,
) -> None:
    h = harness_factory(gates=GATE)
    h.create(make_node("node1").capacity(cpu="4").build())
    _bound(h, "high", "node1", "1", 1000)
    key = "default/high"
    assert h.scheduler.queue.where(key) == ""
    _defer(h, "high", "1")
    assert h.scheduler.queue.where(key) != ""
    pod = h.pod("high")
    h.server.update_status({**pod, "status": {**pod["status"], "conditions": []}})
    h.clock.settle()
    assert h.scheduler.queue.where(key) == ""
    _defer(h, "high", "1")
    h.server.delete("v1", "Pod", "high", "default")
    # Terminating, it stays queued; its next pop skips it (skipPodSchedule) for good.
    h.advance(15)
    assert h.scheduler.queue.where(key) == ""


def test_without_the_gate_a_deferred_pod_is_never_queued(harness_factory: HarnessFactory) -> None:
    h = harness_factory()
    h.create(make_node("node1").capacity(cpu="4").build())
    _bound(h, "high", "node1", "1", 1000)
    _defer(h, "high", "1")
    assert h.scheduler.queue.where("default/high") == ""


def test_preemption_for_a_deferred_resize_stays_on_its_node_and_marks_nothing_on_it(
    harness_factory: HarnessFactory,
) -> None:
    h = harness_factory(gates=GATE)
    h.create(make_node("a").capacity(cpu="4").build(), make_node("b").capacity(cpu="4").build())
    _bound(h, "high", "a", "3", 1000)  # spec already resized from 2 to 3
    _bound(h, "low-a", "a", "2", 10)
    _bound(h, "low-b", "b", "2", 10)
    _defer(h, "high", "2")
    h.advance(1)
    assert _alive(h) == {"high", "low-b"}
    pod = h.pod("high")
    assert h.scheduled_condition("high") is None  # no PodScheduled=False written
    assert not (pod.get("status") or {}).get("nominatedNodeName")


def test_a_node_disabling_resize_preemption_is_left_alone_until_it_re_enables(
    harness_factory: HarnessFactory,
) -> None:
    h = harness_factory(gates=GATE)
    node = make_node("a").capacity(cpu="4").build()
    node["spec"]["podPreemptionPolicy"] = {"disableResizePreemption": ["ops"]}
    h.create(node)
    _bound(h, "high", "a", "3", 1000)
    _bound(h, "low", "a", "2", 10)
    _defer(h, "high", "2")
    h.advance(30)
    assert _alive(h) == {"high", "low"}
    assert h.scheduler.queue.where("default/high") == "unschedulable"
    stored = h.server.get("v1", "Node", "a")
    h.server.update({**stored, "spec": {}})
    h.clock.settle()
    h.advance(1)
    assert _alive(h) == {"high"}


def test_a_deferred_resize_that_fits_errors_at_assume_and_backs_off(
    harness_factory: HarnessFactory,
) -> None:
    h = harness_factory(gates=GATE)
    h.create(make_node("a").capacity(cpu="8").build())
    pod = _bound(h, "high", "a", "3", 1000)
    _defer(h, "high", "2")
    uid = pod["metadata"]["uid"]
    want = f"pod {uid}(default/high) is in the cache, so can't be assumed"
    errors = [r for r in h.trace.records if r.event == "SchedulerError" and r.object == "default/high"]
    assert errors and errors[0].detail == want
    assert h.scheduler.queue.where("default/high") == "backoff"
    assert h.scheduled_condition("high") is None


def test_a_deferred_pod_of_a_gang_is_scheduled_alone(harness_factory: HarnessFactory) -> None:
    # isPodGroupMember is false for a deferred resize: its own cycle, not its gang's.
    h = harness_factory(gates={**GATE, "GenericWorkload": True})
    h.create(make_node("a").capacity(cpu="4").build(), make_node("b").capacity(cpu="4").build())
    h.create(make_pod_group("g", "default", min_count=2))
    for name, node, cpu in (("high", "a", "3"), ("mate", "b", "1")):
        member = make_pod(name).req(cpu=cpu).node(node).set("spec.priority", 1000)
        h.create(member.pod_group("g").build())
    _bound(h, "low", "a", "2", 10)
    _defer(h, "high", "2")
    h.advance(1)
    assert _alive(h) == {"high", "mate"}


def test_a_deferred_resize_that_fits_stays_accounted_on_its_node(
    harness_factory: HarnessFactory,
) -> None:
    h = harness_factory(gates=GATE)
    h.create(make_node("a").capacity(cpu="4").build())
    _bound(h, "high", "a", "3", 1000)
    _defer(h, "high", "2")
    h.advance(5)  # a few failed cycles
    h.create(make_pod("newcomer").req(cpu="2").build())
    h.advance(5)
    assert h.node_of("newcomer") == ""


def test_post_filter_for_a_deferred_pod_is_preemption_alone(
    harness_factory: HarnessFactory,
) -> None:
    # TestScheduler_DeferredResizePostFilterPluginSkipping, gate on: DynamicResources
    # adds nothing, DefaultPreemption fails with its one "preemption: " reason.
    h = harness_factory(gates=GATE)
    h.create(make_node("node1").build())
    pod = _bound(h, "pod1", "node1", "100m", 0)
    fw = h.scheduler.framework
    _, status = fw.run_post_filter_plugins(CycleState(), _deferred(pod), NodeToStatus())
    assert status.code is Code.UNSCHEDULABLE
    assert len(status.reasons) == 1 and status.reasons[0].startswith("preemption: ")
