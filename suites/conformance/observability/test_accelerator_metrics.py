"""Accelerator metrics (AI conformance ``accelerator_metrics``, a MUST).

Upstream ``TestAcceleratorPerformanceMetrics``: a Prometheus-format endpoint of the platform
has per-device utilisation and memory series, labelled by device (``gpu``, ``UUID``,
``pci_bus_id``); temperature and power are optional.

Here the accelerators are the devices a DRA kubelet plugin publishes for its node (their
``uuid``, ``productName``, ``pcieBusID`` attributes and ``memory`` capacity, as NVIDIA's
DRA driver names them), and the endpoint is whatever the platform's collector scrapes:
the test asks the collector's query API, never an exporter directly. Every published
device MUST have fresh utilisation and framebuffer series whose labels name that device
and its node, whose memory adds up to the device's published capacity, and no series may
name a device the node does not publish.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from fixtures import KUBELET_DRA_DRIVER, Capability, Target, eventually
from fixtures.targets.extensions import MetricsCollector, metrics_collector_of
from reference_impl.api.quantity import value as quantity_bytes

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.requires(Capability.KUBELET, Capability.DRA_KUBELET_PLUGIN, Capability.PROMETHEUS),
]

UTIL: Final = ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL")
MEMORY: Final = ("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE")
RESERVED: Final = "DCGM_FI_DEV_FB_RESERVED"  # dcgm reports the driver's reservation apart
SCRAPED_S: Final = 60
FRESH_S: Final = 30  # a sample older than this is a stale series, not a live endpoint
MIB: Final = 1 << 20


def _collector(target: Target) -> MetricsCollector:
    collector = metrics_collector_of(target)
    assert collector is not None, "PROMETHEUS declared without a metrics_collector"
    return collector


def _attr(device: dict[str, Any], name: str) -> Any:
    value = device.get("attributes", {}).get(name, {})
    return next(iter(value.values()), None) if value else None


def _bus(pci_id: str) -> tuple[int, int, int, int]:
    """A PCI address as numbers: NVML prints ``00000000:18:00.0``, NVIDIA's DRA driver
    ``0000:18:00.0``; the same device either way."""
    domain, bus, rest = pci_id.split(":")
    dev, fn = rest.split(".")
    return int(domain, 16), int(bus, 16), int(dev, 16), int(fn, 16)


def _published(target: Target) -> dict[str, dict[str, Any]]:
    """UUID -> the device's node, index, product, PCI address and memory (bytes)."""
    out: dict[str, dict[str, Any]] = {}
    for s in target.list("resource.k8s.io/v1", "ResourceSlice"):
        spec = s["spec"]
        if spec.get("driver") != KUBELET_DRA_DRIVER or not spec.get("nodeName"):
            continue
        for d in spec.get("devices", []):
            uuid = _attr(d, "uuid")
            assert uuid, f"device {d['name']} of {s['metadata']['name']} publishes no uuid attribute"
            memory = d.get("capacity", {}).get("memory", {}).get("value")
            out[uuid] = {
                "node": spec["nodeName"], "index": _attr(d, "index"), "product": _attr(d, "productName"),
                "bus": _attr(d, "pcieBusID"), "memory": quantity_bytes(memory) if memory else None,
            }  # fmt: skip
    return out



def _by_uuid(collector: MetricsCollector, metric: str, nodes: set[str]) -> dict[str, dict[str, Any]]:
    """The latest sample of ``metric`` per UUID on ``nodes`` (by the exporter's Hostname label)."""
    samples = collector.query(metric)
    return {s["metric"]["UUID"]: s for s in samples if s["metric"].get("Hostname") in nodes and "UUID" in s["metric"]}


def test_every_published_accelerator_has_utilisation_and_memory_series(
    target: Target, request: pytest.FixtureRequest
) -> None:
    """Each device a DRA kubelet plugin publishes MUST have fresh ``DCGM_FI_DEV_GPU_UTIL``,
    ``DCGM_FI_DEV_MEM_COPY_UTIL``, ``DCGM_FI_DEV_FB_USED`` and ``DCGM_FI_DEV_FB_FREE`` series
    in the collector, labelled with its ``UUID``, index (``gpu``), PCI address
    (``pci_bus_id``), product (``modelName``) and node (``Hostname``), found through the
    platform (the collector's ``namespace``/``pod`` labels); utilisation in 0-100 %,
    used + free (+ reserved) equal to the published memory capacity; and no series for a
    device the node does not publish."""
    request.node.user_properties.append(("ai_requirement", "accelerator_metrics"))
    collector = _collector(target)
    devices = _published(target)
    assert devices, f"DRA_KUBELET_PLUGIN declared but no {KUBELET_DRA_DRIVER} ResourceSlice lists a device"
    nodes = {d["node"] for d in devices.values()}

    def every_device() -> str:
        missing = {m: sorted(set(devices) - set(_by_uuid(collector, m, nodes))) for m in (*UTIL, *MEMORY)}
        missing = {m: u for m, u in missing.items() if u}
        return f"no series for {missing}" if missing else ""

    eventually(target, every_device, SCRAPED_S, "utilisation and memory series for every published device")

    series = {m: _by_uuid(collector, m, nodes) for m in (*UTIL, *MEMORY, RESERVED)}
    for uuid, dev in devices.items():
        for metric in (*UTIL, *MEMORY):
            sample = series[metric][uuid]
            labels = sample["metric"]
            assert labels.get("Hostname") == dev["node"], (metric, labels)
            assert labels.get("namespace") and labels.get("pod"), f"{metric} not found through the platform: {labels}"
            if dev["index"] is not None:
                assert labels.get("gpu") == str(dev["index"]), (metric, dev, labels)
            if dev["bus"]:
                assert _bus(labels["pci_bus_id"]) == _bus(dev["bus"]), (metric, dev, labels)
            if dev["product"]:
                assert labels.get("modelName") == dev["product"], (metric, dev, labels)
        for metric in UTIL:
            value = float(series[metric][uuid]["value"][1])
            assert 0 <= value <= 100, f"{metric}{{UUID={uuid}}} = {value}, not a percentage"
        used, free = (float(series[m][uuid]["value"][1]) for m in MEMORY)
        reserved = float(series[RESERVED][uuid]["value"][1]) if uuid in series[RESERVED] else 0.0
        assert used >= 0 and free >= 0, (uuid, used, free)
        if dev["memory"] is not None:
            total = dev["memory"] // MIB
            assert used + free + reserved == total, (
                f"{uuid}: FB used {used:g} + free {free:g} + reserved {reserved:g} MiB != "
                f"the {total} MiB the DRA driver publishes"
            )

    # An instant query returns any sample of the last 5 minutes: ask for the samples' age.
    ages = {s["metric"].get("UUID"): float(s["value"][1]) for s in collector.query(f"time() - timestamp({UTIL[0]})")}
    stale = {u: ages.get(u) for u in devices if ages.get(u) is None or ages[u] > FRESH_S}
    assert not stale, f"{UTIL[0]} samples older than {FRESH_S}s (seconds by UUID): {stale}"

    strangers = {u: s["metric"]["Hostname"] for m in series.values() for u, s in m.items() if u not in devices}
    assert not strangers, f"series for devices no ResourceSlice publishes: {strangers}"
    request.node.user_properties.append(("prometheus_query_url", collector.query_url))
