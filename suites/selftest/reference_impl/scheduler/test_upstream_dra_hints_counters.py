"""DynamicResources requeueing with shared counters (DRAPartitionableDevices), and the
rows of upstream ``TestIsSchedulableAfterTargetPodUpdate`` (``dynamicresources_test.go``).

Upstream has no counter rule of its own in its hints: a deallocation or the deletion of
an allocated claim queues every pending pod (``preQueueingHint`` AllPods, then
``isSchedulableAfterClaimChange`` Queue), and every ResourceSlice add or update queues
every pod the plugin rejected (no hint). The reference's requeue index
(``dynamic_resources_index``) narrows those events to the DeviceClasses they may help, so
it must keep a pod whose class selects a device sharing counters with the freed one, or
consuming counters a slice declares: each row checks that the pod stays a candidate and
that the hint then says Queue, as upstream.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from reference_impl.api import make_node, make_pod
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.interface import (
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
)
from reference_impl.scheduler.framework.types import NodeInfo
from reference_impl.scheduler.plugins import dynamic_resources_node_allocatable as na
from reference_impl.scheduler.plugins.dynamic_resources import _KEY as KEY
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import (
    CLAIM,
    DRIVER,
    NODE,
    NS,
    RES,
    RESOURCE,
    Env,
    Obj,
    allocated,
    claim,
    device_class,
    node_slice,
    pod,
    setup,
)

Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


# -- TestIsSchedulableAfterTargetPodUpdate ---------------------------------------------


def _two_templates(*, in_status: int = 0) -> Obj:
    """podWithTwoClaimTemplates; ``in_status``: how many claims its status names."""
    p = pod(claim_name=False)
    p["spec"]["resourceClaims"].append({"name": f"{RESOURCE}-2", "resourceClaimTemplateName": CLAIM})
    refs = p["spec"]["resourceClaims"][:in_status]
    if refs:
        p["status"] = {"resourceClaimStatuses": [
            {"name": r["name"], "resourceClaimName": CLAIM} for r in refs]}
    return p


@pytest.mark.parametrize(
    ("objs", "target", "updated", "want"),
    [
        pytest.param([], pod(claim_name=False), None, Q, id="backoff-wrong-new-object",
                     marks=pytest.mark.skip(reason="a non-pod object: events carry typed v1 dicts only")),
        pytest.param([claim()], pod(claim_name=False), pod(claim_name=False, in_status=True), Q,
                     id="complete"),
        pytest.param([], pod(claim_name=False), pod(claim_name=False, in_status=True), SKIP,
                     id="missing-claim"),
        pytest.param([claim()], _two_templates(), _two_templates(in_status=1), SKIP, id="incomplete"),
    ],
)
def test_is_schedulable_after_target_pod_update(
    objs: list[Obj], target: Obj, updated: Obj | None, want: QueueingHint
) -> None:
    env = setup(objs)
    assert env.plugin._target_pod_hint(target, None, updated) == want


def test_target_pod_update_is_registered() -> None:
    """EventsToRegister: TargetPod/UpdatePodGeneratedResourceClaim with the hint above."""
    env = setup([])
    regs = {r.event: r.hint for r in env.plugin.events_to_register()}
    event = ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM)
    assert regs[event] == env.plugin._target_pod_hint


# -- shared counters ------------------------------------------------------------------

POOL: Obj = {"name": NODE, "resourceSliceCount": 2, "generation": 0}


def _class(kind: str) -> Obj:
    expr = f'device.attributes["{DRIVER}"].kind == "{kind}"'
    return {"apiVersion": RES, "kind": "DeviceClass", "metadata": {"name": kind},
            "spec": {"selectors": [{"cel": {"expression": expr}}]}}


def _device(name: str, kind: str, memory: str | None, node: str | None = None) -> Obj:
    d: Obj = {"name": name, "attributes": {"kind": {"string": kind}}}
    if memory:
        d["consumesCounters"] = [{"counterSet": "gpu-0", "counters": {"memory": {"value": memory}}}]
    if node:
        d["nodeName"] = node
    return d


def _counters(memory: str = "8Gi") -> Obj:
    return {"apiVersion": RES, "kind": "ResourceSlice", "metadata": {"name": "counters"},
            "spec": {"nodeName": NODE, "driver": DRIVER, "pool": POOL,
                     "sharedCounters": [{"name": "gpu-0", "counters": {"memory": {"value": memory}}}]}}


def _devices(*, per_device: bool = False) -> Obj:
    """A whole GPU and its two halves, all drawing on counter set gpu-0."""
    node = NODE if per_device else None
    devs = [_device("whole", "whole", "8Gi", node), _device("half-a", "half", "4Gi", node),
            _device("half-b", "half", "4Gi", node)]
    spec: Obj = {"driver": DRIVER, "pool": POOL, "devices": devs}
    spec.update({"perDeviceNodeSelection": True} if per_device else {"nodeName": NODE})
    return {"apiVersion": RES, "kind": "ResourceSlice", "metadata": {"name": "devices"}, "spec": spec}


def _plain_pool() -> Obj:
    """Another node's pool whose device consumes no counters."""
    return {"apiVersion": RES, "kind": "ResourceSlice", "metadata": {"name": "plain"},
            "spec": {"nodeName": "other", "driver": DRIVER,
                     "pool": {"name": "other", "resourceSliceCount": 1, "generation": 0},
                     "devices": [_device("solo", "solo", None)]}}


def _alloc(device: str, pool: str = NODE) -> Obj:
    return {"devices": {"results": [{"request": "req-1", "driver": DRIVER, "pool": pool, "device": device}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [pool]}]}]}}


def _waiting_pod(claim_name: str) -> Obj:
    """A pod (not the claims' owner) waiting for ``claim_name``."""
    p = pod()
    p["metadata"].update(name="waiting", uid="waiting-uid")
    p["spec"]["resourceClaims"][0]["resourceClaimName"] = claim_name
    return p


def _env(*extra: Obj, per_device: bool = False) -> Env:
    held = allocated(claim("held", owned=False, class_name="half"), _alloc("half-a"))
    wanted = claim("wanted", owned=False, class_name="whole")
    return setup([_counters(), _devices(per_device=per_device), _class("half"), _class("whole"),
                  _class("solo"), held, wanted, *extra])


def _candidate(env: Env, event: ClusterEvent, old: Obj | None, new: Obj | None) -> bool:
    """Whether the requeue index keeps the waiting pod for ``event``."""
    keys = env.plugin.event_index_keys(event, old, new)
    pod_keys = env.plugin._index.pod_keys(_waiting_pod("wanted"))
    assert pod_keys is not None
    return keys is None or bool(set(keys) & set(pod_keys))


def _write(
    env: Env, kind: str, name: str, change: Callable[[Obj], object], *, status: bool = False
) -> tuple[Obj, Obj]:
    old = env.server.get(RES, kind, name, NS if kind == "ResourceClaim" else None)
    new = copy.deepcopy(old)
    change(new)
    new = env.server.update_status(new) if status else env.server.update(new)
    env.clock.settle()
    return old, new


CLAIM_UPDATE = ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.UPDATE)
SLICE_UPDATE = ClusterEvent(EventResource.RESOURCE_SLICE, ActionType.UPDATE)


def test_deallocated_partition_frees_counters_for_the_whole_device() -> None:
    env = _env()
    old, new = _write(env, "ResourceClaim", "held", lambda c: c.update(status={}), status=True)
    assert _candidate(env, CLAIM_UPDATE, old, new)
    assert env.plugin._claim_hint(_waiting_pod("wanted"), old, new) == Q


def test_deleted_allocated_partition_frees_counters_for_the_whole_device() -> None:
    env = _env()
    old = env.server.get(RES, "ResourceClaim", "held", NS)
    event = ClusterEvent(EventResource.RESOURCE_CLAIM, ActionType.DELETE)
    assert _candidate(env, event, old, None)
    assert env.plugin._claim_hint(_waiting_pod("wanted"), old, None) == Q


def test_counter_slice_update_names_the_consuming_devices_classes() -> None:
    env = _env()
    old, new = _write(env, "ResourceSlice", "counters",
                      lambda s: s["spec"]["sharedCounters"][0]["counters"]["memory"].update(value="16Gi"))
    assert _candidate(env, SLICE_UPDATE, old, new)


def test_per_device_node_selection_slice_update_names_its_devices_classes() -> None:
    env = _env(per_device=True)
    old, new = _write(env, "ResourceSlice", "devices",
                      lambda s: s["spec"]["devices"][0]["attributes"].update(extra={"bool": True}))
    assert _candidate(env, SLICE_UPDATE, old, new)


def test_freed_device_without_counters_names_only_its_class() -> None:
    """The superset stays narrow: a device sharing nothing frees nothing for the others."""
    solo = allocated(claim("solo-claim", owned=False, class_name="solo"), _alloc("solo", "other"))
    env = _env(_plain_pool(), solo)
    old, new = _write(env, "ResourceClaim", "solo-claim", lambda c: c.update(status={}), status=True)
    keys = env.plugin.event_index_keys(CLAIM_UPDATE, old, new)
    assert keys is not None and "class:solo" in keys and "class:whole" not in keys


def test_waiting_pod_binds_once_the_partition_is_freed() -> None:
    """End to end: the pod for the whole GPU binds as soon as the pod holding a half is
    deleted (its claim deallocated), not at the unschedulable pool's 5-minute flush."""
    c = Cluster({}, config=ClusterConfig(nodes=0))
    c.apply(make_node(NODE).capacity(cpu="4", memory="8Gi", pods="10").build())
    for o in (_class("half"), _class("whole"), _counters(), _devices(),
              claim("held", owned=False, class_name="half"),
              claim("wanted", owned=False, class_name="whole")):
        c.apply(o)
    holder = make_pod("holder", NS).build()
    holder["spec"]["resourceClaims"] = [{"name": "r", "resourceClaimName": "held"}]
    c.apply(holder)
    c.settle()
    assert c.get("v1", "Pod", "holder", NS)["spec"].get("nodeName") == NODE
    waiting = make_pod("waiting", NS).build()
    waiting["spec"]["resourceClaims"] = [{"name": "r", "resourceClaimName": "wanted"}]
    c.apply(waiting)
    c.advance(30)
    assert not c.get("v1", "Pod", "waiting", NS)["spec"].get("nodeName")
    c.delete("v1", "Pod", "holder", NS)
    assert c.run_until(lambda: bool(c.get("v1", "Pod", "waiting", NS)["spec"].get("nodeName")), 60)


# -- PreFilter state kept per set of slices -------------------------------------------


def test_node_allocatable_devices_follow_slice_events() -> None:
    """Whether any device declares nodeAllocatableResources is kept per set of slices
    (PreFilter computes only the per-pod facts upstream does); a slice event resets it."""
    env = setup([node_slice(NODE), device_class(), claim()], {na.GATE: True})

    def any_devices() -> bool:
        state = CycleState()
        _, st = env.plugin.pre_filter(state, pod(), [NodeInfo("")])
        assert st.is_success()
        data = state.read(KEY).node_alloc
        assert data is not None
        return data.any_devices

    assert not any_devices()
    _write(env, "ResourceSlice", f"{NODE}-{DRIVER}", lambda s: s["spec"]["devices"][0].update(
        nodeAllocatableResources={"cpu": {"mapping": {"deviceMultiplier": "1"}}}))
    assert any_devices()
