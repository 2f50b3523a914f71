"""The node lifecycle controller's NoSchedule pass (one taint per adverse condition) and
the startup grace of a node that never posted status."""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_node
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.kubelet.config import KubeletConfig, ManagedNodes

PRESSURE = {
    "MemoryPressure": "node.kubernetes.io/memory-pressure",
    "DiskPressure": "node.kubernetes.io/disk-pressure",
    "PIDPressure": "node.kubernetes.io/pid-pressure",
    "NetworkUnavailable": "node.kubernetes.io/network-unavailable",
}


def _cluster() -> Cluster:
    kubelet = KubeletConfig(managed_nodes=ManagedNodes.KWOK)
    return Cluster(config=ClusterConfig(nodes=0, kubelet=kubelet))


def _unmanaged(name: str) -> dict[str, Any]:
    """A Node no fake kubelet runs (no ``type: kwok``): its conditions stay as written."""
    node = make_node(name).build()
    del node["metadata"]["labels"]["type"]
    return node


def _taints(c: Cluster, name: str) -> set[tuple[str, str]]:
    node = c.get("v1", "Node", name)
    return {(t["key"], t["effect"]) for t in node["spec"].get("taints") or ()}


def test_each_pressure_condition_gets_its_no_schedule_taint_and_loses_it() -> None:
    c = _cluster()
    node = _unmanaged("pressed")
    node["status"]["conditions"] += [{"type": t, "status": "True"} for t in PRESSURE]
    c.create(node)
    c.advance(1)
    assert _taints(c, "pressed") == {(k, "NoSchedule") for k in PRESSURE.values()}
    stored = c.get("v1", "Node", "pressed")
    for cond in stored["status"]["conditions"]:
        if cond["type"] in PRESSURE:
            cond["status"] = "False"
    c.api.update_status(stored)
    c.advance(1)
    assert _taints(c, "pressed") == set()


def test_a_node_reporting_not_ready_keeps_the_not_ready_taints() -> None:
    c = _cluster()
    c.create(_unmanaged("healthy"))  # a Ready peer: no full disruption of the zone
    node = _unmanaged("sick")
    node["status"]["conditions"][0].update(status="False", reason="KubeletNotReady")
    c.create(node)
    c.advance(5)  # NoExecute comes from monitorNodeHealth, on its 5 s period
    assert _taints(c, "sick") == {
        ("node.kubernetes.io/not-ready", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "NoExecute"),
    }


def test_a_node_that_never_posted_ready_is_unreachable_after_the_startup_grace() -> None:
    c = _cluster()
    c.create(make_node("healthy").build())  # a heartbeating peer: no full disruption
    node = _unmanaged("silent")
    node["status"]["conditions"] = []
    c.create(node)
    c.advance(1)
    assert _taints(c, "silent") == set()  # not-ready:NoSchedule goes with no Ready=False
    c.advance(58)  # 59 s: inside --node-startup-grace-period (60 s)
    assert _taints(c, "silent") == set()
    c.advance(10)  # the first monitor tick past it
    ready = next(x for x in c.get("v1", "Node", "silent")["status"]["conditions"]
                 if x["type"] == "Ready")  # fmt: skip
    assert (ready["status"], ready["reason"]) == ("Unknown", "NodeStatusNeverUpdated")
    assert _taints(c, "silent") == {
        ("node.kubernetes.io/unreachable", "NoSchedule"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
    }
    assert _taints(c, "healthy") == set()
