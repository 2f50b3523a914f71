"""Each plugin's EventsToRegister against upstream v1.37.2, and the queue's use of them.

Ported (framework/plugins/noderesources/fit_test.go): ``TestEventsToRegister`` (hints are
dropped before comparing, as upstream does). Beyond that table, every in-tree plugin's
registrations are checked against its ``EventsToRegister`` source (resource, action, order;
then whether a hint can say QueueSkip); upstream's hints that always return Queue may be
absent here (no hint is QUEUE). The queue rows check ``PriorityQueue.Update``: the pod's
own update, status-only ones included, is the events ``PodSchedulingPropertiesChange``
derives, and a gated pod is released only through its gating plugin's hints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pytest

from reference_impl.api import make_node, make_pod, make_pvc
from reference_impl.clock import SimClock
from reference_impl.scheduler.framework.events import pod_update_events
from reference_impl.scheduler.framework.interface import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from reference_impl.scheduler.framework.queue import SchedulingQueue
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.node_resources_fit import (
    NodeResourcesFit,
    NodeResourcesFitArgs,
)
from suites.selftest.reference_impl.scheduler.conftest import make_harness
from suites.selftest.reference_impl.scheduler.test_upstream_core_queue import FakeQueueFramework
from suites.selftest.reference_impl.scheduler.upstream_noderesources_util import FixedClasses

Obj = dict[str, Any]
A, R = ActionType, EventResource
Hint = Literal["hint", "none", "any"]  # "any": upstream's hint always returns Queue
Row = tuple[EventResource, ActionType, Hint]


def _view(regs: Sequence[ClusterEventWithHint]) -> list[tuple[EventResource, ActionType]]:
    return [(r.event.resource, r.event.action) for r in regs]


# -- fit_test.go TestEventsToRegister ---------------------------------------------------

_FIT_BASE = [(R.ASSIGNED_POD, A.DELETE), (R.NODE, A.ADD | A.UPDATE_NODE_ALLOCATABLE)]


@pytest.mark.parametrize(
    ("in_place", "dra_ext", "want"),
    [
        pytest.param(True, False, [*_FIT_BASE, (R.ASSIGNED_POD, A.UPDATE_POD_SCALE_DOWN),
                                   (R.TARGET_POD, A.UPDATE_POD_SCALE_DOWN)],
                     id="Register events with InPlacePodVerticalScaling feature enabled"),
        pytest.param(False, False, _FIT_BASE, id="Register events with default features"),
        pytest.param(False, True, [*_FIT_BASE, (R.DEVICE_CLASS, A.ADD | A.UPDATE)],
                     id="Register events with DRAExtendedResource feature enabled"),
    ],
)
def test_fit_events_to_register(
    in_place: bool, dra_ext: bool, want: list[tuple[EventResource, ActionType]]
) -> None:
    dra = FixedClasses({}) if dra_ext else None
    fit = NodeResourcesFit(NodeResourcesFitArgs(), dra, in_place=in_place)
    assert _view(fit.events_to_register()) == want


# -- every plugin against its EventsToRegister source -----------------------------------

_POD_LABEL_DELETE = A.ADD | A.UPDATE_POD_LABEL | A.DELETE
_ADD_UPDATE = A.ADD | A.UPDATE
_RESIZE = {"InPlacePodVerticalScalingSchedulerPreemption": True}
_GANG = ("the reference files a gang's failed topology placement under GangScheduling "
         "(upstream: the placement plugins, which hear every event), so it also registers "
         "Node Add|UpdateNodeLabel; without it test_gang_topology's relabelled-node row "
         "never binds")

# (id, plugin, gates, rows, skip reason for the whole row, skip reason for the hints)
TABLE: list[tuple[str, str, dict[str, bool], list[Row], str, str]] = [
    ("SchedulingGates", names.SCHEDULING_GATES, {}, [
        (R.TARGET_POD, A.UPDATE_POD_SCHEDULING_GATES_ELIMINATED, "hint")], "", ""),
    ("NodeName", names.NODE_NAME, {}, [(R.NODE, A.ADD, "none")], "", ""),
    ("NodeUnschedulable", names.NODE_UNSCHEDULABLE, {}, [
        (R.NODE, A.ADD | A.UPDATE_NODE_TAINT, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_TOLERATIONS, "hint")], "", ""),
    ("TaintToleration", names.TAINT_TOLERATION, {}, [
        (R.NODE, A.ADD | A.UPDATE_NODE_TAINT, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_TOLERATIONS, "any")], "", ""),
    ("NodeAffinity", names.NODE_AFFINITY, {}, [
        (R.NODE, A.ADD | A.UPDATE_NODE_LABEL, "hint")], "", ""),
    ("NodePorts", names.NODE_PORTS, {}, [
        (R.ASSIGNED_POD, A.DELETE, "hint"), (R.NODE, A.ADD, "none")], "", ""),
    ("NodeResourcesFit", names.NODE_RESOURCES_FIT, {}, [
        (R.ASSIGNED_POD, A.DELETE, "hint"),
        (R.NODE, A.ADD | A.UPDATE_NODE_ALLOCATABLE, "hint"),
        (R.DEVICE_CLASS, _ADD_UPDATE, "hint"),
        (R.ASSIGNED_POD, A.UPDATE_POD_SCALE_DOWN, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_SCALE_DOWN, "any")], "", ""),
    ("NodeResourcesFit with InPlacePodVerticalScalingSchedulerPreemption",
     names.NODE_RESOURCES_FIT, _RESIZE, [
        (R.ASSIGNED_POD, A.DELETE, "hint"),
        (R.NODE, A.ADD | A.UPDATE_NODE_ALLOCATABLE, "hint"),
        (R.DEVICE_CLASS, _ADD_UPDATE, "hint"),
        (R.ASSIGNED_POD, A.UPDATE_POD_SCALE_DOWN, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_SCALE_DOWN, "any"),
        (R.ASSIGNED_POD, A.UPDATE_POD_SCALE_UP, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_SCALE_UP, "hint")], "", ""),
    ("DeferredPodScheduling", names.DEFERRED_POD_SCHEDULING, _RESIZE, [
        (R.NODE, A.UPDATE_NODE_PREEMPTION_POLICY, "hint"), (R.NODE, A.ADD, "hint")], "", ""),
    ("PodTopologySpread", names.POD_TOPOLOGY_SPREAD, {}, [
        (R.ASSIGNED_POD, _POD_LABEL_DELETE, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_TOLERATIONS | A.UPDATE_POD_LABEL, "hint"),
        (R.NODE, A.ADD | A.DELETE | A.UPDATE_NODE_LABEL | A.UPDATE_NODE_TAINT, "hint")], "", ""),
    ("InterPodAffinity", names.INTER_POD_AFFINITY, {}, [
        (R.ASSIGNED_POD, _POD_LABEL_DELETE, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_LABEL, "any"),
        (R.NODE, A.ADD | A.UPDATE_NODE_LABEL, "hint")], "", ""),
    ("DynamicResources", names.DYNAMIC_RESOURCES, {}, [
        (R.NODE, A.ADD | A.UPDATE_NODE_LABEL | A.UPDATE_NODE_ALLOCATABLE, "none"),
        (R.RESOURCE_CLAIM, _ADD_UPDATE | A.DELETE, "hint"),
        (R.TARGET_POD, A.UPDATE_POD_GENERATED_RESOURCE_CLAIM, "hint"),
        (R.DEVICE_CLASS, _ADD_UPDATE, "none"),
        (R.RESOURCE_SLICE, _ADD_UPDATE, "none")], "", ""),
    ("VolumeBinding", names.VOLUME_BINDING, {}, [
        (R.STORAGE_CLASS, _ADD_UPDATE, "hint"),
        (R.PERSISTENT_VOLUME_CLAIM, _ADD_UPDATE, "hint"),
        (R.PERSISTENT_VOLUME, _ADD_UPDATE, "none"),
        (R.NODE, A.ADD | A.UPDATE_NODE_LABEL, "none"),
        (R.CSI_NODE, _ADD_UPDATE, "hint"),
        (R.CSI_DRIVER, A.UPDATE, "hint"),
        (R.CSI_STORAGE_CAPACITY, _ADD_UPDATE, "hint")], "", ""),
    ("VolumeZone", names.VOLUME_ZONE, {}, [
        (R.STORAGE_CLASS, A.ADD, "hint"),
        (R.NODE, A.ADD | A.UPDATE_NODE_LABEL, "none"),
        (R.PERSISTENT_VOLUME_CLAIM, _ADD_UPDATE, "hint"),
        (R.PERSISTENT_VOLUME, _ADD_UPDATE, "hint")], "", ""),
    ("VolumeRestrictions", names.VOLUME_RESTRICTIONS, {}, [
        (R.ASSIGNED_POD, A.DELETE, "hint"), (R.NODE, A.ADD, "none"),
        (R.PERSISTENT_VOLUME_CLAIM, A.ADD, "hint")], "", ""),
    ("NodeVolumeLimits", names.NODE_VOLUME_LIMITS, {}, [
        (R.CSI_NODE, A.ADD, "none"), (R.CSI_NODE, A.UPDATE, "hint"),
        (R.ASSIGNED_POD, A.DELETE, "hint"), (R.PERSISTENT_VOLUME_CLAIM, A.ADD, "hint"),
        (R.VOLUME_ATTACHMENT, A.DELETE, "hint")], "", ""),
    ("GangScheduling", names.GANG_SCHEDULING, {}, [
        (R.UNSCHEDULED_POD, A.ADD, "hint"), (R.ASSIGNED_POD, A.ADD, "hint"),
        (R.POD_GROUP, A.ADD, "hint"), (R.POD_GROUP, A.UPDATE, "hint")], _GANG, ""),
    ("NodeDeclaredFeatures", names.NODE_DECLARED_FEATURES, {}, [
        (R.NODE, A.ADD | A.UPDATE_NODE_DECLARED_FEATURE, "hint"), (R.TARGET_POD, A.UPDATE, "hint")],
     "NodeDeclaredFeatures is helper BM's plugin today", ""),
    ("DefaultPreemption", names.DEFAULT_PREEMPTION, {}, [(R.ASSIGNED_POD, A.DELETE, "hint")],
     "SchedulerAsyncPreemption (on by default) is not modelled: preemption is synchronous "
     "here, so no pod waits on its victims' deletion", ""),
]


def _params(hints: bool) -> list[Any]:
    out = []
    for name, plugin, gates, rows, skip_all, skip_hints in TABLE:
        reason = skip_all or (skip_hints if hints else "")
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        out.append(pytest.param(plugin, gates, rows, marks=marks, id=name))
    return out


@pytest.mark.parametrize(("plugin", "gates", "want"), _params(hints=False))
def test_plugin_events_to_register(plugin: str, gates: dict[str, bool], want: list[Row]) -> None:
    """Resources, actions and their order, as upstream's ``EventsToRegister``."""
    regs = make_harness(gates=gates).scheduler.framework.events_for(plugin)
    assert _view(regs) == [(res, act) for res, act, _ in want]


@pytest.mark.parametrize(("plugin", "gates", "want"), _params(hints=True))
def test_plugin_queueing_hints(plugin: str, gates: dict[str, bool], want: list[Row]) -> None:
    """A registration carries a hint exactly where upstream's can say QueueSkip."""
    regs = make_harness(gates=gates).scheduler.framework.events_for(plugin)
    for reg, (_, _, hint) in zip(regs, want, strict=True):
        if hint != "any":
            assert (reg.hint is not None) == (hint == "hint"), reg.event


# -- PriorityQueue.Update with the derived events ---------------------------------------


class _Calls:
    def __init__(self, verdict: QueueingHint) -> None:
        self.verdict, self.seen = verdict, 0

    def __call__(self, pod: Obj, old: Obj | None, new: Obj | None) -> QueueingHint:
        self.seen += 1
        return self.verdict


def _rejected(q: SchedulingQueue, pod: Obj, plugin: str) -> None:
    q.add(pod)
    pinfo = q.pop()
    assert pinfo is not None
    pinfo.unschedulable_plugins = {plugin}
    q.add_unschedulable_if_not_present(pinfo, error=False)
    assert q.where("default/p") == "unschedulable"


def _claim_status(pod: Obj) -> Obj:
    claims = [{"name": "c", "resourceClaimName": "p-c"}]
    return {**pod, "status": {**(pod.get("status") or {}), "resourceClaimStatuses": claims}}


@pytest.mark.parametrize(
    ("registered", "change", "calls"),
    [
        pytest.param(A.UPDATE, lambda p: {**p, "status": {"message": "x"}}, 1,
                     id="status-only update: the general Update reaches a TargetPod/Update hint"),
        pytest.param(A.UPDATE_POD_LABEL, lambda p: {**p, "status": {"message": "x"}}, 0,
                     id="status-only update: no fine-grained hint is asked"),
        pytest.param(A.UPDATE_POD_GENERATED_RESOURCE_CLAIM, _claim_status, 1,
                     id="claim statuses written: UpdatePodGeneratedResourceClaim's hint is asked"),
    ],
)
def test_update_asks_hints_for_derived_events(registered: ActionType, change: Any, calls: int) -> None:
    hint = _Calls(QueueingHint.QUEUE_SKIP)
    reg = ClusterEventWithHint(ClusterEvent(R.TARGET_POD, registered), hint)
    q = SchedulingQueue(SimClock(), FakeQueueFramework({"pl": [reg]}), lambda: None)
    old = make_pod("p", "default").build()
    _rejected(q, old, "pl")
    new = change(old)
    q.update(old, new, pod_update_events(R.TARGET_POD, old, new))
    assert hint.seen == calls
    assert q.where("default/p") == "unschedulable"


def test_gated_pod_update_asks_the_gating_plugins_hint() -> None:
    """A gated pod is released only by its gating plugin's hint (no PreEnqueue re-run for
    an update that plugin does not hear)."""
    hint = _Calls(QueueingHint.QUEUE)
    reg = ClusterEventWithHint(ClusterEvent(R.TARGET_POD, A.UPDATE_POD_SCHEDULING_GATES_ELIMINATED), hint)
    q = SchedulingQueue(SimClock(), FakeQueueFramework({"SchedulingGates": [reg]}), lambda: None)
    gated = make_pod("p", "default").scheduling_gate("g").build()
    q.add(gated)
    relabelled = {**gated, "metadata": {**gated["metadata"], "labels": {"a": "b"}}}
    q.update(gated, relabelled, pod_update_events(R.TARGET_POD, gated, relabelled))
    assert (hint.seen, q.where("default/p")) == (0, "gated")
    ungated = {**relabelled, "spec": {k: v for k, v in relabelled["spec"].items() if k != "schedulingGates"}}
    q.update(relabelled, ungated, pod_update_events(R.TARGET_POD, relabelled, ungated))
    assert (hint.seen, q.where("default/p")) == (1, "active")


# -- addAllEventHandlers: storage kinds reach the queue ---------------------------------


_CSI_DRIVER = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
               "metadata": {"name": "csi.example.com"}, "spec": {}}


@pytest.mark.parametrize(
    ("created", "moves"),
    [
        pytest.param(make_pvc("c", "default", "standard", "1Gi"), True,
                     id="the missing claim created: VolumeBinding's PVC Add requeues the pod"),
        pytest.param(_CSI_DRIVER, False,
                     id="a CSIDriver created: VolumeBinding registers CSIDriver Update only"),
    ],
)
def test_storage_event_requeues_volume_binding_rejection(created: Obj, moves: bool) -> None:
    h = make_harness()
    h.create(make_node("n1").build())
    pod = make_pod("p", "default").build()
    pod["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]
    h.create(pod)
    q = h.scheduler.queue
    assert q.where("default/p") == "unschedulable"
    h.server.create(created)
    assert (q.where("default/p") != "unschedulable") is moves
