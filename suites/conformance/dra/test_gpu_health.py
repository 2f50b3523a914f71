"""GPU-HEALTH: what Kubernetes does once the node GPU health agent taints a faulty GPU.

A fault is written into garhwal's NVML library for one GPU; the agent (pynvml) turns it
into a DRA device taint on the node's ResourceSlice or as a DeviceTaintRule, and the
control plane's scheduler and device-taint eviction controller act on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixtures import DraEnv, pause
from fixtures.gpu.faults import RowRemapFailure, ThermalSlowdown, Xid
from fixtures.plugin.gpu_fleet import GpuFleet
from fixtures.targets.base import Target
from reference_impl.api import (
    DRA_API,
    condition,
    make_pod_group,
    make_pool_pod,
    make_resource_claim,
)

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5055")]
Obj = dict[str, Any]
DRIVER = "gpu.garhwal.dev"
XID_NOEXEC = {"key": "gpu.garhwal.dev/xid", "operator": "Exists", "effect": "NoExecute"}


class Gpus(DraEnv):
    """One private GPU node, its class, and pods that each claim one GPU."""

    def __init__(self, target: Target, fleet: GpuFleet, ns: str) -> None:
        super().__init__(target, ns, "gpu", DRIVER)
        self.fleet = fleet
        self.cls = self.name  # the node and its class share the env name

    def setup(self, publish: str = "slice", gpus: int = 4) -> None:
        self.fleet.add_node(self.name, gpus=gpus, publish=publish, device_class=self.cls)

    def claim_pod(self, name: str, index: int | None = None, tolerations: tuple[Obj, ...] = ()) -> None:
        sel = (f'device.attributes["{DRIVER}"].index == {index}',) if index is not None else ()
        self.run_class(name, self.cls, selectors=sel, tolerations=tolerations)

    def device(self, name: str) -> str | None:
        devices = self.devices(name)
        return devices[0] if devices else None

    def unschedulable(self, name: str) -> bool:
        cond = self.scheduled(name)
        return cond is not None and cond.get("status") == "False"

    def tainted(self, index: int, key: str) -> bool:
        return any(t["key"] == key for t in self.fleet.slice_taints(self.name, f"gpu-{index}"))


@pytest.fixture
def gpus(target: Target, gpu_fleet: GpuFleet, namespace: str) -> Iterator[Gpus]:
    yield Gpus(target, gpu_fleet, namespace)


def test_xid79_evicts_only_pods_on_the_lost_gpu(target: Target, gpus: Gpus) -> None:
    """GPU-HEALTH, Xid 79.

    When a GPU falls off the bus the agent taints that device NoExecute on the node's
    ResourceSlice: the pod using it MUST be deleted, a pod on another GPU of the same node
    MUST stay, and a new claim MUST be allocated a healthy GPU, never the lost one.
    """
    gpus.setup()
    gpus.claim_pod("hit", 0)
    gpus.claim_pod("spared", 1)
    target.wait_until(lambda: gpus.bound("hit") and gpus.bound("spared"), timeout=60, what="both pods bound")
    gpus.fleet.inject(gpus.name, 0, Xid(79))
    target.wait_until(lambda: gpus.tainted(0, "gpu.garhwal.dev/xid"), timeout=30, what="gpu-0 tainted")
    (taint,) = gpus.fleet.slice_taints(gpus.name, "gpu-0")
    assert (taint["value"], taint["effect"]) == ("79", "NoExecute")
    target.wait_until(lambda: gpus.pod("hit") is None, timeout=90, what="pod on the lost GPU deleted")
    spared = gpus.pod("spared")
    assert spared is not None and not spared["metadata"].get("deletionTimestamp")
    assert gpus.device("spared") == "gpu-1"
    gpus.claim_pod("fresh")
    target.wait_until(lambda: gpus.bound("fresh"), timeout=60, what="a new pod bound")
    assert gpus.device("fresh") in {"gpu-2", "gpu-3"}
    assert all(gpus.fleet.slice_taints(gpus.name, f"gpu-{i}") == [] for i in (1, 2, 3))


def test_tolerating_pod_stays_and_recovery_makes_the_gpu_allocatable(target: Target, gpus: Gpus) -> None:
    """GPU-HEALTH, tolerations and recovery.

    A pod whose claim tolerates the agent's NoExecute Xid taint MUST stay bound through an
    uncontained ECC error (Xid 95); once the GPU is reset the agent MUST remove the taint
    and a claim asking for that exact GPU MUST be allocated it.
    """
    gpus.setup(gpus=2)
    gpus.claim_pod("tolerant", 0, tolerations=(XID_NOEXEC,))
    target.wait_until(lambda: gpus.bound("tolerant"), timeout=60, what="tolerating pod bound")
    rb = gpus.fleet.inject(gpus.name, 0, Xid(95))
    target.wait_until(lambda: gpus.tainted(0, "gpu.garhwal.dev/xid"), timeout=30, what="gpu-0 tainted")
    gpus.claim_pod("blocked", 0)
    target.wait_until(lambda: gpus.unschedulable("blocked"), timeout=60, what="claim for the faulty GPU rejected")
    pause(target, 5)
    tolerant = gpus.pod("tolerant")
    assert tolerant is not None and not tolerant["metadata"].get("deletionTimestamp")
    target.delete("v1", "Pod", "tolerant", gpus.ns)
    target.wait_until(lambda: gpus.pod("tolerant") is None, timeout=60, what="tolerating pod removed")
    gpus.fleet.recover(gpus.name, rb)
    target.wait_until(lambda: not gpus.tainted(0, "gpu.garhwal.dev/xid"), timeout=30, what="taint removed")
    target.wait_until(lambda: gpus.bound("blocked"), timeout=90, what="claim for the recovered GPU allocated")
    assert gpus.device("blocked") == "gpu-0"


def test_thermal_slowdown_stops_new_work_but_keeps_running_work(target: Target, gpus: Gpus) -> None:
    """GPU-HEALTH, thermal slowdown (NoSchedule).

    A GPU in thermal slowdown is tainted NoSchedule: the pod already using it MUST stay,
    a claim asking for it MUST stay unallocated, and a claim for any GPU MUST get another.
    """
    gpus.setup(gpus=2)
    gpus.claim_pod("running", 1)
    target.wait_until(lambda: gpus.bound("running"), timeout=60, what="pod bound")
    gpus.fleet.inject(gpus.name, 1, ThermalSlowdown())
    target.wait_until(lambda: gpus.tainted(1, "gpu.garhwal.dev/thermal"), timeout=30, what="gpu-1 tainted")
    (taint,) = gpus.fleet.slice_taints(gpus.name, "gpu-1")
    assert (taint["value"], taint["effect"]) == ("hw-slowdown", "NoSchedule")
    gpus.claim_pod("wants-1", 1)
    target.wait_until(lambda: gpus.unschedulable("wants-1"), timeout=60, what="claim for the hot GPU rejected")
    gpus.claim_pod("any")
    target.wait_until(lambda: gpus.bound("any"), timeout=60, what="claim for any GPU bound")
    assert gpus.device("any") == "gpu-0"
    assert gpus.bound("running") and not (gpus.pod("running") or {})["metadata"].get("deletionTimestamp")


def test_contained_ecc_xid94_is_visible_but_keeps_the_gpu_in_service(target: Target, gpus: Gpus) -> None:
    """GPU-HEALTH, Xid 94 (contained ECC, effect None).

    Containment worked, so, as NVIDIA documents, running work on the GPU goes on and new
    work may start: the GPU is tainted with effect None, the pod using it MUST stay, and
    a claim asking for that GPU MUST still be allocated it.
    """
    gpus.setup(gpus=1)
    gpus.claim_pod("running", 0)
    target.wait_until(lambda: gpus.bound("running"), timeout=60, what="pod bound")
    gpus.fleet.inject(gpus.name, 0, Xid(94))
    target.wait_until(lambda: gpus.tainted(0, "gpu.garhwal.dev/xid"), timeout=30, what="gpu-0 tainted")
    (taint,) = gpus.fleet.slice_taints(gpus.name, "gpu-0")
    assert (taint["value"], taint["effect"]) == ("94", "None")
    pause(target, 5)
    assert not (gpus.pod("running") or {"metadata": {"deletionTimestamp": "gone"}})["metadata"].get("deletionTimestamp")
    gpus.target.delete("v1", "Pod", "running", gpus.ns)  # frees the GPU (not the taint)
    target.wait_until(lambda: gpus.pod("running") is None, timeout=60, what="the first pod gone")
    gpus.claim_pod("new", 0)
    target.wait_until(lambda: gpus.bound("new"), timeout=90, what="a new claim allocated the GPU")
    assert gpus.fleet.slice_taints(gpus.name, "gpu-0")[0]["effect"] == "None"


@pytest.mark.runtime_config("scheduling.k8s.io/v1beta1=true")
@pytest.mark.feature_gates(GenericWorkload=True, DRAWorkloadResourceClaims=True)
def test_xid79_under_a_pod_group_claim_evicts_the_whole_gang(target: Target, gpus: Gpus) -> None:
    """GPU-HEALTH, Xid 79 under a PodGroup-level claim (the whole gang).

    When the lost GPU is allocated to a claim reserved for a PodGroup (the pods' claim
    equals the group's), the device-taint eviction controller MUST evict every pod of the
    group, not only one, while a pod on another GPU of the node MUST stay. (With per-pod
    claims only the pod on the lost GPU goes: disruptionMode is read by preemption only.)
    """
    gpus.setup(gpus=2)
    sel = (f'device.attributes["{DRIVER}"].index == 0',)
    target.apply(make_resource_claim("shared", gpus.ns).request("gpu", gpus.cls, selectors=sel).build())
    pg = make_pod_group("gang", gpus.ns, min_count=3, disruption="all")
    pg["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "shared"}]
    target.apply(pg)
    members = ("m0", "m1", "m2")
    for m in members:
        target.apply(make_pool_pod(m, gpus.ns, cpu="100m").pod_group("gang").claim("gpu", claim="shared").build())
    gpus.claim_pod("outside", 1)
    target.wait_until(lambda: all(gpus.bound(n) for n in (*members, "outside")), timeout=90, what="pods bound")
    reserved = target.get(DRA_API, "ResourceClaim", "shared", gpus.ns)["status"]["reservedFor"]
    assert [r["resource"] for r in reserved] == ["podgroups"]
    gpus.fleet.inject(gpus.name, 0, Xid(79))
    target.wait_until(lambda: all(gpus.pod(m) is None for m in members), timeout=90,
                      what="every pod of the gang evicted")
    outside = gpus.pod("outside")
    assert outside is not None and not outside["metadata"].get("deletionTimestamp")


def test_row_remap_failure_is_no_schedule_pending_reset(target: Target, gpus: Gpus) -> None:
    """GPU-HEALTH, row-remap failure.

    A GPU whose row remapping failed is tainted NoSchedule with the value
    failed-reset-pending; a claim for it MUST stay unallocated until the reset, then
    MUST be allocated it.
    """
    gpus.setup(gpus=1)
    rb = gpus.fleet.inject(gpus.name, 0, RowRemapFailure())
    target.wait_until(lambda: gpus.tainted(0, "gpu.garhwal.dev/row-remap"), timeout=30, what="gpu-0 tainted")
    assert gpus.fleet.slice_taints(gpus.name, "gpu-0")[0]["value"] == "failed-reset-pending"
    gpus.claim_pod("p", 0)
    target.wait_until(lambda: gpus.unschedulable("p"), timeout=60, what="claim rejected")
    gpus.fleet.recover(gpus.name, rb)
    target.wait_until(lambda: gpus.bound("p"), timeout=90, what="claim allocated after the reset")


def test_rule_mode_evicts_and_reports_eviction_in_progress(target: Target, gpus: Gpus) -> None:
    """GPU-HEALTH, DeviceTaintRule publishing.

    With the agent publishing rules, an ECC Xid becomes a NoExecute DeviceTaintRule for
    that one device and the slice stays untainted: the non-tolerating pod on the Xid 48
    GPU MUST be deleted; while a pod tolerates the Xid 95 GPU's rule for an hour that
    rule's EvictionInProgress condition MUST be True (PodsPendingEviction); the pod on a
    healthy GPU MUST stay; recovery MUST delete the rule and leave the tolerating pod bound.
    """
    gpus.setup(publish="rule", gpus=3)
    gpus.claim_pod("hit", 0)
    gpus.claim_pod("pending", 1, tolerations=({**XID_NOEXEC, "tolerationSeconds": 3600},))
    gpus.claim_pod("spared", 2)
    target.wait_until(lambda: all(gpus.bound(p) for p in ("hit", "pending", "spared")), timeout=60,
                      what="three pods bound")
    gpus.fleet.inject(gpus.name, 0, Xid(48))
    rb = gpus.fleet.inject(gpus.name, 1, Xid(95))
    target.wait_until(lambda: len(gpus.fleet.rules(gpus.name)) == 2, timeout=30, what="two rules created")
    rules = {r["spec"]["deviceSelector"]["device"]: r for r in gpus.fleet.rules(gpus.name)}
    assert rules["gpu-0"]["spec"]["deviceSelector"] == {"driver": DRIVER, "pool": gpus.name, "device": "gpu-0"}
    assert {d: (r["spec"]["taint"]["value"], r["spec"]["taint"]["effect"]) for d, r in rules.items()} == {
        "gpu-0": ("48", "NoExecute"), "gpu-1": ("95", "NoExecute")}
    target.wait_until(lambda: gpus.pod("hit") is None, timeout=90, what="pod on the Xid 48 GPU deleted")
    name = rules["gpu-1"]["metadata"]["name"]

    def pending() -> Obj | None:
        return condition(target.get(DRA_API, "DeviceTaintRule", name), "EvictionInProgress")

    target.wait_until(lambda: (pending() or {}).get("status") == "True", timeout=60, what="EvictionInProgress=True")
    assert (pending() or {})["reason"] == "PodsPendingEviction"
    for p in ("pending", "spared"):
        pod = gpus.pod(p)
        assert pod is not None and not pod["metadata"].get("deletionTimestamp")
    assert gpus.fleet.slice_taints(gpus.name, "gpu-0") == []
    gpus.fleet.recover(gpus.name, rb)
    target.wait_until(lambda: len(gpus.fleet.rules(gpus.name)) == 1, timeout=30, what="gpu-1's rule deleted")
    assert gpus.bound("pending")
