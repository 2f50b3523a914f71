"""The GPU health agent's DCGM-named ``/metrics``, scraped over loopback HTTP on both
targets (in process on the reference, the agent process beside a live cluster).

Marked ``model``: it proves the Python agent's exporter beside KWOK nodes, which no
platform runs, so it is never evidence for ``accelerator_metrics``; the real nodes' exporter
DaemonSet is (suites/conformance/observability/test_accelerator_metrics.py).
"""

from __future__ import annotations

import pytest

from fixtures.gpu.faults import Xid
from fixtures.nvml.state import NodeState
from fixtures.plugin.gpu_fleet import GpuFleet
from fixtures.targets.base import Target
from reference_impl.api import DRA_API

pytestmark = pytest.mark.model
MIB = 1 << 20


def test_per_gpu_series_follow_nvml_and_the_slice(target: Target, gpu_fleet: GpuFleet, namespace: str) -> None:
    """Agent metrics.

    Every GPU the node's ResourceSlice publishes has utilisation, framebuffer, temperature
    and Xid series labelled with its index, UUID and PCI bus id; a change in the NVML state
    (a workload's utilisation and memory, a hotter GPU) shows in the next scrape, and after
    Xid 79 the lost GPU reports only its Xid.
    """
    node = f"gpu-metrics-{namespace}"[:63]
    gpus = gpu_fleet.add_node(node, gpus=2, metrics=True)

    def scrape() -> dict[tuple[str, str], dict[str, object]]:
        return gpu_fleet.scrape_metrics(node)
    slice_ = next(s for s in target.list(DRA_API, "ResourceSlice") if s["spec"].get("nodeName") == node)
    devices = {str(d["attributes"]["index"]["int"]): d["attributes"] for d in slice_["spec"]["devices"]}
    assert sorted(devices) == ["0", "1"]
    first = scrape()
    for gpu, attrs in devices.items():
        for name in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_XID_ERRORS"):
            series = first[(name, gpu)]
            assert series["UUID"] == attrs["uuid"]["string"] and series["Hostname"] == node
            assert series["pci_bus_id"].lower().endswith(attrs["resource.kubernetes.io/pciBusID"]["string"])
    assert first[("DCGM_FI_DEV_XID_ERRORS", "0")]["value"] == 0

    def busy(state: NodeState) -> None:
        state.devices[1].update(util_gpu=73, util_mem=41, memory_used=10 * 1024 * MIB, temp=61)

    gpus.update(busy)
    gpu_fleet.pump(node)

    def follows() -> bool:
        now = scrape()
        return (now[("DCGM_FI_DEV_GPU_UTIL", "1")]["value"], now[("DCGM_FI_DEV_GPU_TEMP", "1")]["value"]) == (73, 61)

    target.wait_until(follows, timeout=30, what="gpu 1's utilisation and temperature in the metrics")
    now = scrape()
    reserved = first[("DCGM_FI_DEV_FB_USED", "1")]["value"]  # the driver's reservation counts as used
    assert now[("DCGM_FI_DEV_FB_USED", "1")]["value"] == reserved + 10 * 1024
    assert now[("DCGM_FI_DEV_MEM_COPY_UTIL", "1")]["value"] == 41
    assert now[("DCGM_FI_DEV_GPU_UTIL", "0")]["value"] == first[("DCGM_FI_DEV_GPU_UTIL", "0")]["value"]

    gpu_fleet.inject(node, 0, Xid(79))
    target.wait_until(lambda: scrape()[("DCGM_FI_DEV_XID_ERRORS", "0")]["value"] == 79, timeout=30,
                      what="Xid 79 in the metrics")
    lost = {name for name, gpu in scrape() if gpu == "0"}
    assert lost == {"DCGM_FI_DEV_XID_ERRORS"}, lost  # dcgm-exporter stops reporting what it cannot read
