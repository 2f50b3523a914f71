"""DynamicResources, the smaller tests of upstream ``dynamicresources_test.go``:
``TestPostFilterNoOpStatusHasNoUserVisibleReason``,
``TestPreFilterReusesPendingAllocationWithNilNodeSelector``,
``TestFilterReusesPendingAllocationRequiresDRAOptionalNodeOperations``,
``TestAllocatorSelection`` (skipped: one allocator), ``Test_allocationResultRequiresDRAOptionalNodeOperations``,
and ``TestDynamicResources_DeferredResizeSkipped`` (``TestPodGroupPostFilter``:
``test_upstream_dra_podgroup_postfilter``).

A pending allocation (upstream's ``SignalClaimPendingAllocation``) is the tracker's
assumed allocation here; a pod of the PodGroup reuses it in PreFilter.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.api.scheduling_builders import make_pod_group
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import Code
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins.dynamic_resources import (
    _KEY,
    DynamicResources,
    requires_optional_node_operations,
)
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import (
    CLAIM,
    DRIVER,
    NODE,
    NS,
    POD,
    POD_UID,
    RESOURCE,
    Env,
    Obj,
    _Handle,
    _NoStatuses,
    allocation,
    claim,
    device_class,
    node,
    node_slice,
    setup,
)

PG, PG_UID = "my-podgroup", "5678"
WL_GATES = {"DRAWorkloadResourceClaims": True, "GenericWorkload": True}


def _grouped_pod() -> Obj:
    """groupedPodWithClaimName."""
    p: Obj = {"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": POD, "namespace": NS, "uid": POD_UID},
              "spec": {"containers": [{"name": "c", "image": "i"}],
                       "resourceClaims": [{"name": RESOURCE, "resourceClaimName": CLAIM}],
                       "schedulingGroup": {"podGroupName": PG}}}
    return p


def _pod_group_env(gates: dict[str, bool] | None = None) -> Env:
    """podGroupWithClaimName, pendingPodGroupClaim (owned by the PodGroup), deviceClass,
    workerNodeSlice."""
    pg = make_pod_group(PG, NS)
    pg["spec"]["resourceClaims"] = [{"name": RESOURCE, "resourceClaimName": CLAIM}]
    c = claim(owned=False)
    env = setup([device_class(), node_slice(NODE), pg, c], {**WL_GATES, **(gates or {})})
    stored_pg = env.server.get("scheduling.k8s.io/v1beta1", "PodGroup", PG, NS)
    env.server.update({**env.claim(), "metadata": {**env.claim()["metadata"], "ownerReferences": [
        {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "name": PG,
         "uid": stored_pg["metadata"]["uid"], "controller": True}]}})
    env.clock.settle()
    return env


def _skip_ops(alloc: Obj) -> Obj:
    """allocationResultWithSkipNodeOperations."""
    alloc["devices"]["results"][0]["skipNodeOperations"] = ["All"]
    return alloc


# -- TestPostFilterNoOpStatusHasNoUserVisibleReason ------------------------------------


@pytest.mark.parametrize("with_state", [
    pytest.param(False, id="plugin disabled", marks=pytest.mark.skip(
        reason="DynamicResourceAllocation is GA and locked: the plugin cannot be disabled")),
    pytest.param(True, id="no claims"),
])
def test_post_filter_noop_has_no_reason(with_state: bool) -> None:
    env = setup([])
    state = CycleState()
    p = make_pod("pod").build()
    if with_state:  # stateData{} with no claims: PreFilter of a pod without claims wrote none
        env.plugin.pre_filter(state, p, [])
    _, st = env.plugin.post_filter(state, p, _NoStatuses())
    assert st.code == Code.UNSCHEDULABLE
    assert st.reasons == ()


# -- TestPreFilterReusesPendingAllocationWithNilNodeSelector ------------------------------


def test_prefilter_reuses_pending_allocation_with_nil_node_selector() -> None:
    env = _pod_group_env()
    alloc = allocation()
    del alloc["nodeSelector"]
    env.plugin.tracker.assume(f"{NS}/{CLAIM}", alloc)  # SignalClaimPendingAllocation
    state = CycleState()
    _, st = env.plugin.pre_filter(state, _grouped_pod(), [NodeInfo(NODE, node(NODE))])
    assert st.code == Code.SUCCESS, st.message()
    s = state.read(_KEY)
    assert [c["status"]["allocation"] for c in s.allocated] == [alloc]  # the pending allocation
    assert "nodeSelector" not in s.allocated[0]["status"]["allocation"]  # availableOnNodes nil
    assert env.plugin.filter(state, _grouped_pod(), NodeInfo(NODE, node(NODE))).code == Code.SUCCESS


def test_reserve_and_unreserve_count_sharers_of_a_pending_allocation() -> None:
    """Reserve signals the reused pending allocation again (one more sharer); Unreserve
    drops only that sharer (MaybeRemoveClaimPendingAllocation without force)."""
    env = _pod_group_env()
    key = f"{NS}/{CLAIM}"
    env.plugin.tracker.assume(key, allocation())  # the first member's Reserve
    state = CycleState()
    ni = NodeInfo(NODE, node(NODE))
    assert env.plugin.pre_filter(state, _grouped_pod(), [ni])[1].code == Code.SUCCESS
    assert env.plugin.filter(state, _grouped_pod(), ni).code == Code.SUCCESS
    assert env.plugin.reserve(state, _grouped_pod(), NODE).code == Code.SUCCESS
    assert env.plugin.tracker.sharers == {key: 2}
    env.plugin.unreserve(state, _grouped_pod(), NODE)
    assert (env.plugin.tracker.sharers, env.plugin.tracker.assumed) == ({key: 1}, {key: allocation()})


# -- TestFilterReusesPendingAllocationRequiresDRAOptionalNodeOperations ----------------------


def _with_feature(n: Obj) -> Obj:
    """workerNodeWithOptionalNodeOperations."""
    n["status"] = {"declaredFeatures": ["DRAOptionalNodeOperations"]}
    return n


def test_filter_reused_pending_allocation_requires_optional_node_operations() -> None:
    env = _pod_group_env()
    alloc = _skip_ops(allocation())
    del alloc["nodeSelector"]
    env.plugin.tracker.assume(f"{NS}/{CLAIM}", alloc)
    plain, featured = NodeInfo(NODE, node(NODE)), NodeInfo(NODE, _with_feature(node(NODE)))
    state = CycleState()
    _, st = env.plugin.pre_filter(state, _grouped_pod(), [plain, featured])
    assert st.code == Code.SUCCESS, st.message()
    got = env.plugin.filter(state, _grouped_pod(), plain)
    assert (got.code, got.message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        f"resource claim {NS}/{CLAIM} allocation requires DRAOptionalNodeOperations feature on the node")
    assert env.plugin.filter(state, _grouped_pod(), featured).code == Code.SUCCESS


def test_filter_allocated_claim_requires_optional_node_operations() -> None:
    """The Filter rule for an allocation in the claim's status (allocatedClaimWithSkipNodeOperations
    in TestPlugin's rows): the claim is unavailable on a node without the feature."""
    c = claim()
    c["status"] = {"allocation": _skip_ops(allocation()),
                   "reservedFor": [{"resource": "pods", "name": POD, "uid": POD_UID}]}
    env = setup([device_class(), node_slice(NODE), c])
    p: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": POD, "namespace": NS, "uid": POD_UID},
              "spec": {"containers": [{"name": "c", "image": "i"}],
                       "resourceClaims": [{"name": RESOURCE, "resourceClaimName": CLAIM}]}}
    state = CycleState()
    assert env.plugin.pre_filter(state, p, [])[1].code == Code.SUCCESS
    got = env.plugin.filter(state, p, NodeInfo(NODE, node(NODE)))
    assert (got.code, got.message()) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                         "resourceclaim not available on the node")
    assert env.plugin.filter(state, p, NodeInfo(NODE, _with_feature(node(NODE)))).code == Code.SUCCESS


# -- TestAllocatorSelection ------------------------------------------------------------

_ALLOCATOR_ROWS = ["only-GA", "default", "alpha", "AdminAccess", "CompatibilityGroups",
                   "ConsumableCapacity", "DeviceBindingAndStatus", "DeviceTaints",
                   "ListTypeAttributes", "OptionalNodeOperations", "PartitionableDevices",
                   "FractionalCapacityRange", "PrioritizedList", "DerivedAttributes"]


@pytest.mark.parametrize("row", [pytest.param(r, id=r, marks=pytest.mark.skip(
    reason="the reference has one allocator that checks each gate where upstream's "
    "implementations differ; there is no stable/incubating/experimental choice"))
    for r in _ALLOCATOR_ROWS])
def test_allocator_selection(row: str) -> None:
    raise AssertionError(row)


# -- Test_allocationResultRequiresDRAOptionalNodeOperations --------------------------------


def _result(device: str, request: str, skip: list[str] | None = None) -> Obj:
    r: Obj = {"driver": DRIVER, "pool": NODE, "device": device, "request": request}
    if skip is not None:
        r["skipNodeOperations"] = skip
    return r


@pytest.mark.parametrize(("alloc", "want"), [
    pytest.param(None, False, id="nil"),
    pytest.param({"devices": {"results": None}}, False, id="empty-results"),
    pytest.param({"devices": {"results": [_result("instance-1", "req-1")]}}, False,
                 id="no-skip-node-operations"),
    pytest.param({"devices": {"results": [_result("instance-1", "req-1", ["All"])]}}, True,
                 id="with-skip-node-operations"),
    pytest.param({"devices": {"results": [_result("instance-1", "req-1", [])]}}, False,
                 id="empty-skip-node-operations"),
    pytest.param({"devices": {"results": [_result("instance-1", "req-1"),
                                          _result("instance-2", "req-2", ["All"])]}}, True,
                 id="mixed-skip-node-operations"),
])
def test_allocation_result_requires_optional_node_operations(alloc: Any, want: bool) -> None:
    assert requires_optional_node_operations(alloc) is want


# -- TestDynamicResources_DeferredResizeSkipped ------------------------------------------


def test_deferred_resize_skipped() -> None:
    env = setup([])
    pl = DynamicResources(_Handle(env.plugin._ctx), resize_preemption=True)
    p = make_pod("p").build()
    p["metadata"]["uid"] = "p"
    p["status"] = {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}]}
    state = CycleState()
    res, st = pl.pre_filter(state, p, [])
    assert (res, st.code) == (None, Code.SKIP)
    assert pl.filter(state, p, NodeInfo("node1", node("node1"))).code == Code.SUCCESS
    _, post = pl.post_filter(state, p, _NoStatuses())
    assert (post.code, post.message()) == (Code.UNSCHEDULABLE, "")
