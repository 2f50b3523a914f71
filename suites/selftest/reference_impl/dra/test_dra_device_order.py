"""The order devices are tried in: upstream's allocator walks pools, each pool's slices in
the order listed and each slice's devices in the order published (``device-10`` comes
after ``device-9``, not after ``device-1``). The scheduler's device view keeps that order
for every node, its own devices and those reachable from all nodes merged by pool."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_device, make_device_class, make_node, make_resource_slice
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.dra import gather_pools
from reference_impl.scheduler.plugins.dynamic_resources import DynamicResources

Obj = dict[str, Any]
DRIVER = "gpu.test"


def _slice(name: str, pool: str, *devices: str, count: int = 1) -> Obj:
    return {"metadata": {"name": name}, "spec": {
        "driver": DRIVER, "nodeName": "n0", "devices": [{"name": d} for d in devices],
        "pool": {"name": pool, "generation": 1, "resourceSliceCount": count}}}


def test_a_pools_devices_keep_slice_then_listed_order() -> None:
    pools, incomplete = gather_pools([
        _slice("b", "p", "device-10", "device-9", count=2),
        _slice("a", "p", "device-2", "device-1", count=2),
    ])
    assert not incomplete
    assert [d.id[2] for d in pools[0].devices] == ["device-10", "device-9", "device-2", "device-1"]


def test_more_slices_than_the_pool_counts_leave_it_incomplete() -> None:
    pools, incomplete = gather_pools([_slice("a", "p", "d0"), _slice("b", "p", "d1")])
    assert not pools and incomplete == [f"{DRIVER}/p"]


def test_the_schedulers_view_merges_node_and_global_devices_in_pool_order() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    c.api.create(make_device_class("gpu").selector(f'device.driver == "{DRIVER}"').build())
    c.api.create(make_node("n0").capacity(cpu="4").build())
    c.api.create(make_resource_slice("s-b", DRIVER, "b-local", "n0")
                 .device(make_device("d11")).device(make_device("d2")).build())
    c.api.create(make_resource_slice("s-a", DRIVER, "a-global").all_nodes().device(make_device("g0")).build())
    c.api.create(make_resource_slice("s-c", DRIVER, "c-global").all_nodes().device(make_device("g1")).build())
    c.settle()
    tracker = next(p for p in c.scheduler.framework.plugins if isinstance(p, DynamicResources)).tracker
    seen = tracker.devices_for("n0")
    assert [d.id[1:] for d in seen] == [("a-global", "g0"), ("b-local", "d11"), ("b-local", "d2"),
                                        ("c-global", "g1")]
    assert tracker.devices_for("n0") is seen  # built once per rebuild, not per attempt
    assert [d.id[2] for d in tracker.devices_for("other")] == ["g0", "g1"]
