"""DRA-REQUEUE: the queue's event-to-pods index, and smoke runs of the DRA benchmarks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.dra import requeue_cost, scheduler_perf
from reference_impl.api import (
    make_device,
    make_device_class,
    make_node,
    make_pod,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.scheduler.framework.interface import ActionType, ClusterEvent, EventResource
from reference_impl.scheduler.framework.queue_index import UnschedulablePool
from reference_impl.scheduler.framework.types import PodInfo, QueuedPodInfo

NS = "default"


def _cls(cluster: Cluster, name: str, driver: str) -> None:
    cluster.api.create(make_device_class(name).selector(f'device.driver == "{driver}"').build())


def _slice(cluster: Cluster, node: str, driver: str, gpus: int = 2) -> None:
    b = make_resource_slice(f"{driver.split('.')[0]}-{node}", driver, node, node)
    for i in range(gpus):
        b.device(make_device(f"gpu-{i}"))
    cluster.api.create(b.build())


def _parked(n_a: int, n_b: int) -> Cluster:
    """``n_a`` pods waiting on class a (driver A) and ``n_b`` on class b (driver B)."""
    cluster = Cluster(config=ClusterConfig(nodes=1))
    _cls(cluster, "a", "a.test")
    _cls(cluster, "b", "b.test")
    for cls, n in (("a", n_a), ("b", n_b)):
        cluster.api.create(make_resource_claim(f"wants-{cls}", NS).request("gpu", cls).build())
        for i in range(n):
            cluster.api.create(
                make_pod(f"{cls}-{i}", NS).claim("gpu", claim=f"wants-{cls}").build()
            )
    queue = cluster.scheduler.queue
    assert cluster.run_until(lambda: queue.counts()["unschedulable"] == n_a + n_b, timeout=60)
    return cluster


def test_slice_event_examines_only_pods_of_matching_classes() -> None:
    cluster = _parked(n_a=30, n_b=3)
    queue = cluster.scheduler.queue
    before = queue.examined_total
    _slice(cluster, "kwok-node-0", "b.test")
    assert queue.examined_total - before == 3  # the 30 class-a pods are never looked at
    assert queue.counts()["unschedulable"] == 30
    _slice(cluster, "kwok-node-0", "a.test")
    assert queue.last_examined == 30
    assert queue.counts()["unschedulable"] == 0


def test_node_add_without_devices_examines_no_dra_pod() -> None:
    cluster = _parked(n_a=20, n_b=0)
    queue = cluster.scheduler.queue
    cluster.api.create(make_node("fresh").capacity(cpu="8", memory="8Gi", pods="110").build())
    assert queue.last_examined == 0
    assert queue.counts()["unschedulable"] == 20


def test_class_event_examines_only_pods_waiting_for_that_class() -> None:
    cluster = Cluster(config=ClusterConfig(nodes=1))
    _slice(cluster, "kwok-node-0", "a.test")
    cluster.api.create(make_resource_claim("wants-x", NS).request("gpu", "x").build())
    cluster.api.create(make_resource_claim("wants-y", NS).request("gpu", "y").build())
    for i in range(5):
        cluster.api.create(make_pod(f"x-{i}", NS).claim("gpu", claim="wants-x").build())
    cluster.api.create(make_pod("y-0", NS).claim("gpu", claim="wants-y").build())
    queue = cluster.scheduler.queue
    assert cluster.run_until(lambda: queue.counts()["unschedulable"] == 6, timeout=60)
    _cls(cluster, "y", "a.test")
    assert queue.last_examined == 1
    assert cluster.run_until(
        lambda: bool(cluster.get("v1", "Pod", "y-0", NS)["spec"].get("nodeName")), timeout=60
    )


class _ByColour:
    def pod_index_keys(self, pod: dict[str, Any]) -> list[str] | None:
        colour = pod["metadata"].get("labels", {}).get("colour")
        return None if colour is None else [colour]

    def event_index_keys(self, event: ClusterEvent, old: Any, new: Any) -> list[str] | None:
        return None if new is None else [new["colour"]]


def _pinfo(name: str, colour: str | None, plugin: str = "P") -> QueuedPodInfo:
    labels = {} if colour is None else {"colour": colour}
    pod = {"metadata": {"name": name, "namespace": NS, "labels": labels}, "spec": {}}
    p = QueuedPodInfo(PodInfo(pod), 0, seq=0)  # type: ignore[arg-type]
    p.unschedulable_plugins = {plugin}
    return p


def test_pool_index_candidates_and_removal() -> None:
    pool = UnschedulablePool()
    pool.register_index("P", _ByColour())
    for i in range(10):
        pool[f"{NS}/red-{i}"] = _pinfo(f"red-{i}", "red")
    pool[f"{NS}/blue"] = _pinfo("blue", "blue")
    pool[f"{NS}/plain"] = _pinfo("plain", None)  # not indexable: always a candidate
    pool[f"{NS}/other"] = _pinfo("other", "blue", plugin="Q")
    ev = ClusterEvent(EventResource.NODE, ActionType.ADD)
    got = pool.candidates(ev, None, {"colour": "blue"}, frozenset({"P"}))
    assert got == {f"{NS}/blue", f"{NS}/plain"}
    assert len(pool.candidates(ev, None, None, frozenset({"P"}))) == 12  # no keys: all of P
    assert pool.candidates(ev, None, {"colour": "x"}, frozenset({"Q"})) == {f"{NS}/other"}
    del pool[f"{NS}/blue"]
    assert pool.candidates(ev, None, {"colour": "blue"}, frozenset({"P"})) == {f"{NS}/plain"}
    assert len(pool) == 12


def test_benchmarks_run_at_a_tiny_size(tmp_path: Path) -> None:
    argv = ["--nodes", "3", "--pods", "6", "--init-claims", "4", "--out", str(tmp_path)]
    assert scheduler_perf.main(argv) == 0  # garhwal bench, placement checked
    (perf,) = json.loads((tmp_path / "results-bench.json").read_text())["results"]
    assert perf["measured_pods"] == 6 and perf["placement_ok"] and perf["pods_per_s"] > 0
    cost = requeue_cost.main(["--sizes", "5,20", "--events", "3"], out_dir=tmp_path)
    assert cost["sizes"]["20"]["pending"] == 20
    assert cost["sizes"]["20"]["max_examined_per_event"] == 0
    data = json.loads((tmp_path / "results-requeue_cost.json").read_text())
    assert {"name", "unit", "value", "threshold", "peak_rss_mb"} <= set(data)
