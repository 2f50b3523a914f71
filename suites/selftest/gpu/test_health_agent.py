"""The health agent against garhwal's library: the fault-to-taint mapping, recovery, metrics."""

from __future__ import annotations

from types import ModuleType

import pytest

from fixtures.gpu.agent import HealthAgent
from fixtures.gpu.faults import (
    EccStorm,
    GpuFault,
    RowRemapFailure,
    ThermalSlowdown,
    Xid,
    inject_gpu_fault,
)
from fixtures.gpu.mapping import DeviceHealth, taints_for
from fixtures.gpu.metrics import AgentMetrics
from fixtures.nvml.state import GpuNode

CASES = [
    (Xid(79), [{"key": "gpu.garhwal.dev/xid", "value": "79", "effect": "NoExecute"}]),
    (Xid(48), [{"key": "gpu.garhwal.dev/xid", "value": "48", "effect": "NoExecute"}]),
    (Xid(94), [{"key": "gpu.garhwal.dev/xid", "value": "94", "effect": "None"}]),
    (Xid(95), [{"key": "gpu.garhwal.dev/xid", "value": "95", "effect": "NoExecute"}]),
    (ThermalSlowdown(), [{"key": "gpu.garhwal.dev/thermal", "value": "hw-slowdown", "effect": "NoSchedule"}]),
    (ThermalSlowdown(hardware=False), [{"key": "gpu.garhwal.dev/thermal", "value": "sw-thermal", "effect": "NoSchedule"}]),
    (RowRemapFailure(), [{"key": "gpu.garhwal.dev/row-remap", "value": "failed-reset-pending", "effect": "NoSchedule"}]),
    (EccStorm(), [{"key": "gpu.garhwal.dev/ecc-storm", "value": "sbe", "effect": "None"}]),
]


@pytest.mark.parametrize(("fault", "taints"), CASES, ids=[str(c[0]) for c in CASES])
def test_each_fault_taints_only_its_gpu_and_recovery_clears_it(
        fault: GpuFault, taints: list[dict[str, str]], nvml: ModuleType, nvml_node: GpuNode) -> None:
    agent = HealthAgent(nvml)
    agent.start()
    assert all(taints_for(h) == [] for h in agent.step(0))
    rb = inject_gpu_fault(nvml_node, nvml_node.profile.devices[5].uuid, fault)
    health = agent.step(1000)
    assert [taints_for(h) for h in health] == [[]] * 5 + [taints] + [[]] * 2
    rb.undo()
    assert all(taints_for(h) == [] for h in agent.step(0))
    agent.stop()


def test_small_ecc_counts_are_not_a_storm() -> None:
    assert taints_for(DeviceHealth(0, "u", sbe_volatile=99)) == []


def test_worst_xid_wins_and_lost_hides_the_rest() -> None:
    h = DeviceHealth(0, "u", pending_xids={94, 48}, clock_reasons=0x40)
    assert [t["value"] for t in taints_for(h)] == ["hw-slowdown", "48"]  # sorted by key
    h.lost = True
    assert taints_for(h) == [{"key": "gpu.garhwal.dev/xid", "value": "79", "effect": "NoExecute"}]


def test_an_xid_stays_until_the_gpu_is_reset(nvml: ModuleType, nvml_node: GpuNode) -> None:
    agent = HealthAgent(nvml)
    agent.start()
    uuid = nvml_node.profile.devices[0].uuid
    rb = inject_gpu_fault(nvml_node, uuid, Xid(94))
    agent.step(1000)
    for _ in range(3):
        assert taints_for(agent.step(0)[0])[0]["value"] == "94"
    rb.undo()
    assert taints_for(agent.step(0)[0]) == []
    agent.stop()


def test_metrics_use_dcgm_names(nvml: ModuleType, nvml_node: GpuNode) -> None:
    agent = HealthAgent(nvml)
    agent.start()
    inject_gpu_fault(nvml_node, nvml_node.profile.devices[1].uuid, Xid(48))
    inject_gpu_fault(nvml_node, nvml_node.profile.devices[2].uuid, Xid(79))
    agent.step(1000)
    m = AgentMetrics("node-a")
    m.update(agent, [len(taints_for(h)) for h in agent.health])
    text = m.text()
    d1 = nvml_node.profile.devices[1]
    labels = (f'Hostname="node-a",UUID="{d1.uuid}",device="nvidia1",gpu="1",modelName="NVIDIA H200",'
              f'pci_bus_id="{d1.bus_id}"')
    assert f"DCGM_FI_DEV_XID_ERRORS{{{labels}}} 48.0" in text
    assert f"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{{{labels}}} 1.0" in text
    assert f"DCGM_FI_DEV_GPU_TEMP{{{labels}}} 38.0" in text
    assert f"DCGM_FI_DEV_POWER_USAGE{{{labels}}} 92.0" in text
    assert 'DCGM_FI_DEV_XID_ERRORS{Hostname="node-a",UUID="' + nvml_node.profile.devices[2].uuid in text
    assert 'DCGM_FI_DEV_GPU_TEMP{Hostname="node-a",UUID="' + nvml_node.profile.devices[2].uuid not in text
    agent.stop()


def test_metrics_are_scraped_over_loopback_http(nvml: ModuleType, nvml_node: GpuNode) -> None:
    import urllib.request

    agent = HealthAgent(nvml)
    agent.start()
    inject_gpu_fault(nvml_node, nvml_node.profile.devices[0].uuid, ThermalSlowdown(temperature_c=95))
    agent.step(1000)
    m = AgentMetrics("node-a")
    m.update(agent, [len(taints_for(h)) for h in agent.health])
    port = m.serve(0)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        body = resp.read().decode()
    assert resp.status == 200
    lines = [x for x in body.splitlines() if x.startswith("DCGM_FI_DEV_GPU_TEMP{") and 'gpu="0"' in x]
    assert len(lines) == 1 and lines[0].endswith(" 95.0")
    assert "# TYPE DCGM_FI_DEV_CLOCKS_EVENT_REASONS gauge" in body
    m.close()
    agent.stop()
