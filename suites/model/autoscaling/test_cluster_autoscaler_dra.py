"""Cluster autoscaler GPU node groups through DRA (the DRA part of CA-ATTACH).

A node group's template may carry ResourceSlices (``template.resourceSlices``): the devices
its DRA driver publishes once a node of the group is up. The autoscaler's simulation runs
the structured allocator against those template devices for pending pods whose claims
cannot be allocated anywhere, so a GPU claim scales up the GPU group and never a group
without such devices. The kwok nodes publish no devices. A model test (marker ``model``,
not conformance evidence): the node groups are declared in garhwal's own ConfigMap
format and scaled by garhwal's own autoscaler model; upstream's cluster-autoscaler has
no such configuration and no cloud provider here, so no live cluster can run these.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import Capability, FakeDriver, Target
from reference_impl.api import (
    AUTOSCALER_CONFIGMAP,
    AUTOSCALER_GROUP_LABEL,
    DRA_API,
    condition,
    make_autoscaler_config,
    make_claim_template,
    make_node_group,
    make_pod,
    make_resource_claim,
)
from reference_impl.errors import NotFound, Timeout

pytestmark = [
    pytest.mark.model,
    pytest.mark.feature("CA-ATTACH"),
    pytest.mark.requires(Capability.CLUSTER_AUTOSCALER),
]

DRIVER = "gpu.garhwal.dev"
CLASS = "ca-dra-gpu"
Obj = dict[str, Any]


@pytest.fixture
def gpu_driver(target: Target) -> Iterator[FakeDriver]:
    """The GPU DeviceClass; removes the config, autoscaled nodes and their slices after."""
    drv = FakeDriver(target, driver=DRIVER, prefix="ca")
    drv.install_class(CLASS)
    yield drv
    try:
        target.delete("v1", "ConfigMap", AUTOSCALER_CONFIGMAP[1], AUTOSCALER_CONFIGMAP[0])
    except NotFound:
        pass
    for node in target.list("v1", "Node", label_selector=AUTOSCALER_GROUP_LABEL):
        try:
            target.delete("v1", "Node", node["metadata"]["name"])
        except NotFound:
            pass
    for sl in target.list(DRA_API, "ResourceSlice"):
        if sl["spec"].get("driver") == DRIVER:
            try:
                target.delete(DRA_API, "ResourceSlice", sl["metadata"]["name"])
            except NotFound:
                pass
    drv.cleanup()


def _gpu_group(drv: FakeDriver, name: str = "ca-gpu", gpus: int = 2, **kw: Any) -> Obj:
    return make_node_group(
        name,
        capacity={"cpu": "16", "memory": "64Gi", "pods": "110"},
        resource_slices={DRIVER: drv.devices(gpus, 0, 1)},
        **kw,
    )


def _gpu_pod(target: Target, namespace: str, name: str, gpus: int = 1) -> Obj:
    tpl = f"{name}-gpus"
    target.apply(
        make_claim_template(tpl, namespace).request("gpu", CLASS, count=gpus).build()
    )
    return target.apply(make_pod(name, namespace).claim("gpu", template=tpl).build())


def _node_of(target: Target, namespace: str, name: str) -> str:
    return str(target.get("v1", "Pod", name, namespace)["spec"].get("nodeName") or "")


def _unschedulable(target: Target, namespace: str, name: str) -> bool:
    cond = condition(target.get("v1", "Pod", name, namespace), "PodScheduled") or {}
    return cond.get("status") == "False" and cond.get("reason") == "Unschedulable"


def _group_nodes(target: Target, group: str) -> list[str]:
    nodes = target.list("v1", "Node", label_selector=f"{AUTOSCALER_GROUP_LABEL}={group}")
    return sorted(n["metadata"]["name"] for n in nodes)


def _slices_of(target: Target, node: str) -> list[Obj]:
    return [s for s in target.list(DRA_API, "ResourceSlice") if s["spec"].get("nodeName") == node]


def test_a_pending_gpu_claim_scales_up_the_gpu_group_and_not_a_cpu_group(
    target: Target, namespace: str, gpu_driver: FakeDriver
) -> None:
    """DRA GPU scale-up.

    A pod whose GPU claim no node's devices can satisfy MUST make the autoscaler add a
    node of the group whose template publishes such devices, even when the priority
    expander prefers a CPU group that has room for the pod's cpu and memory; the new
    node's driver MUST publish the template's ResourceSlice, and the pod MUST be bound to
    that node with its claim allocated from the node's pool.
    """
    _gpu_pod(target, namespace, "train")
    target.wait_until(
        lambda: _unschedulable(target, namespace, "train"), timeout=30, what="train Unschedulable"
    )
    groups = [make_node_group("ca-cpu", max_size=3, priority=100), _gpu_group(gpu_driver)]
    target.apply(make_autoscaler_config(groups, expander="priority"))
    target.wait_until(
        lambda: _node_of(target, namespace, "train") == "ca-gpu-1",
        timeout=120,
        what="train bound to ca-gpu-1",
    )
    assert _group_nodes(target, "ca-cpu") == []
    (published,) = _slices_of(target, "ca-gpu-1")
    assert published["spec"]["driver"] == DRIVER
    assert published["spec"]["pool"]["name"] == "ca-gpu-1"
    assert [d["name"] for d in published["spec"]["devices"]] == ["gpu-0", "gpu-1"]
    pod = target.get("v1", "Pod", "train", namespace)
    claim_name = pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim = target.get(DRA_API, "ResourceClaim", claim_name, namespace)
    (result,) = claim["status"]["allocation"]["devices"]["results"]
    assert (result["driver"], result["pool"]) == (DRIVER, "ca-gpu-1")


def test_one_loop_plans_each_template_device_once(
    target: Target, namespace: str, gpu_driver: FakeDriver
) -> None:
    """DRA scale-up counts planned devices.

    Three pending pods that each claim one GPU, with a GPU group whose nodes publish two
    GPUs each, MUST make one autoscaler loop add exactly two nodes (two pods planned on
    the first node's two GPUs, the third on a second node), and all three pods MUST run.
    """
    for i in range(3):
        _gpu_pod(target, namespace, f"w-{i}")
    target.wait_until(
        lambda: all(_unschedulable(target, namespace, f"w-{i}") for i in range(3)),
        timeout=30,
        what="three pods Unschedulable",
    )
    target.apply(make_autoscaler_config([_gpu_group(gpu_driver, max_size=5)]))
    target.wait_until(
        lambda: bool(_group_nodes(target, "ca-gpu")), timeout=30, what="a ca-gpu node"
    )
    assert _group_nodes(target, "ca-gpu") == ["ca-gpu-1", "ca-gpu-2"]
    target.wait_until(
        lambda: all(_node_of(target, namespace, f"w-{i}") for i in range(3)),
        timeout=120,
        what="all three pods bound",
    )
    # Which node gets two pods is the scheduler's choice (its score ties break by seed):
    # the plan only bounds each node by its two GPUs.
    placed = Counter(_node_of(target, namespace, f"w-{i}") for i in range(3))
    assert set(placed) == {"ca-gpu-1", "ca-gpu-2"}
    assert sorted(placed.values()) == [1, 2]


def test_a_claim_no_template_can_satisfy_triggers_no_scale_up(
    target: Target, namespace: str, gpu_driver: FakeDriver
) -> None:
    """DRA scale-up needs a fitting template.

    A pod claiming four GPUs, when the GPU group's nodes publish two, MUST NOT make the
    autoscaler add any node, and the pod MUST stay Unschedulable.
    """
    _gpu_pod(target, namespace, "big", gpus=4)
    groups = [make_node_group("ca-cpu", max_size=3), _gpu_group(gpu_driver)]
    target.apply(make_autoscaler_config(groups))
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: bool(_group_nodes(target, "ca-gpu") or _group_nodes(target, "ca-cpu")),
            timeout=120,
            what="any autoscaled node",
        )
    assert _unschedulable(target, namespace, "big")


def test_a_node_whose_devices_are_allocated_is_not_scaled_down(
    target: Target, namespace: str, gpu_driver: FakeDriver
) -> None:
    """DRA scale-down keeps nodes with allocated devices.

    After its only pod is gone, an autoscaled GPU node MUST NOT be removed while a
    ResourceClaim holds one of its devices, even past ``scaleDownUnneededSeconds``; once
    the claim is deallocated the node MUST be removed after that time, and its published
    ResourceSlice MUST go with it.
    """
    _gpu_pod(target, namespace, "once")
    group = _gpu_group(gpu_driver)
    target.apply(make_autoscaler_config([group], scale_down_unneeded_seconds=300))
    target.wait_until(
        lambda: _node_of(target, namespace, "once") == "ca-gpu-1", timeout=120, what="bound"
    )
    # A claim allocated ahead of its consumer, on the node's second GPU.
    held = target.apply(make_resource_claim("held", namespace).request("gpu", CLASS).build())
    selector = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["ca-gpu-1"]}]}
        ]
    }
    result = {"request": "gpu", "driver": DRIVER, "pool": "ca-gpu-1", "device": "gpu-1"}
    held["status"] = {"allocation": {"devices": {"results": [result]}, "nodeSelector": selector}}
    target.patch_status(held)
    target.delete("v1", "Pod", "once", namespace)
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: not _group_nodes(target, "ca-gpu"), timeout=900, what="scale-down"
        )
    held = target.get(DRA_API, "ResourceClaim", "held", namespace)
    held["status"] = {}
    target.patch_status(held)
    with pytest.raises(Timeout):
        target.wait_until(
            lambda: not _group_nodes(target, "ca-gpu"), timeout=240, what="early scale-down"
        )
    target.wait_until(
        lambda: not _group_nodes(target, "ca-gpu"), timeout=180, what="ca-gpu-1 removed"
    )
    target.wait_until(
        lambda: not _slices_of(target, "ca-gpu-1"), timeout=60, what="its slice removed"
    )
