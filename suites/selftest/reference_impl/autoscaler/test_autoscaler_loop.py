"""Scenario tests of the cluster autoscaler loop on a reference Cluster."""

from __future__ import annotations

from typing import Any

from reference_impl.api import (
    make_autoscaler_config,
    make_bound_pvc,
    make_configmap,
    make_csi_pv,
    make_csinode,
    make_node_group,
    make_pod,
    make_pvc,
    make_storage_class,
)
from reference_impl.cluster import Cluster, ClusterConfig

D = "t.csi.example.com"
NS = "default"


def _cluster(gates: dict[str, bool] | None = None) -> Cluster:
    c = Cluster(gates, config=ClusterConfig(nodes=1))
    c.create(make_csinode("kwok-node-0", {D: 1}))
    return c


def _volume_pod(c: Cluster, name: str) -> None:
    c.create(make_csi_pv(f"pv-{name}", D))
    c.create(make_bound_pvc(name, NS, f"pv-{name}"))
    pod = make_pod(name, NS).build()
    pod["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": name}}]
    c.create(pod)


def _nodes(c: Cluster) -> list[str]:
    return sorted(n["metadata"]["name"] for n in c.list("v1", "Node"))


def _ca_trace(c: Cluster) -> list[tuple[int, str, str]]:
    return [
        (int(r.instant), r.event, r.object)
        for r in c.trace.records
        if r.component == "cluster-autoscaler"
    ]


def _scenario(gates: dict[str, bool] | None = None) -> Cluster:
    c = _cluster(gates)
    _volume_pod(c, "a")
    _volume_pod(c, "b")
    c.advance(2)
    c.create(make_autoscaler_config([make_node_group("grp", max_size=2, csi_drivers={D: 4})]))
    c.advance(30)
    return c


def test_without_the_configmap_the_autoscaler_does_nothing() -> None:
    c = _cluster()
    _volume_pod(c, "a")
    _volume_pod(c, "b")
    c.advance(60)
    assert _nodes(c) == ["kwok-node-0"]
    assert c.autoscaler.config is None
    assert _ca_trace(c) == []


def test_scale_up_creates_the_node_and_its_csinode_and_is_deterministic() -> None:
    c = _scenario()
    assert _nodes(c) == ["grp-1", "kwok-node-0"]
    csn = c.get("storage.k8s.io/v1", "CSINode", "grp-1")
    assert csn["spec"]["drivers"][0]["allocatable"] == {"count": 4}
    assert c.get("v1", "Pod", "b", NS)["spec"]["nodeName"] == "grp-1"
    assert _ca_trace(c) == _ca_trace(_scenario())


def test_gate_off_no_node_is_added() -> None:
    c = _scenario({"VolumeLimitScaling": False})
    assert _nodes(c) == ["kwok-node-0"]
    assert not c.get("v1", "Pod", "b", NS)["spec"].get("nodeName")


def test_an_unbound_claim_counts_against_the_provisioners_limit() -> None:
    c = _cluster()
    _volume_pod(c, "a")
    c.create(make_storage_class("sc", D))
    c.create(make_pvc("b", NS, "sc", "1Gi"))
    pod = make_pod("b", NS).build()
    pod["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": "b"}}]
    c.create(pod)
    c.create(make_autoscaler_config([make_node_group("grp", csi_drivers={D: 4})]))
    c.advance(30)
    assert c.get("v1", "Pod", "b", NS)["spec"]["nodeName"] == "grp-1"


def test_volumes_of_a_driver_without_attach_required_do_not_count() -> None:
    c = _cluster()
    c.create(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": D},
            "spec": {"attachRequired": False},
        }
    )
    _volume_pod(c, "a")
    _volume_pod(c, "b")
    c.advance(5)
    assert c.get("v1", "Pod", "b", NS)["spec"]["nodeName"] == "kwok-node-0"


def _pending_cpu_pods(c: Cluster, n: int, cpu: str = "40") -> None:
    for i in range(n):
        pod: dict[str, Any] = make_pod(f"big-{i}", NS).build()
        pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
        c.create(pod)


def test_expanders_priority_price_and_least_waste() -> None:
    groups = [
        make_node_group("huge", capacity={"cpu": "128", "memory": "512Gi"}, priority=1, price=9),
        make_node_group("snug", capacity={"cpu": "48", "memory": "64Gi"}, priority=5, price=4),
        make_node_group("cheap", capacity={"cpu": "64", "memory": "256Gi"}, price=2),
    ]
    for expander, want in (("priority", "snug-1"), ("price", "cheap-1"), ("least-waste", "snug-1")):
        c = _cluster()
        _pending_cpu_pods(c, 1)
        c.create(make_autoscaler_config(groups, expander=expander))
        c.advance(20)
        assert c.get("v1", "Pod", "big-0", NS)["spec"]["nodeName"] == want, expander


def test_pods_pack_onto_one_planned_node_before_another_is_added() -> None:
    c = _cluster()
    _pending_cpu_pods(c, 3, cpu="40")
    c.create(
        make_autoscaler_config([make_node_group("g", capacity={"cpu": "100", "memory": "1Ti"})])
    )
    c.advance(30)
    assert _nodes(c) == ["g-1", "g-2", "kwok-node-0"]


def test_an_invalid_config_keeps_it_idle_and_deleting_the_configmap_stops_it() -> None:
    c = _cluster()
    c.create(
        make_configmap(
            "garhwal-cluster-autoscaler", "kube-system", **{"config.yaml": "expander: x"}
        ).build()
    )
    assert c.autoscaler.config is None
    assert "expander" in c.autoscaler.config_error
    c.apply(make_autoscaler_config([make_node_group("g")]))
    assert c.autoscaler.config is not None
    c.delete("v1", "ConfigMap", "garhwal-cluster-autoscaler", "kube-system")
    _pending_cpu_pods(c, 1)
    c.advance(60)
    assert _nodes(c) == ["kwok-node-0"]
