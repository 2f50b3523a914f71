"""VolumeBinding plugin rows with static PersistentVolumes, ported from upstream
pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go (v1.37.2):
TestVolumeBinding ("bound and unbound unsatisfied", the local and zonal "volumes with
close capacity are preferred" rows, "storage capacity score with static binds"). The
dynamic-provisioning rows are in test_upstream_volumebinding.py.

PreFilter, Filter on every node, PreScore and Score as upstream's test runs them;
upstream's state-after-PreFilter comparisons are internal and not ported.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import volume_binding as vb
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    code_reasons,
    make_pod,
    node,
    snapshot,
)

Obj = dict[str, Any]
OKS, SKIP = ("SUCCESS", ()), ("SKIP", ())
UU = "UNSCHEDULABLE_AND_UNRESOLVABLE"
NO_MATCH = (UU, (vb.BIND_CONFLICT,))
CAP_SC, CAP_DRIVER = "wait-sc-with-storage-capacity", "driver-with-storage-capacity"
HOST, REGION, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/region", "topology.kubernetes.io/zone"
BASE: list[Obj] = [
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "immediate-sc"},
     "volumeBindingMode": "Immediate"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wait-sc"},
     "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "wait-hdd-sc"},
     "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": CAP_SC},
     "provisioner": CAP_DRIVER, "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": CAP_DRIVER},
     "spec": {"storageCapacity": True}},
]


def pod(*claims: str) -> Obj:
    w = make_pod("pod-a").ns("default")
    w.p["spec"]["volumes"] = [{"name": "", "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return w.obj()


def pvc(name: str, sc: str, storage: str = "", bound: str = "") -> Obj:
    """``makePVC(name, sc)`` with ``withRequestStorage`` / ``withBoundPV``."""
    o: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
              "spec": {"storageClassName": sc}}
    if storage:
        o["spec"]["resources"] = {"requests": {"storage": storage}}
    if bound:
        o["spec"]["volumeName"] = bound
        o["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "true"}
    return o


def pv(name: str, sc: str, affinity: dict[str, list[str]], capacity: str = "") -> Obj:
    """``makePV(name, sc).withPhase(Available)[.withCapacity].withNodeAffinity(affinity)``."""
    exprs = [{"key": k, "operator": "In", "values": v} for k, v in affinity.items()]
    o: Obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
              "spec": {"storageClassName": sc, "nodeAffinity": {"required": {"nodeSelectorTerms": [
                  {"matchExpressions": exprs}]}}},
              "status": {"phase": "Available"}}
    if capacity:
        o["spec"]["capacity"] = {"storage": capacity}
    return o


def host_node(name: str, **labels: str) -> Obj:
    """``makeNode(name)``: labelled with its hostname."""
    return node(name, {HOST: name, **labels})


def local_pvs() -> list[Obj]:
    return [pv("pv-a-0", "wait-sc", {HOST: ["node-a"]}, "200Gi"), pv("pv-a-1", "wait-sc", {HOST: ["node-a"]}, "200Gi"),
            pv("pv-b-0", "wait-sc", {HOST: ["node-b"]}, "100Gi"), pv("pv-b-1", "wait-sc", {HOST: ["node-b"]}, "100Gi")]


def zone_nodes() -> list[Obj]:
    return [host_node(f"zone-{z}-node-{n}", **{REGION: f"region-{z}", ZONE: f"zone-{z}"})
            for z in "abc" for n in "ab"]


def zone_pvs() -> list[Obj]:
    return [pv(f"pv-{z}-{i}", "wait-sc", {REGION: [f"region-{z}"], ZONE: [f"zone-{z}"]}, size)
            for z, size in (("a", "200Gi"), ("b", "100Gi")) for i in range(2)]


def capacity(name: str, capacity_: str) -> Obj:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
            "metadata": {"name": name, "namespace": "default"}, "storageClassName": CAP_SC,
            "nodeTopology": {"matchLabels": {"nodeKey": name}}, "capacity": capacity_}


ABC = [host_node("node-a"), host_node("node-b"), host_node("node-c")]
SHAPE = pytest.mark.skip(reason="VolumeBindingArgs.shape is not configurable in the reference")

# (name, pod, nodes, objects, scoring gate, Filter per node, PreScore, scores)
ROWS: list[Any] = [
    ("bound and unbound unsatisfied", pod("pvc-a", "pvc-b"), [host_node("node-a", foo="barbar")],
     [pvc("pvc-a", "wait-sc", bound="pv-a"), pvc("pvc-b", "wait-sc"), pv("pv-a", "wait-sc", {"foo": ["bar"]})], False,
     [(UU, (vb.NODE_CONFLICT, vb.BIND_CONFLICT))], SKIP, None),
    ("local volumes with close capacity are preferred", pod("pvc-a"), ABC,
     [pvc("pvc-a", "wait-sc", "50Gi"), *local_pvs()], True, [OKS, OKS, NO_MATCH], OKS, [75, 50, 0]),
    ("local volumes with close capacity are preferred (StorageCapacityScoring disabled)", pod("pvc-a"), ABC,
     [pvc("pvc-a", "wait-sc", "50Gi"), *local_pvs()], False, [OKS, OKS, NO_MATCH], SKIP, None),
    ("local volumes with close capacity are preferred (multiple pvcs)", pod("pvc-0", "pvc-1"), ABC,
     [pvc("pvc-0", "wait-sc", "50Gi"), pvc("pvc-1", "wait-hdd-sc", "100Gi"),
      pv("pv-a-0", "wait-sc", {HOST: ["node-a"]}, "200Gi"), pv("pv-a-1", "wait-sc", {HOST: ["node-a"]}, "200Gi"),
      pv("pv-a-2", "wait-hdd-sc", {HOST: ["node-a"]}, "200Gi"), pv("pv-a-3", "wait-hdd-sc", {HOST: ["node-a"]}, "200Gi"),
      pv("pv-b-0", "wait-sc", {HOST: ["node-b"]}, "100Gi"), pv("pv-b-1", "wait-sc", {HOST: ["node-b"]}, "100Gi"),
      pv("pv-b-2", "wait-hdd-sc", {HOST: ["node-b"]}, "100Gi"),
      pv("pv-b-3", "wait-hdd-sc", {HOST: ["node-b"]}, "100Gi")], True, [OKS, OKS, NO_MATCH], OKS, [63, 25, 0]),
    ("zonal volumes with close capacity are preferred", pod("pvc-a"), zone_nodes(),
     [pvc("pvc-a", "wait-sc", "50Gi"), *zone_pvs()], True, [OKS] * 4 + [NO_MATCH] * 2, OKS, [75, 75, 50, 50, 0, 0]),
    ("zonal volumes with close capacity are preferred (StorageCapacityScoring disabled)", pod("pvc-a"), zone_nodes(),
     [pvc("pvc-a", "wait-sc", "50Gi"), *zone_pvs()], False, [OKS] * 4 + [NO_MATCH] * 2, SKIP, None),
    pytest.param(pod("pvc-a"), zone_nodes(), [pvc("pvc-a", "wait-sc", "50Gi"), *zone_pvs()], True,
                 [OKS] * 4 + [NO_MATCH] * 2, OKS, [15, 15, 30, 30, 0, 0],
                 id="zonal volumes with close capacity are preferred (custom shape)", marks=SHAPE),
    ("storage capacity score with static binds", pod("pvc-dynamic", "pvc-static"),
     [host_node(n, nodeKey=n) for n in ("node-a", "node-b", "node-c")],
     [pvc("pvc-dynamic", CAP_SC, "10Gi"), pvc("pvc-static", "wait-sc", "50Gi"),
      *(pv(f"pv-static-{x}", "wait-sc", {HOST: [f"node-{x}"]}, "100Gi") for x in "abc"),
      capacity("node-a", "100Gi"), capacity("node-b", "50Gi"), capacity("node-c", "10Gi")], True,
     [OKS, OKS, OKS], OKS, [50, 50, 50]),
]


@pytest.mark.parametrize(("pod_", "ns", "objs", "scoring", "want_filter", "want_prescore", "want_scores"),
                         [pytest.param(*r[1:], id=r[0]) if type(r) is tuple else r for r in ROWS])
def test_volume_binding_static(pod_: Obj, ns: list[Obj], objs: list[Obj], scoring: bool, want_filter: Any,
                               want_prescore: Any, want_scores: Any) -> None:
    h = snapshot([], ns, [*BASE, *objs], gates={"StorageCapacityScoring": scoring})
    pl = vb.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, vb.VolumeBinding)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod_, [])
    assert code_reasons(pre) == OKS
    infos = [h.node_info(n["metadata"]["name"]) for n in ns]
    assert [code_reasons(pl.filter(state, pod_, ni)) for ni in infos] == want_filter
    st = pl.pre_score(state, pod_, infos)
    assert code_reasons(st) == want_prescore
    if st.is_success():
        assert [pl.score(state, pod_, ni)[0] for ni in infos] == want_scores
