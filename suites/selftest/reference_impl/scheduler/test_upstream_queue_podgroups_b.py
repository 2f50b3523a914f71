"""Upstream's pod-group entity queue tables: what the reference can and cannot express.

Ported (pkg/scheduler/backend/queue/scheduling_queue_test.go):
``TestPriorityQueue_DeferredPodGroupCompatibility`` (a deferred resize is queued and
scheduled alone, never as its pod group's member). Listed and skipped, each row with the
reason: ``TestAddAttemptedPodGroupIfNeeded``, ``TestAddUnschedulablePodIfNotPresentPodGroupMember``,
``TestUpdatePodGroup``, ``TestPriorityQueue_UpdateCompositePodGroup`` and
``_UpdatePodGroup_Hierarchical``: they assert on upstream's QueuedPodGroupInfo entity (its
size, attempt counters, timestamp and object tree), which the reference queue does not
have: it queues pods (its pendingPodGroupPods rows are ported in
test_upstream_queue_podgroups.py). It does keep
incompletePodGroupPods: ``TestAddPodGroup``, ``TestDeletePodGroup`` and the deleted-PodGroup
rows of ``TestAddUnschedulablePodIfNotPresentPodGroupMember`` are ported in
test_upstream_queue_podgroups.py; ``TestPriorityQueue_AddCompositePodGroup``,
``_DeleteCompositePodGroup``, ``_AddPodGroup_Hierarchical`` and ``_DeletePodGroup_Hierarchical``
in test_upstream_queue_cpg_incomplete.py.
It does keep upstream's workload forest of (Composite)PodGroups (its own table is
test_upstream_workload_forest.py), but a root found there has no entity in a sub-queue to
assert on (the member-level rows are in test_upstream_queue_podgroups.py;
PodGroup and CompositePodGroup arrival end to end in test_upstream_cpg_queueing.py and
test_upstream_gangscheduling_flow.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod, make_pod_group
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo
from suites.selftest.reference_impl.scheduler.conftest import HarnessFactory

Obj = dict[str, Any]

R_ATTEMPTED = (
    "AddAttemptedPodGroupIfNeeded requeues a whole QueuedPodGroupInfo (its counters, "
    "timestamp and the pods buffered in pendingPodGroupPods while it was in flight) by the "
    "attempt's status; the reference returns each attempted member by itself "
    "(add_unschedulable_if_not_present) and has no group-attempt status to requeue by"
)
R_MEMBER_RETURN = (
    "a member returning from a group attempt goes to pendingPodGroupPods or into its queued "
    "group entity upstream; the reference returns each member alone by its own hints and "
    "backoff (only newly added members are held pending or join their group)"
)
R_PODGROUP = (
    "UpdatePodGroup replaces the PodGroup object held in the queued group entity; the "
    "reference queue records it in its workload forest but holds no group entity (the "
    "update reaches pods through GangScheduling's queueing hints)"
)
R_FOREST = (
    "CompositePodGroup hierarchy: the row checks the updated object inside the queued root "
    "entity's PodGroupInfo tree (findPodGroupInfoInActiveQ); the reference queue keeps the "
    "same workload forest but queues pods, so there is no root entity to find in a sub-queue"
)

SKIPPED: dict[str, tuple[str, list[str]]] = {
    "TestAddAttemptedPodGroupIfNeeded": (R_ATTEMPTED, [
        "No pending pods, pod group is not enqueued",
        "Pods present, pod group scheduling had an error, and pod group not backing off",
        "Pods present, pod group scheduling result is unschedulable, and pod group not backing off",
        "Pods present, pod group scheduling result is unschedulable, and pod group not backing off, "
        "but blocked on PreEnqueue",
        "Pods present, pod group scheduling result is Error, and pod group backing off",
        "Pods present, pod group scheduling result is Unschedulable, and pod group backing off",
        "Pods present, pod group scheduling result is Error, and pod group backing off, but blocked on PreEnqueue",
        "Unschedulable pods are present but pod group scheduling was successful, requeue to active queue "
        "directly and preserve timestamp",
        "New pods only are present and pod group scheduling was successful, requeue to active queue "
        "directly with new timestamp",
    ]),
    "TestAddUnschedulablePodIfNotPresentPodGroupMember": (R_MEMBER_RETURN, [
        "single pod group member added with plugin to pending when group is in flight",
        "single pod group member added with no plugins (consecutive error) to pending",
        "multiple pod group members, including gated added with plugins sequentially to pending when "
        "group is in flight",
        "pod group is not last popped entity and no group exists, a new group is created and added to activeQ",
        "pod group exists in unschedulableEntities, pod is added and group remains in unschedulableEntities",
        "pod group exists in activeQ, pod is added and group remains in activeQ",
        "pod group exists in backoffQ, pod is added and group remains in backoffQ",
        "pod group exists in unschedulableEntities (gated), ungated pod is added and group remains gated "
        "in unschedulableEntities",
    ]),
    "TestUpdatePodGroup": (R_PODGROUP, [
        "update pod group without pods", "update active pod group", "update backoff pod group",
        "update unschedulable pod group", "update gated pod group", "update in-flight pod group",
    ]),
    "TestPriorityQueue_UpdateCompositePodGroup": (R_FOREST, [
        "Root when minCount is updated", "Non-root when minCount is updated",
    ]),
    "TestPriorityQueue_UpdatePodGroup_Hierarchical": (R_FOREST, [
        "Root when minCount is updated", "Non-root when minCount is updated",
        "Non-root when CPG feature is disabled",
    ]),
}


@pytest.mark.parametrize(
    "function",
    [
        pytest.param(fn, id=f"{fn}/{row}", marks=pytest.mark.skip(reason=reason))
        for fn, (reason, rows) in SKIPPED.items()
        for row in rows
    ],
)
def test_pod_group_entity_rows(function: str) -> None:
    """Never runs: each row is listed with why the reference cannot express it."""
    raise AssertionError(function)


DEFERRED = {"type": "PodResizePending", "status": "True", "reason": "Deferred"}


@pytest.mark.parametrize(
    ("deferred", "want_group_cycle"),
    [
        pytest.param(True, False, id="deferred pod with scheduling group is queued individually"),
        pytest.param(False, True, id="not-deferred pod with scheduling group is queued as group member"),
    ],
)
def test_deferred_pod_group_compatibility(
    harness_factory: HarnessFactory, monkeypatch: pytest.MonkeyPatch, deferred: bool, want_group_cycle: bool
) -> None:
    """``TestPriorityQueue_DeferredPodGroupCompatibility``: with
    InPlacePodVerticalScalingSchedulerPreemption, a deferred resize is not a pod-group
    member (``isPodGroupMember``): its cycle is its own, not its group's."""
    h = harness_factory(gates={"InPlacePodVerticalScalingSchedulerPreemption": True, "GenericWorkload": True})
    group_cycles: list[str] = []
    monkeypatch.setattr(h.scheduler.workload, "schedule_group",
                        lambda first, pg: group_cycles.append(first.key))
    h.create(make_pod_group("pg1", "default", min_count=1))
    # Held by a scheduling gate so that only the cycle below runs it.
    pod = make_pod("pod1").pod_group("pg1").set("spec.schedulingGates", [{"name": "hold"}]).build()
    h.create(pod)
    queued = h.pod("pod1")
    if deferred:
        queued = {**queued, "status": {**(queued.get("status") or {}), "conditions": [dict(DEFERRED)]}}
    h.scheduler.schedule_one(QueuedPodInfo(PodInfo(queued), h.clock.now()))
    assert (group_cycles == ["default/pod1"]) is want_group_cycle
