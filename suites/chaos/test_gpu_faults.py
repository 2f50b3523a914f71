"""Chaos: GPU faults through the injectors, and what Kubernetes then does.

``gpu-fault`` writes an NVML fault into garhwal's NVML library for one GPU; the node's
GPU health agent turns it into a device taint. ``device-taint-rule`` applies a
DeviceTaintRule directly. Both are journaled faults: ``revert`` undoes them.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import DraEnv
from fixtures.chaos.faults import DeviceTaintRuleFault, GpuFaultInjector, inject
from fixtures.chaos.injector import Scope
from fixtures.plugin.gpu_fleet import GpuFleet
from fixtures.targets.base import Target
from reference_impl.api import DRA_API, condition
from reference_impl.errors import BadRequest, NotFound

Obj = dict[str, Any]


class _Gpus(DraEnv):
    """One private GPU node (named like its class) and pods that each claim one GPU."""

    def __init__(self, target: Target, fleet: GpuFleet, ns: str, gpus: int = 3) -> None:
        super().__init__(target, ns, "chaos-gpu", "gpu.garhwal.dev")
        self.fleet = fleet
        self.gpu_node = fleet.add_node(self.name, gpus=gpus, device_class=self.name)

    def claim_pod(self, name: str, index: int) -> None:
        self.run_class(name, self.name, selectors=(f'device.attributes["{self.driver}"].index == {index}',))

    def taints(self, index: int) -> list[Obj]:
        return self.fleet.slice_taints(self.name, f"gpu-{index}")

    def scope(self, device: Any, fault: Any) -> Scope:
        params = {"node_dir": str(self.gpu_node.dir), "device": device, "fault": fault}
        return Scope(nodes=(self.name,), params=params)


def test_an_xid79_fault_evicts_only_the_lost_gpus_pod_and_revert_brings_it_back(
    target: Target, gpu_fleet: GpuFleet, namespace: str
) -> None:
    """Chaos, GPU fault Xid 79.

    Injected through the journaled gpu-fault injector, Xid 79 on one GPU MUST taint only
    that device NoExecute, the pod using it MUST be deleted while a pod on another GPU of
    the node stays; after revert the taint MUST go and a claim for that GPU MUST be
    allocated it again.
    """
    gpus = _Gpus(target, gpu_fleet, namespace)
    gpus.claim_pod("hit", 0)
    gpus.claim_pod("spared", 1)
    target.wait_until(
        lambda: gpus.bound("hit") and gpus.bound("spared"), timeout=60, what="pods bound"
    )
    with inject(target, GpuFaultInjector(), gpus.scope(0, "xid:79")):
        gpu_fleet.pump(gpus.name)
        target.wait_until(lambda: bool(gpus.taints(0)), timeout=30, what="gpu-0 tainted")
        assert [(t["key"], t["effect"]) for t in gpus.taints(0)] == [
            ("gpu.garhwal.dev/xid", "NoExecute")
        ]
        # Eviction is the controller-manager's, through its ResourceSlice informer; right
        # after the etcd kill test (which runs before this one) its watches took ~2 min
        # to catch up once in CI, so the bound is a deadline, not a latency target.
        target.wait_until(
            lambda: gpus.pod("hit") is None, timeout=240, what="pod on the lost GPU gone"
        )
        spared = gpus.pod("spared")
        assert spared is not None and not spared["metadata"].get("deletionTimestamp")
        assert gpus.taints(1) == [] and gpus.taints(2) == []
    gpu_fleet.pump(gpus.name)
    target.wait_until(lambda: not gpus.taints(0), timeout=30, what="taint removed after revert")
    gpus.claim_pod("again", 0)
    target.wait_until(lambda: gpus.bound("again"), timeout=90, what="the recovered GPU allocated")


def test_a_device_taint_rule_fault_evicts_through_the_rule_and_revert_deletes_it(
    target: Target, gpu_fleet: GpuFleet, namespace: str
) -> None:
    """Chaos, DeviceTaintRule fault.

    A NoExecute DeviceTaintRule applied by the device-taint-rule injector on one GPU MUST
    evict the pod using it, with the rule's EvictionInProgress condition reported, and
    revert MUST delete the rule.
    """
    gpus = _Gpus(target, gpu_fleet, namespace, gpus=2)
    gpus.claim_pod("victim", 1)
    target.wait_until(lambda: gpus.bound("victim"), timeout=60, what="pod bound")
    slices = [
        s for s in target.list(DRA_API, "ResourceSlice") if s["spec"].get("nodeName") == gpus.name
    ]
    (slice_,) = slices
    params = {
        "driver": slice_["spec"]["driver"],
        "pool": slice_["spec"]["pool"]["name"],
        "device": "gpu-1",
    }
    with inject(target, DeviceTaintRuleFault(), Scope(params=params)) as rollback:
        name = rollback.undo["rule"]["metadata"]["name"]
        target.wait_until(lambda: gpus.pod("victim") is None, timeout=90, what="pod evicted")

        def cond() -> Obj | None:
            return condition(target.get(DRA_API, "DeviceTaintRule", name), "EvictionInProgress")

        target.wait_until(
            lambda: cond() is not None, timeout=60, what="EvictionInProgress reported"
        )
    with pytest.raises(NotFound):
        target.get(DRA_API, "DeviceTaintRule", name)


def test_a_bad_gpu_fault_is_refused_before_anything_is_written(
    target: Target, gpu_fleet: GpuFleet, namespace: str
) -> None:
    """Chaos, GPU fault bad input.

    An unknown Xid, a GPU the node does not have and a missing node directory MUST each be
    refused by prepare with one error naming the field, and the NVML state MUST NOT change.
    """
    gpus = _Gpus(target, gpu_fleet, namespace, gpus=2)
    before = gpus.gpu_node.state_path.read_bytes()
    injector = GpuFaultInjector()
    cases = [
        (gpus.scope(0, "xid:13"), "scope.params.fault.code: unknown Xid 13"),
        (gpus.scope(7, "xid:79"), "scope.params.device: index 7 out of range"),
        (gpus.scope("GPU-nope", "xid:79"), "scope.params.device"),
        (Scope(params={"device": 0, "fault": "xid:79"}), "scope.params.node_dir"),
    ]
    for scope, message in cases:
        with pytest.raises(BadRequest, match=message.replace(".", r"\.")):
            injector.prepare(target, scope)
    assert gpus.gpu_node.state_path.read_bytes() == before
